//===- LegalizeMath.cpp - mxfp8train-legalize-math --------------*- C++ -*-===//
//
// The math ops that upstream's LLVM (CPU) and NVVM (GPU) lowerings leave
// unconverted, rewritten into ops they take (Passes.td has the list):
// math.ipowi as branch-free square-and-multiply, math.isinf / isnormal as
// comparisons of |x|, math.clampf by upstream's expansion, math.sincos as
// sin and cos (libdevice has no sincos, the CPU's lowering of it no n-D
// vectors); in host code of both pipelines the functions without an LLVM
// intrinsic as C library calls (upstream's patterns).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINLEGALIZEMATHPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
/// math.ipowi %b, %e: the product of b^(2^i) over the set bits i of a
/// non-negative e (every bit but the sign bit, selected without branches:
/// the same products modulo 2^width as a loop that stops early); for a
/// negative e, q = 1 / b is 1, -1 or 0 (|b| > 1), and b^e is q for an odd e,
/// q * q for an even one. The divisor is b only where e < 0, so a zero base
/// divides by zero only where the op's definition does.
struct IPowIExpansion : OpRewritePattern<math::IPowIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::IPowIOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    if (isa<TensorType>(type))
      return rewriter.notifyMatchFailure(op,
                                         "tensors: elementwise linalg first");
    // index: the pipelines' 64 bits.
    Type element = getElementTypeOrSelf(type);
    unsigned width = element.isIndex() ? IndexType::kInternalStorageBitWidth
                                       : element.getIntOrFloatBitWidth();
    Value base = op.getLhs();
    Value exponent = op.getRhs();
    // Constants of `type` (index too, which upstream's splat helper takes
    // for a shaped type).
    auto constantOf = [&](const APInt &value) -> Value {
      TypedAttr attr = IntegerAttr::get(element, value);
      if (auto shaped = dyn_cast<ShapedType>(type))
        attr = DenseElementsAttr::get(shaped, ArrayRef<Attribute>{attr});
      return arith::ConstantOp::create(rewriter, loc, attr);
    };
    // 0 or 1 (unsigned: an i1's signed range has no 1).
    auto constant = [&](uint64_t value) {
      return constantOf(APInt(width, value));
    };
    Value one = constant(1);
    Value zero = constant(0);
    auto isSet = [&](Value bits, unsigned bit) {
      Value mask = constantOf(APInt::getOneBitSet(width, bit));
      Value masked = arith::AndIOp::create(rewriter, loc, bits, mask);
      return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                   masked, zero);
    };
    Value isNegative = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, exponent, zero);
    // i1: the values are 0 and -1; e = 0 gives 1 (-1), e = -1 gives 1 / b,
    // which is b for b = -1 (and a division by zero for b = 0).
    if (width == 1) {
      rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isNegative, base, one);
      return success();
    }
    Value result = one;
    Value power = base;
    for (unsigned bit = 0; bit + 1 < width; ++bit) {
      Value product = arith::MulIOp::create(rewriter, loc, result, power);
      Value taken = isSet(exponent, bit);
      result = arith::SelectOp::create(rewriter, loc, taken, product, result);
      if (bit + 2 < width)
        power = arith::MulIOp::create(rewriter, loc, power, power);
    }
    Value divisor =
        arith::SelectOp::create(rewriter, loc, isNegative, base, one);
    Value inverse = arith::DivSIOp::create(rewriter, loc, one, divisor);
    Value inverseSquared =
        arith::MulIOp::create(rewriter, loc, inverse, inverse);
    Value negativePower = arith::SelectOp::create(
        rewriter, loc, isSet(exponent, 0), inverse, inverseSquared);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isNegative, negativePower,
                                                 result);
    return success();
  }
};

/// math.isinf %x: |x| == +inf; math.isnormal %x: smallest normal <= |x| <
/// +inf (ordered comparisons: false for NaN). Types without an infinity
/// (the fp8 formats, which mxfp8train-lower-narrow-float-arith rejects in
/// math ops first) are left alone, and so are tensors.
template <typename ClassifyOp>
struct ClassificationExpansion : OpRewritePattern<ClassifyOp> {
  using OpRewritePattern<ClassifyOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ClassifyOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(x.getType()));
    if (!floatType || isa<TensorType>(x.getType()) ||
        !APFloat::semanticsHasInf(floatType.getFloatSemantics()))
      return rewriter.notifyMatchFailure(op, "no infinity, or a tensor");
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    Location loc = op.getLoc();
    Value magnitude = math::AbsFOp::create(rewriter, loc, x);
    auto compare = [&](arith::CmpFPredicate predicate, const APFloat &bound) {
      Value boundValue =
          createScalarOrSplatConstant(rewriter, loc, x.getType(), bound);
      return arith::CmpFOp::create(rewriter, loc, predicate, magnitude,
                                   boundValue);
    };
    APFloat inf = APFloat::getInf(semantics);
    if constexpr (std::is_same_v<ClassifyOp, math::IsInfOp>) {
      rewriter.replaceOp(op, compare(arith::CmpFPredicate::OEQ, inf));
    } else {
      Value atLeastNormal = compare(arith::CmpFPredicate::OGE,
                                    APFloat::getSmallestNormalized(semantics));
      Value finite = compare(arith::CmpFPredicate::OLT, inf);
      rewriter.replaceOpWithNewOp<arith::AndIOp>(op, atLeastNormal, finite);
    }
    return success();
  }
};

