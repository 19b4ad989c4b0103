//===- ExchangeMemory.cpp - host and device row moves -----------*- C++ -*-===//
//
// ExchangeMemory.h. The device implementation's row gather is one PTX module
// with two kernels, `mxfp8rt_gather_rows_b8` (a byte per thread step) and
// `mxfp8rt_gather_rows_b128` (two 16-byte units per step, both loads
// before the stores, when both row starts and the row length are multiples
// of 16 bytes: the rows of MXFP8 tokens with K a multiple of 512 and their
// scales), grid-stride over the rows (one CTA per row at a time) and,
// inside a row, over the threads. Each distinct row index is uploaded once
// per exchange call (RowIndex). The driver JIT-
// compiles the PTX for the device it runs on (sm_75 and later).
//
//===----------------------------------------------------------------------===//

#include "ExchangeMemory.h"

#include "RuntimeInternal.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

using namespace mxfp8rt;

namespace {

//===----------------------------------------------------------------------===//
// Host memory
//===----------------------------------------------------------------------===//

class HostExchangeMemory final : public ExchangeMemory {
public:
  mxfp8rtStatus readInts(const int32_t *src, intptr_t count,
                         std::vector<int32_t> &out) override {
    out.assign(src, src + count);
    return MXFP8RT_SUCCESS;
  }

  mxfp8rtStatus writeInts(int32_t *dst,
                          const std::vector<int32_t> &values) override {
    std::copy(values.begin(), values.end(), dst);
    return MXFP8RT_SUCCESS;
  }

  mxfp8rtStatus synchronize() override { return MXFP8RT_SUCCESS; }

  mxfp8rtStatus reserveIndex(RowIndex &, intptr_t) override {
    return MXFP8RT_SUCCESS;
  }

  mxfp8rtStatus allocate(intptr_t bytes, void **ptr) override {
    scratch.emplace_back(static_cast<size_t>(bytes));
    *ptr = bytes > 0 ? scratch.back().data() : nullptr;
    return MXFP8RT_SUCCESS;
  }

