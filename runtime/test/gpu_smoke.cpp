//===- gpu_smoke.cpp - end-to-end runtime check on a GPU ------ -*- C++ -*-===//
//
// Loads hand-written PTX (vector add; a block reversal through 100 KiB of
// dynamic shared memory), launches it through both layers of the runtime
// (mxfp8rt* and the mgpu* ABI), checks every output element exactly, checks
// module caching, a cluster launch (sm_90+) and a TMA descriptor encode
// (sm_90+), and times the vector add with events.
//
// Exit status: 0 all checks passed, 1 a check failed, 77 no GPU (prints
// "no GPU: <message>"), the ctest/automake convention for a skipped test.
// `--print-ptx` prints the PTX and exits (used to check it with ptxas).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/Runtime.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

/// Hand-written PTX. vector_add_f32(a, b, c, n): c[i] = a[i] + b[i] for
/// i = ctaid.x * ntid.x + tid.x < n. reverse_in_smem(in, out): each block
/// stores its ntid.x elements to dynamic shared memory and writes them back
/// reversed.
static const char kSmokePtx[] = R"PTX(
.version 6.0
.target sm_50
.address_size 64

.extern .shared .align 16 .b8 dynamic_smem[];

.visible .entry vector_add_f32(
    .param .u64 param_a,
    .param .u64 param_b,
    .param .u64 param_c,
    .param .u32 param_n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;

    ld.param.u64 %rd1, [param_a];
    ld.param.u64 %rd2, [param_b];
    ld.param.u64 %rd3, [param_c];
    ld.param.u32 %r1, [param_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.rn.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}

.visible .entry reverse_in_smem(
    .param .u64 param_in,
    .param .u64 param_out)
{
    .reg .b32 %r<12>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<7>;

    ld.param.u64 %rd1, [param_in];
    ld.param.u64 %rd2, [param_out];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd3, %rd5;
    ld.global.f32 %f1, [%rd6];
    mov.u32 %r5, dynamic_smem;
    shl.b32 %r6, %r3, 2;
    add.s32 %r7, %r5, %r6;
    st.shared.f32 [%r7], %f1;
    bar.sync 0;
    sub.s32 %r8, %r2, %r3;
    sub.s32 %r9, %r8, 1;
    shl.b32 %r10, %r9, 2;
    add.s32 %r11, %r5, %r10;
    ld.shared.f32 %f2, [%r11];
    add.s64 %rd6, %rd4, %rd5;
    st.global.f32 [%rd6], %f2;
    ret;
}
)PTX";

namespace {
/// Counts failed checks and prints each.
struct Checker {
  int failures = 0;

  /// Checks a runtime call; prints the call and the runtime's message.
  bool ok(mxfp8rtStatus status, const char *what) {
    if (status == MXFP8RT_SUCCESS)
      return true;
    std::printf("FAIL: %s: %s: %s\n", what, mxfp8rtGetStatusName(status),
                mxfp8rtGetLastError());
    ++failures;
    return false;
  }

  /// Checks a condition.
  bool expect(bool condition, const char *what) {
    if (!condition) {
      std::printf("FAIL: %s\n", what);
      ++failures;
    }
    return condition;
  }

