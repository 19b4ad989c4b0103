//===- Float8TransposeFusion.cpp - casts write K-major copies ---*- C++ -*-===//
//
// The plan of Float8TransposeFusion.h (which Float8 quantize writes which
// GEMM operand's K-major buffer) and the cast kernel that writes it:
//
//   prologue  every scale from its amax word (grid-stride; the rank-0
//             tensorwise scale by thread 0), as the column and per-group
//             cast kernels write them, empty groups included;
//   per tile  (emitFloat8TransposeTiles: 128 source rows of K x 128
//             operand rows) threads 0..127 stage the scales of the tile's
//             128 operand rows in shared memory (from the words of its
//             batch or token group), one barrier; each 16-byte chunk of the
//             walk is 16 input elements loaded through the KernelInput (a
//             fused elementwise producer's operands loaded raw, two chunks
//             at a time, and its body evaluated before the cast), cast with
//             castLanes against their 16 scales, and, when the cast's
//             row-major data is read elsewhere, also stored there.
//
// Sibling tensorwise casts (Float8SiblingCasts.h) share one such kernel:
// each chunk's inputs evaluated once, cast per result into the result's
// own shared tile, each tile's K-major stores in turn.
//
//===----------------------------------------------------------------------===//

#include "Float8TransposeFusion.h"
#include "../CastLanes.h"
#include "../Float8CastKernels.h"
#include "../FusedProducer.h"
#include "../GroupTable.h"
#include "GemmMainloop.h"
#include "mxfp8train/Conversion/Utils/Float8Arith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using namespace mlir::mxfp8train::lowering;

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

/// Whether the Float8 cast `q` computes the data of the MN-major operand
/// `d` ((batches, K, rows) as stored) so that the K-major cast can walk it:
/// tensorwise; a column cast along K (one scale per (batch, row)); or a
/// per-group cast of (K, rows) along the tokens with the GEMM's token
/// groups `gemmOffs`. The walk loads and stores 16 elements of a source row
/// at a time: rows must be a multiple of 16 (otherwise the cast keeps its
/// own kernel and the GEMM's pre-pass transposes the bytes).
static bool castMatchesForm(QuantizeOp q, const Float8TransposeSpec &d,
                            Value gemmOffs) {
  ArrayRef<int64_t> shape = q.getInput().getType().getShape();
  if (d.rows % 16 || shape.empty() || shape.back() != d.rows ||
      q.getInput().getType().getNumElements() != d.batches * d.k * d.rows)
    return false;
  if (*q.getGranularity() == Float8Granularity::Tensorwise)
    return true;
  int64_t rank = shape.size();
  auto axis = static_cast<int64_t>(q.getAxis());
  if (q.isPerGroup())
    return d.groups && rank == 2 && axis == 0 &&
           q.getScales().getType().getDimSize(0) == d.groups &&
           haveSameOffsets(q.getOffs(), gemmOffs);
  return rank >= 2 && axis == rank - 2 && shape[axis] == d.k;
}

/// The data operand `operand` (0: lhs, 1: rhs) of a GEMM, or null.
static OpOperand *getGemmData(Operation *gemm, unsigned operand) {
  if (auto mm = dyn_cast<ScaledMmOp>(gemm))
    return operand ? &mm.getRhsMutable() : &mm.getLhsMutable();
  if (auto gmm = dyn_cast<ScaledGroupedMmOp>(gemm))
    return operand ? &gmm.getRhsMutable() : &gmm.getLhsMutable();
  return nullptr;
}

