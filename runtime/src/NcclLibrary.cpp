//===- NcclLibrary.cpp - find and open libnccl ---------------- -*- C++ -*-===//
//
// The search for libnccl.so.2 (environment override, the loader, the PyPI
// wheel layout), dlopen/dlsym of the table in NcclLibrary.h, and the text of
// NCCL errors.
//
//===----------------------------------------------------------------------===//

#include "NcclLibrary.h"

#include "RuntimeInternal.h"

#include <cstdlib>
#include <dlfcn.h>
#include <glob.h>
#include <mutex>

namespace mxfp8rt {
namespace nccl {

/// Every existing match of `pattern` (glob(3)), sorted.
static void appendMatches(const std::string &pattern,
                          std::vector<std::string> &out) {
  glob_t matches;
  if (glob(pattern.c_str(), 0, nullptr, &matches) == 0)
    for (size_t i = 0; i < matches.gl_pathc; ++i)
      out.emplace_back(matches.gl_pathv[i]);
  globfree(&matches);
}

std::vector<std::string> getSearchPath() {
  if (const char *path = std::getenv("MXFP8RT_NCCL_LIBRARY"); path && *path)
    return {path};
  std::vector<std::string> candidates = {"libnccl.so.2"};
  // The nvidia-nccl-cu* wheel that torch's pip install brings.
  const std::string wheel = "nvidia/nccl/lib/libnccl.so.2";
  std::vector<std::string> sitePackages;
  for (const char *prefixVar : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char *prefix = std::getenv(prefixVar); prefix && *prefix)
      sitePackages.push_back(std::string(prefix) +
                             "/lib/python3*/site-packages/");
  if (const char *pythonPath = std::getenv("PYTHONPATH")) {
    std::string paths = pythonPath;
    for (size_t start = 0; start <= paths.size();) {
      size_t end = paths.find(':', start);
      if (end == std::string::npos)
        end = paths.size();
      if (end > start)
        sitePackages.push_back(paths.substr(start, end - start) + "/");
      start = end + 1;
    }
  }
  if (const char *home = std::getenv("HOME"); home && *home)
    sitePackages.push_back(std::string(home) +
                           "/.local/lib/python3*/site-packages/");
  sitePackages.push_back("/usr/local/lib/python3*/dist-packages/");
  sitePackages.push_back("/usr/local/lib/python3*/site-packages/");
  sitePackages.push_back("/usr/lib/python3/dist-packages/");
  for (const std::string &dir : sitePackages)
    appendMatches(dir + wheel, candidates);
  return candidates;
}

mxfp8rtStatus loadLibrary(const std::vector<std::string> &candidates,
                          Library &library, std::string &message) {
  std::string tried;
  for (const std::string &path : candidates) {
    dlerror();
    // RTLD_LOCAL: NCCL's symbols must not satisfy anyone else's lookups.
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *error = dlerror();
      tried += "\n  " + path + ": " + (error ? error : "cannot be opened");
      continue;
    }
    Library found;
    found.path = path;
    std::string missing;
#define MXFP8RT_NCCL_RESOLVE(symbol, ret, params)                              \
  found.symbol = reinterpret_cast<ret(*) params>(dlsym(handle, #symbol));      \
  if (!found.symbol)                                                           \
    missing += std::string(missing.empty() ? "" : ", ") + #symbol;
    MXFP8RT_NCCL_FUNCTIONS(MXFP8RT_NCCL_RESOLVE)
#undef MXFP8RT_NCCL_RESOLVE
    if (!missing.empty()) {
      tried += "\n  " + path + ": lacks " + missing;
      dlclose(handle);
      continue;
    }
    library = found;
    return MXFP8RT_SUCCESS;
  }
  message = "no usable NCCL library (set MXFP8RT_NCCL_LIBRARY to "
            "libnccl.so.2, or install the nvidia-nccl wheel); tried:" +
            tried;
  return MXFP8RT_UNAVAILABLE;
}

const Library *getLibrary() {
  static std::mutex mutex;
  static Library library;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded)
    return &library;
  std::string message;
  if (loadLibrary(getSearchPath(), library, message) != MXFP8RT_SUCCESS) {
    recordError(MXFP8RT_UNAVAILABLE, message);
    return nullptr;
  }
  loaded = true;
  return &library;
}

mxfp8rtStatus recordNcclError(const Library &library, ncclResult_t result,
                              const char *call) {
  const char *text = library.ncclGetErrorString(result);
  return recordError(MXFP8RT_CUDA_ERROR,
                     std::string(call) +
                         " failed: " + (text ? text : "unknown NCCL error") +
                         " (ncclResult_t " + std::to_string(result) + ")");
}

} // namespace nccl
} // namespace mxfp8rt
