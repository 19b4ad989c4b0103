//===- GemmMainloop.h - target-neutral part of the GPU GEMMs ---*- C++ -*-===//
//
// What every MX GEMM kernel of convert-mxfp8train-to-gpu shares, whatever
// its MMA generation: the kernel arguments, the guard on the pre-pass flag,
// the shared-memory carve-out, the mbarrier stage ring, the persistent tile
// walk with the grouped walks, the warp roles, the producer role, the
// consumer loop over full stages and the epilogue store (the host-side
// buffers and launch are GemmLaunch.h's). An MMA generation (WGMMA.cpp,
// WGMMAUpcast.cpp, TCGen05.cpp) supplies its threads and warp roles, the
// consumer of a full stage and the map from its accumulator fragment to output
// (row, col).
//
// Shared memory (dynamic, `GemmSpec::sharedBytes()`):
//
//   [pad to 1024] [stage 0] ... [stage S-1] [full[0..S-1] empty[0..S-1]]
//   [extra bytes]
//
// Stages start 1024-byte aligned (128B swizzle atoms, descriptor base
// offset 0); each holds the K-major A tile then the B tile
// (`GemmSpec::stageBytesA/B`). The 2S mbarriers of 8 bytes exist only for
// the ring kernels (`GemmSpec::usesStageRing`); the extra bytes
// (`GemmSpec::extraBytes`) are the generation's (`viewExtra`).
//
// The stage ring. Every role keeps a per-thread ring counter g (one-word
// allocas, with its slot and parity, that LLVM promotes to registers),
// carried across the persistent tiles; every role walks the same tiles in
// the same order, so the counters agree. Stage g lives in slot s = g % S; its
// use number is g / S, and the parity of that use is (g / S) & 1. The slot and
// parity are kept beside g and advanced with it (a wrap and a flip: S need not
// be a power of two).
//   - full[s] completes when the producers have written slot s
//     (`initRing` fullArrivals arrivals, or expect_tx bytes with TMA);
//   - empty[s] completes when the consumers have finished reading it
//     (emptyArrivals arrivals).
// A producer waits empty[s] with parity ((g / S) & 1) ^ 1 (a fresh barrier
// passes that parity at once), fills the slot and completes full[s]. A
// consumer waits full[s] with parity (g / S) & 1, consumes, and releases
// the slot by arriving on empty[s] when its reads are done (for an
// asynchronous MMA that is the generation's business: wgmma releases the
// previous stage after `wait_group 1`; tcgen05 would `tcgen05.commit` to
// empty[s]).
//
// The TMA producer (`emitTmaProducer`): one thread of the producer role
// walks the tiles; per contraction tile it waits empty[s], raises full[s]'s
// transaction bytes by the sum of the stage's copies with its one arrival
// (`mbarrier.arrive.expect_tx`; full[s] expects 1 arrival) and issues the
// copies, `cp.async.bulk.tensor` boxes of tensor maps into the stage, which
// complete full[s] through the async proxy. A stage is described by a list
// of `StageCopy` (tensor map, box coordinates, offset in the stage, bytes):
// the pre-dequantized Hopper kernel copies an A and a B box
// (`getPaddedOperandCopies`). Consumers of TMA stages need no proxy fence
// after the full wait (TMA writes and the tensor cores' reads are both
// async-proxy accesses).
//
// The cluster along M (GemmSpec::clusterM = 2; the TMA-fed wgmma kernels).
// The two CTAs of a cluster (`clusters in (2, 1, 1)`, ranks r = 0, 1) walk
// the same units: pairs of M-adjacent row tiles with one N tile and batch
// or group (2d-3d: a group's row tiles 2 j and 2 j + 1; a pair never
// straddles two groups), CTA r computing tile 2 j + r. They need the same B
// tile, which they load once: CTA r loads its A tile alone and rows
// [r h, r h + h) of the B tile (h = tile.n / 2) with
// `.multicast::cluster` (mask 0b11) into the same offset of both CTAs'
// stage. A CTA whose tile is empty (its group or the M extent has an odd
// number of row tiles: its rows start at or past the end) still loads its
// B share, consumes and releases every stage of the pair (its stores are
// all masked): the pair's ring counters stay equal. The barrier protocol:
//   - full[s] (1 arrival): the CTA's producer arrives with expect_tx of A
//     plus the WHOLE B tile; the bytes come from its own A box, its own B
//     share and the peer's B share. The peer's share may land before the
//     arrival (the transaction count goes negative; the pending arrival
//     keeps the phase open). It cannot land a use early: the peer writes
//     use u + 1 of slot s only after its empty[s] saw this CTA's consumers
//     release use u, i.e. after this CTA's full[s] completed use u.
//   - empty[s] (4 arrivals, getReleaseArrivals): a slot may be refilled
//     only when BOTH CTAs' consumers released it, since either producer
//     writes into both CTAs. Each MMA warpgroup arrives once on its own
//     CTA's empty[s] and once on the peer's (releaseStage: mapa +
//     mbarrier.arrive, both predicated rather than branched over; release
//     at CTA scope: a cluster-scope release is a fence per stage, measured
//     1.4x slower), so each empty[s] counts 2 CTAs x
//     2 warpgroups. No arrival of use u + 1 can precede the completion of use
//     u: a consumer releases use u + 1 after full[s] of use u + 1, whose B
//     shares both producers issued after their empty[s] completed use u.
//   - a cluster barrier after the initialisation (initRing: no multicast
//     or remote arrival reaches an uninitialised barrier), and one at the
//     end of the kernel (emitKernel: no CTA exits while the peer may still
//     write into its shared memory or arrive on its barriers; every such
//     access precedes the peer's arrival on that barrier).
//
// Adding an MMA generation (e.g. Blackwell tcgen05):
//   1. GemmSpec.h: a GemmVariant, and for it `threads()` (its warp roles),
//      `stageBytesA/B()` (what a stage holds: e.g. fp8 tiles plus their
//      scale factors) and `extraBytes()` (its own shared state), and the
//      name suffix in GemmSpec.cpp.
//   2. A file with the kernel body on a GemmMainloop:
//        mainloop.emitKernel([&] {
//          mainloop.initRing(fullArrivals, emptyArrivals);
//          mainloop.emitWarpRoles({producerRole, mmaRole, ...});
//        });
//      A TMA producer role calls `emitTmaProducer(maps, copies)` with the
//      stage's `StageCopy` list (its operand and scale boxes; `initRing`
//      then expects one arrival on full[s]; the host creates the tensor
//      maps, e.g. `createPaddedOperands`, GemmLaunch.h). An MMA role walks the
//      same tiles
//      (`walkTiles`) and calls `emitConsumerLoop(t, init,
//      /*fenceAfterFull=*/false, consume)` with the stage's MMA issue and
//      release (tcgen05.commit to `getEmptyBarrier(stage)`). Its epilogue
//      maps its accumulator (registers, or TMEM chunks loaded by
//      tcgen05.ld) to output (row, col) and calls `storeOutput`. Further
//      barriers (an accumulator ring, a TMEM address slot) live in the
//      extra bytes: `getExtraAddress`, `getSharedPointer` and the
//      `*MBarrier` primitives.
//   3. GemmPatterns.cpp: the dispatch point of its chip (`checkGemmTarget`)
//      and the choice of its body in the launch.
//
// The tcgen05 kernel (TCGen05.cpp) uses it so: its TMA producer is a
// `StageFill` (one thread: `arriveExpectTx(stage, bytes)` then the bulk
// tensor copies completing on full[s]), its consumer the MMA issue of one
// stage inside `emitConsumerLoop` (released by `tcgen05.commit` to
// empty[s]), and its epilogue reads the TMEM accumulator and calls
// `storeOutput` with the (row, col) of each chunk.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMMAINLOOP_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMMAINLOOP_H

