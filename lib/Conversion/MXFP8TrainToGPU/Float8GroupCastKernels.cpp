//===- Float8GroupCastKernels.cpp - per-group Float8 casts ------*- C++ -*-===//
//
// The per-group ("jagged") Float8 casts of convert-mxfp8train-to-gpu:
// `quantize`/`dequantize` with `offs(%offs) axis = 0 granularity =
// axiswise` on a (T, X) tensor, one f32 scale per (group, column) in
// (E, X) (SPEC-float8 §3.3: the 2d-2d wgrad operands of the Float8
// recipes). Group g covers the rows [start_g, end_g) of the clamped offsets
// (GroupTable.h, exactly the CPU lowering's buildClampedEnds): offsets past
// T or below the previous end are clamped, empty groups get the scale of
// amax 0, and rows at or past the last end are cast to +0 (quantize) or
// dequantized to +0.
//
// Every kernel first builds the group table in shared memory (thread 0
// reads the E offsets, one barrier); no host round-trip. A work item is a
// column strip of `lanes` columns (one 16-byte input access) times a chunk
// of rows; the threads of a warp take consecutive strips of the same rows
// (coalesced 512-byte row reads for bf16). A chunk meets the groups
// [first, stop) found by bisection of the table (findGroup), and the item
// walks each group's rows inside it:
//
// - amax kernel: CTA tiles of getAmaxTileRows rows x kAmaxTileStrips
//   strips (the dense column amax's tiles, Float8CastKernels.h); each
//   thread loads its strip's getAmaxWarpRows rows at once, and for each group
//   meeting the tile's rows the CTA reduces the maxima of that group's rows
//   over its warps (reduceColumnAmaxInCTA) and `atomicMax`es them, on the u32
//   bits of the f32 |x|, into the (E, X) words, zeroed in-stream by a
//   `gpu.memset` (the dense column kernels' scheme).
// - cast kernel: chunks of kColumnCastRows rows; per segment the group's
//   scales come from its words (loadScalesFromAmaxWords, the shared
//   computeFloat8Scale) and its rows are cast with the dense kernels'
//   castLanes; rows past the last group end are written as 0x00. The item
//   of row chunk `rc` also writes the scales of the groups rc, rc + chunks,
//   ... of its columns, so every scale is written once, empty groups
//   included.
// - dequantize: one 16-byte output chunk per work item; the row's group by
//   bisection, `RN_out(RN_f32(q / s))` with the dense kernel's pieces, +0
//   past the last group end.
//
// Amax, scale and cast arithmetic are the dense kernels' (Float8CastKernels.h),
// so both paths are bit-exact with the CPU lowering
// (MXFP8TrainToLinalg/Float8ToLinalg.cpp).
//
//===----------------------------------------------------------------------===//

#include "CastLanes.h"
#include "Float8CastKernels.h"
#include "FusedProducer.h"
#include "Gemm/Float8TransposeFusion.h"
#include "GroupTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using namespace mlir::mxfp8train::lowering;

namespace {
/// Everything a per-group Float8 kernel is specialised on: a (tokens, cols)
/// tensor split into `groups` token groups; `hpType` is the quantize input
/// or the dequantize result element type.
struct GroupCastSpec {
  int64_t tokens, cols, groups;
  Type hpType, f8Type;
  bool pow2;

  /// Columns per work item: one 16-byte access of `hpType`.
  int64_t lanes() const { return getLaneCount(cols, hpType); }
  int64_t strips() const { return cols / lanes(); }
  /// Row chunks of `rowsPer` rows; at least one, so that the cast kernel
  /// writes the scales of a tensor without rows.
  int64_t rowChunks(int64_t rowsPer) const {
    return std::max<int64_t>(1, llvm::divideCeil(tokens, rowsPer));
  }
  GroupTableSpec tableSpec() const {
    return {groups, tokens, /*unit=*/1, /*alignment=*/1};
  }
  SmallVector<int64_t> shape() const { return {tokens, cols}; }
};

/// A work item of the column-strip kernels: rows [r0, rEnd) of row chunk
/// `rc`, columns from c0.
struct StripItem {
  Value rc, r0, rEnd, c0;
};
} // namespace

