//===- WGMMA.h - the Hopper (wgmma) MMA generation -------------*- C++ -*-===//
//
// The sm_90a tensor-core side of the GEMM kernels: bf16 `wgmma.mma_async`
// m64nNk16 on 128B-swizzled K-major stages (two warpgroups of 64 rows per
// 128-row CTA tile), the MMA warpgroups' consumer of the stage ring, and
// the map from the wgmma accumulator fragment to output coordinates for
// GemmMainloop::storeOutput. Used by the pre-dequantized kernel (WGMMA.cpp)
// and the fused-upcast kernels (WGMMAUpcast.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_WGMMA_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_WGMMA_H

#include "GemmMainloop.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

class EpilogueAmax;
class Float8EpilogueScales;

/// The wgmma MMA warpgroups (threads 0-255) of a GEMM kernel.
class WgmmaConsumer : public GemmIndexArith {
public:
  explicit WgmmaConsumer(GemmMainloop &mainloop)
      : GemmIndexArith(mainloop.getBuilder()), mainloop(mainloop),
        spec(mainloop.getSpec()) {}

  /// Computes the thread's MMA warpgroup (threadIdx.x / 128) as a value
  /// shuffled from lane 0, which ptxas knows to be warp-uniform, for the
  /// later `issue`s (call where every MMA thread runs, e.g. at the start
  /// of the MMA role); without it `issue` divides threadIdx.x.
  void computeUniformWarpgroup();
  /// f32 accumulator registers per MMA thread (m64 x tile.n).
  int64_t getAccumulatorCount() const { return spec.tile.n / 2; }
  /// The m64nN f32 accumulators, zero.
  Value zeroAccumulators();
  /// Issues the wgmma of stage `stage` on `acc` (fence, mma, commit) and
  /// returns the new accumulators; with `overwrite` the first one ignores
  /// `acc` (scale-d 0): the stage's products alone, in `acc`'s registers.
  Value issue(Value acc, Value stage, bool overwrite = false);
  /// The MMA role of a ring kernel for one tile: per full stage (fenced
  /// after the full wait where `fenceAfterFull`), the stage's wgmma, keep
  /// one stage in flight (`wait_group 1`) and release the previous one;
  /// after the loop `wait_group 0`, release the last stage, epilogue. The
  /// Float8 kernel with GemmSpec::promoteInterval adds its accumulators
  /// into an f32 sum after every interval: emitPipelinedPromotion for an
  /// interval of one contraction tile, else the consumer loop per interval
  /// on fresh accumulators inside a loop that carries the sum, promoted
  /// after `wait_group 0`.
  void emitRingTile(const GemmTile &t, bool fenceAfterFull);
  /// Promotion every contraction tile without waiting for the tensor
  /// cores: two accumulator sets alternate (an unrolled pair of stages per
  /// iteration); the wait_group 1 of one set's stage completes the other
  /// set, which is added into the sum while the first runs. Returns the
  /// sum after `wait_group 0`, equal bit for bit to promoting after each
  /// tile with one set. With the sum, 3 x tile.n / 2 registers per thread.
  Value emitPipelinedPromotion(const GemmTile &t, bool fenceAfterFull,
                               StageConsume consume);
  /// The one-set promotion (GemmSpec::promoteUnroll 1, a promotion per
  /// contraction tile): the two MMA warpgroups issue their wgmma of a
  /// stage in turn, warpgroup 0 first, so that the tensor cores can run one
  /// warpgroup's stage while the other waits for its own and adds it into
  /// its sum. Measured on the H200 (bench/README.md "Session 22"): with or
  /// without the order 10-30 % slower than the two-set default, so it is a
  /// tuning knob only.
  bool usesOrderedIssue() const;
  /// Before a stage's wgmma (`counter`: the ring counter of the stage):
  /// waits for the other warpgroup's issue of its previous stage
  /// (`bar.sync`; warpgroup 0's first stage of the kernel waits for none).
  void waitIssueTurn(Value counter);
  /// After a stage's wgmma: `bar.arrive` for the other warpgroup.
  void passIssueTurn();
  /// After the MMA role's last tile: warpgroup 0 takes warpgroup 1's last
  /// arrival, so that no named-barrier phase is left incomplete.
  void emitRoleEnd();
  /// `sum` + `acc`, one f32 add per register (full f32 precision: the fp8
  /// wgmma accumulates in reduced precision). The wgmma writing `acc` must
  /// have completed.
  Value addAccumulators(Value sum, Value acc);
  /// Stores the accumulators of the tile at (rowBase, colBase) of `batch`:
  /// thread (warpgroup wg, warp w, lane l) holds rows rowBase + 64 wg +
  /// 16 w + l / 4 (+ 8) and column pairs colBase + 2 (l % 4) + 8 j. The
  /// Float8 kernel multiplies by the scale reciprocals of `float8Scales`
  /// (staged by emitRingTile), or of its own unstaged ones when null.
  void emitEpilogue(Value acc, Value batch, Value rowBase, Value rowEnd,
                    Value colBase,
                    Float8EpilogueScales *float8Scales = nullptr);
  /// The staged epilogue (GemmSpec::usesStagedEpilogue): per 64 columns,
  /// four `stmatrix.x4` of the warp's 16 rows into its shared slot, then
  /// 16-byte row chunks to the output (rows at or past `rowEnd` and
  /// columns past n masked). `pairOf(g, h)` gives the two output values of
  /// the thread's 8-column group g, row half h.
  void
  emitStagedStores(function_ref<SmallVector<Value>(int64_t, int64_t)> pairOf,
                   Value outBase, Value warpRow, Value rowEnd, Value colBase);