#include "../KernelBuilder.h"
#include "GemmSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

/// Short names for the `index` arithmetic of the GEMM kernel bodies; every
/// call creates its ops at the builder's insertion point (constants
/// included: the kernels are canonicalized later).
class GemmIndexArith {
public:
  explicit GemmIndexArith(KernelBuilder &kb) : kb(kb) {}

protected:
  Value c(int64_t v) { return kb.idx(v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(kb, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(kb, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(kb, x, y); }
  Value divu(Value x, int64_t y) { return arith::DivUIOp::create(kb, x, c(y)); }
  Value remu(Value x, int64_t y) { return arith::RemUIOp::create(kb, x, c(y)); }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, x, y);
  }
  Value uge(Value x, Value y) {
    return arith::CmpIOp::create(kb, arith::CmpIPredicate::uge, x, y);
  }
  Value andi(Value x, Value y) { return arith::AndIOp::create(kb, x, y); }
  Value select(Value p, Value x, Value y) {
    return arith::SelectOp::create(kb, p, x, y);
  }

  KernelBuilder &kb;
};

//===----------------------------------------------------------------------===//
// The pieces of a kernel
//===----------------------------------------------------------------------===//

/// The arguments of a GEMM kernel, in this order: A data, [A scales],
/// B data, [B scales], [offs], [bias], [init], [flag], [flag2], out.
/// Pre-dequantized
/// operands are loaded by TMA: their kernel arguments are the tensor maps
/// of the padded bf16 buffers (`!llvm.ptr`, createPaddedOperandTensorMap)
/// or, for high-precision operands, of the operands themselves, instead of
/// the data, and they have no scales; offs only for the grouped kinds, init
/// only with `GemmSpec::initType` (the output's initial value, flat, laid
/// out as `out`), flag only for guarded kernels, flag2 (B's flag word, A's
/// being `flag`) only with `GemmSpec::flagPerOperand`. The Float8 kernel
/// (GemmVariant::WgmmaFloat8) takes the tensor maps of its fp8 operands as
/// stored and their f32 scales. With GemmSpec::amaxProducer the extra
/// inputs of the amax epilogue (flat bf16, laid out as `out`) follow the
/// addend's place and the amax words (i32, one per producer result) follow
/// `out` (Gemm/GemmAmaxFusion.h).
struct GemmArgs {
  GemmArgs(const GemmSpec &spec, ValueRange args);

