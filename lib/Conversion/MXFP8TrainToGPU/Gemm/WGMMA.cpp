//===- WGMMA.cpp - the Hopper (wgmma) MMA generation ------------*- C++ -*-===//
//
// The sm_90a MMA side of the GEMM kernels (WGMMA.h) and the default GEMM
// kernel, which multiplies operands the pre-pass (DequantPrepass.cpp)
// dequantized into padded K-major bf16: 384 threads, one CTA per SM.
// Warpgroups 0-1 multiply (wait full[s], four wgmma m64n256k16 on a 128x256
// tile, wait_group 1, release the previous stage); thread 0 of warpgroup 2
// is the mainloop's TMA producer (wait empty[s], arrive.expect_tx of the
// 48 KiB stage on full[s], an A and a B box in the 128B swizzle). Four
// stages, a ring across the persistent tiles, grouped-M order; `setmaxnreg`
// moves registers from the producer warpgroup to the MMA warpgroups.
//
//===----------------------------------------------------------------------===//

#include "WGMMA.h"
#include "GemmAmaxFusion.h"
#include "WGMMAFloat8.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using gemm::TileShape;

/// Registers per thread of the MMA and producer warpgroups (setmaxnreg).
/// The CTA's pool is what it launched with (384 threads x 168, the limit
/// of .maxntid 384): setmaxnreg.inc waits for registers that another
/// warpgroup released, so asking for more than the pool hangs the CTA.
/// The producer's 2d-3d group walk spills below 72 (ptxas: 16 bytes at
/// 224/56, 136 at 232/40).
constexpr int32_t kMmaRegisters = 216;
constexpr int32_t kProducerRegisters = 72;
static_assert(2 * 128 * kMmaRegisters + 128 * kProducerRegisters <= 384 * 168,
              "the register split must fit the CTA's launch allocation");

Value WgmmaConsumer::zeroAccumulators() {
  auto accType = LLVM::LLVMStructType::getLiteral(
      kb.getContext(),
      SmallVector<Type>(getAccumulatorCount(), kb.getF32Type()));
  return LLVM::ZeroOp::create(kb, accType);
}

Value WgmmaConsumer::issue(Value acc, Value stage, bool overwrite) {
  MLIRContext *ctx = kb.getContext();
  const TileShape &t = spec.tile;
  uint64_t descBits = gemm::getWgmmaDescriptorBits(
      /*leadingByteOffset=*/16, /*strideByteOffset=*/1024, gemm::Swizzle::B128);
  Value wg = warpgroup ? warpgroup : divu(mainloop.getThreadId(), 128);
  // One wgmma reads 32 bytes of each K-major row: k16 of bf16 / f16, k32
  // of fp8 (the Float8 kernel).
  int64_t kStep = 32 / spec.stageElementBytes();
  // Descriptors: the stage's byte address, warpgroup wg's 64 A rows.
  Value stageAddr =
      add(mainloop.getStagesAddress(), mul(stage, c(spec.stageBytes())));
  Value aAddr = add(stageAddr, mul(wg, c(8192)));
  Value bAddr = add(stageAddr, c(spec.stageBytesA()));
  // The address fields in 32 bits, the K steps added there
  // (gemm::emitWgmmaDescriptor).
  Value descA = gemm::emitWgmmaDescriptorLow(kb, aAddr, descBits);
  Value descB = gemm::emitWgmmaDescriptorLow(kb, bAddr, descBits);
  NVVM::WgmmaFenceAlignedOp::create(kb);
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, t.n, kStep);
  // bf16 operands (the pre-dequantized MX operands, bf16 high-precision
  // ones), f16 high-precision operands, or the Float8 kernel's e4m3 / e5m2.
  auto wgmmaType = [&](Type type) {
    // The fused-upcast kernels stage bf16 from fp8 operands: only the
    // Float8 kernel's stages hold fp8.
    if (spec.isWgmmaFloat8())
      return isa<Float8E5M2Type>(type) ? NVVM::WGMMATypes::e5m2
                                       : NVVM::WGMMATypes::e4m3;
    return type.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  };
  auto aType = NVVM::WGMMATypesAttr::get(ctx, wgmmaType(spec.aType));
  auto bType = NVVM::WGMMATypesAttr::get(ctx, wgmmaType(spec.bType));
  auto f32t = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  for (int64_t kk = 0; kk < t.k / kStep; ++kk) {
    // Step kk: 32 bytes further along each K-major row (the swizzle is
    // applied by the hardware to the address bits).
    // (Sequenced: B's descriptor ops, then A's, whatever the compiler's
    // argument evaluation order.)
    Value stepB = gemm::emitWgmmaDescriptor(kb, descB, 2 * kk, descBits);
    Value stepA = gemm::emitWgmmaDescriptor(kb, descA, 2 * kk, descBits);
    acc = NVVM::WgmmaMmaAsyncOp::create(
        kb, acc.getType(), acc, stepA, stepB, shape, aType, bType, f32t,
        NVVM::WGMMAScaleOutAttr::get(ctx, overwrite && kk == 0
                                              ? NVVM::WGMMAScaleOut::zero
                                              : NVVM::WGMMAScaleOut::one),
        one, one, NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col),
        NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(kb);
  return acc;
}