/// math.sincos %x -> math.sin %x, math.cos %x.
struct SplitSincos : OpRewritePattern<math::SincosOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::SincosOp op,
                                PatternRewriter &rewriter) const override {
    Value sin = math::SinOp::create(rewriter, op.getLoc(), op.getOperand(),
                                    op.getFastmath());
    Value cos = math::CosOp::create(rewriter, op.getLoc(), op.getOperand(),
                                    op.getFastmath());
    rewriter.replaceOp(op, {sin, cos});
    return success();
  }
};

/// The math ops of host code that become C library calls: LLVM has no
/// intrinsic of these (expm1 and log1p it would compute as exp(x) - 1 and
/// log(1 + x), losing small x); kernels (gpu.module) call libdevice.
static bool isLibmCall(Operation *op) {
  return isa<math::AcoshOp, math::AsinhOp, math::AtanhOp, math::CbrtOp,
             math::ErfOp, math::ErfcOp, math::ExpM1Op, math::Log1pOp>(op) &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

/// The C library function `op` (a libm call, f32 or f64) calls: `erff`,
/// `erf`, ...
static std::string getLibmName(Operation *op) {
  std::string function = op->getName().stripDialect().str();
  if (getElementTypeOrSelf(op->getResult(0).getType()).isF32())
    function += "f";
  return function;
}

/// Fails, with an error at `op` and a note at the symbol, where the module
/// holds a symbol of the name of the C library function `op` would call
/// other than a declaration of it: the call would reach that symbol (a
/// user function named @erf took math.erf's calls, a silent wrong value).
static LogicalResult checkLibmName(Operation *op, ModuleOp module) {
  std::string function = getLibmName(op);
  Operation *symbol = SymbolTable::lookupSymbolIn(module, function);
  if (!symbol)
    return success();
  Type type = op->getResult(0).getType();
  Type element = getElementTypeOrSelf(type);
  auto declaration = dyn_cast<func::FuncOp>(symbol);
  if (declaration && declaration.isDeclaration() &&
      declaration.getFunctionType() ==
          FunctionType::get(op->getContext(), element, element))
    return success();
  InFlightDiagnostic diag = op->emitError()
                            << "'" << op->getName()
                            << "' is lowered to a call of the C library's '"
                            << function << "', which the module's @" << function
                            << " would take; rename that symbol";
  diag.attachNote(symbol->getLoc()) << "@" << function << " is defined here";
  return failure();
}

/// A libm-call op on bf16 or f16 computes in f32 and rounds once (the C
/// library has float and double functions only), as torch does on the CPU.
struct WidenLibmCall : RewritePattern {
  WidenLibmCall(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isLibmCall(op) || op->getNumOperands() != 1 ||
        op->getNumResults() != 1)
      return failure();
    Type type = op->getResult(0).getType();
    Type element = getElementTypeOrSelf(type);
    if (!isa<BFloat16Type, Float16Type>(element))
      return failure();
    Type wide = rewriter.getF32Type();
    if (auto shaped = dyn_cast<ShapedType>(type))
      wide = shaped.clone(wide);
    Location loc = op->getLoc();
    Value operand =
        arith::ExtFOp::create(rewriter, loc, wide, op->getOperand(0));
    OperationState state(loc, op->getName().getStringRef(), operand, wide,
                         op->getAttrs());
    Value wideResult = rewriter.create(state)->getResult(0);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, wideResult);
    return success();
  }
};

struct LegalizeMathPass
    : mxfp8train::impl::MXFP8TrainLegalizeMathPassBase<LegalizeMathPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<IPowIExpansion, ClassificationExpansion<math::IsInfOp>,
                 ClassificationExpansion<math::IsNormalOp>, SplitSincos>(
        context);
    math::populateExpansionPatterns(patterns, {"clampf"});
    if (libmCalls)
      patterns.add<WidenLibmCall>(context);
    // Only these ops: the walk does not fold or erase the module's others.
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::IPowIOp, math::IsInfOp, math::IsNormalOp, math::ClampFOp,
              math::SincosOp>(op) ||
          (libmCalls && isLibmCall(op)))
        ops.push_back(op);
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      return signalPassFailure();
    if (!libmCalls)
      return;

    // The C library's float and double functions, for the host ops LLVM has
    // no (exact enough) lowering of; every other math op stays for
    // convert-math-to-llvm, and kernels' for libdevice.
    bool invalid = false;
    getOperation()->walk([&](Operation *op) {
      if (!isLibmCall(op))
        return;
      if (!isa<Float32Type, Float64Type>(
              getElementTypeOrSelf(op->getResult(0).getType()))) {
        op->emitError() << "'" << op->getName()
                        << "' on this type has no C library function (f32 "
                           "and f64; bf16 and f16 compute in f32)";
        invalid = true;
        return;
      }
      invalid |= failed(checkLibmName(op, getOperation()));
    });
    if (invalid)
      return signalPassFailure();
    RewritePatternSet libm(context);
    populateMathToLibmConversionPatterns(libm);
    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<math::AcoshOp, math::AsinhOp, math::AtanhOp,
                                 math::CbrtOp, math::ErfOp, math::ErfcOp,
                                 math::ExpM1Op, math::Log1pOp>(
        [](Operation *op) { return !isLibmCall(op); });
    if (failed(applyPartialConversion(getOperation(), target, std::move(libm))))
      signalPassFailure();
  }
};
} // namespace
