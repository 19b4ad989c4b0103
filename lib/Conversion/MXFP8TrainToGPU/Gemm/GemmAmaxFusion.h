//===- GemmAmaxFusion.h - GEMM epilogues take tensorwise amaxes -*- C++ -*-===//
//
// A tensorwise Float8 cast needs the amax of its whole input before it can
// cast one element, so it runs two kernels: the amax pass and the cast,
// each reading the input (with a fused elementwise producer, each
// reading the producer's operands: FusedProducer.h). In the SwiGLU MLP
// the hidden layer's casts read GEMM results: h = silu(h1) * h3, the
// forward W3 GEMM's result h3 with h1, and the backward pair (dH1, dH3) =
// f(dA, h1, h3), the dgrad W2 GEMM's result dA with h1 and h3 (on the H200
// their amax passes take 0.36 and 0.49 ms of the Llama float8_tensorwise
// step).
//
// With `fuse-gemm-amax` (sm_90a), the Float8 GEMM whose result the
// producer reads takes the amaxes instead: its staged epilogue
// (WgmmaConsumer::emitStagedStores), after rounding a row chunk of its
// output to bf16, loads the producer's other operands at the same
// elements, evaluates the producer's body on them (the ops the cast
// evaluates, so the same bf16 values), and keeps the running maximum of
// each result's |x| per thread; after its last tile each warp reduces
// them with `shfl.sync.bfly` and one lane `atomicMax`es the u32 bits into
// the cast group's amax words (one per cast, as the amax kernel writes
// them: Float8CastKernels.cpp), which the GEMM's launch zeroes first. The
// casts then launch only their cast kernel on those words: the same
// scales and bytes, and one read of the producer's operands fewer.
//
// Planned, per elementwise generic `g` that the casts fuse
// (isFusableProducer): every result of `g` has one user, a dense static
// tensorwise Float8 quantize, and those quantizes are exactly one sibling
// group in result order (getFloat8SiblingCasts: one quantize, or with
// `fuse-sibling-casts` up to three); among `g`'s inputs defined by a dense
// rank-2 Float8 `scaled_mm` in `g`'s block that the sm_90a Float8 kernel
// lowers with its staged epilogue (bf16 result, columns a multiple of 8),
// the last one in block order hosts the amaxes, provided every other input
// of `g` is a bf16 tensor defined before that GEMM (its kernel reads it)
// and the GEMM hosts no other plan. The GEMM pattern allocates and zeroes
// the words, launches the kernel with them and records them here; a
// planned cast group waits (its pattern does not match) until its GEMM has
// been lowered. The promoted (use_fast_accum = false) and the fast-
// accumulation kernels both take it; sm_100a (tcgen05) does not yet.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMAMAXFUSION_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMAMAXFUSION_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <memory>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

class GemmMainloop;
struct GemmTile;
class KernelCache;

/// The amaxes one GEMM's epilogue takes.
struct GemmAmaxEpilogue {
  /// The elementwise producer the casts read.
  linalg::GenericOp producer;
  /// Per input of `producer`: -1 where it is the GEMM's result, else the
  /// position of its tensor in `inputs`.
  SmallVector<int64_t, 4> inputArgs;
  /// The number of distinct tensors other than the GEMM's result that the
  /// epilogue reads (getInputs).
  int64_t numInputs = 0;
  /// casts[r] quantizes the producer's result r; its amax goes to word r.
  SmallVector<QuantizeOp, 2> casts;
};

/// The distinct tensors other than the GEMM's result that `epilogue`'s
/// kernel reads, in kernel-argument order: read from the producer's
/// operands when called (the plan keeps no values, whose defining ops
/// may have been rewritten since).
SmallVector<Value, 2> getInputs(const GemmAmaxEpilogue &epilogue);

/// Which GEMMs take which casts' amaxes.
class GemmAmaxFusion {
public:
  /// Plans the fusion over `module` with the casts' lowering choices of
  /// `cache` (sibling groups, K-major copies).
  static std::shared_ptr<GemmAmaxFusion> plan(ModuleOp module,
                                              const KernelCache &cache);