void WgmmaConsumer::emitRingTile(const GemmTile &t, bool fenceAfterFull) {
  // The amax epilogue's other operands, into L2 for the epilogue's loads.
  if (epilogueAmax)
    epilogueAmax->prefetchTile(t);
  // Waits full[s], issues the stage's wgmma, keeps one stage in flight
  // (wait_group 1) and releases the previous stage (empty[s - 1]); the last
  // stage of the tile is released after wait_group 0.
  // `overwrite`: the stage's first wgmma ignores the accumulators it is
  // given (scale-d 0), which start a fresh partial sum in their registers.
  // Carried (acc, sum, done) (emitPipelinedPromotion): `done`, the set that
  // the wait_group 1 completes, is added into `sum` right after it, and
  // (acc, sum) is returned.
  auto consumeInto = [&](bool overwrite, Value kt, const RingSlot &slot,
                         ValueRange iterArgs) -> SmallVector<Value> {
    Value acc = issue(iterArgs[0], slot.stage, overwrite);
    NVVM::WgmmaWaitGroupSyncOp::create(kb, 1);
    SmallVector<Value> results = {acc};
    if (iterArgs.size() == 3)
      results.push_back(addAccumulators(iterArgs[1], iterArgs[2]));
    Value notFirst =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ugt, kt, t.ktBegin);
    kb.ifThen(notFirst,
              [&] { mainloop.releaseStage(mainloop.getPreviousStage(slot)); });
    return results;
  };
  auto consume = [&](Value kt, const RingSlot &slot, ValueRange iterArgs) {
    return consumeInto(false, kt, slot, iterArgs);
  };
  auto consumeFresh = [&](Value kt, const RingSlot &slot, ValueRange iterArgs) {
    return consumeInto(true, kt, slot, iterArgs);
  };
  // Float8: the tile's scale reciprocals, staged in shared memory while
  // the last stage's wgmma run (after the loop, before wait_group 0).
  std::optional<Float8EpilogueScales> scales;
  auto stageScales = [&] {
    if (!spec.isWgmmaFloat8())
      return;
    scales.emplace(mainloop, t.batch);
    if (spec.float8FactorBytes()) {
      Value factors =
          add(mainloop.getExtraAddress(), c(spec.stagedEpilogueBytes()));
      scales->stageFactors(factors, mainloop.getThreadId(), kMmaThreads,
                           t.rowBase, t.colBase);
    }
  };
  Value result;
  int64_t tiles = spec.isWgmmaFloat8() && spec.promoteInterval > 0
                      ? spec.promoteInterval / spec.tile.k
                      : 0;
  // The one-set promotion releases each stage itself.
  bool releasedInLoop = false;
  if (usesOrderedIssue()) {
    // One accumulator set (GemmSpec::promoteUnroll): per contraction tile
    // the stage's wgmma on fresh accumulators, wait_group 0, release the
    // stage, add the set into the sum. This warpgroup's tensor-core work
    // pauses for the add; the other MMA warpgroup's wgmma, queued behind
    // its own on the same tensor cores (waitIssueTurn / passIssueTurn),
    // are meant to fill it (measured: they do not fully; WGMMA.h).
    auto consumeOneSet = [&](Value kt, const RingSlot &slot,
                             ValueRange iterArgs) -> SmallVector<Value> {
      waitIssueTurn(slot.counter);
      Value acc = issue(iterArgs[0], slot.stage, /*overwrite=*/true);
      passIssueTurn();
      NVVM::WgmmaWaitGroupSyncOp::create(kb, 0);
      mainloop.releaseStage(slot.stage);
      return {acc, addAccumulators(iterArgs[1], acc)};
    };
    Value zero = zeroAccumulators();
    scf::ForOp loop = mainloop.emitConsumerLoop(t, ValueRange{zero, zero},
                                                fenceAfterFull, consumeOneSet);
    result = loop.getResult(1);
    releasedInLoop = true;
  } else if (tiles == 1) {
    result = emitPipelinedPromotion(t, fenceAfterFull, consumeFresh);
  } else if (tiles > 1) {
    // Promotion (GemmSpec::promoteInterval) over intervals of several
    // contraction tiles: the consumer loop runs per interval on fresh
    // accumulators, which are then added into the f32 sum the outer loop
    // carries. Straight-line code between the intervals: ptxas serializes
    // the wgmma of a loop whose accumulators other instructions read inside
    // it.
    auto outer = scf::ForOp::create(kb, t.ktBegin, t.ktEnd, c(tiles),
                                    ValueRange{zeroAccumulators()});
    {
      OpBuilder::InsertionGuard g(kb);
      kb.setInsertionPointToStart(outer.getBody());
      GemmTile interval = t;
      interval.ktBegin = outer.getInductionVar();
      interval.ktEnd =
          arith::MinUIOp::create(kb, add(interval.ktBegin, c(tiles)), t.ktEnd);
      scf::ForOp loop = mainloop.emitConsumerLoop(interval, zeroAccumulators(),
                                                  fenceAfterFull, consume);
      NVVM::WgmmaWaitGroupSyncOp::create(kb, 0);
      Value sum =
          addAccumulators(outer.getRegionIterArgs()[0], loop.getResult(0));
      scf::YieldOp::create(kb, sum);
    }
    result = outer.getResult(0);
  } else {
    scf::ForOp loop = mainloop.emitConsumerLoop(t, zeroAccumulators(),
                                                fenceAfterFull, consume);
    result = loop.getResult(0);
  }
  stageScales();
  NVVM::WgmmaWaitGroupSyncOp::create(kb, 0);
  if (!releasedInLoop)
    kb.ifThen(ult(t.ktBegin, t.ktEnd), [&] {
      mainloop.releaseStage(mainloop.getPreviousStage(mainloop.loadRingSlot()));
    });
  emitEpilogue(result, t.batch, t.rowBase, t.rowEnd, t.colBase,
               scales ? &*scales : nullptr);
}