/// Work item `i` over (row chunk, strip), the strip fastest (a warp's row
/// loads are contiguous).
static StripItem decomposeStripItem(KernelBuilder &kb,
                                    const GroupCastSpec &spec, Value i,
                                    int64_t rowsPer) {
  Bits bb = kb.bits();
  Value strip = bb.remu(i, bb.cIdx(spec.strips()));
  Value rc = bb.divu(i, bb.cIdx(spec.strips()));
  Value r0 = bb.mul(rc, bb.cIdx(rowsPer));
  Value rEnd = bb.minu(bb.add(r0, bb.cIdx(rowsPer)), bb.cIdx(spec.tokens));
  Value c0 = bb.mul(strip, bb.cIdx(spec.lanes()));
  return {rc, r0, rEnd, c0};
}

/// Field `field` of group `g` of the group table, as index.
static Value loadGroupBound(KernelBuilder &kb, Value table, GroupTableRow field,
                            Value g) {
  Value f = kb.idx(field);
  Value v = memref::LoadOp::create(kb, table, ValueRange{f, g});
  return arith::IndexCastOp::create(kb, kb.getIndexType(), v);
}

/// Calls `body(g, lo, hi)` for every group g that meets the rows
/// [r0, rEnd) (r0 < rEnd), in order, with [lo, hi) the rows of g among them
/// (empty for an empty group inside the range).
static void
forEachGroupSegment(KernelBuilder &kb, Value table, int64_t groups, Value r0,
                    Value rEnd,
                    function_ref<void(Value g, Value lo, Value hi)> body) {
  Type i32 = kb.getI32Type();
  Value firstKey = arith::IndexCastOp::create(kb, i32, r0);
  Value lastRow = arith::SubIOp::create(kb, rEnd, kb.idx(1));
  Value lastKey = arith::IndexCastOp::create(kb, i32, lastRow);
  // The first group ending after r0, and the first starting after the last
  // row: the groups between them meet the rows.
  Value first = findGroup(kb, table, kEnd, firstKey, groups);
  Value stop = findGroup(kb, table, kStart, lastKey, groups);
  kb.forLoop(first, stop, kb.idx(1), [&](Value g) {
    Value start = loadGroupBound(kb, table, kStart, g);
    Value end = loadGroupBound(kb, table, kEnd, g);
    Value lo = arith::MaxUIOp::create(kb, start, r0);
    Value hi = arith::MinUIOp::create(kb, end, rEnd);
    body(g, lo, hi);
  });
}

/// Loads the rows k, k + 1, ... (kRowBatch of them, those past `last`
/// clamped to it) of the strip at c0: appends the rows and their input
/// lanes.
static void loadRowBatch(KernelBuilder &kb, const GroupCastSpec &spec,
                         const KernelInput &input, ValueRange in, Value k,
                         Value last, Value c0, SmallVectorImpl<Value> &rows,
                         SmallVectorImpl<Value> &xs) {
  int64_t lanes = spec.lanes();
  auto inVec = VectorType::get({lanes}, spec.hpType);
  int64_t inAlign = getAccessBytes(lanes, spec.hpType);
  for (int64_t b = 0; b < kRowBatch; ++b) {
    Value r = arith::AddIOp::create(kb, k, kb.idx(b));
    rows.push_back(arith::MinUIOp::create(kb, r, last));
    xs.push_back(input.load(kb, inVec, in, {rows.back(), c0}, inAlign));
  }
}

//===----------------------------------------------------------------------===//
// Quantize kernels
//===----------------------------------------------------------------------===//

/// CTAs of the amax kernel: tiles of getAmaxTileRows rows x
/// kAmaxTileStrips strips.
static int64_t getAmaxTiles(const GroupCastSpec &spec, bool fusedInput) {
  return llvm::divideCeil(spec.tokens, getAmaxTileRows(fusedInput)) *
         llvm::divideCeil(spec.strips(), kAmaxTileStrips);
}

