//===- LayoutToLinalg.cpp - scale layouts and token-group padding ---------===//
//
// Lowers to_blocked (the four blocked scale layouts of SPEC §4.1/§4.2),
// pad_token_groups and unpad_token_groups (SPEC §7.3) to linalg, tensor and
// scf ops, and provides the inverse gathers of the grouped layouts that the
// scaled_grouped_mm lowering uses.
//
// Group offsets are runtime data. Every grouped op is an `scf.for` over the
// G groups that carries the previous (clamped) end offset and the padded
// start of the group; each group writes its own region of a zero-filled
// result through a dynamically sized linalg op on a tensor slice, which
// bufferizes in place. An empty group has an empty region and writes
// nothing. Offsets are clamped into [0, total] and to non-decreasing values
// before use (buildGroupLoop), so even malformed `offs` never make an access
// leave its tensor.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::linalg_lowering;

//===----------------------------------------------------------------------===//
// Group loops
//===----------------------------------------------------------------------===//

SmallVector<Value> linalg_lowering::buildGroupLoop(OpBuilder &b, Location loc,
                                                   Value offs, int64_t total,
                                                   ValueRange inits,
                                                   GroupBodyFn body) {
  int64_t groups = cast<RankedTensorType>(offs.getType()).getDimSize(0);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value numGroups = arith::ConstantIndexOp::create(b, loc, groups);
  Value totalValue = arith::ConstantIndexOp::create(b, loc, total);
  SmallVector<Value> iterInits = {c0};
  llvm::append_range(iterInits, inits);
  auto loop = scf::ForOp::create(
      b, loc, c0, numGroups, c1, iterInits,
      [&](OpBuilder &nb, Location nloc, Value g, ValueRange args) {
        Value start = args[0];
        Value raw = tensor::ExtractOp::create(nb, nloc, offs, g);
        // Sign-extending cast: a negative offset clamps to `start`.
        Value end =
            arith::IndexCastOp::create(nb, nloc, nb.getIndexType(), raw);
        end = arith::MaxSIOp::create(nb, nloc, end, start);
        end = arith::MinSIOp::create(nb, nloc, end, totalValue);
        SmallVector<Value> yielded = {end};
        llvm::append_range(yielded,
                           body(nb, nloc, g, start, end, args.drop_front()));
        scf::YieldOp::create(nb, nloc, yielded);
      });
  return llvm::to_vector_of<Value>(loop.getResults().drop_front());
}

Value linalg_lowering::roundUpIndex(OpBuilder &b, Location loc, Value v,
                                    int64_t m) {
  Value cm = arith::ConstantIndexOp::create(b, loc, m);
  Value cm1 = arith::ConstantIndexOp::create(b, loc, m - 1);
  Value q =
      arith::DivUIOp::create(b, loc, arith::AddIOp::create(b, loc, v, cm1), cm);
  return arith::MulIOp::create(b, loc, q, cm);
}

//===----------------------------------------------------------------------===//
// Blocked-layout helpers
//===----------------------------------------------------------------------===//

/// A zero-filled tensor of `shape` and the e8m0 type `scaleType` (byte 0x00,
/// the padding value of every blocked layout).
static Value buildZeroScales(OpBuilder &b, Location loc,
                             ArrayRef<int64_t> shape, Type scaleType) {
  Value zeroByte = arith::ConstantIntOp::create(b, loc, 0, 8);
  Value zero = arith::BitcastOp::create(b, loc, scaleType, zeroByte);
  Value empty = tensor::EmptyOp::create(b, loc, shape, scaleType);
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

/// An all-parallel linalg.generic without inputs that updates `region` (a
/// tensor slice) element by element: `body(bb, indices, old)` returns the
/// new value of the element whose current value is `old`. Bodies keep `old`
/// wherever they write nothing (padding, out-of-range guards); since the
/// result depends on it, the generic stays an in-place update of the slice
/// (an unused `outs` would be replaced by a fresh tensor and copied back).
static Value buildIndexGeneric(
    OpBuilder &b, Location loc, Value region,
    function_ref<Value(Bits &bb, ArrayRef<Value> indices, Value old)> body) {
  auto type = cast<RankedTensorType>(region.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{}, ValueRange{region},
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Bits bb(nb, nloc);
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d)
          indices.push_back(linalg::IndexOp::create(bb.b, d));
        linalg::YieldOp::create(bb.b, body(bb, indices, args[0]));
      });
  return generic.getResult(0);
}

