//===- GemmMainloop.cpp - the target-neutral part of the GPU GEMMs -*- C++ -*-//
//
// Implements GemmMainloop.h: kernel skeleton (guard, shared-memory
// carve-out, 2d-3d zero rows), the mbarrier stage ring, the persistent tile
// and group walks, warp roles, the producer role with its TMA stage fill,
// the consumer loop and the epilogue store (the host side is
// GemmLaunch.cpp).
//
//===----------------------------------------------------------------------===//

#include "GemmMainloop.h"
#include "../TMA.h"
#include "DequantPrepass.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using gemm::TileShape;

GemmArgs::GemmArgs(const GemmSpec &spec, ValueRange args) {
  unsigned i = 0;
  bool tma = spec.loadsOperandsByTma();
  (tma ? aMap : aData) = args[i++];
  if (!spec.preDequantized())
    aScales = args[i++];
  (tma ? bMap : bData) = args[i++];
  if (!spec.preDequantized())
    bScales = args[i++];
  if (spec.kind != GemmKind::Dense)
    offs = args[i++];
  if (spec.biasType)
    bias = args[i++];
  if (spec.initType)
    init = args[i++];
  if (spec.addendType)
    addend = args[i++];
  for (int64_t j = 0; j < spec.getAmaxInputCount(); ++j)
    amaxInputs.push_back(args[i++]);
  if (spec.guarded)
    flag = args[i++];
  if (spec.guarded && spec.flagPerOperand)
    flag2 = args[i++];
  out = args[i++];
  if (spec.amaxProducer)
    amaxWords = args[i++];
}

GemmMainloop::GemmMainloop(KernelBuilder &kb, const GemmSpec &spec,
                           ValueRange args)
    : GemmIndexArith(kb), spec(spec), args(spec, args) {
  assert(
      (spec.clusterM == 1 || (spec.clusterM == 2 && spec.loadsOperandsByTma() &&
                              !spec.isTcgen05() && spec.tile.n % 16 == 0)) &&
      "the cluster along M is a pair of TMA-fed wgmma CTAs");
}

//===----------------------------------------------------------------------===//
// Kernel skeleton
//===----------------------------------------------------------------------===//

void GemmMainloop::emitKernel(function_ref<void()> body) {
  tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  roleTid = tid;
  auto emitBody = [&] {
    carveSharedMemory();
    body();
    // The cluster along M (GemmMainloop.h, "The cluster"): no CTA exits
    // while its peer may still multicast into its stages or arrive on its
    // empty barriers.
    if (spec.clusterM > 1)
      syncCluster();
    if (spec.kind == GemmKind::Grouped2d3d)
      zeroRowsPastGroups();
  };
  if (spec.guarded) {
    kb.ifThen(guardCondition(), emitBody);
    return;
  }
  emitBody();
}

Value GemmMainloop::guardCondition() {
  // One uniform load of the flag word (the pre-passes finished before this
  // launch on the same stream).
  SmallVector<Value> flags = {args.flag};
  if (args.flag2)
    flags.push_back(args.flag2);
  Value f = emitLoadFlags(kb, flags);
  return arith::CmpIOp::create(kb,
                               spec.runWhenUnsafe ? arith::CmpIPredicate::ne
                                                  : arith::CmpIPredicate::eq,
                               f, kb.i32(0));
}

void GemmMainloop::carveSharedMemory() {
  MLIRContext *ctx = kb.getContext();
  auto wgSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto rawType = MemRefType::get({ShapedType::kDynamic}, kb.getI8Type(),
                                 MemRefLayoutAttrInterface(), wgSpace);
  rawShared = gpu::DynamicSharedMemoryOp::create(kb, rawType);
  Value rawAddr = memref::ExtractAlignedPointerAsIndexOp::create(kb, rawShared);
  // The stages start at the first 1024-byte boundary (128B swizzle atoms).
  stagesPad = remu(sub(c(1024), remu(rawAddr, 1024)), 1024);
  stagesAddr = add(rawAddr, stagesPad);
  auto viewType = MemRefType::get({ShapedType::kDynamic}, kb.getBF16Type(),
                                  MemRefLayoutAttrInterface(), wgSpace);
  stagesView = memref::ViewOp::create(
      kb, viewType, rawShared, stagesPad,
      ValueRange{c(spec.stages * spec.stageBytes() / 2)});
  // The mbarriers follow the stages (8-byte aligned: stages are multiples
  // of 1 KiB).
  if (spec.usesStageRing())
    barriersAddr = add(stagesAddr, c(spec.stages * spec.stageBytes()));
}

