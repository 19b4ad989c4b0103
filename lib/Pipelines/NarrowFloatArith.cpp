//===- NarrowFloatArith.cpp - mxfp8train-lower-narrow-float-arith -*- C++ -*-=//
//
// Scalar arith ops on fp8 (f8E4M3FN, f8E5M2) and e8m0 (f8E8M0FNU) values in
// user IR, lowered to exact integer code before any canonicalization:
// LLVM has no such types, and upstream's extf folder turns the e8m0 NaN byte
// 0xFF into +Inf (SPEC §1: 0xFF is NaN). Ops whose result would need a
// rounding (truncf, addf, ...) are rejected at their location: the MX
// conversions of SPEC §2 are mxfp8train.quantize, not arith.truncf.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/QuantizeArith.h"
#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINLOWERNARROWFLOATARITHPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::lowering;

/// Floats of at most 8 bits: LLVM and upstream's arith lowering have no
/// arithmetic on them.
static bool isNarrowFloat(Type type) {
  auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  return floatType && floatType.getWidth() <= 8;
}

/// The narrow floats this pass decodes.
static bool isDecodable(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType>(type);
}

/// The exact f32 value of the narrow float scalar `v`.
static Value decodeToF32(Bits &bb, Value v) {
  Value byte = bb.byteOf(v);
  if (isa<Float8E8M0FNUType>(v.getType()))
    return decodeScale(bb, byte);
  return decodeElement(bb, byte, getElementFormat(v.getType()));
}

/// The first narrow float type among `op`'s operands and results.
static Type getNarrowType(Operation *op) {
  for (Type type :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
    if (isNarrowFloat(type))
      return getElementTypeOrSelf(type);
  return {};
}

/// Rewrites `op` (a scalar op on narrow floats); emits an error and fails
/// for the ops that have no exact lowering.
static LogicalResult lowerOp(IRRewriter &rewriter, Operation *op) {
  Type narrow = getNarrowType(op);
  auto unsupported = [&](StringRef why) {
    return op->emitError() << "'" << op->getName() << "' on " << narrow
                           << " is not supported by the mxfp8train pipelines: "
                           << why;
  };
  bool shaped = llvm::any_of(
      llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()),
      [](Type t) { return isa<ShapedType>(t) && isNarrowFloat(t); });
  // The ops lowered on scalars (below); others are rejected for what they
  // are, not for their shape.
  bool lowered =
      isa<arith::ExtFOp, arith::CmpFOp, arith::MaximumFOp, arith::MinimumFOp,
          arith::MaxNumFOp, arith::MinNumFOp, arith::NegFOp, math::AbsFOp>(op);
  if (shaped && lowered)
    return unsupported("it applies to vectors or tensors; apply it to "
                       "scalars in a linalg.generic body");
  if (!isDecodable(narrow))
    return unsupported("only f8E4M3FN, f8E5M2 and f8E8M0FNU scalars are "
                       "lowered");

  rewriter.setInsertionPoint(op);
  Bits bb(rewriter, op->getLoc());
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::ExtFOp ext) -> LogicalResult {
        Value f = decodeToF32(bb, ext.getIn());
        Type to = ext.getType();
        if (to.getIntOrFloatBitWidth() > 32)
          f = arith::ExtFOp::create(bb.b, to, f);
        else if (!to.isF32())
          // The f32 value is exact, so this is the one rounding of the
          // original value to the narrower type.
          f = arith::TruncFOp::create(bb.b, to, f);
        rewriter.replaceOp(op, f);
        return success();
      })
      .Case([&](arith::CmpFOp cmp) -> LogicalResult {
        Value lhs = decodeToF32(bb, cmp.getLhs());
        Value rhs = decodeToF32(bb, cmp.getRhs());
        rewriter.replaceOp(
            op, arith::CmpFOp::create(bb.b, cmp.getPredicate(), lhs, rhs));
        return success();
      })
      .Case<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
            arith::MinNumFOp>([&](auto minMax) -> LogicalResult {
        // The f32 result is one of the two exact operand values (or NaN):
        // return the byte it came from, so nothing is rounded.
        Value a = minMax.getLhs(), b = minMax.getRhs();
        Value fa = decodeToF32(bb, a), fb = decodeToF32(bb, b);
        Value r = decltype(minMax)::create(bb.b, fa, fb);
        auto isNaN = [&](Value f) {
          return arith::CmpFOp::create(bb.b, arith::CmpFPredicate::UNO, f, f);
        };
        Value byteA = bb.byteOf(a), byteB = bb.byteOf(b);
        Value fromA = bb.select(isNaN(r), isNaN(fa),
                                bb.eq(bb.f32Bits(r), bb.f32Bits(fa)));
        rewriter.replaceOp(op,
                           bb.byteAs(narrow, bb.select(fromA, byteA, byteB)));
        return success();
      })
      .Case([&](arith::NegFOp neg) -> LogicalResult {
        if (isa<Float8E8M0FNUType>(narrow))
          return unsupported("e8m0 values have no sign");
        Value byte = bb.byteOf(neg.getOperand());
        rewriter.replaceOp(op, bb.byteAs(narrow, arith::XOrIOp::create(
                                                     bb.b, byte, bb.c(0x80))));
        return success();
      })
      .Case([&](math::AbsFOp abs) -> LogicalResult {
        Value byte = bb.byteOf(abs.getOperand());
        if (!isa<Float8E8M0FNUType>(narrow))
          byte = bb.band(byte, bb.c(0x7F));
        rewriter.replaceOp(op, bb.byteAs(narrow, byte));
        return success();
      })
      .Default([&](Operation *) -> LogicalResult {
        if (isa<arith::TruncFOp>(op))
          return unsupported(
              "its rounding differs from the MX conversion (SPEC §2); use "
              "mxfp8train.quantize");
        return unsupported("there is no fp8 or e8m0 arithmetic; widen the "
                           "operands with arith.extf first");
      });
}

namespace {
struct LowerNarrowFloatArithPass final
    : mxfp8train::impl::MXFP8TrainLowerNarrowFloatArithPassBase<
          LowerNarrowFloatArithPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      // Constants, bitcasts and selects move bytes; they lower as i8.
      if (isa<arith::ConstantOp, arith::BitcastOp, arith::SelectOp>(op))
        return;
      if (!isa_and_present<arith::ArithDialect, math::MathDialect>(
              op->getDialect()))
        return;
      if (getNarrowType(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    bool failedOps = false;
    for (Operation *op : ops)
      failedOps |= failed(lowerOp(rewriter, op));
    if (failedOps)
      signalPassFailure();
  }
};
} // namespace