std::shared_ptr<Float8TransposeFusion>
Float8TransposeFusion::plan(ModuleOp module, const GPUTargetInfo &target) {
  auto fusion = std::make_shared<Float8TransposeFusion>();
  struct Entry {
    Float8TransposedForm form;
    /// The GEMM's offsets (2d-2d), else null.
    Value offs;
    SmallVector<std::pair<Operation *, unsigned>> readers;
  };
  llvm::MapVector<Operation *, Entry> entries;
  DominanceInfo dominance(module);
  module.walk([&](Operation *gemm) {
    if (!isa<ScaledMmOp, ScaledGroupedMmOp>(gemm) || gemm->use_empty())
      return;
    std::array<std::optional<Float8TransposedForm>, 2> forms =
        getFloat8TransposedForms(gemm, target);
    for (unsigned i = 0; i < 2; ++i) {
      if (!forms[i])
        continue;
      const Float8TransposeSpec &d = forms[i]->d;
      auto q = getGemmData(gemm, i)->get().getDefiningOp<QuantizeOp>();
      if (!q || !q.isFloat8() || q->getBlock() != gemm->getBlock() ||
          !hasStaticShapes(q))
        continue;
      Value offs = d.groups ? cast<ScaledGroupedMmOp>(gemm).getOffs() : Value();
      // The cast lays the groups out from the GEMM's offsets, which must
      // exist before it.
      if (!castMatchesForm(q, d, offs) ||
          (offs && !dominance.properlyDominates(offs, q)))
        continue;
      auto it = entries.find(q);
      if (it == entries.end()) {
        entries.insert({q, Entry{*forms[i], offs, {{gemm, i}}}});
        continue;
      }
      // One form per cast; the GEMM operands that read exactly it share it.
      Entry &e = it->second;
      if (e.form.d.getName() == d.getName() &&
          e.form.boxRows == forms[i]->boxRows &&
          (!offs || haveSameOffsets(e.offs, offs)))
        e.readers.push_back({gemm, i});
    }
  });

  IRRewriter rewriter(module.getContext());
  for (auto &[op, e] : entries) {
    auto q = cast<QuantizeOp>(op);
    bool writeData = llvm::any_of(q.getData().getUses(), [&](OpOperand &use) {
      return llvm::none_of(e.readers, [&](auto reader) {
        return getGemmData(reader.first, reader.second) == &use;
      });
    });
    // The per-group kernel's zeroing of rows past the last group is not
    // repeated here: such a cast keeps its own kernel.
    if (writeData && q.isPerGroup())
      continue;
    auto fused = std::make_unique<FusedTransposedOperand>();
    fused->form = e.form;
    fused->writeData = writeData;
    const Float8TransposeSpec &d = e.form.d;
    Location loc = q.getLoc();
    // createPaddedOperands places the buffer and its map at the start of
    // the block: sibling casts launched together at the first of them
    // (Float8CastKernels.cpp) find every member's buffer there.
    rewriter.setInsertionPoint(q);
    PaddedOperand padded = createPaddedOperands(
        rewriter, loc,
        {{d.batches * d.rows, d.getOutputK(), e.form.boxRows, d.dataType}})[0];
    fused->buffer = padded.buffer;
    fused->map = padded.map;
    if (e.offs) {
      rewriter.setInsertionPoint(q);
      fused->offs = toBuffer(rewriter, loc, e.offs);
    }
    fusion->byQuantize[q] = fused.get();
    for (auto reader : e.readers)
      fusion->byGemm[reader] = fused.get();
    fusion->operands.push_back(std::move(fused));
  }
  return fusion;
}

//===----------------------------------------------------------------------===//
// The cast kernel
//===----------------------------------------------------------------------===//

namespace {
/// Everything the K-major cast kernel is specialised on.
struct KMajorCastSpec {
  Float8TransposeSpec d;
  Float8ScaleLayout layout;
  Type inType;
  bool pow2;
  /// Per output: whether it also writes its row-major data.
  SmallVector<bool, 2> writeData;
  int64_t numScales;

  unsigned numOutputs() const { return writeData.size(); }

  std::string getName(StringRef inputTag) const {
    static constexpr StringLiteral kLayoutTags[] = {"tensor", "col", "group"};
    // One output: `_rm` when it writes its data; several: `_n<N>` and a
    // digit per output.
    std::string rm;
    if (numOutputs() == 1) {
      rm = writeData[0] ? "_rm" : "";
    } else {
      rm = llvm::formatv("_n{0}_rm", numOutputs()).str();
      for (bool w : writeData)
        rm += w ? "1" : "0";
    }
    return llvm::formatv(
               "float8_cast_kmajor_{0}_{1}_{2}{3}_b{4}_k{5}_r{6}{7}{8}{9}",
               kLayoutTags[static_cast<int>(layout)], getTypeTag(inType),
               getTypeTag(d.dataType), pow2 ? "_pow2" : "", d.batches, d.k,
               d.rows, d.groups ? llvm::formatv("_g{0}", d.groups).str() : "",
               rm, inputTag)
        .str();
  }
};
} // namespace