  /// Compares float arrays bit for bit; prints the first mismatch.
  bool sameFloats(const std::vector<float> &actual,
                  const std::vector<float> &expected, const char *what) {
    for (size_t i = 0; i < expected.size(); ++i) {
      if (std::memcmp(&actual[i], &expected[i], sizeof(float)) != 0) {
        std::printf("FAIL: %s: element %zu is %.9g, expected %.9g\n", what, i,
                    actual[i], expected[i]);
        ++failures;
        return false;
      }
    }
    std::printf("ok: %s (%zu elements exact)\n", what, expected.size());
    return true;
  }
};
} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--print-ptx") == 0) {
    std::fputs(kSmokePtx, stdout);
    return 0;
  }
  if (mxfp8rtStatus status = mxfp8rtInitialize()) {
    std::printf("no GPU: %s: %s\n", mxfp8rtGetStatusName(status),
                mxfp8rtGetLastError());
    return 77;
  }
  Checker check;

  int driverVersion = 0, count = 0, major = 0, minor = 0, sms = 0, smem = 0;
  char name[256] = {0};
  check.ok(mxfp8rtGetDriverVersion(&driverVersion), "driver version");
  check.ok(mxfp8rtGetDeviceCount(&count), "device count");
  check.ok(mxfp8rtGetDeviceName(0, name, sizeof(name)), "device name");
  check.ok(mxfp8rtGetDeviceComputeCapability(0, &major, &minor),
           "compute capability");
  check.ok(mxfp8rtGetDeviceMultiProcessorCount(0, &sms), "SM count");
  check.ok(mxfp8rtGetDeviceMaxSharedMemoryPerBlock(0, &smem),
           "opt-in shared memory");
  std::printf("driver %d.%d, %d device(s); device 0: %s, sm_%d%d, %d SMs, "
              "%d bytes opt-in shared memory per block\n",
              driverVersion / 1000, driverVersion % 1000 / 10, count, name,
              major, minor, sms, smem);
  check.expect(count >= 1 && name[0] != 0 && major >= 5 && sms > 0,
               "device properties are plausible");

  // Module load, twice: the second load is a cache hit on the same handle.
  mxfp8rtModule module = nullptr, again = nullptr;
  if (!check.ok(
          mxfp8rtModuleLoadData(kSmokePtx, sizeof(kSmokePtx), "smoke", &module),
          "load the smoke PTX"))
    return 1;
  mxfp8rtModuleCacheStats before = {}, after = {};
  mxfp8rtGetModuleCacheStats(&before);
  check.ok(mxfp8rtModuleLoadData(kSmokePtx, sizeof(kSmokePtx), "smoke", &again),
           "load the smoke PTX again");
  mxfp8rtGetModuleCacheStats(&after);
  check.expect(again == module && after.cacheHits == before.cacheHits + 1 &&
                   after.driverLoads == before.driverLoads,
               "second load is a cache hit with the same handle");
  std::printf("ok: module cache (%lld driver loads, %lld hits)\n",
              static_cast<long long>(after.driverLoads),
              static_cast<long long>(after.cacheHits));
  mxfp8rtFunction add = nullptr, reverse = nullptr, missing = nullptr;
  check.ok(mxfp8rtModuleGetFunction(module, "vector_add_f32", &add),
           "look up vector_add_f32");
  check.ok(mxfp8rtModuleGetFunction(module, "reverse_in_smem", &reverse),
           "look up reverse_in_smem");
  mxfp8rtStatus notFound =
      mxfp8rtModuleGetFunction(module, "no_such_kernel", &missing);
  check.expect(notFound == MXFP8RT_NOT_FOUND &&
                   std::strstr(mxfp8rtGetLastError(), "'no_such_kernel'"),
               "a missing kernel is MXFP8RT_NOT_FOUND naming it");
  std::printf("ok: missing kernel reported as: %s\n", mxfp8rtGetLastError());
  if (!add || !reverse)
    return 1;

  // Vector add through mxfp8rt*.
  const uint32_t n = 1u << 24;
  const intptr_t bytes = static_cast<intptr_t>(n) * sizeof(float);
  std::vector<float> a(n), b(n), c(n, -1.0f), expected(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 65536);
    b[i] = 0.5f * static_cast<float>(i % 1024) + 0.25f;
    expected[i] = a[i] + b[i]; // exact: both fit in 24 bits of mantissa
  }
  mxfp8rtStream stream = nullptr;
  void *dA = nullptr, *dB = nullptr, *dC = nullptr;
  if (!check.ok(mxfp8rtStreamCreate(&stream), "create a stream") ||
      !check.ok(mxfp8rtMemAlloc(bytes, &dA), "allocate a") ||
      !check.ok(mxfp8rtMemAlloc(bytes, &dB), "allocate b") ||
      !check.ok(mxfp8rtMemAlloc(bytes, &dC), "allocate c"))
    return 1;
  check.ok(mxfp8rtMemcpyHtoD(dA, a.data(), bytes, stream), "copy a");
  check.ok(mxfp8rtMemcpyHtoD(dB, b.data(), bytes, stream), "copy b");
  check.ok(mxfp8rtMemsetD32(dC, 0xffffffffu, n, stream), "fill c");
  uint32_t count32 = n;
  void *params[] = {&dA, &dB, &dC, &count32};
  const intptr_t block = 256, grid = (n + block - 1) / block;
  check.ok(mxfp8rtLaunchKernel(add, grid, 1, 1, block, 1, 1, 0, stream, params),
           "launch vector_add_f32");
  check.ok(mxfp8rtMemcpyDtoH(c.data(), dC, bytes, stream), "copy c back");
  check.ok(mxfp8rtStreamSynchronize(stream), "synchronize");
  check.sameFloats(c, expected, "vector_add_f32 via mxfp8rtLaunchKernel");

  // Timing with events.
  mxfp8rtEvent start = nullptr, stop = nullptr;
  check.ok(mxfp8rtEventCreate(&start, 1), "create start event");
  check.ok(mxfp8rtEventCreate(&stop, 1), "create stop event");
  const int repeats = 20;
  check.ok(mxfp8rtEventRecord(start, stream), "record start");
  for (int i = 0; i < repeats; ++i)
    check.ok(
        mxfp8rtLaunchKernel(add, grid, 1, 1, block, 1, 1, 0, stream, params),
        "timed launch");
  check.ok(mxfp8rtEventRecord(stop, stream), "record stop");
  check.ok(mxfp8rtEventSynchronize(stop), "wait for stop");
  float ms = 0;
  if (check.ok(mxfp8rtEventElapsedTime(&ms, start, stop), "elapsed time")) {
    double perLaunch = ms / repeats;
    std::printf("ok: vector_add_f32 of %u floats: %.4f ms per launch, %.1f "
                "GB/s\n",
                n, perLaunch, 3.0 * bytes / (perLaunch * 1e-3) / 1e9);
    check.expect(ms > 0, "elapsed time is positive");
  }

  // Dynamic shared memory above 48 KiB (needs cuFuncSetAttribute).
  const intptr_t sharedBytes = 100 * 1024;
  std::vector<float> reversed(n), expectReversed(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t blockStart = i / block * block;
    expectReversed[i] = a[blockStart + (block - 1 - (i - blockStart))];
  }
  void *reverseParams[] = {&dA, &dC};
  if (sharedBytes <= smem) {
    check.ok(mxfp8rtLaunchKernel(reverse, grid, 1, 1, block, 1, 1, sharedBytes,
                                 stream, reverseParams),
             "launch reverse_in_smem with 100 KiB dynamic shared memory");
    check.ok(mxfp8rtMemcpyDtoH(reversed.data(), dC, bytes, stream),
             "copy reversed back");
    check.ok(mxfp8rtStreamSynchronize(stream), "synchronize");
    check.sameFloats(reversed, expectReversed,
                     "reverse_in_smem with 100 KiB dynamic shared memory");
  } else {
    std::printf("skip: device allows only %d bytes of shared memory\n", smem);
  }
  // Above the device limit: a clear error naming the kernel.
  mxfp8rtStatus tooMuch = mxfp8rtLaunchKernel(reverse, grid, 1, 1, block, 1, 1,
                                              1 << 30, stream, reverseParams);
  check.expect(tooMuch == MXFP8RT_CUDA_ERROR &&
                   std::strstr(mxfp8rtGetLastError(), "'reverse_in_smem'"),
               "1 GiB of shared memory is refused naming the kernel");
  std::printf("ok: oversized launch reported as: %s\n", mxfp8rtGetLastError());

  // Thread block clusters (sm_90+).
  if (major >= 9) {
    std::fill(c.begin(), c.end(), -1.0f);
    check.ok(mxfp8rtMemsetD32(dC, 0xffffffffu, n, stream), "fill c");
    check.ok(mxfp8rtLaunchClusterKernel(add, 2, 1, 1, grid, 1, 1, block, 1, 1,
                                        0, stream, params),
             "cluster launch of vector_add_f32");
    check.ok(mxfp8rtMemcpyDtoH(c.data(), dC, bytes, stream), "copy c back");
    check.ok(mxfp8rtStreamSynchronize(stream), "synchronize");
    check.sameFloats(c, expected, "vector_add_f32 with 2x1x1 clusters");

    // A TMA descriptor for a 1024x1024 f32 tensor, 64x32 boxes.
    struct alignas(128) {
      uint64_t words[16];
    } tensorMap = {};
    uint64_t globalDim[] = {1024, 1024};
    uint64_t globalStrides[] = {1024 * sizeof(float)};
    uint32_t boxDim[] = {32, 64}, elementStrides[] = {1, 1};
    check.ok(mxfp8rtTensorMapEncodeTiled(&tensorMap, /*FLOAT32=*/7, 2, dA,
                                         globalDim, globalStrides, boxDim,
                                         elementStrides, 0, 0, 0, 0),
             "encode a TMA descriptor");
    bool nonZero = false;
    for (uint64_t word : tensorMap.words)
      nonZero |= word != 0;
    check.expect(nonZero, "the TMA descriptor was written");
    if (nonZero)
      std::printf("ok: TMA descriptor encoded\n");
  }

  // The same vector add through the upstream mgpu* ABI.
  void *mgpuModule = mgpuModuleLoadJIT(const_cast<char *>(kSmokePtx), 3);
  void *mgpuFunction = mgpuModuleGetFunction(mgpuModule, "vector_add_f32");
  void *mgpuStream = mgpuStreamCreate();
  void *mA = mgpuMemAlloc(bytes, mgpuStream, false);
  void *mB = mgpuMemAlloc(bytes, mgpuStream, false);
  void *mC = mgpuMemAlloc(bytes, mgpuStream, false);
  if (check.expect(mgpuModule && mgpuFunction && mgpuStream && mA && mB && mC,
                   "mgpu handles are non-null")) {
    mgpuMemcpy(mA, a.data(), bytes, mgpuStream);
    mgpuMemcpy(mB, b.data(), bytes, mgpuStream);
    mgpuMemset32(mC, 0xffffffffu, n, mgpuStream);
    void *mParams[] = {&mA, &mB, &mC, &count32};
    mgpuLaunchKernel(mgpuFunction, grid, 1, 1, block, 1, 1, 0, mgpuStream,
                     mParams, nullptr, 4);
    std::fill(c.begin(), c.end(), -1.0f);
    mgpuMemcpy(c.data(), mC, bytes, mgpuStream);
    mgpuStreamSynchronize(mgpuStream);
    check.sameFloats(c, expected, "vector_add_f32 via the mgpu* ABI");
  }
  mgpuMemFree(mA, mgpuStream);
  mgpuMemFree(mB, mgpuStream);
  mgpuMemFree(mC, mgpuStream);
  mgpuStreamDestroy(mgpuStream);
  mgpuModuleUnload(mgpuModule);

  check.ok(mxfp8rtEventDestroy(start), "destroy start");
  check.ok(mxfp8rtEventDestroy(stop), "destroy stop");
  check.ok(mxfp8rtMemFree(dA), "free a");
  check.ok(mxfp8rtMemFree(dB), "free b");
  check.ok(mxfp8rtMemFree(dC), "free c");
  check.ok(mxfp8rtStreamDestroy(stream), "destroy the stream");
  check.ok(mxfp8rtModuleUnload(again), "unload (1 of 2)");
  check.ok(mxfp8rtModuleUnload(module), "unload (2 of 2)");
  check.expect(mxfp8rtModuleUnload(module) == MXFP8RT_INVALID_ARGUMENT,
               "a third unload is refused");

  if (check.failures) {
    std::printf("gpu smoke test: %d check(s) FAILED\n", check.failures);
    return 1;
  }
  std::printf("gpu smoke test: all checks passed\n");
  return 0;
}