bool WgmmaConsumer::usesOrderedIssue() const {
  return spec.isWgmmaFloat8() && spec.promoteInterval == spec.tile.k &&
         spec.promoteUnroll == 1;
}

/// The named barriers of the ordered issue (WgmmaConsumer::waitIssueTurn):
/// arrived at by warpgroup 0 (1) after its wgmma of a stage, waited for
/// by the other. (Barrier 1 is Float8EpilogueScales::kFactorBarrier.)
constexpr int32_t kIssuedByWg0Barrier = 2, kIssuedByWg1Barrier = 3;

void WgmmaConsumer::computeUniformWarpgroup() {
  // Lane 0's threadIdx.x / 128, which every lane of the warp shares: ptxas
  // then keeps the warpgroup's descriptors in uniform registers.
  Value wg = arith::IndexCastUIOp::create(kb, kb.getI32Type(),
                                          divu(mainloop.getThreadId(), 128));
  Value lane0 =
      NVVM::ShflOp::create(kb, kb.getI32Type(), kb.i32(-1), wg, kb.i32(0),
                           kb.i32(0x1f), NVVM::ShflKind::idx, UnitAttr());
  warpgroup = arith::IndexCastUIOp::create(kb, kb.getIndexType(), lane0);
}

Value WgmmaConsumer::isFirstWarpgroup() {
  return arith::CmpIOp::create(kb, arith::CmpIPredicate::ult,
                               mainloop.getThreadId(), c(128));
}