  Value aData, aScales, bData, bScales, offs, bias, init, addend, flag, flag2,
      out, amaxWords;
  SmallVector<Value, 2> amaxInputs;
  /// The tensor maps of TMA-loaded operands (null otherwise).
  Value aMap, bMap;
};

/// One output tile of the persistent walk: rows [rowBase, rowEnd) are
/// valid (rowEnd is the group end for 2d-3d, else m), columns [colBase,
/// colEnd), contraction [kLo, kHi) (a group's tokens for 2d-2d) in
/// contraction tiles [ktBegin, ktEnd) of `tile.k`; the element offsets of
/// the tile's batch in each operand's data and scales.
///
/// `rowTile` is the tile's index along the rows of the walk: rowBase /
/// tile.m, except for 2d-3d, where it counts the row tiles of the earlier
/// groups (ceil(rows / tile.m) each) plus the tile's index in its group;
/// with 128-row tiles that is the 128-row block of the tile's first row in
/// the blocked_m_groups scale layout (SPEC §4.2 a). `rowBlock` is that
/// 128-row block for any tile height: rowBase / 128, and for 2d-3d the
/// blocked_m_groups block of the tile's first row (the earlier groups'
/// ceil(rows / 128) blocks plus the tile's offset in its group / 128; a
/// 256-row tile's second half is block rowBlock + 1; only for the tcgen05
/// kernel, which reads blocked scales, else null). `kPadLo` (2d-2d) is
/// the group's start in the contraction padded per group to
/// GemmSpec::getKGroupPadding() (SPEC §4.2 b's Q_g * 32 for 128).
struct GemmTile {
  Value batch, rowBase, rowEnd, colBase, colEnd, kLo, kHi;
  Value rowTile, rowBlock, kPadLo;
  Value aDataBase, aScaleBase, bDataBase, bScaleBase;
  Value ktBegin, ktEnd;
};

/// One position of the stage ring: the thread's ring counter g, the slot
/// g % stages and the parity (g / stages) & 1 (i32) of its current use.
struct RingSlot {
  Value counter, stage, parity;
};

/// One warp role of a warp-specialised kernel: a contiguous range of
/// `threads` threads (a multiple of 128 where `maxRegisters` is set), the
/// register count `setmaxnreg` moves it to first (0: none), and the body,
/// which reads its thread index in the role from
/// GemmMainloop::getRoleThreadId.
struct WarpRole {
  int64_t threads;
  int32_t maxRegisters = 0;
  NVVM::SetMaxRegisterAction registerAction =
      NVVM::SetMaxRegisterAction::increase;
  function_ref<void()> body;
};

/// Fills ring slot `slot.stage` with the operand tiles of contraction tile
/// `kt` of tile `t` (the consumers have released it) and completes full[s]
/// once the data is visible to its readers.
using StageFill =
    function_ref<void(const GemmTile &t, Value kt, const RingSlot &slot)>;

/// One TMA copy of a stage fill: the box of `tensorMap` (an `!llvm.ptr`
/// kernel argument) at `coords` (i32, innermost dimension first) into the
/// stage at byte `stageOffset` (index; a multiple of 1024 for the 128-byte
/// swizzle); `bytes` is the box's size (the barrier counts whole boxes,
/// zero-filled parts included). A `multicast` copy lands at that offset in
/// the stage of every CTA of the cluster along M (GemmSpec::clusterM), and
/// each peer issues the counterpart of the same size (the other share of
/// the tile) into this CTA: the CTA's full[s] receives clusterM x `bytes`.
struct StageCopy {
  Value tensorMap;
  SmallVector<Value, 2> coords;
  Value stageOffset;
  int64_t bytes = 0;
  bool multicast = false;
};

/// The TMA copies that fill a stage with contraction tile `kt` of tile `t`.
using StageCopies =
    function_ref<SmallVector<StageCopy>(const GemmTile &t, Value kt)>;

/// Consumes the full ring slot `slot` (contraction tile `kt`) given the
/// consumer loop's carried values `iterArgs` (e.g. the accumulators), and
/// returns their new values.
using StageConsume = function_ref<SmallVector<Value>(
    Value kt, const RingSlot &slot, ValueRange iterArgs)>;

/// The target-neutral part of a GEMM kernel body. One instance per kernel
/// body; the MMA generation calls `emitKernel` and, inside it, the pieces
/// it needs.
class GemmMainloop : public GemmIndexArith {
public:
  GemmMainloop(KernelBuilder &kb, const GemmSpec &spec, ValueRange args);