  mxfp8rtStatus gatherRows(void *dst, intptr_t dstStride, const void *src,
                           intptr_t srcStride, RowIndex &index,
                           intptr_t bytes) override {
    if (bytes <= 0)
      return MXFP8RT_SUCCESS;
    auto *out = static_cast<uint8_t *>(dst);
    const auto *in = static_cast<const uint8_t *>(src);
    for (size_t r = 0; r < index.rows.size(); ++r) {
      uint8_t *row = out + r * dstStride;
      if (index.rows[r] < 0)
        std::memset(row, 0, bytes);
      else
        std::memcpy(row, in + index.rows[r] * srcStride, bytes);
    }
    return MXFP8RT_SUCCESS;
  }

private:
  std::vector<std::vector<uint8_t>> scratch;
};

//===----------------------------------------------------------------------===//
// Device memory
//===----------------------------------------------------------------------===//

/// The gather kernels: (dst, dstStride, src, srcStride, index, rows, units)
/// all u64; `units` per row of 1 (b8) or 16 (b128) bytes; index is i64, -1
/// for a zero row.
std::string getGatherPtx() {
  std::string ptx = ".version 7.0\n.target sm_75\n.address_size 64\n";
  for (bool wide : {false, true}) {
    std::string name =
        wide ? "mxfp8rt_gather_rows_b128" : "mxfp8rt_gather_rows_b8";
    ptx += ".visible .entry " + name + R"((
    .param .u64 p_dst, .param .u64 p_dst_stride, .param .u64 p_src,
    .param .u64 p_src_stride, .param .u64 p_index, .param .u64 p_rows,
    .param .u64 p_units)
{
  .reg .pred %p<6>;
  .reg .b16 %h<1>;
  .reg .b32 %r<12>;
  .reg .b64 %d<23>;
  ld.param.u64 %d0, [p_dst];
  ld.param.u64 %d1, [p_dst_stride];
  ld.param.u64 %d2, [p_src];
  ld.param.u64 %d3, [p_src_stride];
  ld.param.u64 %d4, [p_index];
  ld.param.u64 %d5, [p_rows];
  ld.param.u64 %d6, [p_units];
  cvta.to.global.u64 %d0, %d0;
  cvta.to.global.u64 %d2, %d2;
  cvta.to.global.u64 %d4, %d4;
  mov.u32 %r0, %ctaid.x;
  mov.u32 %r1, %nctaid.x;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  cvt.u64.u32 %d7, %r0;
  cvt.u64.u32 %d8, %r1;
  cvt.u64.u32 %d9, %r2;
  cvt.u64.u32 %d10, %r3;
ROW:
  setp.ge.u64 %p0, %d7, %d5;
  @%p0 bra DONE;
  shl.b64 %d11, %d7, 3;
  add.s64 %d11, %d4, %d11;
  ld.global.s64 %d12, [%d11];
  setp.lt.s64 %p1, %d12, 0;
  mul.lo.s64 %d13, %d7, %d1;
  add.s64 %d13, %d0, %d13;
  mul.lo.s64 %d14, %d12, %d3;
  add.s64 %d14, %d2, %d14;
  mov.u64 %d15, %d9;
UNIT:
  setp.ge.u64 %p2, %d15, %d6;
  @%p2 bra NEXT;
)";
    // The 16-byte kernel moves two units per thread step, both loads
    // issued before the stores (units u and u + ntid).
    if (wide)
      ptx += R"(  add.s64 %d19, %d15, %d10;
  setp.lt.u64 %p3, %d19, %d6;
  not.pred %p4, %p1;
  and.pred %p5, %p3, %p4;
  shl.b64 %d16, %d15, 4;
  add.s64 %d17, %d14, %d16;
  add.s64 %d18, %d13, %d16;
  shl.b64 %d20, %d19, 4;
  add.s64 %d21, %d14, %d20;
  add.s64 %d22, %d13, %d20;
  mov.b32 %r4, 0;
  mov.b32 %r5, 0;
  mov.b32 %r6, 0;
  mov.b32 %r7, 0;
  mov.b32 %r8, 0;
  mov.b32 %r9, 0;
  mov.b32 %r10, 0;
  mov.b32 %r11, 0;
  @%p4 ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%d17];
  @%p5 ld.global.v4.u32 {%r8, %r9, %r10, %r11}, [%d21];
  st.global.v4.u32 [%d18], {%r4, %r5, %r6, %r7};
  @%p3 st.global.v4.u32 [%d22], {%r8, %r9, %r10, %r11};
  add.s64 %d15, %d15, %d10;
)";
    else
      ptx += R"(  add.s64 %d17, %d14, %d15;
  add.s64 %d18, %d13, %d15;
  mov.b16 %h0, 0;
  @!%p1 ld.global.u8 %h0, [%d17];
  st.global.u8 [%d18], %h0;
)";
    ptx += R"(  add.s64 %d15, %d15, %d10;
  bra.uni UNIT;
NEXT:
  add.s64 %d7, %d7, %d8;
  bra.uni ROW;
DONE:
  ret;
}
)";
  }
  return ptx;
}

struct GatherKernels {
  mxfp8rtFunction bytes = nullptr;
  mxfp8rtFunction chunks = nullptr;
};

/// The kernels on the current device, loaded once per device for the
/// process (the module stays loaded).
mxfp8rtStatus getGatherKernels(int device, GatherKernels &kernels) {
  static std::mutex mutex;
  static std::map<int, GatherKernels> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(device);
  if (it != loaded.end()) {
    kernels = it->second;
    return MXFP8RT_SUCCESS;
  }
  static const std::string ptx = getGatherPtx();
  mxfp8rtModule module = nullptr;
  if (mxfp8rtStatus status = mxfp8rtModuleLoadData(
          ptx.c_str(), static_cast<intptr_t>(ptx.size() + 1),
          "mxfp8rt_exchange", &module))
    return status;
  if (mxfp8rtStatus status = mxfp8rtModuleGetFunction(
          module, "mxfp8rt_gather_rows_b8", &kernels.bytes)) {
    (void)mxfp8rtModuleUnload(module);
    return status;
  }
  if (mxfp8rtStatus status = mxfp8rtModuleGetFunction(
          module, "mxfp8rt_gather_rows_b128", &kernels.chunks)) {
    (void)mxfp8rtModuleUnload(module);
    return status;
  }
  loaded[device] = kernels;
  return MXFP8RT_SUCCESS;
}

class DeviceExchangeMemory final : public ExchangeMemory {
public:
  DeviceExchangeMemory(mxfp8rtStream stream, GatherKernels kernels)
      : stream(stream), kernels(kernels) {}

