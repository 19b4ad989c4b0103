//===- GroupedToLinalg.cpp - grouped GEMMs on the CPU -----------*- C++ -*-===//
//
// Lowers grouped_mm and scaled_grouped_mm (SPEC §7) to scf loops around
// statically shaped f32 linalg.matmul ops, which the CPU pipeline tiles and
// vectorizes like any other matmul.
//
// Every operand is converted to f32 exactly once, in the canonical
// orientation of its GEMM: the token-major operands as whole tensors before
// the group loop, and each expert's weight (2d-3d) once per non-empty
// group. MX operands are dequantized exactly (SPEC §3), so every product of
// two operands is exact in f32 and the accumulation is fp32, as SPEC §7
// asks; high-precision bf16 operands widen exactly.
//
//  - 2d-3d (forward, dgrad): `acc (M, N)` starts at zero; for each group, the
//    rows `[start, end)` are covered by 32-row, then 8-row, then 1-row
//    `lhs[rows] (r, K) x W_g (K, N)` matmuls into `acc[rows]`. Rows outside
//    every group stay zero; an empty group computes nothing, not even the
//    conversion of its weight. A weight stored (E, N, K) (`transpose_rhs`)
//    is transposed by its conversion generic.
//  - 2d-2d (wgrad): per group, `dW_g (N, K)` starts at zero and accumulates
//    `lhs[:, chunk] (N, t) x rhs[chunk, :] (t, K)` over token chunks of 128,
//    32, 8 and 1; an empty group leaves it exactly zero.
//
// The result is rounded once (to nearest even) into bf16, or returned as f32.
// Float8 operands (f32 scales) use the same skeletons on their exact fp8
// values and apply the reciprocal scales per element afterwards
// (SPEC-float8 §5.3).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "mxfp8train/Conversion/Utils/Float8Arith.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::linalg_lowering;

/// Row chunks of the 2d-3d GEMMs and token chunks of the 2d-2d GEMMs; each
/// list ends in 1 so that any group size is covered exactly.
static constexpr int64_t kRowChunks[] = {32, 8, 1};
static constexpr int64_t kTokenChunks[] = {128, 32, 8, 1};

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// An all-parallel linalg.generic that writes `fn(bb, input element)` into
/// every element of `init`, reading `input` through `inputMap` (from the
/// iteration space, which is that of `init`, to the indices of `input`).
static Value buildElementwise(OpBuilder &b, Location loc, Value input,
                              AffineMap inputMap, Value init,
                              function_ref<Value(Bits &bb, Value x)> fn) {
  auto type = cast<RankedTensorType>(init.getType());
  int64_t rank = type.getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{input}, ValueRange{init},
             ArrayRef<AffineMap>{inputMap, identity},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Bits bb(nb, nloc);
               linalg::YieldOp::create(bb.b, fn(bb, args[0]));
             })
      .getResult(0);
}

/// An f32 copy of the bf16/f32 tensor `value` whose dimension i is dimension
/// `perm[i]` of `value` (`value` itself when nothing changes). bf16 widens
/// exactly (its bits are the high half of an f32).
static Value buildToF32(OpBuilder &b, Location loc, Value value,
                        ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  bool identity = llvm::equal(perm, llvm::seq<int64_t>(0, rank));
  if (type.getElementType().isF32() && identity)
    return value;
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> readExprs(rank);
  for (int64_t i = 0; i < rank; ++i) {
    shape.push_back(type.getDimSize(perm[i]));
    readExprs[perm[i]] = getAffineDimExpr(i, ctx);
  }
  Value init = tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
  return buildElementwise(b, loc, value,
                          AffineMap::get(rank, 0, readExprs, ctx), init,
                          [](Bits &bb, Value x) { return bb.toF32(x); });
}

/// A zero-filled f32 tensor of `shape`, or `init` filled with zeros.
static Value buildZeroF32(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                          Value init = nullptr) {
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  if (!init)
    init = tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
  return linalg::FillOp::create(b, loc, zero, init).getResult(0);
}

