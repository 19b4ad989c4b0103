//===- TMA.h - tensor-memory-accelerator copies as IR -----------*- C++ -*-===//
//
// The Tensor Memory Accelerator (sm_90a and sm_100a) for the GEMM kernels of
// convert-mxfp8train-to-gpu. Host side: a tiled tensor map (CUtensorMap) of
// a device buffer, created by the runtime's `mgpuTensorMapEncodeTiledMemref`
// in the lowered host code and freed at the end of the host block; the
// kernel receives it as an `!llvm.ptr` to global memory. Device side:
// `cp.async.bulk.tensor` loads of a box into shared memory and 1-D
// `cp.async.bulk` copies of contiguous chunks, both completing on an
// mbarrier whose expected transaction bytes the issuing thread sets, and
// the mbarrier operations of a stage ring.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_TMA_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_TMA_H

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {
namespace tma {

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

/// CUtensorMapDataType codes (cuda.h).
enum class DataType : int64_t {
  UInt8 = 0,
  UInt16 = 1,
  UInt32 = 2,
  Int32 = 3,
  UInt64 = 4,
  Int64 = 5,
  Float16 = 6,
  Float32 = 7,
  Float64 = 8,
  BFloat16 = 9
};

/// CUtensorMapSwizzle codes: the shared-memory layout of a box whose
/// innermost extent is at most the swizzle span (16-byte chunk c of row r
/// at c ^ (r % (span / 16)) for the 128-byte swizzle).
enum class Swizzle : int64_t { None = 0, B32 = 1, B64 = 2, B128 = 3 };

/// CUtensorMapL2promotion codes.
enum class L2Promotion : int64_t { None = 0, B64 = 1, B128 = 2, B256 = 3 };

/// The tensor-map data type of `elementType`: the 8-bit floats and e8m0 as
/// UINT8 (TMA moves bytes), bf16, f16, f32, i32; std::nullopt otherwise.
std::optional<DataType> getDataType(Type elementType);

/// How a tensor map tiles its buffer.
struct TensorMapSpec {
  /// Box extents in memref dimension order (outermost first), each in
  /// [1, 256] (larger than the tensor is allowed: zero fill); the innermost
  /// extent times the element size is a multiple of 16 bytes and, when
  /// swizzled, at most the swizzle span.
  SmallVector<int64_t> box;
  Swizzle swizzle = Swizzle::B128;
  L2Promotion l2Promotion = L2Promotion::B128;
};

/// Whether `spec` can tile `type` (a static identity-layout memref of rank
/// 1-5 with a TMA data type, 16-byte multiple strides); `why` says why not.
bool canCreateTensorMap(MemRefType type, const TensorMapSpec &spec,
                        std::string *why = nullptr);

/// Emits, at the rewriter's insertion point of a host function, the
/// creation of the tiled tensor map of `buffer` (a device memref satisfying
/// canCreateTensorMap): its ranked memref descriptor and box extents on the
/// stack, then `mgpuTensorMapEncodeTiledMemref` (zero fill out of bounds,
/// no interleave), which encodes the map and copies it to device memory.
/// Returns that device copy (`!llvm.ptr`). Declares the runtime function in
/// the enclosing module if needed.
Value createTensorMap(RewriterBase &rewriter, Location loc, Value buffer,
                      const TensorMapSpec &spec);

/// Frees the device copy `map` of createTensorMap with `mgpuMemFree` before
/// the terminator of the insertion block, after the launches that read it,
/// as the pipeline frees its device buffers. Declares the function if
/// needed.
void freeTensorMapAtBlockEnd(RewriterBase &rewriter, Location loc, Value map);

//===----------------------------------------------------------------------===//
// Device side
//===----------------------------------------------------------------------===//

/// `!llvm.ptr<3>` of the shared-memory byte address `address` (index).
Value getSharedPointer(ImplicitLocOpBuilder &b, Value address);

/// `!llvm.ptr<1>` of the global byte address `address` (index).
Value getGlobalPointer(ImplicitLocOpBuilder &b, Value address);

/// `mbarrier.init` of the barrier at `mbar` for `count` arrivals.
void initBarrier(ImplicitLocOpBuilder &b, Value mbar, int64_t count);

/// Blocks until the phase of parity `parity` (i32, 0 or 1) of `mbar` has
/// completed (`mbarrier.try_wait.parity` loop).
void waitBarrier(ImplicitLocOpBuilder &b, Value mbar, Value parity);

/// waitBarrier acquiring at cluster scope (`mbarrier.try_wait.parity
/// .acquire.cluster`): the wait synchronizes with `.release.cluster`
/// arrivals of another CTA of the cluster (arriveClusterBarrier).
void waitClusterBarrier(ImplicitLocOpBuilder &b, Value mbar, Value parity);

/// One arrival on `mbar` (release at CTA scope).
void arriveBarrier(ImplicitLocOpBuilder &b, Value mbar);

/// `mbarrier.arrive.expect_tx`: raises the transaction bytes the current
/// phase of `mbar` waits for by `bytes` (i32) and arrives once. Issue it
/// before (or with) the copies that complete those bytes.
void arriveExpectTx(ImplicitLocOpBuilder &b, Value mbar, Value bytes);

/// `cp.async.bulk.tensor.<N>d.shared::cta.global.tile.mbarrier::complete_tx
/// ::bytes`: the box of `tensorMap` (an `!llvm.ptr` from createTensorMap)
/// at `coords` (i32, innermost dimension first) into shared memory at `dst`
/// (`!llvm.ptr<3>`, aligned to the swizzle pattern: 1024 bytes for 128B).
/// Elements outside the tensor are zero-filled and still counted: the
/// barrier receives the whole box's bytes.
void loadTensorTile(ImplicitLocOpBuilder &b, Value dst, Value tensorMap,
                    Value mbar, ValueRange coords);

/// `mapa.shared::cluster`: the shared::cluster address (`!llvm.ptr<7>`) of
/// the variable at `ptr` (`!llvm.ptr<3>`, the executing CTA's) in the CTA
/// of rank `rank` (i32) of the cluster.
Value mapToClusterRank(ImplicitLocOpBuilder &b, Value ptr, Value rank);

/// The `cta_group::2` form of loadTensorTile (`cp.async.bulk.tensor.<N>d
/// .shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2`):
/// the box lands in the executing CTA's shared memory at `dst`
/// (`!llvm.ptr<3>`) and completes on the mbarrier `mbar`, a shared::cluster
/// address (`!llvm.ptr<7>`, mapToClusterRank) in either CTA of the pair
/// (PTX ISA: with .cta_group::2 the mbarrier may be the peer CTA's).
void loadTensorTileForPair(ImplicitLocOpBuilder &b, Value dst, Value tensorMap,
                           Value mbar, ValueRange coords);

/// The multicast form of loadTensorTile (`cp.async.bulk.tensor.<N>d
/// .shared::cluster.global.tile.mbarrier::complete_tx::bytes
/// .multicast::cluster`): the box lands at the CTA-relative offset of `dst`
/// (`!llvm.ptr<3>`, this CTA's) in every CTA of the cluster whose rank bit
/// is set in `ctaMask`, and each of them receives the box's bytes as
/// complete_tx on its mbarrier at the offset of `mbar` (`!llvm.ptr<3>`).
/// Each destination's barrier must be initialised (a cluster barrier after
/// the initialisation) and its phase must expect those bytes.
void loadTensorTileMulticast(ImplicitLocOpBuilder &b, Value dst,
                             Value tensorMap, Value mbar, ValueRange coords,
                             uint16_t ctaMask);

/// One arrival on the mbarrier at the shared::cluster address `mbar`
/// (`!llvm.ptr<7>`, possibly another CTA's): `mbarrier.arrive.release
/// .SCOPE.shared::cluster`. The release at cluster scope orders this
/// thread's earlier memory accesses for the whole cluster, a fence that
/// stalls the warp (ncu `membar`); `.cta` orders them for its own CTA only,
/// enough where the arrival publishes no generic-proxy writes (a stage the
/// wgmma read, released after its wait_group).
void arriveClusterBarrier(
    ImplicitLocOpBuilder &b, Value mbar,
    NVVM::MemScopeKind scope = NVVM::MemScopeKind::CLUSTER);

/// arriveClusterBarrier at CTA scope by the threads where `predicate` (i1)
/// holds, as one predicated instruction (`@p mbarrier.arrive.release.cta
/// .shared::cluster.b64`; the NVVM arrive ops take no predicate on a
/// shared::cluster address): no branch, which inside the promoted Float8
/// kernels' pipelined loop made ptxas spill the accumulators.
void arriveClusterBarrierIf(ImplicitLocOpBuilder &b, Value mbar,
                            Value predicate);

/// `cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes` of
/// `bytes` (a multiple of 16) from global `src` (`!llvm.ptr<1>`, 16-byte
/// aligned) to shared `dst` (16-byte aligned).
void loadBulk(ImplicitLocOpBuilder &b, Value dst, Value src, Value mbar,
              int64_t bytes);

} // namespace tma
} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_TMA_H