/// `blocked[off]` for a 1-D `blocked`, or `old` when `off` is past its end.
/// The group arithmetic keeps every offset in bounds; the guard makes that
/// independent of the proof.
static Value guardedExtract(Bits &bb, Value blocked, Value off, Value old) {
  int64_t size = cast<RankedTensorType>(blocked.getType()).getDimSize(0);
  Value inBounds = bb.ult(off, bb.cIdx(size));
  Value clamped = bb.minu(off, bb.cIdx(size - 1));
  Value v = tensor::ExtractOp::create(bb.b, blocked, clamped);
  return bb.select(inBounds, v, old);
}

/// `tensor.extract_slice` of a 1-D tensor: `size` elements from `offset`.
static Value slice1D(OpBuilder &b, Location loc, Value t, Value offset,
                     Value size) {
  return tensor::ExtractSliceOp::create(
      b, loc, t, ArrayRef<OpFoldResult>{offset}, ArrayRef<OpFoldResult>{size},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

/// The inverse of slice1D.
static Value insert1D(OpBuilder &b, Location loc, Value src, Value dest,
                      Value offset, Value size) {
  return tensor::InsertSliceOp::create(
      b, loc, src, dest, ArrayRef<OpFoldResult>{offset},
      ArrayRef<OpFoldResult>{size}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

/// `tensor.extract_slice` of a 2-D tensor.
static Value slice2D(OpBuilder &b, Location loc, Value t,
                     ArrayRef<OpFoldResult> offsets,
                     ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, t, offsets, sizes, strides);
}

/// The inverse of slice2D.
static Value insert2D(OpBuilder &b, Location loc, Value src, Value dest,
                      ArrayRef<OpFoldResult> offsets,
                      ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, src, dest, offsets, sizes,
                                       strides);
}

/// The body of a padded group loop: group [start, end) whose padded region
/// starts at `padStart`, with the accumulated result `acc`; returns the
/// padded start of the next group and the updated result.
using PaddedGroupBodyFn = function_ref<std::pair<Value, Value>(
    OpBuilder &b, Location loc, Value start, Value end, Value padStart,
    Value acc)>;

/// A group loop (buildGroupLoop) that carries the padded start of each group
/// (from 0) and the result `init`; returns the final result.
static Value buildPaddedGroupLoop(OpBuilder &b, Location loc, Value offs,
                                  int64_t total, Value init,
                                  PaddedGroupBodyFn body) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> results =
      buildGroupLoop(b, loc, offs, total, {c0, init},
                     [&](OpBuilder &nb, Location nloc, Value, Value start,
                         Value end, ValueRange args) -> SmallVector<Value> {
                       auto [padEnd, acc] =
                           body(nb, nloc, start, end, args[0], args[1]);
                       return {padEnd, acc};
                     });
  return results[1];
}

/// The scale columns of one blocked_k_groups group with token range
/// [start, end): the first one `js` (start / 32) and `cg` of them
/// (end / 32 - js), padded to `cgPad` (`colTiles` 4-column tiles), and the
/// group's blocked region, which starts at byte `base = colStart * rp` of
/// the layout (`rp`: the rows padded to a multiple of 128).
struct KGroupColumns {
  Value js, cg, cgPad, colTiles, rp, base;
};

static KGroupColumns getKGroupColumns(OpBuilder &b, Location loc, Value start,
                                      Value end, Value colStart,
                                      int64_t rowsPadded) {
  KGroupColumns k;
  Value c32 = arith::ConstantIndexOp::create(b, loc, kBlockSize);
  k.js = arith::DivUIOp::create(b, loc, start, c32);
  Value je = arith::DivUIOp::create(b, loc, end, c32);
  k.cg = arith::SubIOp::create(b, loc, je, k.js);
  k.cgPad = roundUpIndex(b, loc, k.cg, 4);
  Value c4 = arith::ConstantIndexOp::create(b, loc, 4);
  k.colTiles = arith::DivUIOp::create(b, loc, k.cgPad, c4);
  k.rp = arith::ConstantIndexOp::create(b, loc, rowsPadded);
  k.base = arith::MulIOp::create(b, loc, colStart, k.rp);
  return k;
}

//===----------------------------------------------------------------------===//
// Grouped blocked layouts (SPEC §4.2)
//===----------------------------------------------------------------------===//

/// blocked_m_groups: group g's rows `[start, end)` of `scales (R, C)` are
/// written as to_blocked of that (n_g, C) matrix at flat offset `P_g * Cp`,
/// `P_g = Σ_{i<g} ceil(n_i/128)*128`, `Cp = ceil(C/4)*4`.
static Value buildMGroupsBlocked(OpBuilder &b, Location loc, Value scales,
                                 Value offs) {
  auto type = cast<RankedTensorType>(scales.getType());
  Type scaleType = type.getElementType();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t groups = cast<RankedTensorType>(offs.getType()).getDimSize(0);
  int64_t colTiles = llvm::divideCeil(cols, 4);
  Value out = buildZeroScales(
      b, loc, {*getBlockedMGroupsScaleSize(rows, cols, groups)}, scaleType);
  return buildPaddedGroupLoop(
      b, loc, offs, rows, out,
      [&](OpBuilder &nb, Location nloc, Value start, Value end, Value padStart,
          Value acc) -> std::pair<Value, Value> {
        Value n = arith::SubIOp::create(nb, nloc, end, start);
        Value nPad = roundUpIndex(nb, nloc, n, 128);
        Value cp = arith::ConstantIndexOp::create(nb, nloc, colTiles * 4);
        Value regionOff = arith::MulIOp::create(nb, nloc, padStart, cp);
        Value regionSize = arith::MulIOp::create(nb, nloc, nPad, cp);
        Value region = slice1D(nb, nloc, acc, regionOff, regionSize);
        Value written = buildIndexGeneric(
            nb, nloc, region, [&](Bits &bb, ArrayRef<Value> idx, Value old) {
              auto [r, c] = getBlockedPosition(bb, idx[0], bb.cIdx(colTiles));
              Value valid = bb.land(bb.ult(r, n), bb.ult(c, bb.cIdx(cols)));
              // Clamped so that padding lanes read in bounds; a non-empty
              // region means n >= 1.
              Value rr = bb.add(start, bb.minu(r, bb.sub(n, bb.cIdx(1))));
              Value cc = bb.minu(c, bb.cIdx(cols - 1));
              Value v =
                  tensor::ExtractOp::create(bb.b, scales, ValueRange{rr, cc});
              return bb.select(valid, v, old);
            });
        acc = insert1D(nb, nloc, written, acc, regionOff, regionSize);
        return {arith::AddIOp::create(nb, nloc, padStart, nPad), acc};
      });
}

/// blocked_k_groups: `scales (R, C)` has one column per 32 tokens; group g's
/// columns `[start/32, end/32)` (c_g of them) are written as to_blocked of
/// that (R, c_g) matrix at flat offset `Q_g * Rp`,
/// `Q_g = Σ_{i<g} ceil(c_i/4)*4`, `Rp = ceil(R/128)*128`.
static Value buildKGroupsBlocked(OpBuilder &b, Location loc, Value scales,
                                 Value offs) {
  auto type = cast<RankedTensorType>(scales.getType());
  Type scaleType = type.getElementType();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t groups = cast<RankedTensorType>(offs.getType()).getDimSize(0);
  int64_t rowsPadded = llvm::divideCeil(rows, 128) * 128;
  Value out = buildZeroScales(
      b, loc, {*getBlockedKGroupsScaleSize(rows, cols, groups)}, scaleType);
  return buildPaddedGroupLoop(
      b, loc, offs, cols * kBlockSize, out,
      [&](OpBuilder &nb, Location nloc, Value start, Value end, Value colStart,
          Value acc) -> std::pair<Value, Value> {
        KGroupColumns k =
            getKGroupColumns(nb, nloc, start, end, colStart, rowsPadded);
        Value regionSize = arith::MulIOp::create(nb, nloc, k.cgPad, k.rp);
        Value region = slice1D(nb, nloc, acc, k.base, regionSize);
        Value written = buildIndexGeneric(
            nb, nloc, region, [&](Bits &bb, ArrayRef<Value> idx, Value old) {
              // A non-empty region means colTiles >= 1 and cg >= 1.
              auto [r, jl] = getBlockedPosition(bb, idx[0], k.colTiles);
              Value valid = bb.land(bb.ult(r, bb.cIdx(rows)), bb.ult(jl, k.cg));
              Value rr = bb.minu(r, bb.cIdx(rows - 1));
              Value jj = bb.add(k.js, bb.minu(jl, bb.sub(k.cg, bb.cIdx(1))));
              Value v =
                  tensor::ExtractOp::create(bb.b, scales, ValueRange{rr, jj});
              return bb.select(valid, v, old);
            });
        acc = insert1D(nb, nloc, written, acc, k.base, regionSize);
        return {arith::AddIOp::create(nb, nloc, colStart, k.cgPad), acc};
      });
}

/// blocked_per_expert: to_blocked of every `scales[e]` (E, R, C), one row of
/// the (E, blocked size) result each.
static Value buildPerExpertBlocked(OpBuilder &b, Location loc, Value scales) {
  auto type = cast<RankedTensorType>(scales.getType());
  Type scaleType = type.getElementType();
  int64_t experts = type.getDimSize(0), rows = type.getDimSize(1),
          cols = type.getDimSize(2);
  int64_t size = *getBlockedScaleSize(rows, cols);
  Value empty = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{experts, size}, scaleType);
  return buildIndexGeneric(
      b, loc, empty, [&](Bits &bb, ArrayRef<Value> idx, Value old) {
        auto [r, c] =
            getBlockedPosition(bb, idx[1], bb.cIdx(llvm::divideCeil(cols, 4)));
        Value valid =
            bb.land(bb.ult(r, bb.cIdx(rows)), bb.ult(c, bb.cIdx(cols)));
        Value rr = bb.minu(r, bb.cIdx(rows - 1));
        Value cc = bb.minu(c, bb.cIdx(cols - 1));
        Value v =
            tensor::ExtractOp::create(bb.b, scales, ValueRange{idx[0], rr, cc});
        return bb.byteAs(scaleType, bb.select(valid, bb.byteOf(v), bb.c(0)));
      });
}