  ~DeviceExchangeMemory() override {
    for (void *p : scratch)
      (void)mxfp8rtMemFreeAsync(p, stream);
  }

  mxfp8rtStatus readInts(const int32_t *src, intptr_t count,
                         std::vector<int32_t> &out) override {
    out.assign(count, 0);
    if (count == 0)
      return MXFP8RT_SUCCESS;
    if (mxfp8rtStatus status =
            mxfp8rtMemcpyDtoH(out.data(), src, count * sizeof(int32_t), stream))
      return status;
    return mxfp8rtStreamSynchronize(stream);
  }

  mxfp8rtStatus writeInts(int32_t *dst,
                          const std::vector<int32_t> &values) override {
    // A pageable source may be freed when this returns: CUDA's documented
    // behaviour of asynchronous copies from pageable host memory is to
    // return once the source is staged (the API synchronization behaviour
    // of cudaMemcpyAsync); RowIndex uploads rely on the same.
    return mxfp8rtMemcpyHtoD(dst, values.data(),
                             values.size() * sizeof(int32_t), stream);
  }

  mxfp8rtStatus synchronize() override {
    return mxfp8rtStreamSynchronize(stream);
  }

  mxfp8rtStatus reserveIndex(RowIndex &index, intptr_t rows) override {
    if (index.device || rows == 0)
      return MXFP8RT_SUCCESS;
    return allocate(rows * sizeof(int64_t), &index.device);
  }

  mxfp8rtStatus allocate(intptr_t bytes, void **ptr) override {
    *ptr = nullptr;
    if (bytes == 0)
      return MXFP8RT_SUCCESS;
    if (mxfp8rtStatus status = mxfp8rtMemAllocAsync(bytes, stream, ptr))
      return status;
    scratch.push_back(*ptr);
    return MXFP8RT_SUCCESS;
  }

  mxfp8rtStatus gatherRows(void *dst, intptr_t dstStride, const void *src,
                           intptr_t srcStride, RowIndex &index,
                           intptr_t bytes) override {
    uint64_t rows = index.rows.size();
    if (rows == 0 || bytes <= 0)
      return MXFP8RT_SUCCESS;
    if (!index.uploaded) {
      if (mxfp8rtStatus status = reserveIndex(index, rows))
        return status;
      if (mxfp8rtStatus status = mxfp8rtMemcpyHtoD(
              index.device, index.rows.data(), rows * sizeof(int64_t), stream))
        return status;
      index.uploaded = true;
    }
    void *deviceIndex = index.device;
    auto aligned = [](uint64_t x) { return x % 16 == 0; };
    bool wide = aligned(reinterpret_cast<uintptr_t>(dst)) &&
                aligned(reinterpret_cast<uintptr_t>(src)) &&
                aligned(dstStride) && aligned(srcStride) && aligned(bytes);
    uint64_t units = wide ? bytes / 16 : bytes;
    uint64_t dstValue = reinterpret_cast<uintptr_t>(dst);
    uint64_t srcValue = reinterpret_cast<uintptr_t>(src);
    uint64_t indexValue = reinterpret_cast<uintptr_t>(deviceIndex);
    uint64_t dstStrideValue = dstStride, srcStrideValue = srcStride;
    void *params[] = {&dstValue,   &dstStrideValue, &srcValue, &srcStrideValue,
                      &indexValue, &rows,           &units};
    intptr_t threads = units >= 256 ? 256 : (units >= 64 ? 128 : 32);
    intptr_t blocks = static_cast<intptr_t>(std::min<uint64_t>(rows, 16384));
    return mxfp8rtLaunchKernel(wide ? kernels.chunks : kernels.bytes, blocks, 1,
                               1, threads, 1, 1, 0, stream, params);
  }

private:
  mxfp8rtStream stream;
  GatherKernels kernels;
  std::vector<void *> scratch;
};

} // namespace

std::unique_ptr<ExchangeMemory> mxfp8rt::createHostExchangeMemory() {
  return std::make_unique<HostExchangeMemory>();
}

mxfp8rtStatus
mxfp8rt::createDeviceExchangeMemory(int device, mxfp8rtStream stream,
                                    std::unique_ptr<ExchangeMemory> &out) {
  GatherKernels kernels;
  if (mxfp8rtStatus status = getGatherKernels(device, kernels))
    return status;
  out = std::make_unique<DeviceExchangeMemory>(stream, kernels);
  return MXFP8RT_SUCCESS;
}