void GemmMainloop::syncCluster() {
  // Not `.aligned`: the warp roles reach it on different paths.
  NVVM::ClusterArriveOp::create(kb, UnitAttr());
  NVVM::ClusterWaitOp::create(kb, UnitAttr());
}

Value GemmMainloop::getClusterRank() {
  return arith::IndexCastUIOp::create(
      kb, kb.getIndexType(),
      NVVM::ClusterId::create(kb, kb.getI32Type()).getResult());
}

Value GemmMainloop::getStageAddress(Value stage) {
  return add(stagesAddr, mul(stage, c(spec.stageBytes())));
}

Value GemmMainloop::viewExtra(MemRefType type) {
  int64_t offset = spec.stages * spec.stageBytes() + spec.barrierBytes();
  return memref::ViewOp::create(kb, type, rawShared, add(stagesPad, c(offset)),
                                ValueRange{});
}

Value GemmMainloop::getExtraAddress() {
  return add(stagesAddr,
             c(spec.stages * spec.stageBytes() + spec.barrierBytes()));
}

Value GemmMainloop::getSharedPointer(Value byteAddress) {
  Value addr64 = arith::IndexCastUIOp::create(kb, kb.getI64Type(), byteAddress);
  auto ptrType = LLVM::LLVMPointerType::get(
      kb.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  return LLVM::IntToPtrOp::create(kb, ptrType, addr64);
}

void GemmMainloop::zeroRowsPastGroups() {
  // Rows at or past the last group's end are zero (plus the sum's other
  // term with an addend).
  Value bid = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(kb, gpu::Dimension::x);
  auto walk =
      scf::ForOp::create(kb, c(0), c(spec.batches), c(1), ValueRange{c(0)});
  {
    OpBuilder::InsertionGuard g(kb);
    kb.setInsertionPointToStart(walk.getBody());
    Value end =
        groupEnd(walk.getInductionVar(), walk.getRegionIterArgs()[0], spec.m);
    scf::YieldOp::create(kb, end);
  }
  Value first = mul(walk.getResult(0), c(spec.n));
  Value gtid = add(mul(bid, c(spec.threads())), tid);
  Value zero =
      spec.outType.isBF16()
          ? arith::ConstantOp::create(kb,
                                      kb.getFloatAttr(kb.getBF16Type(), 0.0))
                .getResult()
          : arith::ConstantOp::create(kb, kb.getF32FloatAttr(0.0f)).getResult();
  kb.forLoop(add(first, gtid), c(spec.m * spec.n), mul(grid, c(spec.threads())),
             [&](Value i) {
               Value v = zero;
               if (args.addend)
                 v = addRoundedTerm(zero,
                                    memref::LoadOp::create(kb, args.addend, i));
               memref::StoreOp::create(kb, v, args.out, i);
             });
}

//===----------------------------------------------------------------------===//
// Stage ring
//===----------------------------------------------------------------------===//

Value GemmMainloop::getBarrier(Value i) {
  Value addr = add(barriersAddr, mul(i, c(8)));
  Value addr64 = arith::IndexCastUIOp::create(kb, kb.getI64Type(), addr);
  auto ptrType = LLVM::LLVMPointerType::get(
      kb.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  return LLVM::IntToPtrOp::create(kb, ptrType, addr64);
}

Value GemmMainloop::getFullBarrier(Value stage) { return getBarrier(stage); }

Value GemmMainloop::getEmptyBarrier(Value stage) {
  return getBarrier(add(c(spec.stages), stage));
}

void GemmMainloop::waitBarrier(Value i, Value parity) {
  // Suspend-time hint of the try_wait loop (ns), as the nvgpu lowering.
  NVVM::MBarrierTryWaitParityOp::create(kb, getBarrier(i), parity,
                                        kb.i32(10000000));
}

void GemmMainloop::arriveBarrier(Value i) {
  NVVM::MBarrierArriveOp::create(kb, Type(), getBarrier(i), Value(),
                                 NVVM::MemScopeKind::CTA, false);
}

void GemmMainloop::initMBarrier(Value ptr, int64_t arrivals) {
  NVVM::MBarrierInitOp::create(kb, ptr, kb.i32(arrivals), Value());
}

void GemmMainloop::waitMBarrier(Value ptr, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(kb, ptr, parity, kb.i32(10000000));
}

void GemmMainloop::arriveMBarrier(Value ptr) {
  NVVM::MBarrierArriveOp::create(kb, Type(), ptr, Value(),
                                 NVVM::MemScopeKind::CTA, false);
}

void GemmMainloop::initRing(int64_t fullArrivals, int64_t emptyArrivals,
                            function_ref<void()> initMore) {
  Value t0 = arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, tid, c(0));
  kb.ifThen(t0, [&] {
    for (int64_t s = 0; s < spec.stages; ++s) {
      NVVM::MBarrierInitOp::create(kb, getBarrier(c(s)), kb.i32(fullArrivals),
                                   Value());
      NVVM::MBarrierInitOp::create(kb, getBarrier(c(spec.stages + s)),
                                   kb.i32(emptyArrivals), Value());
    }
    if (initMore)
      initMore();
    // The async proxy (TMA's complete_tx, tcgen05.commit) must see the
    // initialised barriers.
    NVVM::FenceMbarrierInitOp::create(kb);
  });
  // With the cluster along M the peer's multicast copies and remote
  // arrivals reach this CTA's barriers: both CTAs initialise theirs before
  // either goes on (fence.mbarrier_init is release at cluster scope, the
  // cluster wait acquires).
  if (spec.clusterM > 1)
    syncCluster();
  else
    gpu::BarrierOp::create(kb);
  auto word = [&](Type type) {
    return memref::AllocaOp::create(kb, MemRefType::get({1}, type));
  };
  ringCounter = word(kb.getIndexType());
  ringStage = word(kb.getIndexType());
  ringParity = word(kb.getI32Type());
  storeRing(c(0), c(0), kb.i32(0));
}

Value GemmMainloop::loadRingCounter() {
  return memref::LoadOp::create(kb, ringCounter, ValueRange{c(0)});
}

void GemmMainloop::storeRing(Value counter, Value stage, Value parity) {
  memref::StoreOp::create(kb, counter, ringCounter, ValueRange{c(0)});
  memref::StoreOp::create(kb, stage, ringStage, ValueRange{c(0)});
  memref::StoreOp::create(kb, parity, ringParity, ValueRange{c(0)});
}

RingSlot GemmMainloop::loadRingSlot() {
  RingSlot slot;
  slot.counter = loadRingCounter();
  slot.stage = memref::LoadOp::create(kb, ringStage, ValueRange{c(0)});
  slot.parity = memref::LoadOp::create(kb, ringParity, ValueRange{c(0)});
  return slot;
}

void GemmMainloop::advanceRing(const RingSlot &slot) {
  // Slot g % S and parity (g / S) & 1 of g + 1 from those of g: the slot
  // wraps to 0 after S - 1, and the parity flips when it does (no division
  // by a stage count that is not a power of two, per stage and role).
  Value next = add(slot.stage, c(1));
  Value wraps =
      arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, next, c(spec.stages));
  Value parity = arith::XOrIOp::create(
      kb, slot.parity, arith::ExtUIOp::create(kb, kb.getI32Type(), wraps));
  // One op per statement: the IR must not depend on the host compiler's
  // argument evaluation order.
  Value nextStage = select(wraps, c(0), next);
  Value nextCounter = add(slot.counter, c(1));
  storeRing(nextCounter, nextStage, parity);
}

