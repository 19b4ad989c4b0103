//===- GPUSupport.h - GPU passes not about mxfp8train ops -------*- C++ -*-===//
//
// The passes of the GPU pipeline that work on upstream IR only, whatever
// produced it (lib/Conversion/GPUSupport): host buffers into device memory
// (mxfp8train-gpu-device-buffers), strided copies into linalg.copy kernels
// (mxfp8train-strided-copies), and the CTA tiling of parallel loops
// (mxfp8train-gpu-tile-parallel-loops). Their pass declarations are in
// mxfp8train/Conversion/Passes.h (group MXFP8TrainConversion); the helpers
// below are what they decide with, exposed for tests.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_GPUSUPPORT_GPUSUPPORT_H
#define MXFP8TRAIN_CONVERSION_GPUSUPPORT_GPUSUPPORT_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"

namespace mlir::mxfp8train {

/// Threads per CTA of the kernels that mxfp8train-gpu-tile-parallel-loops
/// makes of parallel loops (the value kThreadsPerCTA of the mxfp8train
/// kernels has too; nothing requires them to agree).
inline constexpr int64_t kParallelLoopThreadsPerCTA = 256;

/// Tile sizes of an outermost `scf.parallel` with `tripCounts` iterations
/// per dimension (-1: unknown) for CTAs of `threads` threads
/// (mxfp8train-gpu-tile-parallel-loops): from the innermost dimension
/// outwards, each takes the next power of two of its extent, at most what
/// is left of `threads`; the others get 1.
SmallVector<int64_t> getParallelLoopTileSizes(ArrayRef<int64_t> tripCounts,
                                              int64_t threads);

/// True when `copy` copies contiguous bytes: its source and target are
/// static, contiguous row-major buffers (a `memcpy` on the CPU).
bool isContiguousCopy(memref::CopyOp copy);

/// True when `copy` can become a `gpu.memcpy`: a contiguous copy between
/// buffers of the identity layout. Upstream's gpu.memcpy lowering takes
/// identity-layout sources only and copies to a target's aligned pointer
/// without its offset (a copy into a view at an offset, e.g. a
/// tensor.insert_slice or a concat, landed at the buffer's start);
/// mxfp8train-strided-copies{gpu-memcpy} turns the other copies into
/// linalg.copy kernels.
bool isMemcpyCompatible(memref::CopyOp copy);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_CONVERSION_GPUSUPPORT_GPUSUPPORT_H