Value linalg_lowering::buildRowMajorFromMGroups(OpBuilder &b, Location loc,
                                                Value blocked, Value offs,
                                                int64_t rows, int64_t cols) {
  Type scaleType = cast<RankedTensorType>(blocked.getType()).getElementType();
  Value out = buildZeroScales(b, loc, {rows, cols}, scaleType);
  return buildPaddedGroupLoop(
      b, loc, offs, rows, out,
      [&](OpBuilder &nb, Location nloc, Value start, Value end, Value padStart,
          Value acc) -> std::pair<Value, Value> {
        Value n = arith::SubIOp::create(nb, nloc, end, start);
        SmallVector<OpFoldResult> offsets = {start, nb.getIndexAttr(0)};
        SmallVector<OpFoldResult> sizes = {n, nb.getIndexAttr(cols)};
        Value region = slice2D(nb, nloc, acc, offsets, sizes);
        // P_g is a multiple of 128, so row r of the group sits where row
        // P_g + r of one global to_blocked matrix would.
        Value read = buildIndexGeneric(
            nb, nloc, region, [&](Bits &bb, ArrayRef<Value> idx, Value old) {
              Value off =
                  getBlockedOffset(bb, bb.add(padStart, idx[0]), idx[1], cols);
              return guardedExtract(bb, blocked, off, old);
            });
        acc = insert2D(nb, nloc, read, acc, offsets, sizes);
        Value nPad = roundUpIndex(nb, nloc, n, 128);
        return {arith::AddIOp::create(nb, nloc, padStart, nPad), acc};
      });
}

