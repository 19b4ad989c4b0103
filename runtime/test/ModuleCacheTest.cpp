//===- ModuleCacheTest.cpp - the content-hash module cache ---- -*- C++ -*-===//
//
// The cache logic with counting load/unload callbacks instead of a driver.
//
//===----------------------------------------------------------------------===//

#include "ModuleCache.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace mxfp8rt;

namespace {

/// Callbacks that count calls and hand out fake native handles.
struct CountingDriver {
  int loads = 0;
  int unloads = 0;
  std::vector<std::string> loadedImages;
  mxfp8rtStatus nextStatus = MXFP8RT_SUCCESS;

  ModuleCache::LoadFn loader() {
    return [this](mxfp8rtModule_st &module, std::string &message) {
      ++loads;
      if (nextStatus != MXFP8RT_SUCCESS) {
        message = "load refused";
        return nextStatus;
      }
      // What the driver receives: a C string for PTX.
      loadedImages.emplace_back(module.image.data(), module.image.size());
      module.native = reinterpret_cast<void *>(uintptr_t(0x1000 + loads));
      return MXFP8RT_SUCCESS;
    };
  }
  ModuleCache::UnloadFn unloader() {
    return [this](mxfp8rtModule_st &) { ++unloads; };
  }
};

const char kPtx[] = ".version 8.0\n.entry k()\n{\n ret;\n}\n";

/// A cache with counting callbacks; `message` receives the cache's errors.
class ModuleCacheTest : public testing::Test {
protected:
  /// Acquires the `size` bytes at `image` through the counting loader.
  mxfp8rtStatus acquire(const void *image, size_t size, const char *name,
                        mxfp8rtModule_st *&module, int device = 0,
                        int jitOptLevel = -1) {
    return cache.acquire(device, jitOptLevel, image, size, name,
                         driver.loader(), module, message);
  }
  /// Releases `module` through the counting unloader.
  mxfp8rtStatus release(mxfp8rtModule_st *module, bool &unloaded) {
    return cache.release(module, driver.unloader(), unloaded, message);
  }

  ModuleCache cache;
  CountingDriver driver;
  std::string message;
};

} // namespace