/// Amax: (in (T, X), offs (E), words (E, X) i32; the group table and the
/// reduction buffer) — one CTA tile per CTA (grid-stride): each thread
/// loads its strip's getAmaxWarpRows rows at once (clamped to the last row),
/// then for every group that meets the tile's rows (the same groups for the
/// whole CTA) the maxima over its rows in that group (the others count as
/// 0) go through reduceColumnAmaxInCTA: one atomicMax per (group, column)
/// per tile.
static void buildGroupAmax(KernelBuilder &kb, const GroupCastSpec &spec,
                           const KernelInput &input, ValueRange in, Value offs,
                           Value words, Value table, Value buf) {
  buildGroupTable(kb, spec.tableSpec(), offs, table, Value());
  int64_t lanes = spec.lanes();
  int64_t stripBlocks = llvm::divideCeil(spec.strips(), kAmaxTileStrips);
  auto inVec = VectorType::get({lanes}, spec.hpType);
  int64_t inAlign = getAccessBytes(lanes, spec.hpType);
  Type i32 = kb.getI32Type();
  Value start = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
  Value step = gpu::GridDimOp::create(kb, gpu::Dimension::x);
  int64_t warpRows = getAmaxWarpRows(input.isFused());
  int64_t tileRows = getAmaxTileRows(input.isFused());
  kb.forLoop(
      start, kb.idx(getAmaxTiles(spec, input.isFused())), step,
      [&](Value tile) {
        Bits bb = kb.bits();
        Value sb = bb.remu(tile, bb.cIdx(stripBlocks));
        Value rb = bb.divu(tile, bb.cIdx(stripBlocks));
        auto [c0, tileRow, r0] = getAmaxTileThread(kb, sb, rb, spec.strips(),
                                                   lanes, input.isFused());
        SmallVector<Value> rows, absXs;
        for (int64_t j = 0; j < warpRows; ++j) {
          rows.push_back(arith::AddIOp::create(kb, r0, kb.idx(j)));
          Value r =
              arith::MinUIOp::create(kb, rows.back(), kb.idx(spec.tokens - 1));
          absXs.push_back(
              kb.absBits(input.load(kb, inVec, in, {r, c0}, inAlign)));
        }
        // The groups meeting the tile's rows [tileRow, tileEnd).
        Value tileRowEnd = bb.add(tileRow, bb.cIdx(tileRows));
        Value tileEnd = bb.minu(tileRowEnd, bb.cIdx(spec.tokens));
        Value firstKey = arith::IndexCastOp::create(kb, i32, tileRow);
        Value lastRow = bb.sub(tileEnd, bb.cIdx(1));
        Value lastKey = arith::IndexCastOp::create(kb, i32, lastRow);
        Value first = findGroup(kb, table, kEnd, firstKey, spec.groups);
        Value stop = findGroup(kb, table, kStart, lastKey, spec.groups);
        kb.forLoop(first, stop, kb.idx(1), [&](Value g) {
          Value lo = loadGroupBound(kb, table, kStart, g);
          Value hi = loadGroupBound(kb, table, kEnd, g);
          Value zero = kb.splatBits(inVec, 0);
          Value m = zero;
          for (auto [r, ax] : llvm::zip(rows, absXs)) {
            Value afterLo =
                arith::CmpIOp::create(kb, arith::CmpIPredicate::ule, lo, r);
            Value beforeHi =
                arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, r, hi);
            Value inGroup = arith::AndIOp::create(kb, afterLo, beforeHi);
            Value v = arith::SelectOp::create(kb, inGroup, ax, zero);
            m = arith::MaximumFOp::create(kb, m, v);
          }
          reduceColumnAmaxInCTA(
              kb, toF32(kb, m), buf, c0, lanes, [&](Value column, Value bits) {
                memref::AtomicRMWOp::create(kb, arith::AtomicRMWKind::maxu,
                                            bits, words, ValueRange{g, column});
              });
        });
      });
}