Value GemmMainloop::getPreviousStage(const RingSlot &slot) {
  Value first =
      arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, slot.stage, c(0));
  return select(first, c(spec.stages - 1), sub(slot.stage, c(1)));
}

void GemmMainloop::waitFull(const RingSlot &slot) {
  waitBarrier(slot.stage, slot.parity);
}

void GemmMainloop::waitEmpty(const RingSlot &slot) {
  Value one = kb.i32(1);
  Value parity = arith::XOrIOp::create(kb, slot.parity, one);
  waitBarrier(add(c(spec.stages), slot.stage), parity);
}

void GemmMainloop::arriveFull(Value stage) { arriveBarrier(stage); }

void GemmMainloop::arriveEmpty(Value stage) {
  arriveBarrier(add(c(spec.stages), stage));
}

int64_t GemmMainloop::getReleaseArrivals() const {
  // Without a cluster every MMA thread arrives; with it, one thread per MMA
  // warpgroup of each CTA of the cluster.
  return spec.clusterM > 1 ? spec.clusterM * (kMmaThreads / 128) : kMmaThreads;
}

void GemmMainloop::releaseStage(Value stage) {
  if (spec.clusterM == 1) {
    arriveEmpty(stage);
    return;
  }
  // The warpgroup's wgmma reads of the stage are complete for every thread
  // that passed its wait_group (the MMA is the warpgroup's), so one thread
  // speaks for the warpgroup: thread 0 of the warpgroup on this CTA's
  // empty[stage], thread 32 (another warp) on the peer's, through its
  // shared::cluster address (mapa; release at CTA scope). empty[s] of
  // either CTA thus completes after the clusterM x 2 warpgroups of the
  // cluster released the slot (getReleaseArrivals).
  assert(spec.clusterM == 2 && "the cluster along M is a pair");
  Value lane = remu(tid, 128);
  auto eq = [&](Value x, int64_t v) {
    return arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, x, c(v));
  };
  // Predicated arrivals, not branches: a branch around them in the
  // pipelined promotion loop of the Float8 kernels made ptxas spill the
  // accumulators. Here: an expect_tx of 0 bytes, then the arrive.
  Value local = getEmptyBarrier(stage);
  NVVM::MBarrierArriveExpectTxOp::create(kb, Type(), local, kb.i32(0),
                                         NVVM::MemScopeKind::CTA,
                                         /*relaxed=*/false, eq(lane, 0));
  Value rank = NVVM::ClusterId::create(kb, kb.getI32Type());
  Value peer = arith::XOrIOp::create(kb, rank, kb.i32(1));
  Value remote = tma::mapToClusterRank(kb, local, peer);
  // Release at CTA scope (TMA.h): the stage's reads were the async
  // proxy's, complete at the wait_group; a cluster-scope release fenced
  // every stage (ncu: `membar` stalls, the pair 1.4x slower).
  tma::arriveClusterBarrierIf(kb, remote, eq(lane, 32));
}