/// Rounds the f32 tensor `acc` into `init`, of element type bf16 (to
/// nearest even) or f32 (a copy).
static Value buildRoundTo(OpBuilder &b, Location loc, Value acc, Value init) {
  auto type = cast<RankedTensorType>(init.getType());
  Type elemType = type.getElementType();
  return buildElementwise(
      b, loc, acc,
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext()), init,
      [&](Bits &bb, Value x) { return bb.fromF32(elemType, x); });
}

/// The offsets, sizes and strides of the slice `t[g]` of a 3-D tensor of
/// type `type`.
struct ExpertSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

static ExpertSlice getExpertSlice(OpBuilder &b, RankedTensorType type,
                                  Value g) {
  return {{g, b.getIndexAttr(0), b.getIndexAttr(0)},
          {b.getIndexAttr(1), b.getIndexAttr(type.getDimSize(1)),
           b.getIndexAttr(type.getDimSize(2))},
          SmallVector<OpFoldResult>(3, b.getIndexAttr(1))};
}

/// The 2-D slice `t[g]` of a 3-D tensor (rank-reduced).
static Value sliceExpert(OpBuilder &b, Location loc, Value t, Value g) {
  auto type = cast<RankedTensorType>(t.getType());
  auto sliceType = RankedTensorType::get(type.getShape().drop_front(),
                                         type.getElementType());
  ExpertSlice s = getExpertSlice(b, type, g);
  return tensor::ExtractSliceOp::create(b, loc, sliceType, t, s.offsets,
                                        s.sizes, s.strides);
}

/// Inserts the 2-D `src` as `dest[g]` of a 3-D tensor.
static Value insertExpert(OpBuilder &b, Location loc, Value src, Value dest,
                          Value g) {
  ExpertSlice s = getExpertSlice(b, cast<RankedTensorType>(dest.getType()), g);
  return tensor::InsertSliceOp::create(b, loc, src, dest, s.offsets, s.sizes,
                                       s.strides);
}

/// A static 2-D slice `t[off0 : off0+size0, off1 : off1+size1]`.
static Value sliceStatic(OpBuilder &b, Location loc, Value t, OpFoldResult off0,
                         OpFoldResult off1, int64_t size0, int64_t size1) {
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      b, loc, t, ArrayRef<OpFoldResult>{off0, off1},
      ArrayRef<OpFoldResult>{b.getIndexAttr(size0), b.getIndexAttr(size1)},
      strides);
}

/// The inverse of sliceStatic: `src` inserted as that slice of `dest`.
static Value insertStatic(OpBuilder &b, Location loc, Value src, Value dest,
                          OpFoldResult off0, OpFoldResult off1, int64_t size0,
                          int64_t size1) {
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(
      b, loc, src, dest, ArrayRef<OpFoldResult>{off0, off1},
      ArrayRef<OpFoldResult>{b.getIndexAttr(size0), b.getIndexAttr(size1)},
      strides);
}

/// The body of one chunk: `pos` is the first row/token, `size` the static
/// chunk size; returns the updated accumulator.
using ChunkBodyFn = function_ref<Value(OpBuilder &b, Location loc, Value pos,
                                       int64_t size, Value acc)>;

/// Covers `[start, end)` with chunks of the static `sizes` (descending, the
/// last one 1): one scf.for per size over as many whole chunks as fit in
/// what the previous sizes left.
static Value buildChunkLoops(OpBuilder &b, Location loc, Value start, Value end,
                             ArrayRef<int64_t> sizes, Value acc,
                             ChunkBodyFn body) {
  Value pos = start;
  for (int64_t size : sizes) {
    Value step = arith::ConstantIndexOp::create(b, loc, size);
    Value count = arith::DivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, end, pos), step);
    Value stop = arith::AddIOp::create(
        b, loc, pos, arith::MulIOp::create(b, loc, count, step));
    auto loop = scf::ForOp::create(
        b, loc, pos, stop, step, ValueRange{acc},
        [&](OpBuilder &nb, Location nloc, Value i, ValueRange args) {
          scf::YieldOp::create(nb, nloc, body(nb, nloc, i, size, args[0]));
        });
    acc = loop.getResult(0);
    pos = stop;
  }
  return acc;
}