  const GemmSpec &getSpec() const { return spec; }
  const GemmArgs &getArgs() const { return args; }
  KernelBuilder &getBuilder() { return kb; }

  //===--------------------------------------------------------------------===//
  // Kernel skeleton
  //===--------------------------------------------------------------------===//

  /// Emits the kernel: the thread index, then (guarded kernels: only when
  /// the pre-passes' flag says so) the shared-memory carve-out, `body` (with
  /// the cluster along M, then a cluster barrier), and for 2d-3d the
  /// zeroing of the output rows past the last group.
  void emitKernel(function_ref<void()> body);
  /// threadIdx.x (index).
  Value getThreadId() const { return tid; }
  /// The thread's index in the current warp role (threadIdx.x outside
  /// `emitWarpRoles` and in its first role).
  Value getRoleThreadId() const { return roleTid; }
  /// The CTA's rank in its cluster (index; %cluster_ctarank).
  Value getClusterRank();
  /// A barrier of every thread of the cluster (barrier.cluster.arrive,
  /// release, then wait, acquire).
  void syncCluster();
  /// The byte address (index, shared window) of stage 0, 1024-aligned.
  Value getStagesAddress() const { return stagesAddr; }
  /// The byte address of stage `stage` (index).
  Value getStageAddress(Value stage);
  /// The stages as a bf16 memref (element offsets from stage 0).
  Value getStagesView() const { return stagesView; }
  /// A view of `type` (static shape, workgroup memory) at the extra bytes
  /// after the stages and mbarriers.
  Value viewExtra(MemRefType type);
  /// The byte address (index, shared window) of the extra bytes.
  Value getExtraAddress();
  /// A shared-window byte address (index) as `!llvm.ptr<3>`.
  Value getSharedPointer(Value byteAddress);

  //===--------------------------------------------------------------------===//
  // Stage ring
  //===--------------------------------------------------------------------===//