void GemmMainloop::arriveExpectTx(Value stage, int64_t bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(kb, Type(), getFullBarrier(stage),
                                         kb.i32(bytes), NVVM::MemScopeKind::CTA,
                                         /*relaxed=*/false, Value());
}

//===----------------------------------------------------------------------===//
// Tiles and roles
//===----------------------------------------------------------------------===//

Value GemmMainloop::groupEnd(Value g, Value start, int64_t total) {
  Value raw = memref::LoadOp::create(kb, args.offs, g);
  Value end = arith::IndexCastOp::create(kb, kb.getIndexType(), raw);
  end = arith::MaxSIOp::create(kb, end, start);
  return arith::MinSIOp::create(kb, end, c(total));
}

GemmTile GemmMainloop::makeTile(Value batch, Value rowBase, Value rowEnd,
                                Value colBase, Value kLo, Value kHi,
                                Value rowTile, Value rowBlock, Value kPadLo) {
  GemmTile t;
  t.rowTile = rowTile;
  t.rowBlock = rowBlock;
  t.kPadLo = kPadLo;
  t.batch = batch;
  t.rowBase = rowBase;
  t.rowEnd = rowEnd;
  t.colBase = colBase;
  t.kLo = kLo;
  t.kHi = kHi;
  t.aDataBase = spec.aBatched ? mul(batch, c(spec.a.getDataSize())) : c(0);
  t.aScaleBase = spec.aBatched ? mul(batch, c(spec.a.getScaleSize())) : c(0);
  t.bDataBase = spec.bBatched ? mul(batch, c(spec.b.getDataSize())) : c(0);
  t.bScaleBase = spec.bBatched ? mul(batch, c(spec.b.getScaleSize())) : c(0);
  t.colEnd = c(spec.n);
  t.ktBegin = divu(kLo, spec.tile.k);
  Value ktEnd = divu(add(kHi, c(spec.tile.k - 1)), spec.tile.k);
  t.ktEnd = arith::MaxUIOp::create(kb, ktEnd, t.ktBegin);
  return t;
}

