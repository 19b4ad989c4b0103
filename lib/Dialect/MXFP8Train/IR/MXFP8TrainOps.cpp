//===- MXFP8TrainOps.cpp - mxfp8train op verifiers --------------*- C++ -*-===//
//
// Verifiers of quantize, dequantize, scaled_mm and scaled_grouped_mm: every
// shape, element type and layout rule of SPEC §2-§4 and §7.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "Float8Verifiers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using mlir::mxfp8train::detail::formatShape;
using mlir::mxfp8train::detail::shapesCompatible;

/// Prints a shape as `AxBxC` (`?` for dynamic sizes).
std::string mlir::mxfp8train::detail::formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return s;
}

/// True when two shapes agree wherever both sizes are static.
bool mlir::mxfp8train::detail::shapesCompatible(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return false;
  return true;
}

/// Reports a blocked or padded size (`what`, its formula) that overflows
/// int64.
static LogicalResult emitSizeOverflow(Operation *op, const Twine &what) {
  return op->emitOpError() << "expects " << what
                           << " to fit in int64, found a size that overflows";
}

LogicalResult mlir::mxfp8train::verifyTensorByteSizes(Operation *op) {
  auto check = [&](Type type, StringRef kind, unsigned index) -> LogicalResult {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType || getTensorByteSize(tensorType))
      return success();
    return op->emitOpError()
           << "expects " << kind << " #" << index << " (" << type
           << ") to fit in int64 bytes, found a byte size that overflows";
  };
  return mlir::mxfp8train::detail::verifyEachValueType(op, check);
}

