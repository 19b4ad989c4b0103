//===- GemmAmaxFusion.cpp - GEMM epilogues take tensorwise amaxes -*- C++ -*-=//
//
// The plan of GemmAmaxFusion.h (which Float8 GEMMs take which tensorwise
// casts' amaxes) and the kernel side of the epilogue (EpilogueAmax).
//
//===----------------------------------------------------------------------===//

#include "GemmAmaxFusion.h"
#include "../Float8CastKernels.h"
#include "../Float8SiblingCasts.h"
#include "../FusedProducer.h"
#include "../TMA.h"
#include "GemmMainloop.h"
#include "WGMMAFloat8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dominance.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

/// Whether the sm_90a Float8 kernel lowers `mm` with its staged epilogue
/// over a rank-2 bf16 result (WgmmaConsumer::emitStagedStores): static
/// shapes, columns a multiple of 8.
static bool hasStagedFloat8Epilogue(ScaledMmOp mm) {
  if (!mm.isFloat8() || !hasStaticShapes(mm))
    return false;
  RankedTensorType type = mm.getResult().getType();
  if (type.getRank() != 2 || !type.getElementType().isBF16() ||
      type.getNumElements() == 0 || type.getDimSize(1) % 8 != 0)
    return false;
  return whyNoFloat8GemmLowering(mm, GPUChip::SM90a).empty();
}

std::shared_ptr<GemmAmaxFusion> GemmAmaxFusion::plan(ModuleOp module,
                                                     const KernelCache &cache) {
  auto fusion = std::make_shared<GemmAmaxFusion>();
  DominanceInfo dominance(module);
  module.walk([&](linalg::GenericOp g) {
    if (!isFusableProducer(g))
      return;
    // Every result: one user, a dense static tensorwise Float8 quantize.
    SmallVector<QuantizeOp, 2> casts;
    for (Value result : g->getResults()) {
      if (!result.hasOneUse())
        return;
      auto q = dyn_cast<QuantizeOp>(*result.getUsers().begin());
      if (!q || !q.isFloat8() || q.isPerGroup() ||
          *q.getGranularity() != Float8Granularity::Tensorwise ||
          !hasStaticShapes(q))
        return;
      casts.push_back(q);
    }
    // ... lowered as one group, in result order (word r is result r's).
    KernelInput input = KernelInput::get(casts.front().getInput(),
                                         /*fuse=*/true, cache.getFusePadding());
    if (!input.isFused() ||
        getFloat8SiblingCasts(casts.front(), input, cache) != casts)
      return;
    // The host GEMM: the last of g's inputs' eligible GEMMs.
    ScaledMmOp gemm;
    for (Value in : g.getInputs())
      if (auto mm = in.getDefiningOp<ScaledMmOp>();
          mm && mm->getBlock() == g->getBlock() &&
          hasStagedFloat8Epilogue(mm) && (!gemm || gemm->isBeforeInBlock(mm)))
        gemm = mm;
    if (!gemm || fusion->epilogues.count(gemm))
      return;
    GemmAmaxEpilogue epilogue;
    SmallVector<Value, 2> inputs;
    epilogue.producer = g;
    epilogue.casts = casts;
    Type resultType = gemm.getResult().getType();
    for (Value in : g.getInputs()) {
      if (in == gemm.getResult()) {
        epilogue.inputArgs.push_back(-1);
        continue;
      }
      // Read by the GEMM's kernel at the output's elements: a bf16 tensor
      // of the output's shape, defined before the GEMM.
      if (in.getType() != resultType || !dominance.properlyDominates(in, gemm))
        return;
      auto it = llvm::find(inputs, in);
      epilogue.inputArgs.push_back(it - inputs.begin());
      if (it == inputs.end())
        inputs.push_back(in);
    }
    epilogue.numInputs = inputs.size();
    fusion->epilogues[gemm] = std::move(epilogue);
  });
  return fusion;
}

SmallVector<Value, 2>
gpu_lowering::getInputs(const GemmAmaxEpilogue &epilogue) {
  SmallVector<Value, 2> inputs(epilogue.numInputs);
  linalg::GenericOp producer = epilogue.producer;
  for (auto [arg, in] :
       llvm::zip_equal(epilogue.inputArgs, producer.getInputs()))
    if (arg >= 0)
      inputs[arg] = in;
  return inputs;
}

Operation *GemmAmaxFusion::getHostGemm(QuantizeOp cast) const {
  for (const auto &[gemm, epilogue] : epilogues) {
    Operation *first = epilogue.casts.front();
    // (A GEMM that was lowered, or declined, is no longer waited for.)
    if (llvm::is_contained(epilogue.casts, cast) && !words.count(first) &&
        !declined.count(first))
      return gemm;
  }
  return nullptr;
}