Value linalg_lowering::buildRowMajorFromKGroups(OpBuilder &b, Location loc,
                                                Value blocked, Value offs,
                                                int64_t rows, int64_t cols,
                                                bool transposed) {
  Type scaleType = cast<RankedTensorType>(blocked.getType()).getElementType();
  int64_t rowsPadded = llvm::divideCeil(rows, 128) * 128;
  SmallVector<int64_t> shape = {rows, cols};
  if (transposed)
    std::swap(shape[0], shape[1]);
  Value out = buildZeroScales(b, loc, shape, scaleType);
  return buildPaddedGroupLoop(
      b, loc, offs, cols * kBlockSize, out,
      [&](OpBuilder &nb, Location nloc, Value start, Value end, Value colStart,
          Value acc) -> std::pair<Value, Value> {
        KGroupColumns k =
            getKGroupColumns(nb, nloc, start, end, colStart, rowsPadded);
        SmallVector<OpFoldResult> offsets = {nb.getIndexAttr(0), k.js};
        SmallVector<OpFoldResult> sizes = {nb.getIndexAttr(rows), k.cg};
        if (transposed) {
          std::swap(offsets[0], offsets[1]);
          std::swap(sizes[0], sizes[1]);
        }
        Value region = slice2D(nb, nloc, acc, offsets, sizes);
        Value read = buildIndexGeneric(
            nb, nloc, region, [&](Bits &bb, ArrayRef<Value> idx, Value old) {
              Value r = transposed ? idx[1] : idx[0];
              Value jl = transposed ? idx[0] : idx[1];
              Value off =
                  bb.add(k.base, getBlockedOffset(bb, r, jl, k.colTiles));
              return guardedExtract(bb, blocked, off, old);
            });
        acc = insert2D(nb, nloc, read, acc, offsets, sizes);
        return {arith::AddIOp::create(nb, nloc, colStart, k.cgPad), acc};
      });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// to_blocked -> a gather generic (blocked, blocked_per_expert) or a group
/// loop of per-group gathers into a zero-filled result (the grouped layouts).
struct ToBlockedOpLowering final : OpRewritePattern<ToBlockedOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(ToBlockedOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    Value scales = op.getScales();
    Value result;
    switch (op.getLayout()) {
    case ScaleLayout::Blocked:
      result = buildBlockedScales(rewriter, loc, scales, /*axis=*/1);
      break;
    case ScaleLayout::BlockedPerExpert:
      result = buildPerExpertBlocked(rewriter, loc, scales);
      break;
    case ScaleLayout::BlockedMGroups:
      result = buildMGroupsBlocked(rewriter, loc, scales, op.getOffs());
      break;
    case ScaleLayout::BlockedKGroups:
      result = buildKGroupsBlocked(rewriter, loc, scales, op.getOffs());
      break;
    case ScaleLayout::RowMajor:
      return rewriter.notifyMatchFailure(op, "row_major target layout");
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A zero-filled tensor of `shape` and float type `elemType`.
static Value buildZeros(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        Type elemType) {
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(elemType, 0.0));
  Value empty = tensor::EmptyOp::create(b, loc, shape, elemType);
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

/// Copies rows `[srcRow, srcRow + n)` of `src` into rows
/// `[dstRow, dstRow + n)` of `dest` (in place after bufferization).
static Value copyRows(OpBuilder &b, Location loc, Value src, Value dest,
                      Value srcRow, Value dstRow, Value n) {
  int64_t cols = cast<RankedTensorType>(src.getType()).getDimSize(1);
  OpFoldResult zero = b.getIndexAttr(0);
  SmallVector<OpFoldResult> sizes = {n, b.getIndexAttr(cols)};
  Value from = slice2D(b, loc, src, {srcRow, zero}, sizes);
  Value to = slice2D(b, loc, dest, {dstRow, zero}, sizes);
  Value copied =
      linalg::CopyOp::create(b, loc, ValueRange{from}, ValueRange{to})
          .getResult(0);
  return insert2D(b, loc, copied, dest, {dstRow, zero}, sizes);
}

/// pad_token_groups -> zero-filled result, one row-block copy per group, and
/// the padded end offsets.
struct PadTokenGroupsOpLowering final : OpRewritePattern<PadTokenGroupsOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(PadTokenGroupsOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    RankedTensorType offsType = op.getPaddedOffs().getType();
    int64_t tokens = op.getInput().getType().getDimSize(0);
    int64_t alignment = op.getAlignment();
    Value out = buildZeros(rewriter, loc, resultType.getShape(),
                           resultType.getElementType());
    Value paddedOffs = tensor::EmptyOp::create(
        rewriter, loc, offsType.getShape(), offsType.getElementType());
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    SmallVector<Value> results = buildGroupLoop(
        rewriter, loc, op.getOffs(), tokens, {c0, out, paddedOffs},
        [&](OpBuilder &nb, Location nloc, Value g, Value start, Value end,
            ValueRange args) -> SmallVector<Value> {
          Value padStart = args[0];
          Value n = arith::SubIOp::create(nb, nloc, end, start);
          Value padEnd = arith::AddIOp::create(
              nb, nloc, padStart, roundUpIndex(nb, nloc, n, alignment));
          // Rows without columns hold nothing to copy (and a slice of a
          // zero-size dimension at a static offset is invalid).
          Value acc = resultType.getNumElements() == 0
                          ? args[1]
                          : copyRows(nb, nloc, op.getInput(), args[1], start,
                                     padStart, n);
          Value endI32 = arith::IndexCastOp::create(
              nb, nloc, offsType.getElementType(), padEnd);
          Value offsAcc =
              tensor::InsertOp::create(nb, nloc, endI32, args[2], g);
          return {padEnd, acc, offsAcc};
        });
    rewriter.replaceOp(op, {results[1], results[2]});
    return success();
  }
};

/// unpad_token_groups -> zero-filled result, one row-block copy per group.
struct UnpadTokenGroupsOpLowering final : OpRewritePattern<UnpadTokenGroupsOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(UnpadTokenGroupsOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    int64_t tokens = resultType.getDimSize(0);
    int64_t alignment = op.getAlignment();
    Value out = buildZeros(rewriter, loc, resultType.getShape(),
                           resultType.getElementType());
    Value result = buildPaddedGroupLoop(
        rewriter, loc, op.getOffs(), tokens, out,
        [&](OpBuilder &nb, Location nloc, Value start, Value end,
            Value padStart, Value acc) -> std::pair<Value, Value> {
          Value n = arith::SubIOp::create(nb, nloc, end, start);
          acc = copyRows(nb, nloc, op.getInput(), acc, padStart, start, n);
          Value padEnd = arith::AddIOp::create(
              nb, nloc, padStart, roundUpIndex(nb, nloc, n, alignment));
          return {padEnd, acc};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void linalg_lowering::populateLayoutToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ToBlockedOpLowering, PadTokenGroupsOpLowering,
               UnpadTokenGroupsOpLowering>(patterns.getContext());
}