void WgmmaConsumer::waitIssueTurn(Value counter) {
  Value wg0 = isFirstWarpgroup();
  Value id =
      select(wg0, kb.i32(kIssuedByWg1Barrier), kb.i32(kIssuedByWg0Barrier));
  // Warpgroup 0 issues the kernel's first stage without waiting.
  Value notFirst = arith::OrIOp::create(
      kb, uge(mainloop.getThreadId(), c(128)),
      arith::CmpIOp::create(kb, arith::CmpIPredicate::ne, counter, c(0)));
  kb.ifThen(notFirst, [&] {
    NVVM::BarrierOp::create(kb, Type(), id, kb.i32(kMmaThreads), {}, Value());
  });
}

void WgmmaConsumer::passIssueTurn() {
  Value id = select(isFirstWarpgroup(), kb.i32(kIssuedByWg0Barrier),
                    kb.i32(kIssuedByWg1Barrier));
  NVVM::BarrierArriveOp::create(kb, id, kb.i32(kMmaThreads));
}

void WgmmaConsumer::emitRoleEnd() {
  if (!usesOrderedIssue())
    return;
  // Warpgroup 1's arrival after the kernel's last stage, which no later
  // issue of warpgroup 0 consumed (every named-barrier phase completes).
  Value any = arith::CmpIOp::create(kb, arith::CmpIPredicate::ugt,
                                    mainloop.loadRingCounter(), c(0));
  kb.ifThen(andi(isFirstWarpgroup(), any), [&] {
    NVVM::BarrierOp::create(kb, Type(), kb.i32(kIssuedByWg1Barrier),
                            kb.i32(kMmaThreads), {}, Value());
  });
}