  /// Thread 0 initialises full[s] with `fullArrivals` and empty[s] with
  /// `emptyArrivals` expected arrivals (then `initMore`, e.g. the
  /// generation's other mbarriers), fences the initialisation for the async
  /// proxy (TMA's complete_tx and tcgen05.commit complete barriers), a CTA
  /// barrier (a cluster barrier with the cluster along M) publishes them,
  /// and every thread's ring position (counter, slot and parity) starts
  /// at 0.
  void initRing(int64_t fullArrivals, int64_t emptyArrivals,
                function_ref<void()> initMore = nullptr);
  /// The thread's current ring position.
  RingSlot loadRingSlot();
  /// The ring counter alone.
  Value loadRingCounter();
  /// Moves the thread's ring position past `slot`.
  void advanceRing(const RingSlot &slot);
  /// The slot of the ring position before `slot` ((g - 1) % stages; the
  /// last slot for g = 0).
  Value getPreviousStage(const RingSlot &slot);
  /// full[stage] / empty[stage] as `!llvm.ptr<3>`.
  Value getFullBarrier(Value stage);
  Value getEmptyBarrier(Value stage);
  /// Consumer side: waits until `slot` is full.
  void waitFull(const RingSlot &slot);
  /// Producer side: waits until `slot` is empty (released by its previous
  /// use; a fresh ring passes at once).
  void waitEmpty(const RingSlot &slot);
  /// One arrival on full[stage] / empty[stage].
  void arriveFull(Value stage);
  void arriveEmpty(Value stage);
  /// The MMA warpgroups' (threads 0-255) release of slot `stage` after
  /// their reads of it completed: every thread arrives on empty[stage], or
  /// with the cluster along M one thread per warpgroup on this CTA's and
  /// another on the peer's empty[stage] ("The cluster").
  void releaseStage(Value stage);
  /// empty[s]'s expected arrivals for releaseStage: 256, or 4 with the
  /// cluster along M (2 CTAs x 2 MMA warpgroups).
  int64_t getReleaseArrivals() const;
  /// One arrival on full[stage] that also expects `bytes` of asynchronous
  /// (TMA) transactions (`mbarrier.arrive.expect_tx`).
  void arriveExpectTx(Value stage, int64_t bytes);
  /// The mbarrier primitives on any 8-byte aligned shared pointer (a
  /// generation's own barriers in the extra bytes): initialise with
  /// `arrivals` expected arrivals (call from one thread, then a CTA
  /// barrier), wait for the phase of `parity` (i32) to complete, arrive.
  void initMBarrier(Value ptr, int64_t arrivals);
  void waitMBarrier(Value ptr, Value parity);
  void arriveMBarrier(Value ptr);

  //===--------------------------------------------------------------------===//
  // Tiles and roles
  //===--------------------------------------------------------------------===//

  /// Calls `body` for every output tile of this CTA in the persistent order
  /// (unit t = blockIdx.x, + gridDim.x, ...; with clusters of
  /// `spec.clusterSize()` consecutive CTAs, every CTA of a cluster visits
  /// the cluster's units: t = blockIdx.x / clusterSize, + gridDim.x /
  /// clusterSize, ...; a unit is a tile, or with the cluster along M a pair
  /// of row tiles of which CTA r takes the r-th): dense and 2d-2d tiles in
  /// the grouped-M raster of GemmTiling.h per batch / group (2d-2d
  /// contracting over the group's clamped token range, or its range of the
  /// padded K for pre-dequantized operands); 2d-3d tiles walk the groups,
  /// each covering its rows in ceil(rows / tile.m) tiles (in ceil(rows /
  /// (2 tile.m)) pairs with the cluster along M).
  void walkTiles(function_ref<void(const GemmTile &)> body);
  /// Splits the CTA's threads into `roles` (in order: role 0 is threads
  /// [0, roles[0].threads), ...), each running its body.
  void emitWarpRoles(ArrayRef<WarpRole> roles);

  //===--------------------------------------------------------------------===//
  // Producer and consumer
  //===--------------------------------------------------------------------===//

