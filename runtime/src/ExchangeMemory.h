//===- ExchangeMemory.h - the rows of an MoE exchange -----------*- C++ -*-===//
//
// The MXFP8 dispatch and combine (ExpertParallel.cpp) plan every row move on
// the host (which source row lands in which destination row) and run the
// plan through an ExchangeMemory: host memory for the in-process backend
// (memcpy), device memory of the communicator's GPU for NCCL (one row-gather
// kernel, PTX compiled by the driver, and stream-ordered copies). The plan is
// the same for both, so the in-process tests check the layout the GPU path
// produces.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_SRC_EXCHANGEMEMORY_H
#define MXFP8TRAIN_RUNTIME_SRC_EXCHANGEMEMORY_H

#include "mxfp8train/runtime/Runtime.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mxfp8rt {

/// The source row of each destination row of a gather (-1: a zero row).
/// A device ExchangeMemory uploads it on its first use and keeps the copy
/// (in its scratch) for the gathers after it.
struct RowIndex {
  std::vector<int64_t> rows;
  /// The device copy (reserved by reserveIndex or by the first gather) and
  /// whether `rows` has been copied into it.
  void *device = nullptr;
  bool uploaded = false;
};

/// The buffers of one exchange call and the row moves between them. Scratch
/// buffers live until the object is destroyed (after the call's last use,
/// ordered on its stream for device memory).
class ExchangeMemory {
public:
  virtual ~ExchangeMemory() = default;

  /// Copies `count` int32 at `src` (exchange memory) to `out` on the host,
  /// complete when this returns.
  virtual mxfp8rtStatus readInts(const int32_t *src, intptr_t count,
                                 std::vector<int32_t> &out) = 0;

  /// Copies `values` to `dst` (exchange memory).
  virtual mxfp8rtStatus writeInts(int32_t *dst,
                                  const std::vector<int32_t> &values) = 0;

  /// Waits for the work queued so far (device: the stream; host: none).
  virtual mxfp8rtStatus synchronize() = 0;

  /// Reserves room for an index of `rows` rows (device memory: so that a
  /// later gather allocates nothing; host: nothing to do).
  virtual mxfp8rtStatus reserveIndex(RowIndex &index, intptr_t rows) = 0;

  /// A scratch buffer of `bytes` (>= 0; null for 0) of exchange memory.
  virtual mxfp8rtStatus allocate(intptr_t bytes, void **ptr) = 0;

  /// For every destination row r < index.rows.size(): the `bytes` bytes at
  /// `src + index.rows[r] * srcStride` go to `dst + r * dstStride`; index
  /// -1 writes `bytes` zero bytes. Rows must not overlap.
  virtual mxfp8rtStatus gatherRows(void *dst, intptr_t dstStride,
                                   const void *src, intptr_t srcStride,
                                   RowIndex &index, intptr_t bytes) = 0;
};

/// Host memory (the in-process backend).
std::unique_ptr<ExchangeMemory> createHostExchangeMemory();

/// Device memory of `device`, every copy and kernel ordered on `stream`.
/// Fails when the runtime cannot initialize or load the gather kernel.
mxfp8rtStatus createDeviceExchangeMemory(int device, mxfp8rtStream stream,
                                         std::unique_ptr<ExchangeMemory> &out);

} // namespace mxfp8rt

#endif // MXFP8TRAIN_RUNTIME_SRC_EXCHANGEMEMORY_H