Value WgmmaConsumer::emitPipelinedPromotion(const GemmTile &t,
                                            bool fenceAfterFull,
                                            StageConsume consume) {
  // Two accumulator sets, X and Y, alternate over the contraction tiles,
  // promoteUnroll tiles per iteration in straight-line code, so that each
  // set keeps its registers. The wait_group 1 of one set's stage completes
  // the other set (the previous stage), which is added into the sum while
  // the first runs. The iteration ends with wait_group 0: no wgmma is in
  // flight across the loop's back edge, where ptxas could not tell the
  // completed set from the running one and would serialize every wgmma of
  // the kernel; its last set, complete, crosses the back edge unadded and
  // is added while the next iteration's first set runs (or after the
  // loop). The tiles past the last whole group run one per iteration, each
  // added after wait_group 0. The sum sees the tiles in order, as with one
  // set (plus one leading + 0, which changes no sum: it starts at +0).
  // (GemmSpec::promoteUnroll: 4 for dense bf16-output GEMMs, whose sets
  // ptxas still keeps in registers, halves the drains, on which ncu found
  // 18 % of the MMA warps' stalls; ptxas spilled the grouped and the
  // f32-output forms with 4 (they keep 2), and every form with 8.)
  const int64_t promoteUnroll = spec.promoteUnroll;
  assert(promoteUnroll >= 2 && promoteUnroll % 2 == 0 &&
         "the two sets alternate within an iteration");
  Value zero = zeroAccumulators();
  Value count = sub(t.ktEnd, t.ktBegin);
  Value groupsEnd =
      add(t.ktBegin, mul(divu(count, promoteUnroll), c(promoteUnroll)));
  auto groups = scf::ForOp::create(kb, t.ktBegin, groupsEnd, c(promoteUnroll),
                                   ValueRange{zero, zero, zero});
  {
    OpBuilder::InsertionGuard g(kb);
    kb.setInsertionPointToStart(groups.getBody());
    Value kt = groups.getInductionVar();
    Value sum = groups.getRegionIterArgs()[0];
    SmallVector<Value, 2> sets(groups.getRegionIterArgs().drop_front());
    // Step i issues its set, then adds the other one, which its wait_group
    // 1 completed: in step 0 the previous iteration's last set (complete,
    // not yet added; zero before the first), so that the tensor cores
    // restart right after the back edge instead of after that add.
    for (int64_t i = 0; i < promoteUnroll; ++i) {
      Value &set = sets[i % 2];
      Value &done = sets[(i + 1) % 2];
      SmallVector<Value> r = mainloop.emitConsumerStep(
          add(kt, c(i)), {set, sum, done}, fenceAfterFull, consume);
      set = r[0];
      sum = r[1];
    }
    NVVM::WgmmaWaitGroupSyncOp::create(kb, 0);
    scf::YieldOp::create(kb, ValueRange{sum, sets[0], sets[1]});
  }
  // The last set of the last iteration (zero without one).
  Value pending = groups.getResult(1 + (promoteUnroll - 1) % 2);
  auto rest = scf::ForOp::create(
      kb, groupsEnd, t.ktEnd, c(1),
      ValueRange{addAccumulators(groups.getResult(0), pending),
                 groups.getResult(1)});
  {
    OpBuilder::InsertionGuard g(kb);
    kb.setInsertionPointToStart(rest.getBody());
    Value set = mainloop
                    .emitConsumerStep(rest.getInductionVar(),
                                      rest.getRegionIterArgs()[1],
                                      fenceAfterFull, consume)
                    .front();
    NVVM::WgmmaWaitGroupSyncOp::create(kb, 0);
    Value sum = addAccumulators(rest.getRegionIterArgs()[0], set);
    scf::YieldOp::create(kb, ValueRange{sum, set});
  }
  return rest.getResult(0);
}

Value WgmmaConsumer::addAccumulators(Value sum, Value acc) {
  for (int64_t i = 0; i < getAccumulatorCount(); ++i) {
    Value a = LLVM::ExtractValueOp::create(kb, acc, i);
    Value s = LLVM::ExtractValueOp::create(kb, sum, i);
    sum = LLVM::InsertValueOp::create(kb, sum, arith::AddFOp::create(kb, s, a),
                                      i);
  }
  return sum;
}