  /// The producer role for one tile: per contraction tile, waits for an
  /// empty slot, `fill`s it, and advances the ring.
  void emitProducerTile(const GemmTile &t, StageFill fill);
  /// After the producer's last tile: waits until every slot is empty
  /// (released by its last use), so that no release is still in flight to
  /// this CTA when it exits (the asynchronous tcgen05.commit releases).
  void emitProducerTail();
  /// Fills `slot` with `copies` (TMA): one `mbarrier.arrive.expect_tx` on
  /// full[s] of their total bytes, then each box into the stage, completing
  /// on full[s]. Issued by one thread.
  void fillStageTma(const RingSlot &slot, ArrayRef<StageCopy> copies);
  /// The TMA producer role: its thread 0 prefetches the descriptors of
  /// `tensorMaps` and runs the producer loop of every tile with
  /// fillStageTma of `copies`; the role's other threads have nothing to do.
  /// The ring's full[s] must expect 1 arrival.
  void emitTmaProducer(ArrayRef<Value> tensorMaps, StageCopies copies);
  /// The stage of pre-dequantized operands (padded K-major bf16, 64 K per
  /// contraction tile; the Float8 kernel's K-major fp8 operands as stored,
  /// 128 K): the tile.m rows of A from row rowBase (of the tile's batch)
  /// and the tile.n rows of B from row colBase, each one box of tile.k
  /// (128 bytes, the 128-byte swizzle span) at K kt * tile.k from
  /// GemmArgs::aMap / bMap, at the stage's A and B offsets. The swizzle
  /// puts 16-byte chunk c of box row r at c ^ (r % 8), the layout of the
  /// wgmma descriptors. A sliced map (GemmSpec::aSlicedMap) is addressed
  /// (K, row, batch), a stacked one (K, batch x a.rows + row).
  SmallVector<StageCopy> getPaddedOperandCopies(const GemmTile &t, Value kt);
  /// The consumer loop of a tile: per contraction tile, waits for a full
  /// slot (then `fence.proxy.async` where `fenceAfterFull`: stages written
  /// through the generic proxy by producers that did not fence themselves),
  /// calls `consume`, and advances the ring; `init` are the loop's carried
  /// values.
  scf::ForOp emitConsumerLoop(const GemmTile &t, ValueRange init,
                              bool fenceAfterFull, StageConsume consume);
  /// One step of that loop, for contraction tile `kt` with the carried
  /// values `carried`, emitted in place (straight-line code for a consumer
  /// that unrolls its loop); returns what `consume` returns.
  SmallVector<Value> emitConsumerStep(Value kt, ValueRange carried,
                                      bool fenceAfterFull,
                                      StageConsume consume);

  //===--------------------------------------------------------------------===//
  // Epilogue
  //===--------------------------------------------------------------------===//

  /// The element offset of the output of batch (group) `batch`: 0 for
  /// 2d-3d, whose groups share the output rows.
  Value getOutputBase(Value batch);
  /// Stores output elements (row, col + j), j < width, from the fp32
  /// values `valueAt(j)` (called in order of j): the initial output
  /// (GemmArgs::init) and the bias added in fp32,
  /// rounded to bf16 (RNE) or kept f32; rows at or past `rowEnd` and
  /// columns past n are masked. With n a multiple of `width` (and `col`
  /// one) the `width` elements go out in one vector store.
  void storeOutput(Value outBase, Value row, Value col, Value rowEnd,
                   int64_t width, function_ref<Value(int64_t)> valueAt);
  /// The `width` output values storeOutput stores (initial output and bias
  /// added, rounded to the output type, then the addend added and rounded
  /// unless `withAddend` is false: the staged epilogue adds it per 16-byte
  /// chunk), without the store.
  SmallVector<Value> finishOutput(Value outBase, Value row, Value col,
                                  int64_t width,
                                  function_ref<Value(int64_t)> valueAt,
                                  bool withAddend = true);
  /// The sum the result feeds (GemmSpec::addendType, GemmSumFusion.h):
  /// `rounded` (the output type, scalar or vector) plus `term` (the same
  /// type) in f32, rounded to the output type again.
  Value addRoundedTerm(Value rounded, Value term);

private:
  /// The clamped end of group `g` given the previous end (CPU path rule).
  Value groupEnd(Value g, Value start, int64_t total);
  GemmTile makeTile(Value batch, Value rowBase, Value rowEnd, Value colBase,
                    Value kLo, Value kHi, Value rowTile, Value rowBlock,
                    Value kPadLo);
  /// The shared-memory carve-out (stages, mbarriers).
  void carveSharedMemory();
  /// Zeroes the 2d-3d output rows at or past the last group's end.
  void zeroRowsPastGroups();
  /// Whether this kernel runs: the pre-passes' flag word against
  /// `runWhenUnsafe`.
  Value guardCondition();
  /// mbarrier `i` (full[s] = s, empty[s] = stages + s) as a shared pointer.
  Value getBarrier(Value i);
  void waitBarrier(Value i, Value parity);
  void arriveBarrier(Value i);
  void storeRing(Value counter, Value stage, Value parity);

  const GemmSpec &spec;
  GemmArgs args;
  Value tid, roleTid;
  /// The dynamic shared memory (i8), the pad to the 1024-aligned stages,
  /// their byte address and bf16 view, and the mbarriers' byte address.
  Value rawShared, stagesPad, stagesAddr, stagesView, barriersAddr;
  /// The thread's ring position: its counter g, slot g % stages (both
  /// memref<1xindex>) and parity (g / stages) & 1 (memref<1xi32>), kept
  /// together so that no role divides by the stage count.
  Value ringCounter, ringStage, ringParity;
};

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMMAINLOOP_H