const GemmAmaxEpilogue *GemmAmaxFusion::getEpilogue(Operation *gemm) const {
  auto it = epilogues.find(gemm);
  return it == epilogues.end() ? nullptr : &it->second;
}

bool GemmAmaxFusion::isPlanned(QuantizeOp firstCast) const {
  return !declined.count(firstCast) &&
         llvm::any_of(epilogues, [&](const auto &entry) {
           return entry.second.casts.front() == firstCast;
         });
}

Value GemmAmaxFusion::getWords(QuantizeOp firstCast) const {
  return words.lookup(firstCast);
}

void GemmAmaxFusion::setWords(const GemmAmaxEpilogue &epilogue, Value w) const {
  words[epilogue.casts.front()] = w;
}

void GemmAmaxFusion::decline(const GemmAmaxEpilogue &epilogue) const {
  declined.insert(epilogue.casts.front());
}

//===----------------------------------------------------------------------===//
// Kernel side
//===----------------------------------------------------------------------===//

EpilogueAmax::EpilogueAmax(GemmMainloop &mainloop) : mainloop(mainloop) {
  KernelBuilder &kb = mainloop.getBuilder();
  const GemmSpec &spec = mainloop.getSpec();
  Value zero = arith::ConstantOp::create(kb, kb.getF32FloatAttr(0.0f));
  Value c0 = kb.idx(0);
  for (unsigned r = 0; r < spec.amaxProducer->getNumResults(); ++r) {
    Value m =
        memref::AllocaOp::create(kb, MemRefType::get({1}, kb.getF32Type()));
    memref::StoreOp::create(kb, zero, m, ValueRange{c0});
    maxima.push_back(m);
  }
  if (!inEpilogue()) {
    tileCounter =
        memref::AllocaOp::create(kb, MemRefType::get({1}, kb.getIndexType()));
    memref::StoreOp::create(kb, c0, tileCounter, ValueRange{c0});
  }
}

bool EpilogueAmax::inEpilogue() const {
  return mainloop.getSpec().amaxWarps == 0;
}

Value EpilogueAmax::getTileBarrier(Value i) {
  KernelBuilder &kb = mainloop.getBuilder();
  const GemmSpec &spec = mainloop.getSpec();
  // (8-byte aligned: the staging slots and reciprocals are.)
  Value base = arith::AddIOp::create(kb, mainloop.getExtraAddress(),
                                     kb.idx(spec.amaxBarrierOffset()));
  return mainloop.getSharedPointer(
      arith::AddIOp::create(kb, base, arith::MulIOp::create(kb, i, kb.idx(8))));
}

std::pair<Value, Value> EpilogueAmax::getTileSlot() {
  KernelBuilder &kb = mainloop.getBuilder();
  constexpr int64_t slots = GemmSpec::kAmaxTileSlots;
  static_assert(llvm::isPowerOf2_64(slots), "a mask and a shift");
  Value j = memref::LoadOp::create(kb, tileCounter, ValueRange{kb.idx(0)});
  Value slot = arith::AndIOp::create(kb, j, kb.idx(slots - 1));
  Value phase = arith::AndIOp::create(
      kb, arith::ShRUIOp::create(kb, j, kb.idx(llvm::Log2_64(slots))),
      kb.idx(1));
  return {slot, arith::IndexCastUIOp::create(kb, kb.getI32Type(), phase)};
}

Value EpilogueAmax::getEmptyTileBarrier(Value slot) {
  KernelBuilder &kb = mainloop.getBuilder();
  return getTileBarrier(
      arith::AddIOp::create(kb, slot, kb.idx(GemmSpec::kAmaxTileSlots)));
}

void EpilogueAmax::advanceTile() {
  KernelBuilder &kb = mainloop.getBuilder();
  Value c0 = kb.idx(0);
  Value j = memref::LoadOp::create(kb, tileCounter, ValueRange{c0});
  memref::StoreOp::create(kb, arith::AddIOp::create(kb, j, kb.idx(1)),
                          tileCounter, ValueRange{c0});
}

void EpilogueAmax::initTileBarriers() {
  KernelBuilder &kb = mainloop.getBuilder();
  const GemmSpec &spec = mainloop.getSpec();
  for (int64_t s = 0; s < GemmSpec::kAmaxTileSlots; ++s) {
    tma::initBarrier(kb, getTileBarrier(kb.idx(s)), kMmaThreads);
    tma::initBarrier(kb, getEmptyTileBarrier(kb.idx(s)), spec.amaxWarps * 32);
  }
}

