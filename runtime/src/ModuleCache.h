//===- ModuleCache.h - content-addressed module cache --------- -*- C++ -*-===//
//
// Loading the same kernel image twice (two instances of a compiled program,
// or generated host code whose constructor runs per shared-library load) gives
// the same driver module. Entries are keyed by device, JIT level and a hash of
// the bytes, confirmed by comparing the bytes, and reference counted.
//
// The driver is reached only through the load/unload callbacks, so the cache
// logic is tested without a GPU (test/ModuleCacheTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_SRC_MODULECACHE_H
#define MXFP8TRAIN_RUNTIME_SRC_MODULECACHE_H

#include "mxfp8train/runtime/Runtime.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace mxfp8rt {

/// FNV-1a, 64-bit: the content hash of a module image.
uint64_t hashBytes(const void *data, size_t size);

/// What a module image holds, from its first bytes.
enum class ImageKind {
  /// An ELF file (cubin), starts with "\x7fELF".
  Cubin,
  /// A fat binary, starts with the magic 0xBA55ED50 (little endian).
  Fatbin,
  /// Anything else: PTX text for the driver's JIT.
  PTX,
};

/// Classifies `size` bytes at `data`.
ImageKind classifyImage(const void *data, size_t size);

/// "cubin", "fatbin" or "PTX".
const char *getImageKindName(ImageKind kind);

/// The bytes of an image that identify it: all of them for binaries; for
/// PTX the text up to the first NUL (so the same text with or without its
/// terminator is one entry).
size_t getSignificantSize(ImageKind kind, const void *data, size_t size);

} // namespace mxfp8rt

/// A kernel handle: the driver function plus the names used in messages.
struct mxfp8rtFunction_st {
  /// The CUfunction.
  void *native = nullptr;
  /// The kernel name.
  std::string name;
  /// The owning module.
  mxfp8rtModule_st *module = nullptr;
  /// The dynamic shared memory limit already set with cuFuncSetAttribute.
  std::atomic<int64_t> dynamicSharedLimit{48 * 1024};
};

/// A module handle, owned by the ModuleCache.
struct mxfp8rtModule_st {
  /// The device it was loaded on.
  int device = 0;
  /// PTX JIT level, -1 for the driver default.
  int jitOptLevel = -1;
  /// hashBytes of the significant bytes.
  uint64_t hash = 0;
  /// The significant bytes; PTX gets a NUL terminator appended, so
  /// `image.c_str()` is what the driver loads.
  std::string image;
  mxfp8rt::ImageKind kind = mxfp8rt::ImageKind::PTX;
  /// The name given at load, or "<hash>" when none.
  std::string name;
  /// The CUmodule.
  void *native = nullptr;
  /// Loads minus unloads.
  int64_t refCount = 0;

  /// Kernels looked up so far, by name.
  std::mutex functionsMutex;
  std::map<std::string, std::unique_ptr<mxfp8rtFunction_st>, std::less<>>
      functions;

  /// "module 'name' (PTX, 1234 bytes)".
  std::string describe() const;
};

namespace mxfp8rt {

/// The cache. Thread-safe; loads run under its lock, so two threads loading
/// the same image load it once.
class ModuleCache {
public:
  /// Loads `module.image` into `module.native`; on failure returns the status
  /// and fills `message`.
  using LoadFn =
      std::function<mxfp8rtStatus(mxfp8rtModule_st &module, std::string &)>;
  /// Unloads `module.native`.
  using UnloadFn = std::function<void(mxfp8rtModule_st &module)>;

  ModuleCache() = default;
  ModuleCache(const ModuleCache &) = delete;
  ModuleCache &operator=(const ModuleCache &) = delete;
  /// Drops the entries without calling any unload function (at process exit
  /// the driver may be gone already).
  ~ModuleCache();

  /// Returns the entry for (`device`, `jitOptLevel`, bytes), calling `load`
  /// when there is none, and takes a reference. `size` must be positive.
  mxfp8rtStatus acquire(int device, int jitOptLevel, const void *data,
                        size_t size, const char *name, const LoadFn &load,
                        mxfp8rtModule_st *&module, std::string &message);

  /// Drops a reference; calls `unload` and deletes the entry with the last
  /// one (`unloaded` tells which). An unknown handle is
  /// MXFP8RT_INVALID_ARGUMENT.
  mxfp8rtStatus release(mxfp8rtModule_st *module, const UnloadFn &unload,
                        bool &unloaded, std::string &message);

  /// Whether `module` is a live entry.
  bool contains(const mxfp8rtModule_st *module) const;

  /// Counters.
  mxfp8rtModuleCacheStats getStats() const;

private:
  mutable std::mutex mutex;
  std::unordered_multimap<uint64_t, std::unique_ptr<mxfp8rtModule_st>> entries;
  /// Live handles and their bucket in `entries`.
  std::unordered_map<const mxfp8rtModule_st *, uint64_t> liveHandles;
  int64_t driverLoads = 0;
  int64_t cacheHits = 0;
};

} // namespace mxfp8rt

#endif // MXFP8TRAIN_RUNTIME_SRC_MODULECACHE_H