/// The kernel body: `ins` (the input views), `words`, [offs], per output
/// [data] and scales, then the K-major buffers `outs`; `tileBufs` (one per
/// output) and `stage` (128 f32) in shared memory. `datas` holds null for
/// the outputs that write no row-major data.
static void emitKMajorCast(KernelBuilder &kb, const KMajorCastSpec &spec,
                           const KernelInput &input, ValueRange ins,
                           Value words, Value offs, ArrayRef<Value> datas,
                           ArrayRef<Value> scales, ValueRange outs,
                           ValueRange tileBufs, Value stage) {
  const Float8TransposeSpec &d = spec.d;
  ElementFormat fmt = getElementFormat(d.dataType);
  auto scaleOf = [&](Value wordIndex) -> Value {
    Bits bb = kb.bits();
    Value word = memref::LoadOp::create(kb, words, ValueRange{wordIndex});
    return computeFloat8Scale(bb, bb.f32FromBits(word), fmt, spec.pow2);
  };
  auto isZero = [&](Value v) -> Value {
    return arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, v, kb.idx(0));
  };
  // Every scale, empty groups included.
  SmallVector<Value, 2> tensorScales;
  if (spec.layout == Float8ScaleLayout::Tensor) {
    for (unsigned r = 0; r < spec.numOutputs(); ++r)
      tensorScales.push_back(scaleOf(kb.idx(r)));
    kb.ifThen(isZero(kb.globalThreadId()), [&] {
      for (auto [s, buffer] : llvm::zip_equal(tensorScales, scales))
        memref::StoreOp::create(kb, s, buffer, ValueRange{});
    });
  } else {
    kb.gridStrideLoop(kb.idx(spec.numScales), [&](Value i) {
      memref::StoreOp::create(kb, scaleOf(i), scales[0], ValueRange{i});
    });
  }

  Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  Float8TileSource source;
  if (spec.layout != Float8ScaleLayout::Tensor) {
    source.beginTile = [&](Value batch, Value rowBase, Value group) {
      Value owner = spec.layout == Float8ScaleLayout::Column ? batch : group;
      Value col = arith::AddIOp::create(kb, rowBase, tid);
      Value inTile = arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, tid,
                                           kb.idx(kFloat8TransposeTile));
      Value inRows = arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, col,
                                           kb.idx(d.rows));
      kb.ifThen(arith::AndIOp::create(kb, inTile, inRows), [&] {
        Value first = arith::MulIOp::create(kb, owner, kb.idx(d.rows));
        Value s = scaleOf(arith::AddIOp::create(kb, first, col));
        memref::StoreOp::create(kb, s, stage, ValueRange{tid});
      });
      gpu::BarrierOp::create(kb);
    };
  }
  auto inVec = VectorType::get({16}, spec.inType);
  auto f32x16 = VectorType::get({16}, kb.getF32Type());
  auto b16 = VectorType::get({16}, kb.getI8Type());
  // A fused producer: its operands are loaded raw (addresses clamped into
  // the operand, so no branch; convert zeroes the chunks past it), two
  // chunks in flight, and its body is evaluated at the cast. Evaluated as
  // each of four chunks loads, the sibling pair's kernel kept four chunks
  // of both results live (368 B of spills at 128 registers). Measured on
  // the H200 (bench/README.md, session 23): the Llama f8tw pair 1.27 ->
  // 0.83-0.85 ms (1.34 ms as two casts), the single fused casts 12-18 %
  // faster (0.65 -> 0.57 ms), the same bits.
  bool rawLoads = input.isFused();
  if (rawLoads)
    source.loadBatch = 2;
  // The input chunks, one per output (zero when out of bounds: never
  // loaded), then their casts.
  source.load = [&](Value batch, Value srcK, Value col,
                    Value in) -> SmallVector<Value> {
    if (rawLoads) {
      Value k = arith::MinUIOp::create(kb, srcK, kb.idx(d.k - 1));
      Value cl = arith::MinUIOp::create(kb, col, kb.idx(d.rows - 16));
      Value batchRow = arith::MulIOp::create(kb, batch, kb.idx(d.k));
      Value row = arith::AddIOp::create(kb, batchRow, k);
      return input.loadOperands(kb, inVec, ins, {row, cl}, 16);
    }
    SmallVector<Type> types(spec.numOutputs(), inVec);
    auto ld = scf::IfOp::create(kb, types, in, true);
    OpBuilder::InsertionGuard g(kb);
    kb.setInsertionPointToStart(ld.thenBlock());
    Value batchRow = arith::MulIOp::create(kb, batch, kb.idx(d.k));
    Value row = arith::AddIOp::create(kb, batchRow, srcK);
    scf::YieldOp::create(kb, input.loadEach(kb, inVec, ins, {row, col}, 16));
    kb.setInsertionPointToStart(ld.elseBlock());
    scf::YieldOp::create(
        kb, SmallVector<Value>(spec.numOutputs(), kb.splatBits(inVec, 0)));
    return SmallVector<Value>(ld.getResults());
  };
  source.convert = [&](ValueRange loaded, Value batch, Value srcK, Value col,
                       Value chunk, Value in) -> SmallVector<Value> {
    SmallVector<Value> xs =
        rawLoads ? input.evaluate(kb, loaded) : SmallVector<Value>(loaded);
    Value staged;
    if (tensorScales.empty()) {
      Value at = arith::MulIOp::create(kb, chunk, kb.idx(16));
      staged = kb.load(f32x16, stage, {at}, 16);
    }
    SmallVector<Value> chunks;
    for (unsigned r = 0; r < spec.numOutputs(); ++r) {
      Value s = tensorScales.empty() ? staged : tensorScales[r];
      Value q = castLanes(kb, toF32(kb, xs[r]), s, d.dataType);
      if (Value data = datas[r])
        kb.ifThen(in, [&] {
          Value batchRow = arith::MulIOp::create(kb, batch, kb.idx(d.k));
          Value row = arith::AddIOp::create(kb, batchRow, srcK);
          kb.store(q, data, {row, col}, 16);
        });
      // Padding is zero whatever the scale (a NaN scale casts 0 to 0x7F).
      Value bytes = kb.bitcastTo(b16, q);
      Value zero = kb.splatBits(b16, 0);
      chunks.push_back(arith::SelectOp::create(kb, in, bytes, zero));
    }
    return chunks;
  };
  emitFloat8TransposeTiles(kb, d, offs, outs, tileBufs, source);
}