void EpilogueAmax::waitTileSlot() {
  KernelBuilder &kb = mainloop.getBuilder();
  auto [slot, parity] = getTileSlot();
  // The slot's previous use (parity ^ 1: the first pass of each slot does
  // not wait).
  // (Sequenced: argument evaluation order is unspecified.)
  Value previous = arith::XOrIOp::create(kb, parity, kb.i32(1));
  tma::waitBarrier(kb, getEmptyTileBarrier(slot), previous);
}

void EpilogueAmax::finishTile() {
  KernelBuilder &kb = mainloop.getBuilder();
  Value slot = getTileSlot().first;
  // Release at CTA scope: the tile's stores before the amax warps' reads.
  tma::arriveBarrier(kb, getTileBarrier(slot));
  advanceTile();
}

void EpilogueAmax::emitAmaxWarps(Value roleTid) {
  KernelBuilder &kb = mainloop.getBuilder();
  const GemmSpec &spec = mainloop.getSpec();
  const GemmArgs &args = mainloop.getArgs();
  int64_t threads = spec.amaxWarps * 32;
  auto ult = [&](Value a, Value b) -> Value {
    return arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, a, b);
  };
  // Warps 1 .. amaxWarps of the producer warpgroup (warp 0 issues TMA).
  Value mine = arith::AndIOp::create(
      kb,
      arith::CmpIOp::create(kb, arith::CmpIPredicate::uge, roleTid, kb.idx(32)),
      ult(roleTid, kb.idx(32 + threads)));
  kb.ifThen(mine, [&] {
    Value atid = arith::SubIOp::create(kb, roleTid, kb.idx(32));
    int64_t chunksPerRow = spec.tile.n / 8;
    int64_t items = spec.tile.m * chunksPerRow;
    // Two chunks a thread per iteration, their loads before either body,
    // with one other operand; one with more (ptxas spilled the backward
    // pair's three operands of two chunks within the warpgroup's 72
    // registers).
    int64_t unroll = args.amaxInputs.size() > 1 ? 1 : 2;
    auto bf16x8 = VectorType::get({8}, kb.getBF16Type());
    mainloop.walkTiles([&](const GemmTile &t) {
      auto [slot, parity] = getTileSlot();
      // Acquire at CTA scope: the MMA threads' stores of the tile.
      tma::waitBarrier(kb, getTileBarrier(slot), parity);
      kb.forLoop(atid, kb.idx(items), kb.idx(unroll * threads), [&](Value i) {
        SmallVector<Value, 2> oks, outs;
        SmallVector<SmallVector<Value, 2>, 2> ins;
        for (int64_t u = 0; u < unroll; ++u) {
          Value item = arith::AddIOp::create(kb, i, kb.idx(u * threads));
          Value row = arith::AddIOp::create(
              kb, t.rowBase,
              arith::DivUIOp::create(kb, item, kb.idx(chunksPerRow)));
          Value col = arith::AddIOp::create(
              kb, t.colBase,
              arith::MulIOp::create(
                  kb, arith::RemUIOp::create(kb, item, kb.idx(chunksPerRow)),
                  kb.idx(8)));
          oks.push_back(arith::AndIOp::create(
              kb,
              arith::AndIOp::create(kb, ult(item, kb.idx(items)),
                                    ult(row, t.rowEnd)),
              ult(col, t.colEnd)));
          // Masked chunks load a valid element they do not use.
          Value offset = getClampedOffset(kb.idx(0), row, col, t.rowEnd);
          outs.push_back(kb.load(bf16x8, args.out, {offset}, 16));
          ins.push_back(loadInputs(offset));
        }
        for (int64_t u = 0; u < unroll; ++u)
          kb.ifThen(oks[u], [&] { accumulate(outs[u], ins[u]); });
      });
      // Release the slot (the reads are done: the values are in registers).
      tma::arriveBarrier(kb, getEmptyTileBarrier(slot));
      advanceTile();
    });
    flush();
  });
}