  /// The running amaxes the staged epilogue updates (GemmSpec::
  /// amaxProducer, GemmAmaxFusion.h); null: none.
  void setEpilogueAmax(EpilogueAmax *amax) { epilogueAmax = amax; }

private:
  /// Threads 0-127 (MMA warpgroup 0).
  Value isFirstWarpgroup();

  GemmMainloop &mainloop;
  const GemmSpec &spec;
  /// computeUniformWarpgroup's warpgroup index (index), or null.
  Value warpgroup;
  EpilogueAmax *epilogueAmax = nullptr;
};

/// Configures `spec` (its problem set) for the pre-dequantized GEMM
/// (GemmVariant::DequantBF16): one CTA of 384 threads per SM (two MMA
/// warpgroups and the TMA producer warpgroup), 128 x `tileN` tiles (m64nN
/// per MMA warpgroup; 128 or 256), a ring of `stages` stages, and the
/// default cluster along M (GemmSpec::clusterM) of the problem's form for
/// the MX and high-precision kernels (configureWgmmaFloat8Gemm revises it
/// for Float8; chooseClusterM applies the op's and the lowering's choice).
void configureDequantBF16Gemm(GemmSpec &spec, int64_t tileN, int64_t stages);

/// Chooses the cluster along M (GemmSpec::clusterM) of the TMA-fed wgmma
/// `spec` of `op`, configured by configureDequantBF16Gemm: the op's
/// gemm_config `cluster_m` if it has one, else the lowering's
/// `gemm-cluster-m` (`target.gemmClusterM`) if not 0, else the form's
/// default (configureDequantBF16Gemm's).
void chooseClusterM(GemmSpec &spec, const GPUTargetInfo &target, Operation *op);

/// The body of the pre-dequantized GEMM (GemmVariant::DequantBF16): two
/// MMA warpgroups and a TMA producer warp on the stage ring; the operands
/// are the tensor maps of the padded buffers.
void emitDequantBF16Gemm(KernelBuilder &kb, const GemmSpec &spec,
                         ValueRange args);

/// The body of the fused-upcast GEMMs (FusedUpcast, FusedUpcastWS;
/// WGMMAUpcast.cpp).
void emitFusedUpcastGemm(KernelBuilder &kb, const GemmSpec &spec,
                         ValueRange args);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_WGMMA_H