void gpu_lowering::launchFloat8KMajorCast(
    RewriterBase &rewriter, Location loc, const KernelCache &cache,
    ArrayRef<Float8KMajorCastOutput> outputs, Float8ScaleLayout layout,
    const KernelInput &input, ValueRange ins, Value words, Type inType,
    bool pow2) {
  assert(!outputs.empty() && input.getNumResults() == outputs.size() &&
         "one input result per output");
  assert((layout == Float8ScaleLayout::Tensor || outputs.size() == 1) &&
         "only tensorwise casts write several outputs");
  const Float8TransposeSpec &d = outputs.front().fused->form.d;
  KMajorCastSpec spec{
      d,    layout, inType,
      pow2, {},     cast<MemRefType>(words.getType()).getNumElements()};
  for (const Float8KMajorCastOutput &o : outputs) {
    assert(o.fused->form.d.getName() == d.getName() &&
           "the outputs share one transposed form");
    spec.writeData.push_back(o.fused->writeData);
  }
  SmallVector<Value> args(ins);
  args.push_back(words);
  if (d.groups)
    args.push_back(outputs.front().fused->offs);
  unsigned numInputs = args.size();
  for (const Float8KMajorCastOutput &o : outputs) {
    if (o.fused->writeData)
      args.push_back(o.data);
    args.push_back(o.scales);
  }
  for (const Float8KMajorCastOutput &o : outputs)
    args.push_back(o.fused->buffer);
  MLIRContext *ctx = rewriter.getContext();
  auto wgSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  SmallVector<Type> workgroup(
      outputs.size(),
      MemRefType::get({kFloat8TransposeTile * kFloat8TransposeTile},
                      rewriter.getI8Type(), MemRefLayoutAttrInterface(),
                      wgSpace));
  workgroup.push_back(MemRefType::get({kFloat8TransposeTile},
                                      rewriter.getF32Type(),
                                      MemRefLayoutAttrInterface(), wgSpace));
  unsigned n = ins.size();
  gpu::GPUFuncOp kernel = cache.getOrCreate(
      rewriter, spec.getName(input.getNameTag()), ValueRange(args).getTypes(),
      numInputs, workgroup,
      [&](KernelBuilder &kb, ValueRange kargs, ValueRange wg) {
        unsigned at = n + 1;
        Value offs = d.groups ? kargs[at++] : Value();
        SmallVector<Value, 2> datas, scales;
        for (bool w : spec.writeData) {
          datas.push_back(w ? kargs[at++] : Value());
          scales.push_back(kargs[at++]);
        }
        emitKMajorCast(kb, spec, input, kargs.take_front(n), kargs[n], offs,
                       datas, scales, kargs.drop_front(at), wg.drop_back(),
                       wg.back());
      });
  // Three CTAs per SM (at most 85 registers a thread; two when a fused
  // producer is evaluated, whose chunks need more): the load and store
  // halves of a tile are split by barriers, so fewer CTAs leave the SM's
  // memory pipe idle between them.
  kernel->setAttr("nvvm.maxntid",
                  rewriter.getDenseI32ArrayAttr({kThreadsPerCTA, 1, 1}));
  kernel->setAttr("nvvm.minctasm",
                  rewriter.getI32IntegerAttr(input.isFused() ? 2 : 3));
  // One tile per CTA (KernelCache::getGridSize's reasoning: a grid capped
  // at the resident CTAs was slower for the streaming casts).
  launch(rewriter, loc, kernel,
         std::clamp<int64_t>(d.numTiles(), 1, (int64_t(1) << 31) - 1), args);
}