  /// The amaxes `gemm` (a Float8 scaled_mm, by address) takes, or null.
  const GemmAmaxEpilogue *getEpilogue(Operation *gemm) const;
  /// Whether the amax words of the cast group led by `firstCast` are a
  /// GEMM's (planned).
  bool isPlanned(QuantizeOp firstCast) const;
  /// The words the GEMM lowering recorded for the group led by
  /// `firstCast`; null while it has not been lowered.
  Value getWords(QuantizeOp firstCast) const;
  /// Records `words` (memref<N x i32>, zeroed before the GEMM's launch) as
  /// the amax words of `epilogue`'s casts.
  void setWords(const GemmAmaxEpilogue &epilogue, Value words) const;
  /// Records that the GEMM was lowered without taking `epilogue`'s amaxes:
  /// its casts launch their own amax kernel.
  void decline(const GemmAmaxEpilogue &epilogue) const;
  /// The planned host GEMM, not lowered, whose epilogue was to take
  /// `cast`'s amax, or null (for the diagnostic of a cast left unlowered).
  Operation *getHostGemm(QuantizeOp cast) const;

private:
  DenseMap<Operation *, GemmAmaxEpilogue> epilogues;
  mutable DenseMap<Operation *, Value> words;
  mutable DenseSet<Operation *> declined;
};

/// Inside a GEMM kernel with GemmSpec::amaxProducer: the running maxima of
/// the thread (one f32 per producer result, in registers after SROA),
/// updated by the staged epilogue of the MMA warps and flushed into the
/// words at the end of the MMA role; or, with GemmSpec::amaxWarps, by the
/// amax warps of the producer warpgroup, which read each tile back once
/// the MMA warps have stored it (a ring of tile mbarriers: full[s] takes
/// the 256 MMA threads' arrivals after a tile's stores, empty[s] the amax
/// warps' after they read it).
class EpilogueAmax {
public:
  /// Creates and zeroes the thread's maxima (call where every thread runs,
  /// before the warp roles, in the kernel's entry block).
  explicit EpilogueAmax(GemmMainloop &mainloop);
  /// Whether the MMA warps' staged epilogue takes the amaxes (no amax
  /// warps).
  bool inEpilogue() const;
  /// Amax warps: initialises the tile mbarriers (thread 0, inside
  /// GemmMainloop::initRing's `initMore`).
  void initTileBarriers();
  /// Amax warps, MMA threads: before a tile, wait until its ring slot is
  /// free (the amax warps have read the tile that used it before).
  void waitTileSlot();
  /// Amax warps, MMA threads: after a tile's stores, arrive on its slot's
  /// full barrier and advance the tile counter.
  void finishTile();
  /// The amax warps' role inside the producer warpgroup (warps 1 to
  /// GemmSpec::amaxWarps; `roleTid` the thread's index in the warpgroup):
  /// per tile of the walk, wait for its full barrier, read the output's
  /// and the other operands' 16-byte chunks (two in flight per thread),
  /// accumulate, release the slot; at the end flush.
  void emitAmaxWarps(Value roleTid);
  /// At the start of tile `t` of a dense rank-2 GEMM (every MMA thread):
  /// `cp.async.bulk.prefetch`
  /// into L2 of the tile's rows of the other operands (one row of one
  /// operand per thread), so that the epilogue's loads of them, a tile's
  /// mainloop later, hit L2.
  void prefetchTile(const GemmTile &t);
  /// The offset in the flat output of the 8-element chunk at (row, col) of
  /// the batch at `outBase`, clamped into the output (row < rowEnd, col <=
  /// n - 8): a masked chunk's loads read an element they do not use.
  Value getClampedOffset(Value outBase, Value row, Value col, Value rowEnd);
  /// The producer's other operands' 8 elements (16-byte loads) at element
  /// `offset` of the flat output (in bounds: the caller clamps it), in
  /// GemmArgs::amaxInputs order.
  SmallVector<Value, 2> loadInputs(Value offset);
  /// Adds the 8 output values `values` (vector<8 x bf16>, as stored) whose
  /// other operands loadInputs gave (`inputs`): the producer's body
  /// evaluated on them, each result's |x| maximum kept.
  void accumulate(Value values, ArrayRef<Value> inputs);
  /// The warp's maxima (`shfl.sync.bfly`), one `atomicMax` per result from
  /// lane 0 (every lane of the warp must call it).
  void flush();

private:
  /// The tile mbarrier `i` (0 .. 2 slots - 1: full then empty) as a
  /// shared pointer.
  Value getTileBarrier(Value i);
  /// The empty barrier of tile slot `slot` (after the full ones).
  Value getEmptyTileBarrier(Value slot);
  /// The slot (index) and parity (i32) of the thread's tile counter.
  std::pair<Value, Value> getTileSlot();
  /// The thread's tile counter + 1.
  void advanceTile();

  GemmMainloop &mainloop;
  SmallVector<Value, 2> maxima;
  /// With amax warps: the thread's tile counter (memref<1 x index>).
  Value tileCounter;
};

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMAMAXFUSION_H
