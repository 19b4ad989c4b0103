//===- MemRef.h - memref descriptors seen by the mgpu* ABI ---- -*- C++ -*-===//
//
// Helpers that read MLIR ranked memref descriptors passed by `gpu-to-llvm`
// host code: the dense extent for host registration and the arguments of a
// tiled TMA descriptor. Pure functions, tested without a GPU.
//
// A ranked descriptor of rank R is laid out as
//   { void *allocated; void *aligned; int64_t offset;
//     int64_t sizes[R]; int64_t strides[R]; }
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_SRC_MEMREF_H
#define MXFP8TRAIN_RUNTIME_SRC_MEMREF_H

#include "mxfp8train/runtime/Runtime.h"

#include <cstdint>
#include <string>

namespace mxfp8rt {

/// The first byte and byte size of a dense (identity-strided) memref of rank
/// `rank` >= 0 and `elementSize` bytes per element. Fails on a non-dense
/// layout or non-positive element size.
mxfp8rtStatus getDenseMemRefExtent(int64_t rank, const void *descriptor,
                                   int64_t elementSize, void *&data,
                                   size_t &sizeBytes, std::string &message);

/// Bytes per element of a CUtensorMapDataType value, or 0 for values this
/// runtime does not handle (sub-byte packed types).
int64_t getTensorMapElementSize(int64_t dataType);

/// cuTensorMapEncodeTiled arguments, innermost dimension first.
struct TiledTensorMapArgs {
  uint32_t rank = 0;
  void *globalAddress = nullptr;
  uint64_t globalDim[5] = {1, 1, 1, 1, 1};
  /// Byte strides of dimensions 1..rank-1 (dimension 0 is contiguous).
  uint64_t globalStrides[5] = {0, 0, 0, 0, 0};
  uint32_t boxDim[5] = {1, 1, 1, 1, 1};
  uint32_t elementStrides[5] = {1, 1, 1, 1, 1};
};

/// Fills `args` from a ranked memref descriptor (outermost dimension first,
/// as MLIR writes it) and box sizes `boxDims` (outermost first). The
/// innermost stride must be 1, box sizes in [1, 256], rank in [1, 5].
mxfp8rtStatus computeTiledTensorMapArgs(int64_t rank, const void *descriptor,
                                        int64_t dataType,
                                        const int64_t *boxDims,
                                        TiledTensorMapArgs &args,
                                        std::string &message);

} // namespace mxfp8rt

#endif // MXFP8TRAIN_RUNTIME_SRC_MEMREF_H