/// Cast: (in (T, X), offs (E), words (E, X), data (T, X), scales (E, X)) —
/// one thread per strip x kColumnCastRows rows.
static void buildGroupCast(KernelBuilder &kb, const GroupCastSpec &spec,
                           const KernelInput &input, ValueRange in, Value offs,
                           Value words, Value data, Value scales, Value table) {
  if (spec.groups > 0)
    buildGroupTable(kb, spec.tableSpec(), offs, table, Value());
  int64_t lanes = spec.lanes();
  int64_t chunks = spec.rowChunks(kColumnCastRows);
  kb.gridStrideLoop(kb.idx(chunks * spec.strips()), [&](Value i) {
    StripItem item = decomposeStripItem(kb, spec, i, kColumnCastRows);
    // The scales of the groups rc, rc + chunks, ... of the strip.
    if (spec.groups > 0)
      kb.forLoop(item.rc, kb.idx(spec.groups), kb.idx(chunks), [&](Value g) {
        Value s = loadScalesFromAmaxWords(kb, words, {g, item.c0}, lanes,
                                          spec.f8Type, spec.pow2);
        kb.store(s, scales, {g, item.c0}, lanes * 4);
      });
    if (spec.tokens == 0)
      return;
    Value tail = item.r0;
    if (spec.groups > 0) {
      forEachGroupSegment(
          kb, table, spec.groups, item.r0, item.rEnd,
          [&](Value g, Value lo, Value hi) {
            Value s = loadScalesFromAmaxWords(kb, words, {g, item.c0}, lanes,
                                              spec.f8Type, spec.pow2);
            Value last = arith::SubIOp::create(kb, hi, kb.idx(1));
            kb.forLoop(lo, hi, kb.idx(kRowBatch), [&](Value k) {
              SmallVector<Value> rows, xs;
              loadRowBatch(kb, spec, input, in, k, last, item.c0, rows, xs);
              // A clamped row is stored again with the same bytes.
              for (auto [r, x] : llvm::zip(rows, xs))
                kb.store(castLanes(kb, toF32(kb, x), s, spec.f8Type), data,
                         {r, item.c0}, lanes);
            });
          });
      Value lastEnd = loadGroupBound(kb, table, kEnd, kb.idx(spec.groups - 1));
      tail = arith::MaxUIOp::create(kb, lastEnd, item.r0);
    }
    // Rows at or past the last group end: +0 (SPEC-float8 §3.3).
    Value zeroBytes = kb.splatBits(VectorType::get({lanes}, kb.getI8Type()), 0);
    Value zero = kb.bitcastTo(VectorType::get({lanes}, spec.f8Type), zeroBytes);
    auto zeroRow = [&](Value r) { kb.store(zero, data, {r, item.c0}, lanes); };
    kb.forLoop(tail, item.rEnd, kb.idx(1), zeroRow);
  });
}

//===----------------------------------------------------------------------===//
// Dequantize kernel
//===----------------------------------------------------------------------===//