void GemmMainloop::walkTiles(function_ref<void(const GemmTile &)> body) {
  auto visit = [&](Value batch, Value rowBase, Value rowEnd, Value colBase,
                   Value kLo, Value kHi, Value rowTile, Value rowBlock,
                   Value kPadLo) {
    body(makeTile(batch, rowBase, rowEnd, colBase, kLo, kHi, rowTile, rowBlock,
                  kPadLo));
  };
  Value bid = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(kb, gpu::Dimension::x);
  // Unit per cluster: the consecutive CTAs of a cluster (grid `clusters in
  // (clusterSize, 1, 1)`) walk the same units: the tcgen05 pair the same
  // tile, the cluster along M the same pair of row tiles, CTA r (its rank)
  // row tile 2 p + r of pair p.
  int64_t cm = spec.clusterM;
  if (spec.clusterSize() > 1) {
    bid = divu(bid, spec.clusterSize());
    grid = divu(grid, spec.clusterSize());
  }
  Value rank = cm > 1 ? getClusterRank() : Value();
  // Row tile `unit` x clusterM + rank of the unit (row tile) `unit`.
  auto rowTileOf = [&](Value unit) {
    return cm > 1 ? add(mul(unit, c(cm)), rank) : unit;
  };
  const TileShape &t = spec.tile;
  int64_t unitsM = spec.walkTilesM(), tilesN = spec.tilesN();
  kb.forLoop(bid, c(spec.numTiles()), grid, [&](Value tile) {
    switch (spec.kind) {
    case GemmKind::Dense:
    case GemmKind::Grouped2d2d: {
      // The grouped-M raster over the units (groupM rows of tiles per
      // band: groupM / clusterM units). With an odd tilesM the last pair's
      // second tile starts at or past m: empty (see "The cluster").
      Value batch = divu(tile, unitsM * tilesN);
      auto [mu, nt] =
          gemm::emitGroupedTile(kb, remu(tile, unitsM * tilesN), unitsM, tilesN,
                                std::max<int64_t>(1, t.groupM / cm));
      Value mt = rowTileOf(mu);
      Value kLo = c(0), kHi = c(spec.k), kPadLo;
      if (spec.kind == GemmKind::Grouped2d2d) {
        // The group's clamped token range: walk the ends up to `batch`,
        // and the group's start in the K padded per group. Pre-dequantized
        // operands: the group's range of that padded K instead (each group
        // rounded up to getKGroupPadding(), as the pre-pass lays it out).
        int64_t pad = spec.getKGroupPadding();
        auto walk = scf::ForOp::create(kb, c(0), add(batch, c(1)), c(1),
                                       ValueRange{c(0), c(0), c(0), c(0)});
        {
          OpBuilder::InsertionGuard g(kb);
          kb.setInsertionPointToStart(walk.getBody());
          ValueRange it = walk.getRegionIterArgs();
          Value start = it[1];
          Value end = groupEnd(walk.getInductionVar(), start, spec.k);
          Value padStart = it[3];
          Value padEnd =
              add(padStart,
                  mul(divu(add(sub(end, start), c(pad - 1)), pad), c(pad)));
          scf::YieldOp::create(kb, ValueRange{start, end, padStart, padEnd});
        }
        bool padded = spec.readsGroupPaddedK();
        kLo = walk.getResult(padded ? 2 : 0);
        kHi = walk.getResult(padded ? 3 : 1);
        kPadLo = walk.getResult(2);
      }
      visit(batch, mul(mt, c(t.m)), c(spec.m), mul(nt, c(t.n)), kLo, kHi, mt,
            spec.isTcgen05() ? divu(mul(mt, c(t.m)), 128) : Value(), kPadLo);
      break;
    }
    case GemmKind::Grouped2d3d: {
      // Tile rows of every group in turn: group g covers [start, end) in
      // ceil((end - start) / tile.m) tiles; its blocked_m_groups scales
      // (read by the tcgen05 kernel only: the others carry no row block)
      // start at the earlier groups' ceil(rows / 128) row blocks. With the
      // cluster along M, the units are pairs of a group's row tiles
      // (ceil((end - start) / (2 tile.m)) per group: a pair never straddles
      // two groups), CTA r taking tile 2 j + r of the group's pair j; the
      // second tile of a group's last pair is empty when the group has an
      // odd number of row tiles (its rows start at or past the group end).
      // `cum` counts units, `rowTile` (the GemmTile's) is not used by the
      // wgmma kernels.
      Value mt = divu(tile, tilesN);
      Value nt = remu(tile, tilesN);
      Value f = arith::ConstantIntOp::create(kb, 0, 1);
      bool blocks = spec.isTcgen05();
      SmallVector<Value> init = {c(0), c(0), f, c(0), c(0), c(0)};
      if (blocks)
        init.append({c(0), c(0)});
      auto walk = scf::ForOp::create(kb, c(0), c(spec.batches), c(1), init);
      {
        OpBuilder::InsertionGuard g(kb);
        kb.setInsertionPointToStart(walk.getBody());
        ValueRange it = walk.getRegionIterArgs();
        Value start = it[0], cum = it[1], found = it[2];
        Value g0 = walk.getInductionVar();
        Value end = groupEnd(g0, start, spec.m);
        Value count = divu(add(sub(end, start), c(cm * t.m - 1)), cm * t.m);
        Value next = add(cum, count);
        Value hit = andi(uge(mt, cum), ult(mt, next));
        Value row = add(start, mul(rowTileOf(sub(mt, cum)), c(t.m)));
        SmallVector<Value> yields = {end,
                                     next,
                                     arith::OrIOp::create(kb, found, hit),
                                     select(hit, g0, it[3]),
                                     select(hit, row, it[4]),
                                     select(hit, end, it[5])};
        if (blocks) {
          Value firstBlock = it[6];
          Value block = add(firstBlock, mul(sub(mt, cum), c(t.m / 128)));
          yields.append(
              {add(firstBlock, divu(add(sub(end, start), c(127)), 128)),
               select(hit, block, it[7])});
        }
        scf::YieldOp::create(kb, yields);
      }
      Value found = walk.getResult(2);
      kb.ifThen(found, [&] {
        visit(walk.getResult(3), walk.getResult(4), walk.getResult(5),
              mul(nt, c(t.n)), c(0), c(spec.k), mt,
              blocks ? walk.getResult(7) : Value(), Value());
      });
      break;
    }
    }
  });
}

