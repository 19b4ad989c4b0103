// tma_ptx_check.cpp - the TMA kernel of mxfp8train-tma-test-module (its
// sm_90a PTX) with the tensor map from mgpuTensorMapEncodeTiledMemref, the
// arguments the generated host code passes (test/runtime/
// tma-fake-driver.test traces them), on a GPU, for operands of ROWS x K
// bytes; every byte of both boxes (128-byte swizzle, zero fill past ROWS
// and past K) and of both scale chunks is checked.
// Usage: tma_ptx_check KERNEL.ptx ROWS[xK]... (K a multiple of 16, 512 by
// default).
#include "mxfp8train/runtime/Runtime.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>
extern "C" void *mgpuTensorMapEncodeTiledMemref(int64_t, void *, int64_t,
                                                int64_t, int64_t, int64_t,
                                                int64_t, int64_t *);
extern "C" void mgpuMemFree(void *, void *);
static uint8_t pattern(int64_t r, int64_t k) {
  return uint8_t(r * 131 + k * 7 + (r >> 3) * 3 + 1);
}
#define CHECK(x)                                                               \
  if (x) {                                                                     \
    std::printf("%s: %s\n", #x, mxfp8rtGetLastError());                        \
    return 1;                                                                  \
  }
static int run(mxfp8rtFunction f, int64_t rows, int64_t k) {
  const int64_t sBytes = 2048, outBytes = 2 * 4224 * 4;
  std::vector<uint8_t> a(rows * k), s(sBytes), out(outBytes);
  for (int64_t i = 0; i < rows * k; ++i)
    a[i] = pattern(i / k, i % k);
  for (int64_t i = 0; i < sBytes; ++i)
    s[i] = uint8_t(i * 29 + 5);
  void *da, *ds, *dout;
  CHECK(mxfp8rtMemAlloc(rows * k, &da));
  CHECK(mxfp8rtMemAlloc(sBytes, &ds));
  CHECK(mxfp8rtMemAlloc(outBytes, &dout));
  CHECK(mxfp8rtMemcpyHtoD(da, a.data(), rows * k, nullptr));
  CHECK(mxfp8rtMemcpyHtoD(ds, s.data(), sBytes, nullptr));
  CHECK(mxfp8rtMemsetD8(dout, 0xA5, outBytes, nullptr));
  // {allocated, aligned, offset, sizes, strides}; box in memref order.
  int64_t desc[7] = {int64_t(da), int64_t(da), 0, rows, k, k, 1};
  int64_t box[2] = {128, 128};
  void *map = mgpuTensorMapEncodeTiledMemref(2, desc, 0, 0, 3, 2, 0, box);
  if (!map)
    return 1;
  void *params[3] = {&map, &ds, &dout};
  CHECK(mxfp8rtLaunchKernel(f, 2, 1, 1, 256, 1, 1, 17928, nullptr, params));
  CHECK(mxfp8rtDeviceSynchronize());
  CHECK(mxfp8rtMemcpyDtoH(out.data(), dout, outBytes, nullptr));
  CHECK(mxfp8rtDeviceSynchronize());
  mgpuMemFree(map, nullptr);
  int64_t wrong = 0, zeros = 0, checked = 0;
  for (int64_t b = 0; b < 2; ++b) {
    const uint8_t *box = out.data() + b * 4224 * 4;
    for (int64_t r = 0; r < 128; ++r)
      for (int64_t c = 0; c < 128; ++c) {
        int64_t at = r * 128 + ((c / 16) ^ (r % 8)) * 16 + c % 16;
        int64_t row = 128 * b + r;
        bool in = row < rows && c < k;
        uint8_t want = in ? pattern(row, c) : 0;
        zeros += !in;
        ++checked;
        if (box[at] != want && wrong++ < 4)
          std::printf("box %d row %d byte %d: 0x%02x, want 0x%02x\n", int(b),
                      int(row), int(c), box[at], want);
      }
    for (int64_t i = 0; i < 512; ++i, ++checked)
      if (box[16384 + i] != s[b * 512 + i] && wrong++ < 4)
        std::printf("chunk %d byte %d wrong\n", int(b), int(i));
  }
  std::printf("%dx%d: %d bytes checked (%d zero-filled), %d wrong: %s\n",
              int(rows), int(k), int(checked), int(zeros), int(wrong),
              wrong ? "FAIL" : "OK");
  mxfp8rtMemFree(da);
  mxfp8rtMemFree(ds);
  mxfp8rtMemFree(dout);
  return wrong != 0;
}
int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  std::stringstream ptx;
  ptx << std::ifstream(argv[1]).rdbuf();
  std::string text = ptx.str();
  mxfp8rtModule m;
  mxfp8rtFunction f;
  CHECK(mxfp8rtInitialize());
  CHECK(mxfp8rtModuleLoadData(text.c_str(), text.size() + 1, "tma", &m));
  CHECK(mxfp8rtModuleGetFunction(m, "tma_tile_and_chunk", &f));
  int status = 0;
  for (int i = 2; i < argc; ++i) {
    char *end = nullptr;
    int64_t rows = std::strtoll(argv[i], &end, 10);
    int64_t k = *end == 'x' ? std::atoll(end + 1) : 512;
    status |= run(f, rows, k);
  }
  return status;
}
