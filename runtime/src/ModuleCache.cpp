//===- ModuleCache.cpp - content-addressed module cache ------- -*- C++ -*-===//
//
// Hashing, image classification and the reference-counted module cache.
//
//===----------------------------------------------------------------------===//

#include "ModuleCache.h"

#include <cstdio>
#include <cstring>

namespace mxfp8rt {

uint64_t hashBytes(const void *data, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

ImageKind classifyImage(const void *data, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  if (size >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' &&
      bytes[3] == 'F')
    return ImageKind::Cubin;
  if (size >= 4 && bytes[0] == 0x50 && bytes[1] == 0xed && bytes[2] == 0x55 &&
      bytes[3] == 0xba)
    return ImageKind::Fatbin;
  return ImageKind::PTX;
}

const char *getImageKindName(ImageKind kind) {
  switch (kind) {
  case ImageKind::Cubin:
    return "cubin";
  case ImageKind::Fatbin:
    return "fatbin";
  case ImageKind::PTX:
    return "PTX";
  }
  return "image";
}

size_t getSignificantSize(ImageKind kind, const void *data, size_t size) {
  if (kind != ImageKind::PTX)
    return size;
  const void *nul = std::memchr(data, 0, size);
  return nul ? static_cast<size_t>(static_cast<const char *>(nul) -
                                   static_cast<const char *>(data))
             : size;
}

ModuleCache::~ModuleCache() = default;

/// The bucket of an entry: the content hash mixed with device and JIT level.
static uint64_t getBucket(uint64_t hash, int device, int jitOptLevel) {
  uint64_t key = hash;
  key ^= (static_cast<uint64_t>(static_cast<uint32_t>(device)) << 32) |
         static_cast<uint32_t>(jitOptLevel);
  return key * 0x9e3779b97f4a7c15ULL;
}

mxfp8rtStatus ModuleCache::acquire(int device, int jitOptLevel,
                                   const void *data, size_t size,
                                   const char *name, const LoadFn &load,
                                   mxfp8rtModule_st *&module,
                                   std::string &message) {
  module = nullptr;
  if (!data || size == 0) {
    message = "module image is null or empty";
    return MXFP8RT_INVALID_ARGUMENT;
  }
  ImageKind kind = classifyImage(data, size);
  size_t significant = getSignificantSize(kind, data, size);
  if (significant == 0) {
    message = "module image is empty PTX text (starts with a NUL byte)";
    return MXFP8RT_INVALID_ARGUMENT;
  }
  uint64_t hash = hashBytes(data, significant);
  uint64_t bucket = getBucket(hash, device, jitOptLevel);

  std::lock_guard<std::mutex> lock(mutex);
  auto range = entries.equal_range(bucket);
  for (auto it = range.first; it != range.second; ++it) {
    mxfp8rtModule_st &entry = *it->second;
    if (entry.device != device || entry.jitOptLevel != jitOptLevel ||
        entry.hash != hash || entry.kind != kind ||
        entry.image.size() - (kind == ImageKind::PTX ? 1 : 0) != significant ||
        std::memcmp(entry.image.data(), data, significant) != 0)
      continue;
    ++entry.refCount;
    ++cacheHits;
    module = &entry;
    return MXFP8RT_SUCCESS;
  }

  auto entry = std::make_unique<mxfp8rtModule_st>();
  entry->device = device;
  entry->jitOptLevel = jitOptLevel;
  entry->hash = hash;
  entry->kind = kind;
  entry->image.assign(static_cast<const char *>(data), significant);
  if (kind == ImageKind::PTX)
    entry->image.push_back('\0');
  if (name && *name) {
    entry->name = name;
  } else {
    char text[24];
    std::snprintf(text, sizeof(text), "%016llx",
                  static_cast<unsigned long long>(hash));
    entry->name = text;
  }
  mxfp8rtStatus status = load(*entry, message);
  if (status != MXFP8RT_SUCCESS)
    return status;
  ++driverLoads;
  entry->refCount = 1;
  module = entry.get();
  liveHandles.emplace(module, bucket);
  entries.emplace(bucket, std::move(entry));
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus ModuleCache::release(mxfp8rtModule_st *module,
                                   const UnloadFn &unload, bool &unloaded,
                                   std::string &message) {
  unloaded = false;
  std::unique_ptr<mxfp8rtModule_st> doomed;
  {
    std::lock_guard<std::mutex> lock(mutex);
    // Look the handle up by address before touching it: a stale handle must
    // not be dereferenced.
    auto live = liveHandles.find(module);
    if (live == liveHandles.end()) {
      message = "unknown or already unloaded module handle";
      return MXFP8RT_INVALID_ARGUMENT;
    }
    auto range = entries.equal_range(live->second);
    auto it = range.first;
    while (it != range.second && it->second.get() != module)
      ++it;
    if (--it->second->refCount > 0)
      return MXFP8RT_SUCCESS;
    doomed = std::move(it->second);
    entries.erase(it);
    liveHandles.erase(live);
  }
  unload(*doomed);
  unloaded = true;
  return MXFP8RT_SUCCESS;
}

bool ModuleCache::contains(const mxfp8rtModule_st *module) const {
  std::lock_guard<std::mutex> lock(mutex);
  return liveHandles.count(module) != 0;
}

mxfp8rtModuleCacheStats ModuleCache::getStats() const {
  std::lock_guard<std::mutex> lock(mutex);
  mxfp8rtModuleCacheStats stats;
  stats.liveModules = static_cast<int64_t>(entries.size());
  stats.driverLoads = driverLoads;
  stats.cacheHits = cacheHits;
  return stats;
}

} // namespace mxfp8rt

std::string mxfp8rtModule_st::describe() const {
  return "module '" + name + "' (" + mxfp8rt::getImageKindName(kind) + ", " +
         std::to_string(image.size() -
                        (kind == mxfp8rt::ImageKind::PTX ? 1 : 0)) +
         " bytes)";
}
