//===- NcclLibrary.cpp - find and open libnccl ---------------- -*- C++ -*-===//
//
// The search for libnccl.so.2 (environment override, the loader, the PyPI
// wheel layout), dlopen/dlsym of the table in NcclLibrary.h, and the text of
// NCCL errors.
//
//===----------------------------------------------------------------------===//

#include "NcclLibrary.h"

#include "RuntimeInternal.h"

#include <algorithm>
#include <atomic>
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

/// The entries of the ':'-separated list in environment variable `name`.
static std::vector<std::string> splitEnvList(const char *name) {
  std::vector<std::string> entries;
  const char *value = std::getenv(name);
  if (!value)
    return entries;
  std::string list = value;
  for (size_t start = 0; start <= list.size();) {
    size_t end = list.find(':', start);
    if (end == std::string::npos)
      end = list.size();
    if (end > start)
      entries.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return entries;
}

std::vector<std::string> getSearchPath() {
  if (const char *path = std::getenv("MXFP8RT_NCCL_LIBRARY"); path && *path)
    return {path};
  std::vector<std::string> candidates = {"libnccl.so.2"};
  // The site-packages folders of the Python environments in sight: the
  // active virtual or conda environment, $PYTHONPATH, the prefix of each
  // bin folder on $PATH (a venv's python3 need not be activated), the
  // user's and the system's.
  std::vector<std::string> sitePackages;
  std::vector<std::string> prefixes;
  for (const char *prefixVar : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char *prefix = std::getenv(prefixVar); prefix && *prefix)
      prefixes.emplace_back(prefix);
  for (const std::string &bin : splitEnvList("PATH"))
    if (bin.size() > 4 && bin.compare(bin.size() - 4, 4, "/bin") == 0 &&
        bin != "/usr/bin" && bin != "/bin")
      prefixes.push_back(bin.substr(0, bin.size() - 4));
  if (const char *home = std::getenv("HOME"); home && *home)
    prefixes.push_back(std::string(home) + "/.local");
  prefixes.emplace_back("/usr/local");
  for (const std::string &prefix : prefixes) {
    sitePackages.push_back(prefix + "/lib/python3*/site-packages/");
    sitePackages.push_back(prefix + "/lib/python3*/dist-packages/");
  }
  for (const std::string &entry : splitEnvList("PYTHONPATH"))
    sitePackages.push_back(entry + "/");
  sitePackages.emplace_back("/usr/lib/python3/dist-packages/");
  // The nvidia-nccl-cu* wheel that torch's pip install brings: the
  // classic layout, and the per-CUDA-major one of newer wheels.
  for (const std::string &dir : sitePackages) {
    appendMatches(dir + "nvidia/nccl/lib/libnccl.so.2", candidates);
    appendMatches(dir + "nvidia/cu1*/lib/libnccl.so.2", candidates);
  }
  // The same file reached twice (a prefix on $PATH and $VIRTUAL_ENV) is
  // tried once.
  std::vector<std::string> unique;
  for (const std::string &c : candidates)
    if (std::find(unique.begin(), unique.end(), c) == unique.end())
      unique.push_back(c);
  return unique;
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

namespace {
/// The process's library; `loaded` is set once, under `mutex`.
struct LoadedLibrary {
  std::mutex mutex;
  Library library;
  std::atomic<bool> loaded{false};
};
LoadedLibrary &getLoaded() {
  static LoadedLibrary *state = new LoadedLibrary();
  return *state;
}
} // namespace

const Library *getLibrary() {
  LoadedLibrary &state = getLoaded();
  if (state.loaded.load(std::memory_order_acquire))
    return &state.library;
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.loaded.load(std::memory_order_relaxed))
    return &state.library;
  std::string message;
  if (loadLibrary(getSearchPath(), state.library, message) != MXFP8RT_SUCCESS) {
    recordError(MXFP8RT_UNAVAILABLE, message);
    return nullptr;
  }
  state.loaded.store(true, std::memory_order_release);
  return &state.library;
}

const char *getLoadedPath() {
  LoadedLibrary &state = getLoaded();
  return state.loaded.load(std::memory_order_acquire)
             ? state.library.path.c_str()
             : "";
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