void GemmMainloop::emitWarpRoles(ArrayRef<WarpRole> roles) {
  // Role i is an scf.if on threadIdx.x < (end of role i) whose else block
  // holds the later roles.
  std::function<void(ArrayRef<WarpRole>, int64_t)> emitFrom =
      [&](ArrayRef<WarpRole> rest, int64_t first) {
        auto emitRole = [&](const WarpRole &role) {
          if (role.maxRegisters)
            NVVM::SetMaxRegisterOp::create(kb, role.maxRegisters,
                                           role.registerAction);
          roleTid = first == 0 ? tid : sub(tid, c(first));
          role.body();
        };
        if (rest.size() == 1) {
          emitRole(rest.front());
          return;
        }
        Value inFirst = ult(tid, c(first + rest.front().threads));
        auto ifOp = scf::IfOp::create(kb, TypeRange{}, inFirst, true);
        OpBuilder::InsertionGuard g(kb);
        kb.setInsertionPointToStart(ifOp.thenBlock());
        emitRole(rest.front());
        kb.setInsertionPointToStart(ifOp.elseBlock());
        emitFrom(rest.drop_front(), first + rest.front().threads);
      };
  emitFrom(roles, 0);
  roleTid = tid;
}

//===----------------------------------------------------------------------===//
// Producer and consumer
//===----------------------------------------------------------------------===//

void GemmMainloop::emitProducerTile(const GemmTile &t, StageFill fill) {
  auto loop = scf::ForOp::create(kb, t.ktBegin, t.ktEnd, c(1));
  OpBuilder::InsertionGuard g(kb);
  kb.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  RingSlot slot = loadRingSlot();
  waitEmpty(slot);
  fill(t, kt, slot);
  advanceRing(slot);
}

void GemmMainloop::emitProducerTail() {
  // The next `stages` ring positions: each waits for one slot's last
  // release (a slot never filled passes at once).
  // One op per statement: the IR must not depend on the host compiler's
  // argument evaluation order.
  Value first = c(0);
  Value stages = c(spec.stages);
  Value step = c(1);
  auto loop = scf::ForOp::create(kb, first, stages, step);
  OpBuilder::InsertionGuard g(kb);
  kb.setInsertionPointToStart(loop.getBody());
  RingSlot slot = loadRingSlot();
  waitEmpty(slot);
  advanceRing(slot);
}