void WgmmaConsumer::emitEpilogue(Value acc, Value batch, Value rowBase,
                                 Value rowEnd, Value colBase,
                                 Float8EpilogueScales *float8Scales) {
  Value tid = mainloop.getThreadId();
  Value wg = divu(tid, 128);
  Value warp = divu(remu(tid, 128), 32);
  Value lane = remu(tid, 32);
  Value rowT =
      add(add(rowBase, mul(wg, c(64))), add(mul(warp, c(16)), divu(lane, 4)));
  Value colT = add(colBase, mul(remu(lane, 4), c(2)));
  Value outBase = mainloop.getOutputBase(batch);
  // Float8: the scale reciprocals of the thread's two rows, and of each
  // column pair when its first register comes.
  std::optional<Float8EpilogueScales> ownScales;
  Float8EpilogueScales *scales = float8Scales;
  if (spec.isWgmmaFloat8() && !scales)
    scales = &ownScales.emplace(mainloop, batch);
  SmallVector<Value, 2> rowFactors, colFactors;
  if (scales) {
    rowFactors = {scales->getRowFactor(rowT),
                  scales->getRowFactor(add(rowT, c(8)))};
  }
  if (spec.usesStagedEpilogue()) {
    // The accumulator registers of 8-column group g and row half h
    // (i = 4g + 2h, i + 1), as the output's two bf16 values.
    auto pairOf = [&](int64_t g, int64_t h) {
      int64_t i = 4 * g + 2 * h;
      Value row = add(rowT, c(8 * h));
      Value col = add(colT, c(8 * g));
      // (Called with h = 0 first for each g.)
      if (scales && h == 0)
        colFactors = {scales->getColumnFactor(col),
                      scales->getColumnFactor(add(col, c(1)))};
      // The addend (if any) is added by emitStagedStores.
      return mainloop.finishOutput(
          outBase, row, col, 2,
          [&](int64_t j) {
            Value v = LLVM::ExtractValueOp::create(kb, acc, i + j);
            if (scales)
              v = scales->apply(v, rowFactors[h], colFactors[j]);
            return v;
          },
          /*withAddend=*/false);
    };
    emitStagedStores(pairOf, outBase,
                     add(rowBase, add(mul(wg, c(64)), mul(warp, c(16)))),
                     rowEnd, colBase);
    return;
  }
  // Registers (i, i + 1) hold columns (col, col + 1) of one row: i % 4 / 2
  // picks the row half (+8), i / 4 the 8-column group.
  for (int64_t i = 0; i < getAccumulatorCount(); i += 2) {
    Value row = add(rowT, c(8 * ((i / 2) % 2)));
    Value col = add(colT, c(8 * (i / 4)));
    if (scales && i % 4 == 0)
      colFactors = {scales->getColumnFactor(col),
                    scales->getColumnFactor(add(col, c(1)))};
    mainloop.storeOutput(
        outBase, row, col, rowEnd, /*width=*/2, [&](int64_t j) -> Value {
          Value v = LLVM::ExtractValueOp::create(kb, acc, i + j);
          if (scales)
            v = scales->apply(v, rowFactors[(i / 2) % 2], colFactors[j]);
          return v;
        });
  }
}