/// `acc + lhs x rhs` with an f32 linalg.matmul.
static Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                         Value acc) {
  return linalg::MatmulOp::create(b, loc, acc.getType(), ValueRange{lhs, rhs},
                                  ValueRange{acc})
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Grouped GEMM skeletons
//===----------------------------------------------------------------------===//

/// `acc[i, j] * 2^(rowShifts[i] + colShifts[j])` for the 2-D f32 `acc`,
/// in place (undoScaleShifts).
static Value buildUndoShifts(OpBuilder &b, Location loc, Value acc,
                             Value rowShifts, Value colShifts) {
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  return linalg::GenericOp::create(
             b, loc, acc.getType(), ValueRange{rowShifts, colShifts},
             ValueRange{acc},
             ArrayRef<AffineMap>{identity.dropResult(1), identity.dropResult(0),
                                 identity},
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Bits bb(nb, nloc);
               linalg::YieldOp::create(
                   bb.b, undoScaleShifts(bb, args[2], args[0], args[1]));
             })
      .getResult(0);
}

/// Builds the f32 (K, N) weight of expert `g` (2d-3d), with the shifts of
/// its N columns for an MX weight.
using ExpertFn = function_ref<F32Operand(OpBuilder &b, Location loc, Value g)>;

/// 2d-3d: `result[m] = lhs[m] @ W_g` for the rows m of group g, rows outside
/// every group zero. `lhs` is the f32 (M, K) operand. With scale shifts
/// (MX operands), each chunk's product is scaled back by its rows' and
/// columns' shifts.
static Value buildGroupedMm2D3D(OpBuilder &b, Location loc, F32Operand lhsOp,
                                Value offs, RankedTensorType resultType,
                                ExpertFn expert) {
  Value lhs = lhsOp.values;
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  int64_t rows = lhsType.getDimSize(0), k = lhsType.getDimSize(1);
  int64_t n = resultType.getDimSize(1);
  Value acc = buildZeroF32(b, loc, {rows, n});
  SmallVector<Value> results = buildGroupLoop(
      b, loc, offs, rows, {acc},
      [&](OpBuilder &nb, Location nloc, Value g, Value start, Value end,
          ValueRange args) -> SmallVector<Value> {
        // Empty groups skip the weight conversion too.
        Value nonEmpty = arith::CmpIOp::create(
            nb, nloc, arith::CmpIPredicate::ult, start, end);
        auto ifOp = scf::IfOp::create(
            nb, nloc, nonEmpty,
            [&](OpBuilder &tb, Location tloc) {
              F32Operand w = expert(tb, tloc, g);
              Value updated = buildChunkLoops(
                  tb, tloc, start, end, kRowChunks, args[0],
                  [&](OpBuilder &cb, Location cloc, Value pos, int64_t size,
                      Value accIn) {
                    OpFoldResult zero = cb.getIndexAttr(0);
                    Value lhsRows =
                        sliceStatic(cb, cloc, lhs, pos, zero, size, k);
                    Value accRows =
                        sliceStatic(cb, cloc, accIn, pos, zero, size, n);
                    Value product =
                        buildMatmul(cb, cloc, lhsRows, w.values, accRows);
                    if (lhsOp.shifts) {
                      Value rowShifts = tensor::ExtractSliceOp::create(
                          cb, cloc, lhsOp.shifts, ArrayRef<OpFoldResult>{pos},
                          ArrayRef<OpFoldResult>{cb.getIndexAttr(size)},
                          ArrayRef<OpFoldResult>{cb.getIndexAttr(1)});
                      product = buildUndoShifts(cb, cloc, product, rowShifts,
                                                w.shifts);
                    }
                    return insertStatic(cb, cloc, product, accIn, pos, zero,
                                        size, n);
                  });
              scf::YieldOp::create(tb, tloc, updated);
            },
            [&](OpBuilder &eb, Location eloc) {
              scf::YieldOp::create(eb, eloc, args[0]);
            });
        return {ifOp.getResult(0)};
      });
  acc = results[0];
  if (resultType.getElementType().isF32())
    return acc;
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  return buildRoundTo(b, loc, acc, init);
}