TEST(Hash, MatchesTheFnv1a64TestVectors) {
  EXPECT_EQ(hashBytes("", 0), 0xcbf29ce484222325ULL);
  EXPECT_EQ(hashBytes("a", 1), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(hashBytes("foobar", 6), 0x85944171f73967e8ULL);
  EXPECT_NE(hashBytes("foobar", 6), hashBytes("foobaz", 6));
}

TEST(Image, Classification) {
  const unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  const unsigned char fatbin[] = {0x50, 0xed, 0x55, 0xba, 1, 0, 0x10, 0};
  EXPECT_EQ(classifyImage(elf, sizeof(elf)), ImageKind::Cubin);
  EXPECT_EQ(classifyImage(fatbin, sizeof(fatbin)), ImageKind::Fatbin);
  EXPECT_EQ(classifyImage(kPtx, sizeof(kPtx)), ImageKind::PTX);
  EXPECT_EQ(classifyImage(elf, 3), ImageKind::PTX) << "too short for magic";
  EXPECT_STREQ(getImageKindName(ImageKind::Cubin), "cubin");
  EXPECT_STREQ(getImageKindName(ImageKind::Fatbin), "fatbin");
  EXPECT_STREQ(getImageKindName(ImageKind::PTX), "PTX");
  // PTX stops at the first NUL; binaries are taken whole (they contain NULs).
  EXPECT_EQ(getSignificantSize(ImageKind::PTX, kPtx, sizeof(kPtx)),
            sizeof(kPtx) - 1);
  EXPECT_EQ(getSignificantSize(ImageKind::PTX, "ab\0cd", 5), 2u);
  EXPECT_EQ(getSignificantSize(ImageKind::Cubin, elf, sizeof(elf)),
            sizeof(elf));
}

TEST_F(ModuleCacheTest, SameBytesShareOneLoad) {
  mxfp8rtModule_st *first = nullptr, *second = nullptr;
  ASSERT_EQ(acquire(kPtx, sizeof(kPtx), "kernels", first), MXFP8RT_SUCCESS);
  // A copy at another address, without the terminator.
  std::string copy(kPtx);
  ASSERT_EQ(acquire(copy.data(), copy.size(), "other name", second),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(first, second);
  EXPECT_EQ(driver.loads, 1);
  EXPECT_EQ(first->refCount, 2);
  EXPECT_EQ(first->name, "kernels") << "the first load names it";
  EXPECT_EQ(first->kind, ImageKind::PTX);
  EXPECT_EQ(first->hash, hashBytes(kPtx, sizeof(kPtx) - 1));
  // The driver got NUL-terminated text.
  ASSERT_EQ(driver.loadedImages.size(), 1u);
  EXPECT_EQ(driver.loadedImages[0], std::string(kPtx, sizeof(kPtx)));
  EXPECT_EQ(first->describe(), "module 'kernels' (PTX, 34 bytes)");
  mxfp8rtModuleCacheStats stats = cache.getStats();
  EXPECT_EQ(stats.liveModules, 1);
  EXPECT_EQ(stats.driverLoads, 1);
  EXPECT_EQ(stats.cacheHits, 1);
}

TEST_F(ModuleCacheTest, DeviceLevelAndContentAreAllPartOfTheKey) {
  mxfp8rtModule_st *base = nullptr, *device1 = nullptr, *level3 = nullptr,
                   *changed = nullptr;
  ASSERT_EQ(acquire(kPtx, sizeof(kPtx), nullptr, base), MXFP8RT_SUCCESS);
  ASSERT_EQ(acquire(kPtx, sizeof(kPtx), nullptr, device1, 1), MXFP8RT_SUCCESS);
  ASSERT_EQ(acquire(kPtx, sizeof(kPtx), nullptr, level3, 0, 3),
            MXFP8RT_SUCCESS);
  std::string edited(kPtx);
  edited[edited.size() - 3] = ';'; // same size, one byte different
  ASSERT_EQ(acquire(edited.data(), edited.size(), nullptr, changed),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(driver.loads, 4);
  EXPECT_NE(base, device1);
  EXPECT_NE(base, level3);
  EXPECT_NE(base, changed);
  EXPECT_EQ(device1->device, 1);
  EXPECT_EQ(level3->jitOptLevel, 3);
  // Unnamed modules are named by their hash.
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(base->hash));
  EXPECT_EQ(base->name, hex);
  // Binaries keep every byte, NULs included.
  const unsigned char cubin[] = {0x7f, 'E', 'L', 'F', 0, 0, 7, 0};
  mxfp8rtModule_st *binary = nullptr;
  ASSERT_EQ(acquire(cubin, sizeof(cubin), "bin", binary), MXFP8RT_SUCCESS);
  EXPECT_EQ(binary->image.size(), sizeof(cubin));
  EXPECT_EQ(binary->describe(), "module 'bin' (cubin, 8 bytes)");
  EXPECT_EQ(cache.getStats().liveModules, 5);
}

TEST_F(ModuleCacheTest, ReleaseCountsReferencesAndRejectsUnknownHandles) {
  mxfp8rtModule_st *module = nullptr, *again = nullptr;
  ASSERT_EQ(acquire(kPtx, sizeof(kPtx), "k", module), MXFP8RT_SUCCESS);
  ASSERT_EQ(acquire(kPtx, sizeof(kPtx), "k", again), MXFP8RT_SUCCESS);
  bool unloaded = true;
  EXPECT_EQ(release(module, unloaded), MXFP8RT_SUCCESS);
  EXPECT_FALSE(unloaded);
  EXPECT_EQ(driver.unloads, 0);
  EXPECT_TRUE(cache.contains(module));
  EXPECT_EQ(release(module, unloaded), MXFP8RT_SUCCESS);
  EXPECT_TRUE(unloaded);
  EXPECT_EQ(driver.unloads, 1);
  EXPECT_FALSE(cache.contains(module));
  EXPECT_EQ(cache.getStats().liveModules, 0);
  // The freed handle is looked up by address only, never dereferenced.
  EXPECT_EQ(release(module, unloaded), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(message, "unknown or already unloaded module handle");
  mxfp8rtModule_st stranger;
  EXPECT_EQ(release(&stranger, unloaded), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(release(nullptr, unloaded), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(driver.unloads, 1);
  // After the last release the same bytes load again.
  ASSERT_EQ(acquire(kPtx, sizeof(kPtx), "k", module), MXFP8RT_SUCCESS);
  EXPECT_EQ(driver.loads, 2);
}

TEST_F(ModuleCacheTest, FailedLoadsAreNotCached) {
  mxfp8rtModule_st *module = nullptr;
  driver.nextStatus = MXFP8RT_CUDA_ERROR;
  EXPECT_EQ(acquire(kPtx, sizeof(kPtx), "k", module), MXFP8RT_CUDA_ERROR);
  EXPECT_EQ(message, "load refused");
  EXPECT_EQ(module, nullptr);
  EXPECT_EQ(cache.getStats().liveModules, 0);
  driver.nextStatus = MXFP8RT_SUCCESS;
  EXPECT_EQ(acquire(kPtx, sizeof(kPtx), "k", module), MXFP8RT_SUCCESS);
  EXPECT_EQ(driver.loads, 2) << "the failure was retried";
  EXPECT_EQ(cache.getStats().driverLoads, 1);
}

TEST_F(ModuleCacheTest, RejectsEmptyImages) {
  mxfp8rtModule_st *module = nullptr;
  EXPECT_EQ(acquire(nullptr, 4, "k", module), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(message, "module image is null or empty");
  EXPECT_EQ(acquire(kPtx, 0, "k", module), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(acquire("\0abc", 4, "k", module), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(message, "module image is empty PTX text (starts with a NUL byte)");
  EXPECT_EQ(driver.loads, 0);
}

TEST_F(ModuleCacheTest, ConcurrentLoadsOfOneImageLoadOnce) {
  const int threads = 8;
  std::vector<mxfp8rtModule_st *> modules(threads, nullptr);
  std::vector<std::thread> workers;
  ModuleCache::LoadFn load = driver.loader();
  for (int i = 0; i < threads; ++i)
    workers.emplace_back([&, i] {
      std::string message;
      cache.acquire(0, -1, kPtx, sizeof(kPtx), "k", load, modules[i], message);
    });
  for (std::thread &worker : workers)
    worker.join();
  EXPECT_EQ(driver.loads, 1);
  for (mxfp8rtModule_st *module : modules)
    EXPECT_EQ(module, modules[0]);
  EXPECT_EQ(modules[0]->refCount, threads);
}