LogicalResult mlir::mxfp8train::detail::verifyEachValueType(
    Operation *op,
    llvm::function_ref<LogicalResult(Type, StringRef, unsigned)> check) {
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

/// Checks that dimension `axis` of `dataShape` (named `what` in messages) is
/// a static multiple of the block size.
static LogicalResult verifyBlockedDim(Operation *op, StringRef what,
                                      ArrayRef<int64_t> dataShape,
                                      int64_t axis) {
  int64_t size = dataShape[axis];
  if (ShapedType::isDynamic(size))
    return op->emitOpError()
           << "expects the blocked dimension " << axis << " of " << what
           << " to be static, found a dynamic size";
  if (size % kBlockSize != 0)
    return op->emitOpError()
           << "expects the blocked dimension " << axis << " of " << what
           << " to be a multiple of " << kBlockSize << ", found " << size;
  return success();
}

/// Checks the scale tensor of data `dataShape` blocked along `axis`: the data
/// shape with `axis` divided by 32 (row_major), or the 1-D to_blocked byte
/// sequence of the (other dim, axis/32) matrix (blocked, rank 2 only).
/// `what` names the scale tensor in messages ("the scales", "the lhs
/// scales").
static LogicalResult verifyScaleShape(Operation *op, StringRef what,
                                      ArrayRef<int64_t> dataShape, int64_t axis,
                                      RankedTensorType scalesType,
                                      ScaleLayout layout) {
  SmallVector<int64_t> expected(dataShape);
  expected[axis] /= kBlockSize;
  if (layout != ScaleLayout::RowMajor && layout != ScaleLayout::Blocked)
    return op->emitOpError()
           << "expects the row_major or blocked layout for " << what
           << ", found " << stringifyScaleLayout(layout);
  if (layout == ScaleLayout::RowMajor) {
    if (!shapesCompatible(scalesType.getShape(), expected))
      return op->emitOpError()
             << "expects " << what << " of shape " << formatShape(expected)
             << " (the data shape with dimension " << axis << " divided by "
             << kBlockSize << "), found " << formatShape(scalesType.getShape());
    return success();
  }
  if (dataShape.size() != 2)
    return op->emitOpError() << "expects rank-2 data for the blocked layout of "
                             << what << ", found rank " << dataShape.size();
  int64_t rows = dataShape[1 - axis];
  if (ShapedType::isDynamic(rows))
    return op->emitOpError()
           << "expects static data shapes for the blocked layout of " << what;
  std::optional<int64_t> blocked = getBlockedScaleSize(rows, expected[axis]);
  if (!blocked)
    return emitSizeOverflow(
        op, "the blocked size of " + what + " scales (ceil(" + Twine(rows) +
                "/128)*128 * ceil(" + Twine(expected[axis]) + "/4)*4 bytes)");
  int64_t size = *blocked;
  if (scalesType.getRank() != 1 || scalesType.getDimSize(0) != size)
    return op->emitOpError()
           << "expects " << what << " of shape " << size
           << " in the blocked layout (ceil(" << rows << "/128)*128 * ceil("
           << expected[axis] << "/4)*4 bytes), found "
           << formatShape(scalesType.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Custom syntax of the scaling attributes
//===----------------------------------------------------------------------===//

/// Parses the optional `granularity = tensorwise|axiswise`.
static ParseResult parseGranularity(OpAsmParser &parser,
                                    Float8GranularityAttr &granularity) {
  if (failed(parser.parseOptionalKeyword("granularity")))
    return success();
  return failure(parser.parseEqual() ||
                 parser.parseCustomAttributeWithFallback(granularity, Type{}));
}

/// Parses an optional `axis = N` into `axis` (left null when absent).
static ParseResult parseOptionalAxis(OpAsmParser &parser, IntegerAttr &axis) {
  if (failed(parser.parseOptionalKeyword("axis")))
    return success();
  int64_t value;
  if (parser.parseEqual() || parser.parseInteger(value))
    return failure();
  axis = parser.getBuilder().getI64IntegerAttr(value);
  return success();
}

/// Parses `[axis = N] [mode = M] [granularity = G] [pow2]` (quantize): MX
/// needs `axis` and `mode`; Float8 rejects `mode`, and `axis` is required by
/// `axiswise` and rejected by `tensorwise`.
static ParseResult parseQuantizeScaling(OpAsmParser &parser, IntegerAttr &axis,
                                        ScaleModeAttr &mode,
                                        Float8GranularityAttr &granularity,
                                        UnitAttr &pow2) {
  SMLoc loc = parser.getCurrentLocation();
  if (failed(parseOptionalAxis(parser, axis)))
    return failure();
  SMLoc modeLoc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalKeyword("mode")) &&
      (parser.parseEqual() ||
       parser.parseCustomAttributeWithFallback(mode, Type{})))
    return failure();
  if (failed(parseGranularity(parser, granularity)))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("pow2")))
    pow2 = parser.getBuilder().getUnitAttr();
  // `mode` after a granularity: the same error as before it (the format
  // would otherwise expect the ':' of the types).
  if (granularity) {
    SMLoc lateModeLoc = parser.getCurrentLocation();
    if (succeeded(parser.parseOptionalKeyword("mode")))
      return parser.emitError(lateModeLoc,
                              "'mode' is an MX attribute, not allowed with a "
                              "Float8 granularity");
  }
  if (!granularity) {
    if (!axis || !mode)
      return parser.emitError(loc, "expected 'axis = N mode = M' (MX) or a "
                                   "Float8 'granularity'");
    return success();
  }
  if (mode)
    return parser.emitError(modeLoc,
                            "'mode' is an MX attribute, not allowed with a "
                            "Float8 granularity");
  if ((granularity.getValue() == Float8Granularity::Axiswise) != bool(axis))
    return parser.emitError(loc, granularity.getValue() ==
                                         Float8Granularity::Axiswise
                                     ? "expected 'axis = N' with axiswise"
                                     : "'axis' is not allowed with tensorwise");
  return success();
}

static void printQuantizeScaling(OpAsmPrinter &printer, QuantizeOp op,
                                 IntegerAttr axis, ScaleModeAttr mode,
                                 Float8GranularityAttr granularity,
                                 UnitAttr pow2) {
  if (!granularity || granularity.getValue() == Float8Granularity::Axiswise)
    printer << "axis = " << op.getAxis();
  if (!granularity) {
    printer << " mode = " << stringifyScaleMode(op.getScaleMode());
    return;
  }
  if (granularity.getValue() == Float8Granularity::Axiswise)
    printer << " ";
  printer << "granularity = "
          << stringifyFloat8Granularity(granularity.getValue());
  if (pow2)
    printer << " pow2";
}

/// Parses `[axis = N] [granularity = G]` (dequantize).
static ParseResult parseDequantizeScaling(OpAsmParser &parser,
                                          IntegerAttr &axis,
                                          Float8GranularityAttr &granularity) {
  SMLoc loc = parser.getCurrentLocation();
  if (failed(parseOptionalAxis(parser, axis)))
    return failure();
  if (failed(parseGranularity(parser, granularity)))
    return failure();
  bool needsAxis =
      !granularity || granularity.getValue() == Float8Granularity::Axiswise;
  if (needsAxis != bool(axis))
    return parser.emitError(loc, needsAxis
                                     ? "expected 'axis = N'"
                                     : "'axis' is not allowed with tensorwise");
  return success();
}