void WgmmaConsumer::emitStagedStores(
    function_ref<SmallVector<Value>(int64_t, int64_t)> pairOf, Value outBase,
    Value warpRow, Value rowEnd, Value colBase) {
  MLIRContext *ctx = kb.getContext();
  constexpr int64_t rowBytes = GemmSpec::kStagedRowBytes;
  Value tid = mainloop.getThreadId();
  Value lane = remu(tid, 32);
  // The warp's slot (MMA warp tid / 32 of 8).
  Value slot =
      add(mainloop.getExtraAddress(), mul(divu(tid, 32), c(16 * rowBytes)));
  // stmatrix .x4: lanes 8m..8m+7 address the 8 rows of matrix m, which
  // holds 8-column group g0 + m / 2 and row half m % 2.
  Value m = divu(lane, 8);
  Value stRow = add(mul(remu(m, 2), c(8)), remu(lane, 8));
  Value stAddr =
      add(slot, add(mul(stRow, c(rowBytes)), mul(divu(m, 2), c(16))));
  // The row-chunk copy: lane L moves 16 bytes of row it * 4 + L / 8, chunk
  // L % 8, of the slot's 16 x 64 values.
  Value ldRow = divu(lane, 8);
  Value chunk = remu(lane, 8);
  auto i32 = kb.getI32Type();
  auto bf16x2 = VectorType::get({2}, kb.getBF16Type());
  auto i32x4 = VectorType::get({4}, i32);
  auto bf16x8 = VectorType::get({8}, kb.getBF16Type());
  auto syncWarp = [&] { NVVM::SyncWarpOp::create(kb, kb.i32(-1)); };
  int64_t groups = spec.tile.n / 8;
  assert(groups % 4 == 0 && "whole stmatrix .x4 of 32 columns");
  for (int64_t g0 = 0; g0 < groups; g0 += 8) {
    // 16 rows x 64 columns: 8 groups x 2 row halves, four per stmatrix
    // (the last 32 columns of a 160-column tile: 4 groups, two stmatrix).
    int64_t chunkGroups = std::min<int64_t>(8, groups - g0);
    for (int64_t pair = 0; pair < chunkGroups / 2; ++pair) {
      SmallVector<Value, 4> sources;
      for (int64_t mi = 0; mi < 4; ++mi) {
        SmallVector<Value> v = pairOf(g0 + 2 * pair + mi / 2, mi % 2);
        Value packed = vector::FromElementsOp::create(kb, bf16x2, v);
        Value word =
            vector::BitCastOp::create(kb, VectorType::get({1}, i32), packed);
        sources.push_back(vector::ExtractOp::create(kb, word, 0));
      }
      NVVM::StMatrixOp::create(
          kb, mainloop.getSharedPointer(add(stAddr, c(pair * 32))), sources,
          NVVM::MMALayout::row, NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
          NVVM::LdStMatrixEltType::B16);
    }
    syncWarp();
    Value col = add(colBase, add(c(g0 * 8), mul(chunk, c(8))));
    // The amax epilogue's other operands for the four row chunks, loaded
    // before the first is stored (addresses clamped into the output:
    // masked chunks load an element they do not use).
    SmallVector<SmallVector<Value, 2>, 4> amaxInputs;
    bool amaxHere = epilogueAmax && epilogueAmax->inEpilogue();
    if (amaxHere)
      for (int64_t it = 0; it < 4; ++it)
        amaxInputs.push_back(
            epilogueAmax->loadInputs(epilogueAmax->getClampedOffset(
                outBase, add(warpRow, add(ldRow, c(it * 4))), col, rowEnd)));
    for (int64_t it = 0; it < 4; ++it) {
      Value row = add(ldRow, c(it * 4));
      Value ptr = mainloop.getSharedPointer(
          add(slot, add(mul(row, c(rowBytes)), mul(chunk, c(16)))));
      Value v = LLVM::LoadOp::create(kb, i32x4, ptr, /*alignment=*/16);
      Value outRow = add(warpRow, row);
      Value ok = andi(ult(outRow, rowEnd), ult(col, c(spec.n)));
      if (chunkGroups < 8)
        ok = andi(ok, ult(chunk, c(chunkGroups)));
      kb.ifThen(ok, [&] {
        Value offset = add(outBase, add(mul(outRow, c(spec.n)), col));
        Value values = vector::BitCastOp::create(kb, bf16x8, v);
        // The sum the result feeds: the other term's 8 values at the
        // same offset.
        if (Value addend = mainloop.getArgs().addend)
          values = mainloop.addRoundedTerm(
              values, kb.load(bf16x8, addend, {offset}, 16));
        kb.store(values, mainloop.getArgs().out, offset, 16);
        if (amaxHere)
          epilogueAmax->accumulate(values, amaxInputs[it]);
      });
    }
    syncWarp();
  }
}

void gpu_lowering::configureDequantBF16Gemm(GemmSpec &spec, int64_t tileN,
                                            int64_t stages) {
  spec.variant = GemmVariant::DequantBF16;
  spec.tile = TileShape();
  spec.tile.n = tileN;
  spec.stages = stages;
  spec.ctasPerSM = 1;
  spec.converterGroups = 1;
  spec.prefetch = 1;
  // The cluster along M (GemmMainloop.h, "The cluster"): the grouped forms
  // by default. torch._grouped_mm's CUTLASS kernel runs this schedule with
  // a 2x1 cluster and reads half the B tiles from L2 (bench/README.md, "Why
  // the grouped GEMM trails"). Measured on the H200 (bench/README.md,
  // "Session 19"): the grouped and the dense GEMMs within +-5 % of one CTA
  // per cluster, the sign changing between calls, so the pair is kept
  // where torch's kernel has one (the grouped forms) and scaled_mm keeps
  // one CTA. (The Float8 kernel revises this: configureWgmmaFloat8Gemm.)
  spec.clusterM = spec.kind == GemmKind::Dense ? 1 : 2;
}