void EpilogueAmax::prefetchTile(const GemmTile &t) {
  KernelBuilder &kb = mainloop.getBuilder();
  const GemmSpec &spec = mainloop.getSpec();
  assert(spec.kind == GemmKind::Dense && spec.batches == 1 &&
         "the amax epilogue is planned for rank-2 GEMMs only");
  ArrayRef<Value> inputs = mainloop.getArgs().amaxInputs;
  int64_t rows = spec.tile.m, items = rows * inputs.size();
  Value tid = mainloop.getThreadId();
  // The tile's columns in bytes: whole 16-byte units (n % 8 == 0).
  Value cols = arith::MinUIOp::create(
      kb, kb.idx(spec.tile.n), arith::SubIOp::create(kb, t.colEnd, t.colBase));
  Value bytes = arith::IndexCastUIOp::create(
      kb, kb.getI32Type(), arith::MulIOp::create(kb, cols, kb.idx(2)));
  for (int64_t i0 = 0; i0 < items; i0 += kMmaThreads) {
    Value i = arith::AddIOp::create(kb, tid, kb.idx(i0));
    Value row = arith::AddIOp::create(
        kb, t.rowBase, arith::RemUIOp::create(kb, i, kb.idx(rows)));
    Value input = arith::DivUIOp::create(kb, i, kb.idx(rows));
    Value ok = arith::AndIOp::create(
        kb,
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, i, kb.idx(items)),
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, row, t.rowEnd));
    kb.ifThen(ok, [&] {
      // The operand's base address (at most two operands: a select).
      Value base =
          memref::ExtractAlignedPointerAsIndexOp::create(kb, inputs[0]);
      for (unsigned j = 1; j < inputs.size(); ++j) {
        Value other =
            memref::ExtractAlignedPointerAsIndexOp::create(kb, inputs[j]);
        base = arith::SelectOp::create(
            kb,
            arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, input,
                                  kb.idx(j)),
            other, base);
      }
      Value element = arith::AddIOp::create(
          kb, arith::MulIOp::create(kb, row, kb.idx(spec.n)), t.colBase);
      Value address = arith::AddIOp::create(
          kb, base, arith::MulIOp::create(kb, element, kb.idx(2)));
      NVVM::CpAsyncBulkPrefetchOp::create(
          kb, tma::getGlobalPointer(kb, address), bytes, Value());
    });
  }
}

Value EpilogueAmax::getClampedOffset(Value outBase, Value row, Value col,
                                     Value rowEnd) {
  KernelBuilder &kb = mainloop.getBuilder();
  int64_t n = mainloop.getSpec().n;
  Value inCol = arith::MinUIOp::create(kb, col, kb.idx(n - 8));
  Value inRow = arith::MinUIOp::create(
      kb, row, arith::SubIOp::create(kb, rowEnd, kb.idx(1)));
  return arith::AddIOp::create(
      kb, outBase,
      arith::AddIOp::create(kb, arith::MulIOp::create(kb, inRow, kb.idx(n)),
                            inCol));
}

SmallVector<Value, 2> EpilogueAmax::loadInputs(Value offset) {
  KernelBuilder &kb = mainloop.getBuilder();
  auto type = VectorType::get({8}, kb.getBF16Type());
  SmallVector<Value, 2> loaded;
  for (Value input : mainloop.getArgs().amaxInputs)
    loaded.push_back(kb.load(type, input, {offset}, 16));
  return loaded;
}

void EpilogueAmax::accumulate(Value values, ArrayRef<Value> inputs) {
  KernelBuilder &kb = mainloop.getBuilder();
  const GemmSpec &spec = mainloop.getSpec();
  // The producer's body on the output's and the other operands' values:
  // the values the cast evaluates.
  SmallVector<Value, 4> operands;
  for (int64_t arg : spec.amaxInputArgs)
    operands.push_back(arg < 0 ? values : inputs[arg]);
  SmallVector<Value> results = evaluateElementwiseBody(
      kb, cast<linalg::GenericOp>(spec.amaxProducer), operands);
  Value c0 = kb.idx(0);
  for (auto [m, x] : llvm::zip_equal(maxima, results)) {
    // |x| by its sign bit, the lanes' NaN-propagating maximum (as the
    // tensor amax kernel: exact, any NaN gives NaN).
    Value a = reduceAmaxF32(kb, kb.absBits(x));
    Value running = memref::LoadOp::create(kb, m, ValueRange{c0});
    memref::StoreOp::create(kb, arith::MaximumFOp::create(kb, running, a), m,
                            ValueRange{c0});
  }
}

void EpilogueAmax::flush() {
  KernelBuilder &kb = mainloop.getBuilder();
  Value words = mainloop.getArgs().amaxWords;
  Value c0 = kb.idx(0);
  SmallVector<Value, 2> warpMaxima;
  for (Value m : maxima)
    warpMaxima.push_back(
        warpMax(kb, memref::LoadOp::create(kb, m, ValueRange{c0}), 32));
  Value lane = arith::RemUIOp::create(kb, mainloop.getThreadId(), kb.idx(32));
  kb.ifThen(arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, lane, c0), [&] {
    lowering::Bits bb = kb.bits();
    for (auto [r, a] : llvm::enumerate(warpMaxima))
      memref::AtomicRMWOp::create(kb, arith::AtomicRMWKind::maxu, bb.f32Bits(a),
                                  words, ValueRange{kb.idx(r)});
  });
}