static void printDequantizeScaling(OpAsmPrinter &printer, DequantizeOp op,
                                   IntegerAttr axis,
                                   Float8GranularityAttr granularity) {
  if (!granularity) {
    printer << "axis = " << op.getAxis();
    return;
  }
  if (granularity.getValue() == Float8Granularity::Axiswise)
    printer << "axis = " << op.getAxis() << " ";
  printer << "granularity = "
          << stringifyFloat8Granularity(granularity.getValue());
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

/// Shared rules of quantize and dequantize.
static LogicalResult verifyQuantized(Operation *op, RankedTensorType hpType,
                                     RankedTensorType dataType,
                                     RankedTensorType scalesType, int64_t axis,
                                     ScaleLayout layout) {
  int64_t rank = hpType.getRank();
  if (rank < 1)
    return op->emitOpError() << "expects a tensor of rank >= 1, found rank 0";
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << "expects axis in [0, " << rank << "), found " << axis;
  if (!shapesCompatible(dataType.getShape(), hpType.getShape()))
    return op->emitOpError()
           << "expects the data shape to equal the high-precision shape "
           << formatShape(hpType.getShape()) << ", found "
           << formatShape(dataType.getShape());
  if (failed(verifyBlockedDim(op, "the data", hpType.getShape(), axis)))
    return failure();
  return verifyScaleShape(op, "the scales", hpType.getShape(), axis, scalesType,
                          layout);
}

/// The rules that tell the MX and Float8 forms of quantize / dequantize
/// apart: f32 scales with a granularity, e8m0 scales without one.
static LogicalResult verifyScaleKind(Operation *op, RankedTensorType scalesType,
                                     bool isFloat8) {
  bool f32 = scalesType.getElementType().isF32();
  if (f32 && !isFloat8)
    return op->emitOpError() << "expects f8E8M0FNU scales without a Float8 "
                                "granularity, found f32 (add granularity = "
                                "tensorwise or axiswise)";
  return success();
}

static LogicalResult verifyConstantOffs(Operation *op, Value offs,
                                        int64_t tokens, int64_t multiple);

/// The per-group (offs) form of quantize / dequantize: Float8 only.
static LogicalResult verifyPerGroup(
    Operation *op, RankedTensorType hpType, RankedTensorType dataType,
    RankedTensorType scalesType, Value offs, int64_t axis,
    std::optional<Float8Granularity> granularity, ScaleLayout layout) {
  if (!granularity)
    return op->emitOpError() << "expects offs only with a Float8 granularity "
                                "(per-group axiswise scales), found an MX "
                                "cast";
  auto offsType = cast<RankedTensorType>(offs.getType());
  if (failed(mxfp8train::detail::verifyFloat8PerGroup(
          op, hpType, dataType, scalesType, offsType, axis, *granularity,
          layout)))
    return failure();
  return verifyConstantOffs(op, offs, hpType.getDimSize(0), /*multiple=*/1);
}

LogicalResult QuantizeOp::verify() {
  if (failed(verifyScaleKind(*this, getScales().getType(), isFloat8())))
    return failure();
  if (isPerGroup())
    return verifyPerGroup(*this, getInput().getType(), getData().getType(),
                          getScales().getType(), getOffs(), getAxis(),
                          getGranularity(), getScaleLayout());
  if (isFloat8()) {
    // What the custom syntax cannot say must not hide in the generic form
    // (the printer would drop it).
    if (getScaleMode() != ScaleMode::Floor)
      return emitOpError() << "expects no scale_mode with a Float8 "
                              "granularity (its scale comes from the amax, "
                              "SPEC-float8 §2.3), found "
                           << stringifyScaleMode(getScaleMode());
    if (*getGranularity() == Float8Granularity::Tensorwise && getAxis() != 0)
      return emitOpError() << "expects no axis with granularity = tensorwise "
                              "(axis 0, the default), found axis = "
                           << getAxis();
    return mxfp8train::detail::verifyFloat8Quantized(
        *this, getInput().getType(), getData().getType(), getScales().getType(),
        getAxis(), *getGranularity(), getScaleLayout());
  }
  if (getPow2())
    return emitOpError() << "expects pow2 only with a Float8 granularity (MX "
                            "scales are powers of two already)";
  return verifyQuantized(*this, getInput().getType(), getData().getType(),
                         getScales().getType(), getAxis(), getScaleLayout());
}

LogicalResult QuantizeDualOp::verify() {
  RankedTensorType inputType = getInput().getType();
  int64_t rank = inputType.getRank();
  if (rank < 2)
    return emitOpError() << "expects a tensor of rank >= 2, found rank "
                         << rank;
  auto verifyCast = [&](StringRef what, RankedTensorType dataType,
                        RankedTensorType scalesType, int64_t axis,
                        ScaleLayout layout) -> LogicalResult {
    if (!shapesCompatible(dataType.getShape(), inputType.getShape()))
      return emitOpError() << "expects the " << what
                           << " data shape to equal the input shape "
                           << formatShape(inputType.getShape()) << ", found "
                           << formatShape(dataType.getShape());
    if (failed(
            verifyBlockedDim(*this, "the input", inputType.getShape(), axis)))
      return failure();
    return verifyScaleShape(*this, ("the " + what + " scales").str(),
                            inputType.getShape(), axis, scalesType, layout);
  };
  if (failed(verifyCast("rowwise", getRowwiseData().getType(),
                        getRowwiseScales().getType(), rank - 1,
                        getRowwiseLayout())))
    return failure();
  return verifyCast("colwise", getColwiseData().getType(),
                    getColwiseScales().getType(), rank - 2, getColwiseLayout());
}

LogicalResult DequantizeOp::verify() {
  if (failed(verifyScaleKind(*this, getScales().getType(), isFloat8())))
    return failure();
  if (isPerGroup())
    return verifyPerGroup(*this, getResult().getType(), getData().getType(),
                          getScales().getType(), getOffs(), getAxis(),
                          getGranularity(), getScaleLayout());
  if (isFloat8())
    return mxfp8train::detail::verifyFloat8Quantized(
        *this, getResult().getType(), getData().getType(),
        getScales().getType(), getAxis(), *getGranularity(), getScaleLayout());
  return verifyQuantized(*this, getResult().getType(), getData().getType(),
                         getScales().getType(), getAxis(), getScaleLayout());
}

//===----------------------------------------------------------------------===//
// ScaledMmOp
//===----------------------------------------------------------------------===//

/// Both operands of a GEMM are MX (e8m0 scales) or both Float8 (f32).
static LogicalResult verifyMatchingScaleKinds(Operation *op,
                                              RankedTensorType lhsScales,
                                              RankedTensorType rhsScales) {
  if (lhsScales.getElementType() == rhsScales.getElementType())
    return success();
  return op->emitOpError()
         << "expects both operands MX (f8E8M0FNU scales) or both Float8 (f32 "
            "scales), found lhs scales of "
         << lhsScales.getElementType() << " and rhs scales of "
         << rhsScales.getElementType();
}

LogicalResult ScaledMmOp::verify() {
  RankedTensorType lhsType = getLhs().getType(), rhsType = getRhs().getType();
  RankedTensorType resultType = getResult().getType();
  int64_t rank = lhsType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError() << "expects lhs of rank 2 or 3, found rank " << rank;
  if (rhsType.getRank() != rank)
    return emitOpError() << "expects rhs of rank " << rank
                         << " like lhs, found rank " << rhsType.getRank();
  if (resultType.getRank() != rank)
    return emitOpError() << "expects a result of rank " << rank
                         << ", found rank " << resultType.getRank();
  int64_t r0 = rank - 2, r1 = rank - 1;
  // Stored position of each logical dimension.
  int64_t lhsM = getTransposeLhs() ? r1 : r0,
          lhsK = getTransposeLhs() ? r0 : r1;
  int64_t rhsK = getTransposeRhs() ? r1 : r0,
          rhsN = getTransposeRhs() ? r0 : r1;
  ArrayRef<int64_t> ls = lhsType.getShape(), rs = rhsType.getShape();
  if (rank == 3 && !shapesCompatible({ls[0]}, {rs[0]}))
    return emitOpError() << "expects equal batch sizes, found " << ls[0]
                         << " and " << rs[0];
  if (!shapesCompatible({ls[lhsK]}, {rs[rhsK]}))
    return emitOpError() << "expects the contraction sizes of lhs (" << ls[lhsK]
                         << ", dimension " << lhsK << ") and rhs (" << rs[rhsK]
                         << ", dimension " << rhsK << ") to be equal";
  if (failed(verifyMatchingScaleKinds(*this, getLhsScales().getType(),
                                      getRhsScales().getType())))
    return failure();
  if (isFloat8()) {
    if (failed(mxfp8train::detail::verifyFloat8ScaledMm(*this, ls, rs, lhsK,
                                                        rhsK, rhsN)))
      return failure();
  } else {
    if (failed(verifyBlockedDim(*this, "lhs", ls, lhsK)) ||
        failed(verifyBlockedDim(*this, "rhs", rs, rhsK)))
      return failure();
    if (rank == 3 && (getLhsScaleLayout() == ScaleLayout::Blocked ||
                      getRhsScaleLayout() == ScaleLayout::Blocked))
      return emitOpError() << "expects the blocked scale layout only for "
                              "rank-2 operands";
    if (failed(verifyScaleShape(*this, "the lhs scales", ls, lhsK,
                                getLhsScales().getType(),
                                getLhsScaleLayout())) ||
        failed(verifyScaleShape(*this, "the rhs scales", rs, rhsK,
                                getRhsScales().getType(), getRhsScaleLayout())))
      return failure();
  }
  SmallVector<int64_t> expected;
  if (rank == 3)
    expected.push_back(ls[0]);
  expected.push_back(ls[lhsM]);
  expected.push_back(rs[rhsN]);
  if (!shapesCompatible(resultType.getShape(), expected))
    return emitOpError() << "expects a result of shape "
                         << formatShape(expected) << " (M x N), found "
                         << formatShape(resultType.getShape());
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (!shapesCompatible(biasType.getShape(), {rs[rhsN]}))
      return emitOpError() << "expects a bias of shape " << rs[rhsN]
                           << " (N), found "
                           << formatShape(biasType.getShape());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Grouped GEMMs
//===----------------------------------------------------------------------===//

/// Checks the values of `offs` where they are a constant (SPEC §7.1):
/// cumulative exclusive group ends, each in [0, `tokens`] and not below the
/// previous one, and each a multiple of `multiple` (the 32-token scale
/// blocks of a 2d-2d scaled_grouped_mm, SPEC §4.2). Non-constant offs are
/// checked by nothing here; the kernels clamp them at run time.
static LogicalResult verifyConstantOffs(Operation *op, Value offs,
                                        int64_t tokens, int64_t multiple) {
  DenseIntElementsAttr values;
  if (!matchPattern(offs, m_Constant(&values)))
    return success();
  int64_t previous = 0, group = 0;
  for (const APInt &value : values) {
    int64_t end = value.getSExtValue();
    if (end < 0)
      return op->emitOpError() << "expects offs entries >= 0, found offs["
                               << group << "] = " << end;
    if (end < previous)
      return op->emitOpError()
             << "expects non-decreasing offs, found offs[" << group
             << "] = " << end << " after " << previous;
    if (!ShapedType::isDynamic(tokens) && end > tokens)
      return op->emitOpError()
             << "expects offs at most the token count " << tokens
             << ", found offs[" << group << "] = " << end;
    if (end % multiple != 0)
      return op->emitOpError()
             << "expects every offs entry to be a multiple of " << multiple
             << " (2d-2d groups are whole 32-token scale blocks), found offs["
             << group << "] = " << end;
    previous = end;
    ++group;
  }
  return success();
}

namespace {
/// The shape analysis shared by grouped_mm and scaled_grouped_mm.
struct GroupedShapes {
  bool twoDTwoD = false;
  /// Stored dimension of lhs / rhs that is contracted.
  int64_t lhsK = 0, rhsK = 0;
  /// Non-contracted rows of each operand's scale matrix (N for a 2d-3d rhs,
  /// N / K for 2d-2d lhs / rhs, M for a 2d-3d lhs).
  int64_t lhsRows = 0, rhsRows = 0;
  int64_t groups = 0;
  /// Size of the dimension that offs splits (M for 2d-3d, the contracted
  /// tokens for 2d-2d).
  int64_t tokens = 0;
};
} // namespace

/// Checks the ranks, sizes, offs and result of a grouped GEMM (SPEC §7.1).
static FailureOr<GroupedShapes>
verifyGroupedShapes(Operation *op, RankedTensorType lhsType,
                    RankedTensorType rhsType, RankedTensorType offsType,
                    RankedTensorType resultType, bool transposeLhs,
                    bool transposeRhs) {
  GroupedShapes g;
  if (lhsType.getRank() != 2)
    return op->emitOpError()
           << "expects lhs of rank 2, found rank " << lhsType.getRank();
  if (offsType.getRank() != 1)
    return op->emitOpError()
           << "expects offs to be a 1-D i32 tensor, found rank "
           << offsType.getRank();
  g.groups = offsType.getDimSize(0);
  ArrayRef<int64_t> ls = lhsType.getShape(), rs = rhsType.getShape();
  SmallVector<int64_t> expected;
  if (rhsType.getRank() == 3) {
    // 2d-3d: lhs (M, K); rhs (E, K, N) or stored (E, N, K).
    if (transposeLhs)
      return op->emitOpError() << "expects no transpose_lhs in the 2d-3d form";
    g.lhsK = 1;
    g.rhsK = transposeRhs ? 2 : 1;
    int64_t rhsN = transposeRhs ? 1 : 2;
    if (!shapesCompatible({rs[0]}, {g.groups}))
      return op->emitOpError() << "expects one offs entry per expert (" << rs[0]
                               << "), found " << g.groups;
    if (!shapesCompatible({ls[1]}, {rs[g.rhsK]}))
      return op->emitOpError() << "expects the contraction sizes of lhs ("
                               << ls[1] << ") and rhs (" << rs[g.rhsK]
                               << ", dimension " << g.rhsK << ") to be equal";
    g.lhsRows = ls[0];
    g.rhsRows = rs[rhsN];
    g.tokens = ls[0];
    expected = {ls[0], rs[rhsN]};
  } else if (rhsType.getRank() == 2) {
    // 2d-2d: lhs (N, M) or stored (M, N); rhs (M, K) or stored (K, M).
    g.twoDTwoD = true;
    g.lhsK = transposeLhs ? 0 : 1;
    g.rhsK = transposeRhs ? 1 : 0;
    if (!shapesCompatible({ls[g.lhsK]}, {rs[g.rhsK]}))
      return op->emitOpError()
             << "expects the token (contraction) sizes of lhs (" << ls[g.lhsK]
             << ") and rhs (" << rs[g.rhsK] << ") to be equal";
    g.lhsRows = ls[1 - g.lhsK];
    g.rhsRows = rs[1 - g.rhsK];
    g.tokens = ls[g.lhsK];
    expected = {g.groups, g.lhsRows, g.rhsRows};
  } else {
    return op->emitOpError()
           << "expects rhs of rank 2 (2d-2d) or 3 (2d-3d), found rank "
           << rhsType.getRank();
  }
  if (!shapesCompatible(resultType.getShape(), expected))
    return op->emitOpError()
           << "expects a result of shape " << formatShape(expected)
           << ", found " << formatShape(resultType.getShape());
  return g;
}

LogicalResult GroupedMmOp::verify() {
  FailureOr<GroupedShapes> g = verifyGroupedShapes(
      *this, getLhs().getType(), getRhs().getType(), getOffs().getType(),
      getResult().getType(), getTransposeLhs(), getTransposeRhs());
  if (failed(g))
    return failure();
  return verifyConstantOffs(*this, getOffs(), g->tokens, /*multiple=*/1);
}

/// Checks one scale operand of scaled_grouped_mm: row-major, or the grouped
/// blocked layout `grouped` of SPEC §4.2.
static LogicalResult
verifyGroupedScales(Operation *op, StringRef what, ArrayRef<int64_t> dataShape,
                    int64_t axis, int64_t rows, int64_t groups,
                    RankedTensorType scalesType, ScaleLayout layout,
                    ScaleLayout grouped) {
  if (layout == ScaleLayout::RowMajor)
    return verifyScaleShape(op, what, dataShape, axis, scalesType, layout);
  if (layout != grouped)
    return op->emitOpError()
           << "expects the row_major or " << stringifyScaleLayout(grouped)
           << " layout for " << what << ", found "
           << stringifyScaleLayout(layout);
  int64_t cols = dataShape[axis] / kBlockSize;
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(groups))
    return op->emitOpError()
           << "expects static shapes for the " << stringifyScaleLayout(layout)
           << " layout of " << what;
  std::optional<int64_t> size;
  if (grouped == ScaleLayout::BlockedMGroups)
    size = getBlockedMGroupsScaleSize(rows, cols, groups);
  else if (grouped == ScaleLayout::BlockedKGroups)
    size = getBlockedKGroupsScaleSize(rows, cols, groups);
  else
    size = getBlockedScaleSize(rows, cols);
  if (!size)
    return emitSizeOverflow(op, "the " + stringifyScaleLayout(layout) +
                                    " size of " + what + " scales");
  SmallVector<int64_t> expected = {*size};
  if (grouped == ScaleLayout::BlockedPerExpert)
    expected.insert(expected.begin(), dataShape[0]);
  if (scalesType.getShape() != ArrayRef(expected))
    return op->emitOpError()
           << "expects " << what << " of shape " << formatShape(expected)
           << " in the " << stringifyScaleLayout(layout) << " layout, found "
           << formatShape(scalesType.getShape());
  return success();
}

LogicalResult ScaledGroupedMmOp::verify() {
  FailureOr<GroupedShapes> g = verifyGroupedShapes(
      *this, getLhs().getType(), getRhs().getType(), getOffs().getType(),
      getResult().getType(), getTransposeLhs(), getTransposeRhs());
  if (failed(g))
    return failure();
  if (failed(verifyMatchingScaleKinds(*this, getLhsScales().getType(),
                                      getRhsScales().getType())))
    return failure();
  if (isFloat8()) {
    if (failed(mxfp8train::detail::verifyFloat8ScaledGroupedMm(
            *this, g->lhsK, g->rhsK, g->lhsRows, g->rhsRows, g->groups,
            g->tokens)))
      return failure();
    return verifyConstantOffs(*this, getOffs(), g->tokens, /*multiple=*/1);
  }
  ArrayRef<int64_t> ls = getLhs().getType().getShape();
  ArrayRef<int64_t> rs = getRhs().getType().getShape();
  if (failed(verifyBlockedDim(*this, "lhs", ls, g->lhsK)) ||
      failed(verifyBlockedDim(*this, "rhs", rs, g->rhsK)))
    return failure();
  ScaleLayout lhsGrouped =
      g->twoDTwoD ? ScaleLayout::BlockedKGroups : ScaleLayout::BlockedMGroups;
  ScaleLayout rhsGrouped =
      g->twoDTwoD ? ScaleLayout::BlockedKGroups : ScaleLayout::BlockedPerExpert;
  if (failed(verifyGroupedScales(
          *this, "the lhs scales", ls, g->lhsK, g->lhsRows, g->groups,
          getLhsScales().getType(), getLhsScaleLayout(), lhsGrouped)) ||
      failed(verifyGroupedScales(
          *this, "the rhs scales", rs, g->rhsK, g->rhsRows, g->groups,
          getRhsScales().getType(), getRhsScaleLayout(), rhsGrouped)))
    return failure();
  return verifyConstantOffs(*this, getOffs(), g->tokens,
                            g->twoDTwoD ? kBlockSize : 1);
}

//===----------------------------------------------------------------------===//
// Token-group padding
//===----------------------------------------------------------------------===//

/// Checks `alignment`, the 2-D `padded (R, K)` / `unpadded (M, K)` pair and
/// the offs of pad_token_groups / unpad_token_groups.
static LogicalResult verifyPadding(Operation *op, RankedTensorType unpadded,
                                   RankedTensorType padded,
                                   RankedTensorType offsType,
                                   int64_t alignment) {
  // 16: the Float8 grouped GEMMs (SPEC-float8 §6.3).
  if (alignment != 16 && alignment != 32 && alignment != 128)
    return op->emitOpError()
           << "expects alignment 16, 32 or 128, found " << alignment;
  if (unpadded.getRank() != 2 || padded.getRank() != 2)
    return op->emitOpError() << "expects 2-D (tokens x features) tensors";
  if (offsType.getRank() != 1)
    return op->emitOpError()
           << "expects offs to be a 1-D i32 tensor, found rank "
           << offsType.getRank();
  if (unpadded.getElementType() != padded.getElementType())
    return op->emitOpError() << "expects the padded and unpadded tensors to "
                                "have the same element type";
  if (!shapesCompatible({unpadded.getDimSize(1)}, {padded.getDimSize(1)}))
    return op->emitOpError()
           << "expects the padded and unpadded tensors to "
              "have the same number of columns, found "
           << unpadded.getDimSize(1) << " and " << padded.getDimSize(1);
  int64_t tokens = unpadded.getDimSize(0), groups = offsType.getDimSize(0);
  if (ShapedType::isDynamic(tokens) || ShapedType::isDynamic(groups) ||
      padded.isDynamicDim(0))
    return op->emitOpError() << "expects static token and group counts";
  std::optional<int64_t> paddedRows =
      getPaddedTokenCount(tokens, groups, alignment);
  if (!paddedRows)
    return emitSizeOverflow(op, "the padded row count ceil((" + Twine(tokens) +
                                    " + " + Twine(alignment) + "*" +
                                    Twine(groups) + ")/" + Twine(alignment) +
                                    ")*" + Twine(alignment));
  int64_t rows = *paddedRows;
  if (padded.getDimSize(0) != rows)
    return op->emitOpError()
           << "expects " << rows << " padded rows (ceil((" << tokens << " + "
           << alignment << "*" << groups << ")/" << alignment << ")*"
           << alignment << "), found " << padded.getDimSize(0);
  return success();
}

LogicalResult PadTokenGroupsOp::verify() {
  if (getPaddedOffs().getType() != getOffs().getType())
    return emitOpError() << "expects padded_offs of the type of offs "
                         << getOffs().getType() << ", found "
                         << getPaddedOffs().getType();
  if (failed(verifyPadding(*this, getInput().getType(), getResult().getType(),
                           getOffs().getType(), getAlignment())))
    return failure();
  return verifyConstantOffs(*this, getOffs(),
                            getInput().getType().getDimSize(0),
                            /*multiple=*/1);
}

LogicalResult UnpadTokenGroupsOp::verify() {
  if (failed(verifyPadding(*this, getResult().getType(), getInput().getType(),
                           getOffs().getType(), getAlignment())))
    return failure();
  return verifyConstantOffs(*this, getOffs(),
                            getResult().getType().getDimSize(0),
                            /*multiple=*/1);
}

//===----------------------------------------------------------------------===//
// ToBlockedOp
//===----------------------------------------------------------------------===//

LogicalResult ToBlockedOp::verify() {
  RankedTensorType in = getScales().getType(), out = getResult().getType();
  ScaleLayout layout = getLayout();
  bool grouped = layout == ScaleLayout::BlockedMGroups ||
                 layout == ScaleLayout::BlockedKGroups;
  if (layout == ScaleLayout::RowMajor)
    return emitOpError() << "expects a blocked target layout, found row_major";
  if (grouped != bool(getOffs()))
    return emitOpError() << (grouped ? "expects offs with the "
                                     : "expects no offs with the ")
                         << stringifyScaleLayout(layout) << " layout";
  int64_t wantRank = layout == ScaleLayout::BlockedPerExpert ? 3 : 2;
  if (in.getRank() != wantRank)
    return emitOpError() << "expects scales of rank " << wantRank << " for the "
                         << stringifyScaleLayout(layout)
                         << " layout, found rank " << in.getRank();
  if (!in.hasStaticShape())
    return emitOpError() << "expects statically shaped scales";
  ArrayRef<int64_t> s = in.getShape();
  std::optional<int64_t> size;
  switch (layout) {
  case ScaleLayout::Blocked:
    size = getBlockedScaleSize(s[0], s[1]);
    break;
  case ScaleLayout::BlockedPerExpert:
    size = getBlockedScaleSize(s[1], s[2]);
    break;
  default: {
    auto offsType = cast<RankedTensorType>(getOffs().getType());
    if (offsType.getRank() != 1 || offsType.isDynamicDim(0))
      return emitOpError() << "expects offs to be a static 1-D i32 tensor";
    int64_t groups = offsType.getDimSize(0);
    size = layout == ScaleLayout::BlockedMGroups
               ? getBlockedMGroupsScaleSize(s[0], s[1], groups)
               : getBlockedKGroupsScaleSize(s[0], s[1], groups);
  }
  }
  if (!size)
    return emitSizeOverflow(*this, "the " + stringifyScaleLayout(layout) +
                                       " size of the scales " + formatShape(s));
  SmallVector<int64_t> expected = {*size};
  if (layout == ScaleLayout::BlockedPerExpert)
    expected.insert(expected.begin(), s[0]);
  if (out.getShape() != ArrayRef(expected))
    return emitOpError() << "expects a result of shape "
                         << formatShape(expected) << " for the "
                         << stringifyScaleLayout(layout) << " layout, found "
                         << formatShape(out.getShape());
  return success();
}

#define GET_OP_CLASSES
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.cpp.inc"