void GemmMainloop::fillStageTma(const RingSlot &slot,
                                ArrayRef<StageCopy> copies) {
  // The bytes that land in this CTA's stage: its own copies, and for each
  // multicast copy the peer's counterpart too (the other share of the
  // same tile, of the same size, GemmMainloop.h "The cluster").
  int64_t bytes = 0;
  for (const StageCopy &copy : copies)
    bytes += copy.multicast ? spec.clusterM * copy.bytes : copy.bytes;
  // The arrival with the expected bytes comes first: full[s] cannot
  // complete before the copies' bytes have landed. (The peer's multicast
  // bytes may land before it: the transaction count goes negative, and the
  // phase waits for this arrival all the same.)
  Value full = getFullBarrier(slot.stage);
  tma::arriveExpectTx(kb, full, kb.i32(bytes));
  Value stageAddr = getStageAddress(slot.stage);
  for (const StageCopy &copy : copies) {
    Value dst = tma::getSharedPointer(kb, add(stageAddr, copy.stageOffset));
    if (copy.multicast)
      tma::loadTensorTileMulticast(kb, dst, copy.tensorMap, full, copy.coords,
                                   (1u << spec.clusterM) - 1);
    else
      tma::loadTensorTile(kb, dst, copy.tensorMap, full, copy.coords);
  }
}

void GemmMainloop::emitTmaProducer(ArrayRef<Value> tensorMaps,
                                   StageCopies copies) {
  Value first =
      arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, roleTid, c(0));
  kb.ifThen(first, [&] {
    // The descriptors live in global memory; fetch them before the first
    // copies need them.
    for (Value map : tensorMaps)
      NVVM::PrefetchOp::create(kb, NVVM::PrefetchCacheLevelAttr(),
                               NVVM::CacheEvictionPriorityAttr(), map,
                               /*predicate=*/Value(), /*tensormap=*/true);
    walkTiles([&](const GemmTile &t) {
      emitProducerTile(t,
                       [&](const GemmTile &t, Value kt, const RingSlot &slot) {
                         fillStageTma(slot, copies(t, kt));
                       });
    });
  });
}

SmallVector<StageCopy> GemmMainloop::getPaddedOperandCopies(const GemmTile &t,
                                                            Value kt) {
  assert(spec.tile.k * spec.stageElementBytes() == 128 &&
         "one box row spans the 128B swizzle");
  auto i32 = [&](Value v) -> Value {
    return arith::IndexCastUIOp::create(kb, kb.getI32Type(), v);
  };
  // Batched operands: the batches' padded rows are stacked in one map.
  auto row = [&](bool batched, int64_t rows, Value base) {
    return batched ? add(mul(t.batch, c(rows)), base) : base;
  };
  Value k0 = i32(mul(kt, c(spec.tile.k)));
  // A sliced (3-D) map takes the batch as its outermost coordinate.
  auto coords = [&](bool batched, bool sliced, int64_t rows,
                    Value base) -> SmallVector<Value, 2> {
    if (sliced)
      return {k0, i32(base), i32(t.batch)};
    return {k0, i32(row(batched, rows, base))};
  };
  StageCopy a{args.aMap,
              coords(spec.aBatched, spec.aSlicedMap, spec.a.rows, t.rowBase),
              c(0), spec.stageBytesA()};
  if (spec.clusterM == 1)
    return {a, StageCopy{args.bMap,
                         coords(spec.bBatched, spec.bSlicedMap, spec.b.rows,
                                t.colBase),
                         c(spec.stageBytesA()), spec.stageBytesB()}};
  // The cluster along M: CTA r loads rows [r h, r h + h) of the B tile (h =
  // getBoxRowsB()) into both CTAs' stage at the same offset; the B tile's
  // rows are K-major 128-byte swizzle rows, so the shares are contiguous
  // and 1024-aligned (h a multiple of 8).
  int64_t share = spec.stageBytesB() / spec.clusterM;
  Value rank = getClusterRank();
  Value rowBase = add(t.colBase, mul(rank, c(spec.getBoxRowsB())));
  StageCopy b{args.bMap,
              coords(spec.bBatched, spec.bSlicedMap, spec.b.rows, rowBase),
              add(c(spec.stageBytesA()), mul(rank, c(share))), share};
  b.multicast = true;
  return {a, b};
}

scf::ForOp GemmMainloop::emitConsumerLoop(const GemmTile &t, ValueRange init,
                                          bool fenceAfterFull,
                                          StageConsume consume) {
  auto loop = scf::ForOp::create(kb, t.ktBegin, t.ktEnd, c(1), init);
  OpBuilder::InsertionGuard g(kb);
  kb.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> next =
      emitConsumerStep(loop.getInductionVar(), loop.getRegionIterArgs(),
                       fenceAfterFull, consume);
  // A loop without carried values already has its terminator.
  if (!init.empty())
    scf::YieldOp::create(kb, next);
  return loop;
}