/// Dequantize: (data (T, X), scales (E, X), offs (E), out (T, X)) — one
/// 16-byte output chunk per work item: `RN_out(RN_f32(q / s[g, x]))` with g
/// the row's group, +0 past the last group end.
static void buildGroupDequantize(KernelBuilder &kb, const GroupCastSpec &spec,
                                 Value data, Value scales, Value offs,
                                 Value out, Value table) {
  if (spec.groups > 0)
    buildGroupTable(kb, spec.tableSpec(), offs, table, Value());
  int64_t lanes = spec.lanes();
  auto f32Vec = VectorType::get({lanes}, kb.getF32Type());
  int64_t perRow = spec.strips();
  kb.gridStrideLoop(kb.idx(spec.tokens * perRow), [&](Value i) {
    Bits bb = kb.bits();
    Value col = bb.mul(bb.remu(i, bb.cIdx(perRow)), bb.cIdx(lanes));
    Value r = bb.divu(i, bb.cIdx(perRow));
    Value p = kb.splatBits(f32Vec, 0);
    if (spec.groups > 0) {
      Value key = arith::IndexCastOp::create(kb, kb.getI32Type(), r);
      Value g = findGroup(kb, table, kEnd, key, spec.groups);
      Value inside = bb.ult(g, bb.cIdx(spec.groups));
      Value gc = bb.minu(g, bb.cIdx(spec.groups - 1));
      Value s = kb.load(f32Vec, scales, {gc, col}, lanes * 4);
      Value q =
          kb.load(VectorType::get({lanes}, spec.f8Type), data, {r, col}, lanes);
      Value x = dequantizeToF32(kb, q, s);
      p = arith::SelectOp::create(kb, inside, x, p);
    }
    kb.store(finishDequantized(kb, p, spec.hpType), out, {r, col},
             getAccessBytes(lanes, spec.hpType));
  });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// The group-table workgroup memory of `spec`'s kernels (none without
/// groups).
static SmallVector<Type> getTableTypes(MLIRContext *ctx,
                                       const GroupCastSpec &spec) {
  if (spec.groups == 0)
    return {};
  return {getGroupTableType(ctx, spec.groups)};
}

namespace {
/// Per-group Float8 quantize -> memset + amax + cast kernels.
struct Float8GroupQuantizeOpToGPU final : KernelPattern<QuantizeOp> {
  Float8GroupQuantizeOpToGPU(MLIRContext *ctx, KernelCache cache,
                             bool fuseProducers)
      : KernelPattern(ctx, std::move(cache)), fuseProducers(fuseProducers) {}

  LogicalResult rewriteStatic(QuantizeOp op,
                              PatternRewriter &rewriter) const override {
    if (!op.isFloat8() || !op.isPerGroup())
      return rewriter.notifyMatchFailure(op, "not a per-group Float8 cast");
    Location loc = op.getLoc();
    RankedTensorType inputType = op.getInput().getType();
    GroupCastSpec spec{inputType.getDimSize(0),
                       inputType.getDimSize(1),
                       op.getScales().getType().getDimSize(0),
                       inputType.getElementType(),
                       op.getData().getType().getElementType(),
                       op.getPow2()};

    KernelInput input =
        KernelInput::get(op.getInput(), fuseProducers, cache.getFusePadding());
    SmallVector<Value> ins = input.getViews(rewriter, loc, spec.shape());
    Value offs = toBuffer(rewriter, loc, op.getOffs());
    SmallVector<Value> buffers = allocResults(rewriter, op);
    std::string shapeTag =
        llvm::formatv("{0}_g{1}{2}", getShapeTag(spec.shape()), spec.groups,
                      input.getNameTag());
    unsigned n = ins.size();
    SmallVector<Type> table = getTableTypes(rewriter.getContext(), spec);

    // The amax words, zeroed in-stream: one per scale.
    Value words = allocZeroedWords(rewriter, loc, {spec.groups, spec.cols});
    // Without rows every word stays 0 (the scales of amax 0).
    if (spec.groups > 0 && spec.tokens > 0) {
      SmallVector<Value> amaxArgs = ins;
      amaxArgs.append({offs, words});
      SmallVector<Type> amaxWorkgroup = table;
      amaxWorkgroup.push_back(getColumnAmaxReduceType(rewriter.getContext()));
      gpu::GPUFuncOp amaxKernel = cache.getOrCreate(
          rewriter,
          llvm::formatv("float8_group_amax_{0}_{1}", getTypeTag(spec.hpType),
                        shapeTag)
              .str(),
          ValueRange(amaxArgs).getTypes(), n + 1, amaxWorkgroup,
          [&](KernelBuilder &kb, ValueRange kargs, ValueRange wg) {
            buildGroupAmax(kb, spec, input, kargs.take_front(n), kargs[n],
                           kargs[n + 1], wg[0], wg[1]);
          });
      // The words are read and written by the atomics.
      amaxKernel.removeArgAttr(n + 1,
                               LLVM::LLVMDialect::getWriteOnlyAttrName());
      launch(rewriter, loc, amaxKernel, getAmaxTiles(spec, input.isFused()),
             amaxArgs);
    }

    // The GEMMs that read the data MN-major read the K-major copy this
    // cast writes instead (Gemm/Float8TransposeFusion.h); nothing else
    // reads the data.
    const Float8TransposeFusion *fusion = cache.getFloat8TransposeFusion();
    if (const FusedTransposedOperand *fused =
            fusion ? fusion->getQuantizeOutput(op) : nullptr) {
      assert(!fused->writeData && fused->form.d.k == spec.tokens &&
             fused->form.d.rows == spec.cols &&
             "the plan fuses per-group casts read only K-major");
      int64_t numScales = spec.groups * spec.cols;
      Float8KMajorCastOutput output{
          fused, Value(), collapseTo(rewriter, loc, buffers[1], {numScales})};
      launchFloat8KMajorCast(rewriter, loc, cache, output,
                             Float8ScaleLayout::Group, input, ins,
                             collapseTo(rewriter, loc, words, {numScales}),
                             spec.hpType, spec.pow2);
      return replaceWithBuffers(rewriter, op, buffers);
    }

    SmallVector<Value> castArgs = ins;
    castArgs.append({offs, words, buffers[0], buffers[1]});
    std::string name = llvm::formatv(
        "float8_group_quantize_{0}_{1}{2}_{3}", getTypeTag(spec.hpType),
        getTypeTag(spec.f8Type), spec.pow2 ? "_pow2" : "", shapeTag);
    gpu::GPUFuncOp castKernel = cache.getOrCreate(
        rewriter, name, ValueRange(castArgs).getTypes(), n + 2, table,
        [&](KernelBuilder &kb, ValueRange kargs, ValueRange wg) {
          buildGroupCast(kb, spec, input, kargs.take_front(n), kargs[n],
                         kargs[n + 1], kargs[n + 2], kargs[n + 3],
                         wg.empty() ? Value() : wg[0]);
        });
    return launchAndReplace(
        rewriter, op, castKernel,
        cache.getGridSize(spec.rowChunks(kColumnCastRows) * spec.strips()),
        castArgs, buffers);
  }

  bool fuseProducers;
};

/// Per-group Float8 dequantize -> one elementwise launch.
struct Float8GroupDequantizeOpToGPU final : KernelPattern<DequantizeOp> {
  using KernelPattern::KernelPattern;

  LogicalResult rewriteStatic(DequantizeOp op,
                              PatternRewriter &rewriter) const override {
    if (!op.isFloat8() || !op.isPerGroup())
      return rewriter.notifyMatchFailure(op, "not a per-group Float8 cast");
    Location loc = op.getLoc();
    RankedTensorType dataType = op.getData().getType();
    GroupCastSpec spec{dataType.getDimSize(0),
                       dataType.getDimSize(1),
                       op.getScales().getType().getDimSize(0),
                       op.getResult().getType().getElementType(),
                       dataType.getElementType(),
                       /*pow2=*/false};
    Value data = toBuffer(rewriter, loc, op.getData());
    Value scales = toBuffer(rewriter, loc, op.getScales());
    Value offs = toBuffer(rewriter, loc, op.getOffs());
    SmallVector<Value> buffers = allocResults(rewriter, op);
    std::string name = llvm::formatv(
        "float8_group_dequantize_{0}_{1}_{2}_g{3}", getTypeTag(spec.f8Type),
        getTypeTag(spec.hpType), getShapeTag(spec.shape()), spec.groups);
    SmallVector<Value> args = {data, scales, offs, buffers[0]};
    gpu::GPUFuncOp kernel = cache.getOrCreate(
        rewriter, name, ValueRange(args).getTypes(), /*numInputs=*/3,
        getTableTypes(rewriter.getContext(), spec),
        [&](KernelBuilder &kb, ValueRange kargs, ValueRange wg) {
          buildGroupDequantize(kb, spec, kargs[0], kargs[1], kargs[2], kargs[3],
                               wg.empty() ? Value() : wg[0]);
        });
    return launchAndReplace(rewriter, op, kernel,
                            cache.getGridSize(spec.tokens * spec.strips()),
                            args, buffers);
  }
};
} // namespace

void gpu_lowering::populateFloat8GroupCastKernelPatterns(
    RewritePatternSet &patterns, KernelCache &cache, bool fuseProducers) {
  patterns.add<Float8GroupQuantizeOpToGPU>(patterns.getContext(), cache,
                                           fuseProducers);
  patterns.add<Float8GroupDequantizeOpToGPU>(patterns.getContext(), cache);
}