/// 2d-2d: `result[g] = lhs[:, group g] @ rhs[group g, :]`, exactly zero for
/// an empty group. `lhs` is the f32 (N, M) operand, `rhs` the f32 (M, K) one;
/// with scale shifts (MX operands: per row of lhs, per column of rhs), each
/// group's sum is scaled back before its rounding.
static Value buildGroupedMm2D2D(OpBuilder &b, Location loc, F32Operand lhsOp,
                                F32Operand rhsOp, Value offs,
                                RankedTensorType resultType) {
  Value lhs = lhsOp.values, rhs = rhsOp.values;
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  int64_t n = lhsType.getDimSize(0), tokens = lhsType.getDimSize(1);
  int64_t k = cast<RankedTensorType>(rhs.getType()).getDimSize(1);
  Type outElemType = resultType.getElementType();
  Value result =
      tensor::EmptyOp::create(b, loc, resultType.getShape(), outElemType);
  SmallVector<Value> results = buildGroupLoop(
      b, loc, offs, tokens, {result},
      [&](OpBuilder &nb, Location nloc, Value g, Value start, Value end,
          ValueRange args) -> SmallVector<Value> {
        Value out = args[0];
        // An f32 result accumulates in place in its slice.
        Value accInit =
            outElemType.isF32() ? sliceExpert(nb, nloc, out, g) : Value();
        Value acc = buildZeroF32(nb, nloc, {n, k}, accInit);
        acc = buildChunkLoops(
            nb, nloc, start, end, kTokenChunks, acc,
            [&](OpBuilder &cb, Location cloc, Value pos, int64_t size,
                Value accIn) {
              OpFoldResult zero = cb.getIndexAttr(0);
              Value lhsCols = sliceStatic(cb, cloc, lhs, zero, pos, n, size);
              Value rhsRows = sliceStatic(cb, cloc, rhs, pos, zero, size, k);
              return buildMatmul(cb, cloc, lhsCols, rhsRows, accIn);
            });
        if (lhsOp.shifts)
          acc = buildUndoShifts(nb, nloc, acc, lhsOp.shifts, rhsOp.shifts);
        if (!outElemType.isF32())
          acc = buildRoundTo(nb, nloc, acc, sliceExpert(nb, nloc, out, g));
        return {insertExpert(nb, nloc, acc, out, g)};
      });
  return results[0];
}