SmallVector<Value> GemmMainloop::emitConsumerStep(Value kt, ValueRange carried,
                                                  bool fenceAfterFull,
                                                  StageConsume consume) {
  RingSlot slot = loadRingSlot();
  waitFull(slot);
  if (fenceAfterFull) {
    // The stage was written through the generic proxy; order those writes,
    // observed through full[s], before the tensor cores' reads.
    MLIRContext *ctx = kb.getContext();
    NVVM::FenceProxyOp::create(
        kb, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  }
  SmallVector<Value> next = consume(kt, slot, carried);
  advanceRing(slot);
  return next;
}

//===----------------------------------------------------------------------===//
// Epilogue
//===----------------------------------------------------------------------===//

Value GemmMainloop::getOutputBase(Value batch) {
  return spec.kind == GemmKind::Grouped2d3d ? c(0)
                                            : mul(batch, c(spec.m * spec.n));
}

void GemmMainloop::storeOutput(Value outBase, Value row, Value col,
                               Value rowEnd, int64_t width,
                               function_ref<Value(int64_t)> valueAt) {
  SmallVector<Value> vals = finishOutput(outBase, row, col, width, valueAt);
  Value rowOk = ult(row, rowEnd);
  Value off = add(outBase, add(mul(row, c(spec.n)), col));
  if (spec.n % width == 0) {
    Value ok = andi(rowOk, ult(col, c(spec.n)));
    kb.ifThen(ok, [&] {
      Value v = vector::FromElementsOp::create(
          kb, VectorType::get({width}, spec.outType), vals);
      int64_t bytes = width * spec.outType.getIntOrFloatBitWidth() / 8;
      kb.store(v, args.out, off, bytes);
    });
    return;
  }
  for (int64_t j = 0; j < width; ++j) {
    Value ok = andi(rowOk, ult(add(col, c(j)), c(spec.n)));
    kb.ifThen(ok, [&] {
      memref::StoreOp::create(kb, vals[j], args.out, add(off, c(j)));
    });
  }
}

SmallVector<Value>
GemmMainloop::finishOutput(Value outBase, Value row, Value col, int64_t width,
                           function_ref<Value(int64_t)> valueAt,
                           bool withAddend) {
  Type f32 = kb.getF32Type();
  SmallVector<Value> vals;
  bool addend = args.addend && withAddend;
  for (int64_t j = 0; j < width; ++j) {
    Value v = valueAt(j);
    // The element's position clamped into the batch, where the initial
    // output and the addend are read (masked elements read a valid one and
    // are not stored).
    Value at;
    if (args.init || addend) {
      Value rj = arith::MinUIOp::create(kb, row, c(spec.m - 1));
      Value cj = arith::MinUIOp::create(kb, add(col, c(j)), c(spec.n - 1));
      at = add(outBase, add(mul(rj, c(spec.n)), cj));
    }
    if (args.init) {
      Value iv = memref::LoadOp::create(kb, args.init, at);
      if (!spec.initType.isF32())
        iv = arith::ExtFOp::create(kb, f32, iv);
      v = arith::AddFOp::create(kb, iv, v);
    }
    if (args.bias) {
      Value cj = arith::MinUIOp::create(kb, add(col, c(j)), c(spec.n - 1));
      Value bv = memref::LoadOp::create(kb, args.bias, cj);
      if (!spec.biasType.isF32())
        bv = arith::ExtFOp::create(kb, f32, bv);
      v = arith::AddFOp::create(kb, v, bv);
    }
    if (spec.outType.isBF16())
      v = arith::TruncFOp::create(kb, spec.outType, v);
    if (addend)
      v = addRoundedTerm(v, memref::LoadOp::create(kb, args.addend, at));
    vals.push_back(v);
  }
  return vals;
}

Value GemmMainloop::addRoundedTerm(Value rounded, Value term) {
  Type f32 = kb.getF32Type();
  if (auto vector = dyn_cast<VectorType>(rounded.getType()))
    f32 = vector.clone(f32);
  // One op per statement: the IR must not depend on the host compiler's
  // argument evaluation order.
  Value wideTerm = arith::ExtFOp::create(kb, f32, term);
  Value wide = arith::ExtFOp::create(kb, f32, rounded);
  Value sum = arith::AddFOp::create(kb, wide, wideTerm);
  return arith::TruncFOp::create(kb, rounded.getType(), sum);
}