void gpu_lowering::chooseClusterM(GemmSpec &spec, const GPUTargetInfo &target,
                                  Operation *op) {
  auto config =
      op->getAttrOfType<GemmConfigAttr>(GemmConfigAttr::getAttrName());
  if (config && config.getClusterM())
    spec.clusterM = *config.getClusterM();
  else if (target.gemmClusterM)
    spec.clusterM = target.gemmClusterM;
}

void gpu_lowering::emitDequantBF16Gemm(KernelBuilder &kb, const GemmSpec &spec,
                                       ValueRange args) {
  GemmMainloop mainloop(kb, spec, args);
  WgmmaConsumer mma(mainloop);
  const GemmArgs &kargs = mainloop.getArgs();
  // TMA writes the stages through the async proxy, which the wgmma reads
  // too: no fence after the full wait.
  //
  // The tensorwise amaxes the epilogue takes (GemmAmaxFusion.h): the
  // running maxima, flushed after the MMA role's last tile (after its
  // role-end barrier: an atomic before the ring's last reloads left the
  // ring counter in local memory in the ordered-issue kernels).
  // With amax warps (GemmSpec::amaxWarps) the MMA warps hand each stored
  // tile to them through the tile ring instead.
  std::optional<EpilogueAmax> amax;
  auto mmaRole = [&] {
    mma.computeUniformWarpgroup();
    bool handOver = amax && !amax->inEpilogue();
    mainloop.walkTiles([&](const GemmTile &t) {
      if (handOver)
        amax->waitTileSlot();
      mma.emitRingTile(t, /*fenceAfterFull=*/false);
      if (handOver)
        amax->finishTile();
    });
    mma.emitRoleEnd();
    if (amax && amax->inEpilogue())
      amax->flush();
  };
  auto producerRole = [&] {
    mainloop.emitTmaProducer({kargs.aMap, kargs.bMap},
                             [&](const GemmTile &t, Value kt) {
                               return mainloop.getPaddedOperandCopies(t, kt);
                             });
    if (amax && !amax->inEpilogue())
      amax->emitAmaxWarps(mainloop.getRoleThreadId());
  };
  mainloop.emitKernel([&] {
    // full[s] expects the producer's one arrival (with the stage's bytes),
    // empty[s] the 256 MMA threads (with the cluster along M, the four MMA
    // warpgroups of the pair: GemmMainloop.h, "The cluster").
    // (The maxima first, in the kernel's entry block, where SROA promotes
    // them to registers.)
    if (spec.amaxProducer) {
      amax.emplace(mainloop);
      mma.setEpilogueAmax(&*amax);
    }
    mainloop.initRing(1, mainloop.getReleaseArrivals(), [&] {
      if (amax && !amax->inEpilogue())
        amax->initTileBarriers();
    });
    // Registers move from the producer warpgroup to the MMA warpgroups (128
    // accumulators each): 2 x 128 x 216 + 128 x 72 = 384 x 168. ptxas
    // allocates each role within its limit; without setmaxnreg the 2d-3d
    // kernel spills at the launch limit of 168, which a CTA of 288 threads
    // (one producer warp) has as well: a scheduler then holds three of its
    // nine warps, 3 x 32 x 168 of its 16384 registers.
    mainloop.emitWarpRoles(
        {WarpRole{kMmaThreads, kMmaRegisters,
                  NVVM::SetMaxRegisterAction::increase, mmaRole},
         WarpRole{spec.converterThreads(), kProducerRegisters,
                  NVVM::SetMaxRegisterAction::decrease, producerRole}});
  });
}