/// The permutation that swaps the two dimensions of a 2-D tensor when
/// `transposed` (stored orientation -> canonical orientation).
static SmallVector<int64_t> getPerm(bool transposed) {
  return transposed ? SmallVector<int64_t>{1, 0} : SmallVector<int64_t>{0, 1};
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// grouped_mm -> f32 operands, grouped f32 matmuls, one rounding.
struct GroupedMmOpLowering final : OpRewritePattern<GroupedMmOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(GroupedMmOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    Value result;
    if (op.isTwoDTwoD()) {
      // lhs logical (N, M), rhs logical (M, K).
      Value lhs =
          buildToF32(rewriter, loc, op.getLhs(), getPerm(op.getTransposeLhs()));
      Value rhs =
          buildToF32(rewriter, loc, op.getRhs(), getPerm(op.getTransposeRhs()));
      result = buildGroupedMm2D2D(rewriter, loc, {lhs, nullptr}, {rhs, nullptr},
                                  op.getOffs(), resultType);
    } else {
      Value lhs = buildToF32(rewriter, loc, op.getLhs(), getPerm(false));
      bool transposeRhs = op.getTransposeRhs();
      Value weights = op.getRhs();
      result = buildGroupedMm2D3D(
          rewriter, loc, {lhs, nullptr}, op.getOffs(), resultType,
          [&](OpBuilder &b, Location l, Value g) {
            return F32Operand{buildToF32(b, l, sliceExpert(b, l, weights, g),
                                         getPerm(transposeRhs)),
                              nullptr};
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// scaled_grouped_mm -> exact f32 dequantization of the operands (after
/// un-swizzling grouped blocked scales) with their scale shifts, grouped f32
/// matmuls, the shifts undone, one rounding.
struct ScaledGroupedMmOpLowering final : OpRewritePattern<ScaledGroupedMmOp> {
  using Base::Base;

  /// The f32 values of 2-D MX `data` (row-major `scales`, blocked along
  /// `axis`) in canonical orientation, and the shifts of its rows.
  static F32Operand dequantize(OpBuilder &b, Location loc, Value data,
                               Value scales, int64_t axis, bool transposed) {
    return buildShiftedDequantize(b, loc, data, scales, axis,
                                  getPerm(transposed));
  }

  LogicalResult matchAndRewrite(ScaledGroupedMmOp op,
                                PatternRewriter &rewriter) const override {
    if (op.isFloat8())
      return rewriter.notifyMatchFailure(op, "a Float8 scaled_grouped_mm");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    Value offs = op.getOffs();
    RankedTensorType lhsType = op.getLhs().getType();
    RankedTensorType rhsType = op.getRhs().getType();
    Value result;
    if (op.isTwoDTwoD()) {
      // Both operands are quantized along the token dimension M.
      bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
      int64_t lhsAxis = tl ? 0 : 1, rhsAxis = tr ? 1 : 0;
      int64_t tokens = lhsType.getDimSize(lhsAxis);
      auto rowMajor = [&](Value scales, ScaleLayout layout, int64_t rows,
                          bool tokenMajor) {
        if (layout != ScaleLayout::BlockedKGroups)
          return scales;
        return buildRowMajorFromKGroups(rewriter, loc, scales, offs, rows,
                                        tokens / kBlockSize, tokenMajor);
      };
      Value lhsScales =
          rowMajor(op.getLhsScales(), op.getLhsScaleLayout(),
                   lhsType.getDimSize(1 - lhsAxis), /*tokenMajor=*/tl);
      Value rhsScales =
          rowMajor(op.getRhsScales(), op.getRhsScaleLayout(),
                   rhsType.getDimSize(1 - rhsAxis), /*tokenMajor=*/!tr);
      F32Operand lhs =
          dequantize(rewriter, loc, op.getLhs(), lhsScales, lhsAxis, tl);
      F32Operand rhs =
          dequantize(rewriter, loc, op.getRhs(), rhsScales, rhsAxis, tr);
      result = buildGroupedMm2D2D(rewriter, loc, lhs, rhs, offs, resultType);
    } else {
      Value lhsScales = op.getLhsScales();
      if (op.getLhsScaleLayout() == ScaleLayout::BlockedMGroups)
        lhsScales = buildRowMajorFromMGroups(
            rewriter, loc, lhsScales, offs, lhsType.getDimSize(0),
            lhsType.getDimSize(1) / kBlockSize);
      F32Operand lhs = dequantize(rewriter, loc, op.getLhs(), lhsScales,
                                  /*axis=*/1, /*transposed=*/false);
      bool transposeRhs = op.getTransposeRhs();
      int64_t rhsAxis = transposeRhs ? 1 : 0; // K in the 2-D expert slice
      bool perExpert = op.getRhsScaleLayout() == ScaleLayout::BlockedPerExpert;
      Value weights = op.getRhs(), weightScales = op.getRhsScales();
      ArrayRef<int64_t> sliceShape = rhsType.getShape().drop_front();
      result = buildGroupedMm2D3D(
          rewriter, loc, lhs, offs, resultType,
          [&](OpBuilder &b, Location l, Value g) {
            Value data = sliceExpert(b, l, weights, g);
            Value scales;
            if (perExpert) {
              auto scalesType = cast<RankedTensorType>(weightScales.getType());
              int64_t size = scalesType.getDimSize(1);
              SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
              Value blocked = tensor::ExtractSliceOp::create(
                  b, l,
                  RankedTensorType::get({size}, scalesType.getElementType()),
                  weightScales, ArrayRef<OpFoldResult>{g, b.getIndexAttr(0)},
                  ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                                         b.getIndexAttr(size)},
                  strides);
              scales = buildRowMajorScales(b, l, blocked, sliceShape, rhsAxis);
            } else {
              scales = sliceExpert(b, l, weightScales, g);
            }
            return dequantize(b, l, data, scales, rhsAxis, transposeRhs);
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

// O(E^2) scalar work, E static (SPEC §7.1).
Value linalg_lowering::buildClampedEnds(OpBuilder &b, Location loc, Value offs,
                                        int64_t total) {
  auto offsType = cast<RankedTensorType>(offs.getType());
  int64_t groups = offsType.getDimSize(0);
  MLIRContext *ctx = b.getContext();
  Value init = tensor::EmptyOp::create(b, loc, offsType.getShape(),
                                       offsType.getElementType());
  return linalg::GenericOp::create(
             b, loc, offsType, ValueRange{}, ValueRange{init},
             ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(1, ctx)},
             ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
             [&](OpBuilder &nb, Location nloc, ValueRange) {
               Bits bb(nb, nloc);
               Value self = arith::IndexCastOp::create(
                   bb.b, bb.b.getI32Type(), linalg::IndexOp::create(bb.b, 0));
               Value end = bb.c(0), mine = bb.c(0);
               for (int64_t g = 0; g < groups; ++g) {
                 Value o = tensor::ExtractOp::create(bb.b, offs,
                                                     ValueRange{bb.cIdx(g)});
                 end = bb.mins(bb.maxs(o, end), bb.c(total));
                 mine = bb.select(bb.eq(self, bb.c(g)), end, mine);
               }
               linalg::YieldOp::create(bb.b, mine);
             })
      .getResult(0);
}

namespace {
/// Float8 scaled_grouped_mm -> the exact f32 values of the fp8 operands, the
/// grouped f32 GEMMs of the MX path into an f32 accumulator, then
/// `RN_out(RN_f32(acc * RN(1/s_lhs)) * RN(1/s_rhs))` per element with the
/// scales of its row / group / column (SPEC-float8 §3.3, §5.3). Rows past
/// the last group (2d-3d) and empty groups (2d-2d) are exactly zero.
struct Float8ScaledGroupedMmOpLowering final
    : OpRewritePattern<ScaledGroupedMmOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(ScaledGroupedMmOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.isFloat8())
      return rewriter.notifyMatchFailure(op, "not a Float8 scaled_grouped_mm");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getResult().getType();
    auto accType = resultType.clone(rewriter.getF32Type());
    Type outElemType = resultType.getElementType();
    Value offs = op.getOffs();
    int64_t groups = op.getOffs().getType().getDimSize(0);
    int64_t rank = resultType.getRank();
    Value acc, ends;
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    auto c0 = getAffineConstantExpr(0, ctx);
    bool transposeRhs = op.getTransposeRhs();
    if (op.isTwoDTwoD()) {
      bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
      Value lhs = buildFloat8ToF32(rewriter, loc, op.getLhs(), tl);
      Value rhs = buildFloat8ToF32(rewriter, loc, op.getRhs(), tr);
      int64_t tokens = cast<RankedTensorType>(lhs.getType()).getDimSize(1);
      acc = buildGroupedMm2D2D(rewriter, loc, {lhs, nullptr}, {rhs, nullptr},
                               offs, accType);
      ends = buildClampedEnds(rewriter, loc, offs, tokens);
      // (g, n, k): lhs scales (E, N), rhs scales (E, K).
      inputs = {acc, op.getLhsScales(), op.getRhsScales()};
      maps = {AffineMap::getMultiDimIdentityMap(3, ctx),
              AffineMap::get(3, 0, {d(0), d(1)}, ctx),
              AffineMap::get(3, 0, {d(0), d(2)}, ctx)};
    } else {
      Value lhs = buildFloat8ToF32(rewriter, loc, op.getLhs(), false);
      Value weights = op.getRhs();
      acc = buildGroupedMm2D3D(
          rewriter, loc, {lhs, nullptr}, offs, accType,
          [&](OpBuilder &b, Location l, Value g) {
            return F32Operand{buildFloat8ToF32(b, l,
                                               sliceExpert(b, l, weights, g),
                                               transposeRhs),
                              nullptr};
          });
      ends = buildClampedEnds(rewriter, loc, offs, resultType.getDimSize(0));
      // (m, n): lhs scales (M, 1); the rhs scale is read per row's group.
      inputs = {acc, op.getLhsScales()};
      maps = {AffineMap::getMultiDimIdentityMap(2, ctx),
              AffineMap::get(2, 0, {d(0), c0}, ctx)};
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    Value rhsScales = op.getRhsScales();
    bool twoDTwoD = op.isTwoDTwoD();
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         outElemType);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, resultType, inputs, ValueRange{init}, maps,
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Bits bb(nb, nloc);
              Value inside, sb;
              if (twoDTwoD) {
                // Group g = index 0 is non-empty when end[g-1] < end[g].
                Value g = linalg::IndexOp::create(bb.b, 0);
                Value end =
                    tensor::ExtractOp::create(bb.b, ends, ValueRange{g});
                Value prevIdx = arith::MaxSIOp::create(
                    bb.b, arith::SubIOp::create(bb.b, g, bb.cIdx(1)),
                    bb.cIdx(0));
                Value prev =
                    tensor::ExtractOp::create(bb.b, ends, ValueRange{prevIdx});
                prev = bb.select(arith::CmpIOp::create(bb.b,
                                                       arith::CmpIPredicate::eq,
                                                       g, bb.cIdx(0)),
                                 bb.c(0), prev);
                inside = bb.cmp(arith::CmpIPredicate::slt, prev, end);
                sb = args[2];
              } else {
                // The group of row m: the number of ends <= m.
                Value m = arith::IndexCastOp::create(
                    bb.b, bb.b.getI32Type(), linalg::IndexOp::create(bb.b, 0));
                Value n = linalg::IndexOp::create(bb.b, 1);
                Value group = bb.c(0);
                for (int64_t g = 0; g < groups; ++g) {
                  Value end = tensor::ExtractOp::create(bb.b, ends,
                                                        ValueRange{bb.cIdx(g)});
                  group = bb.add(
                      group,
                      bb.zext(bb.cmp(arith::CmpIPredicate::sle, end, m)));
                }
                inside = bb.cmp(arith::CmpIPredicate::slt, group, bb.c(groups));
                Value gIdx = arith::IndexCastOp::create(
                    bb.b, bb.b.getIndexType(),
                    bb.mins(group, bb.c(std::max<int64_t>(groups - 1, 0))));
                SmallVector<Value> idx = {gIdx};
                if (transposeRhs)
                  idx.append({n, bb.cIdx(0)});
                else
                  idx.append({bb.cIdx(0), n});
                sb = groups == 0 ? bb.cf(1.0f)
                                 : Value(tensor::ExtractOp::create(
                                       bb.b, rhsScales, idx));
              }
              Value ia = lowering::computeFloat8InverseScale(bb, args[1]);
              Value ib = lowering::computeFloat8InverseScale(bb, sb);
              Value v = arith::MulFOp::create(
                  bb.b, Value(arith::MulFOp::create(bb.b, args[0], ia)), ib);
              v = bb.select(inside, v, bb.cf(0.0f));
              linalg::YieldOp::create(bb.b, bb.fromF32(outElemType, v));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void linalg_lowering::populateGroupedToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<GroupedMmOpLowering, ScaledGroupedMmOpLowering,
               Float8ScaledGroupedMmOpLowering>(patterns.getContext());
}
