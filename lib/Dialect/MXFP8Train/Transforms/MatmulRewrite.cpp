//===- MatmulRewrite.cpp - matmul -> quantize + scaled_mm -------*- C++ -*-===//
//
// The dense half of `mxfp8train-rewrite-matmuls` (declared in
// Transforms.h): the analysis of one linalg matmul (operands as stored,
// contraction axes, training role, filters), its rewrite into
// `mxfp8train.quantize` + `mxfp8train.scaled_mm` (or the EMULATED form), the
// whole-IR driver with remarks and the greedy patterns. Grouped GEMMs
// (`mxfp8train.grouped_mm`) are analysed and rewritten in
// GroupedMmRewrite.cpp and dispatched to from here; the helpers both halves
// use are in RewriteUtils.cpp.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "GroupedMmRewrite.h"
#include "OperandViews.h"
#include "RewriteUtils.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::detail;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

bool mxfp8train::isCandidateMatmul(Operation *op) {
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, GroupedMmOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

static bool isHighPrecision(Type type) {
  return isa<BFloat16Type, Float32Type>(type);
}

/// True when `value` is known to be all zeros: a zero constant (scalar or
/// splat) or a tensor `linalg.fill` of a zero constant.
static bool isZeroTensor(Value value) {
  if (matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero()))
    return true;
  auto fill = value.getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.hasPureTensorSemantics())
    return false;
  Value scalar = fill.getInputs()[0];
  return matchPattern(scalar, m_AnyZeroFloat()) ||
         matchPattern(scalar, m_Zero());
}

/// The 1-D tensor broadcast into `init` along every dimension but the last,
/// or null.
static Value getBroadcastBias(Value init) {
  auto bcast = init.getDefiningOp<linalg::BroadcastOp>();
  if (!bcast || !bcast.hasPureTensorSemantics())
    return {};
  auto inputType = dyn_cast<RankedTensorType>(bcast.getInput().getType());
  auto initType = cast<RankedTensorType>(init.getType());
  if (!inputType || inputType.getRank() != 1 ||
      !isHighPrecision(inputType.getElementType()))
    return {};
  if (!llvm::equal(bcast.getDimensions(),
                   llvm::seq<int64_t>(0, initType.getRank() - 1)))
    return {};
  return bcast.getInput();
}

/// Position of `dim` among the results of `map` (all AffineDimExpr), or -1.
static int64_t findDim(AffineMap map, unsigned dim) {
  for (auto [i, expr] : llvm::enumerate(map.getResults()))
    if (cast<AffineDimExpr>(expr).getPosition() == dim)
      return i;
  return -1;
}

/// Checks that `map` reads a matrix operand with rows `rowDim` and contraction
/// `kDim` (in either order) after the batch dimension `batchDim` (if
/// `numBatch` is 1). Returns the position of K, or -1.
static int64_t getContractionPosition(AffineMap map, int64_t numBatch,
                                      unsigned batchDim, unsigned rowDim,
                                      unsigned kDim) {
  if (map.getNumResults() != numBatch + 2)
    return -1;
  if (numBatch == 1 && findDim(map, batchDim) != 0)
    return -1;
  int64_t rowPos = findDim(map, rowDim), kPos = findDim(map, kDim);
  if (rowPos < numBatch || kPos < numBatch)
    return -1;
  return kPos;
}

/// The plan of one operand read through `map` with K at position `kPos`:
/// looks through a producing tensor `linalg.transpose` that keeps the batch
/// dimension leading.
static MatmulOperandPlan planOperand(Value operand, AffineMap map, int64_t kPos,
                                     int64_t numBatch) {
  MatmulOperandPlan plan;
  plan.stored = operand;
  plan.map = map;
  plan.axis = kPos;
  std::optional<TransposeView> transpose = matchTranspose(operand);
  // A transpose of a tensor of dynamic shape (a generic's input may be one)
  // is not looked through: the casts need static shapes.
  auto inputType = transpose
                       ? dyn_cast<RankedTensorType>(transpose->input.getType())
                       : RankedTensorType();
  if (!transpose || !inputType || !inputType.hasStaticShape() ||
      (numBatch == 1 && transpose->perm[0] != 0))
    return plan;
  ArrayRef<int64_t> perm = transpose->perm;
  // Result dimension i of the transpose is input dimension perm[i].
  SmallVector<AffineExpr> exprs(map.getNumResults());
  for (auto [i, p] : llvm::enumerate(perm))
    exprs[p] = map.getResult(i);
  plan.stored = transpose->input;
  plan.transpose = transpose->op;
  plan.map = AffineMap::get(map.getNumDims(), 0, exprs, map.getContext());
  plan.axis = perm[kPos];
  return plan;
}

static MatmulAnalysis analyzeLinalgMatmul(linalg::LinalgOp op,
                                          const RewriteMatmulsOptions &options,
                                          bool roleOnly);

/// The role of another GEMM of the graph (a linalg matmul, converted or not,
/// or a `scaled_mm`) and the index of its grad_output operand, or nullopt.
static std::optional<std::pair<MatmulRole, unsigned>>
getOtherGemmRole(Operation *gemm) {
  // A role attribute (given by the user, or recorded by the rewrite on a
  // GEMM converted before this one, EMULATED ones included, whose operands
  // are dequantized and which the analysis would skip) says it all.
  std::optional<MatmulRole> role;
  std::optional<bool> gradOutputIsRhs;
  std::string reason;
  if (failed(getRoleOverride(gemm, role, reason)) ||
      failed(getGradOutputOverride(gemm, gradOutputIsRhs, reason)))
    return std::nullopt;
  if (role)
    return std::make_pair(*role, gradOutputIsRhs.value_or(false) ? 1u : 0u);
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(gemm))
    return std::nullopt;
  MatmulAnalysis other = analyzeLinalgMatmul(cast<linalg::LinalgOp>(gemm), {},
                                             /*roleOnly=*/true);
  if (other.decision != MatmulDecision::Convert)
    return std::nullopt;
  return std::make_pair(other.plan.role, other.plan.getRecipeOperand(0));
}

/// For a wgrad without a `mxfp8train.grad_output` attribute: true when the
/// other matmuls of its function show its rhs to be grad_output (`dW = xᵀ @
/// dO` of a weight stored `(in, out)`, when the forward `x @ W` and the
/// dgrad `dO @ Wᵀ` carry their roles): its lhs is read as a forward's input
/// or its rhs as a dgrad's grad_output, and nothing says the other way
/// round. Tensors are compared by getViewRoot (through transposes, reshapes
/// and casts, so that GEMMs converted earlier count too).
static bool inferWgradGradOutputIsRhs(const MatmulPlan &plan) {
  Operation *scope = plan.op->getParentOfType<FunctionOpInterface>();
  if (!scope)
    scope = plan.op->getParentOp();
  if (!scope)
    return false;
  Value lhsRoot = getViewRoot(plan.lhs.stored);
  Value rhsRoot = getViewRoot(plan.rhs.stored);
  bool lhsInput = false, lhsGradOutput = false;
  bool rhsInput = false, rhsGradOutput = false;
  scope->walk([&](Operation *gemm) {
    if (gemm == plan.op)
      return;
    Value lhs, rhs;
    if (auto mm = dyn_cast<ScaledMmOp>(gemm)) {
      lhs = mm.getLhs();
      rhs = mm.getRhs();
    } else if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(gemm) &&
               gemm->getNumOperands() == 3) {
      lhs = gemm->getOperand(0);
      rhs = gemm->getOperand(1);
    } else {
      return;
    }
    std::optional<std::pair<MatmulRole, unsigned>> role =
        getOtherGemmRole(gemm);
    if (role && role->first == MatmulRole::Forward) {
      // The lhs of a forward GEMM is torchao's `input`.
      Value input = getViewRoot(lhs);
      lhsInput |= input == lhsRoot;
      rhsInput |= input == rhsRoot;
    } else if (role && role->first == MatmulRole::Dgrad) {
      Value gradOutput = getViewRoot(role->second == 0 ? lhs : rhs);
      lhsGradOutput |= gradOutput == lhsRoot;
      rhsGradOutput |= gradOutput == rhsRoot;
    }
  });
  return (lhsInput || rhsGradOutput) && !(lhsGradOutput || rhsInput);
}

/// analyzeMatmul for `linalg.matmul` and `linalg.batch_matmul`. With
/// `roleOnly`, stops with decision Convert once the operands and role are
/// known (the other matmuls' view for inferWgradGradOutputIsRhs).
static MatmulAnalysis analyzeLinalgMatmul(linalg::LinalgOp op,
                                          const RewriteMatmulsOptions &options,
                                          bool roleOnly) {
  MatmulAnalysis result;
  MatmulPlan &plan = result.plan;
  plan.op = op;
  auto skip = [&](const Twine &why) {
    result.decision = MatmulDecision::Skip;
    result.reason = why.str();
    return result;
  };

  std::optional<MatmulRole> roleOverride;
  std::optional<bool> gradOutputIsRhs;
  if (failed(getRoleOverride(op, roleOverride, result.reason)) ||
      failed(getGradOutputOverride(op, gradOutputIsRhs, result.reason))) {
    result.decision = MatmulDecision::Invalid;
    return result;
  }

  std::string matched;
  if (!roleOnly)
    if (std::optional<std::string> name =
            findExcludedName(op->getLoc(), options.exclude, matched))
      return skip("location name '" + *name + "' matches exclude '" + matched +
                  "'");

  if (!op.hasPureTensorSemantics())
    return skip("buffer semantics; only tensors are rewritten");
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return skip("expected two inputs and one init");
  Value lhs = op.getDpsInputOperand(0)->get();
  Value rhs = op.getDpsInputOperand(1)->get();
  Value init = op.getDpsInitOperand(0)->get();
  auto lhsType = dyn_cast<RankedTensorType>(lhs.getType());
  auto rhsType = dyn_cast<RankedTensorType>(rhs.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!lhsType || !rhsType)
    return skip("unranked operand");
  for (auto [what, type] :
       {std::pair<StringRef, RankedTensorType>("lhs", lhsType),
        {"rhs", rhsType},
        {"result", resultType}})
    if (!isHighPrecision(type.getElementType()))
      return skip(what + " element type " +
                  printToString(type.getElementType()) + " is not bf16 or f32");
  if (lhs.getDefiningOp<DequantizeOp>() || rhs.getDefiningOp<DequantizeOp>())
    return skip("an operand is already dequantized MX data");

  int64_t numBatch = isa<linalg::BatchMatmulOp>(op) ? 1 : 0;
  int64_t rank = numBatch + 2;
  if (lhsType.getRank() != rank || rhsType.getRank() != rank)
    return skip("broadcast operand: lhs rank " + Twine(lhsType.getRank()) +
                ", rhs rank " + Twine(rhsType.getRank()) + ", expected " +
                Twine(rank));
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false) ||
        map.getNumDims() != rank + 1)
      return skip("indexing map " + printToString(map) +
                  " is not a permutation of the loop dimensions");
  AffineMap outMap = maps[2];
  auto dimAt = [](AffineMap map, int64_t i) {
    return cast<AffineDimExpr>(map.getResult(i)).getPosition();
  };
  unsigned batchDim = numBatch ? dimAt(outMap, 0) : 0;
  unsigned mDim = dimAt(outMap, numBatch), nDim = dimAt(outMap, numBatch + 1);
  unsigned kDim = 0;
  while (findDim(outMap, kDim) >= 0)
    ++kDim;
  int64_t lhsK =
      getContractionPosition(maps[0], numBatch, batchDim, mDim, kDim);
  int64_t rhsK =
      getContractionPosition(maps[1], numBatch, batchDim, nDim, kDim);
  if (lhsK < 0 || rhsK < 0)
    return skip("indexing maps are not a matmul with a leading batch "
                "dimension and transposed operands only (transposed result?)");

  plan.lhs = planOperand(lhs, maps[0], lhsK, numBatch);
  plan.rhs = planOperand(rhs, maps[1], rhsK, numBatch);
  plan.lhs.transposed = plan.lhs.axis == numBatch;
  plan.rhs.transposed = plan.rhs.axis == numBatch + 1;

  // The role looks through every view of the operands (a weight broadcast
  // over the batch, reshapes, casts), not only the transpose quantized
  // through.
  plan.role = roleOverride.value_or(
      inferMatmulRole(!traceContractionSource(lhs, lhsK).isKLast(),
                      traceContractionSource(rhs, rhsK).isKLast()));
  plan.roleFromAttribute = roleOverride.has_value();
  if (gradOutputIsRhs) {
    if (plan.role == MatmulRole::Forward) {
      result.decision = MatmulDecision::Invalid;
      result.reason =
          (kGradOutputAttrName + " on a matmul of role forward, which has no "
                                 "grad_output (only dgrad and wgrad do)")
              .str();
      return result;
    }
    plan.gradOutputIsRhs = *gradOutputIsRhs;
    plan.gradOutputSource = kGradOutputAttrName.str();
  }
  if (roleOnly) {
    result.decision = MatmulDecision::Convert;
    return result;
  }
  if (!gradOutputIsRhs && plan.role == MatmulRole::Wgrad &&
      inferWgradGradOutputIsRhs(plan)) {
    plan.gradOutputIsRhs = true;
    plan.gradOutputSource = "the roles of the matmuls reading its operands";
  }
  RecipeAttrInterface recipe =
      getRecipeOrDefault(op->getContext(), options.recipe);
  if (recipe.isHighPrecisionGemm(plan.role, /*grouped=*/false)) {
    result.decision = MatmulDecision::KeepHighPrecision;
    result.reason =
        describeHighPrecisionGemm(plan.role, recipe, plan.roleFromAttribute);
    return result;
  }

  if (std::optional<std::string> why =
          checkStaticSizes(recipe, {lhsType, rhsType, resultType}))
    return skip(*why);
  // Upstream's verifier does not compare sizes against a zero-size
  // dimension, so a matmul may reach here with an init that disagrees with
  // its operands; the MX ops would not verify.
  SmallVector<int64_t> loopSizes(rank + 1, ShapedType::kDynamic);
  RankedTensorType operandTypes[] = {lhsType, rhsType, resultType};
  for (auto [operand, type] : llvm::enumerate(operandTypes)) {
    for (auto [pos, expr] : llvm::enumerate(maps[operand].getResults())) {
      unsigned dim = cast<AffineDimExpr>(expr).getPosition();
      int64_t size = type.getDimSize(pos);
      if (ShapedType::isDynamic(loopSizes[dim]))
        loopSizes[dim] = size;
      else if (loopSizes[dim] != size)
        return skip("operand shapes disagree: loop dimension d" + Twine(dim) +
                    " has size " + Twine(loopSizes[dim]) + " and " +
                    Twine(size));
    }
  }
  plan.batch = numBatch ? resultType.getDimSize(0) : 0;
  plan.m = resultType.getDimSize(numBatch);
  plan.n = resultType.getDimSize(numBatch + 1);
  plan.k = lhsType.getDimSize(lhsK);
  if (std::optional<std::string> why = checkGemmAlignment(
          recipe, plan.k, plan.n, "K", "N", /*grouped=*/false))
    return skip(*why);
  for (auto [what, size] : {std::pair<StringRef, int64_t>("M", plan.m),
                            {"N", plan.n},
                            {"K", plan.k}})
    if (size < options.minSize)
      return skip(what + " = " + Twine(size) + " is below min-size " +
                  Twine(options.minSize));

  // A weight broadcast over the batch, read by a (B, M, K) activation: one
  // 2-D GEMM over the B * M rows, quantizing the weight once rather than
  // each of its B copies (the same values, blocks and scales: every copy is
  // quantized alike). Not for EMULATED, which keeps the matmul as it is.
  // After the filters, which see the matmul as written (per-batch M).
  if (Value weight = getBatchBroadcastSource(rhs);
      weight && numBatch == 1 && !recipe.isEmulated() && lhsK == 2 &&
      !plan.lhs.transpose && dimAt(maps[0], 1) == mDim) {
    AffineMap rhsMap2d = maps[1].dropResult(0);
    plan.rhs = planOperand(weight, rhsMap2d, rhsK - 1, /*numBatch=*/0);
    plan.rhs.transposed = plan.rhs.axis == 1;
    plan.foldBatchIntoM = true;
    plan.foldedBatch = plan.batch;
    plan.m *= plan.batch;
    plan.batch = 0;
  }

  if (isZeroTensor(init)) {
    plan.initKind = MatmulInitKind::Zero;
  } else if (Value bias = getBroadcastBias(init)) {
    plan.initKind = MatmulInitKind::Bias;
    plan.bias = bias;
  } else {
    plan.initKind = MatmulInitKind::Add;
  }
  result.decision = MatmulDecision::Convert;
  return result;
}

MatmulAnalysis mxfp8train::analyzeMatmul(Operation *op,
                                         const RewriteMatmulsOptions &options) {
  if (auto grouped = dyn_cast<GroupedMmOp>(op))
    return analyzeGroupedMm(grouped, options);
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return analyzeLinalgMatmul(cast<linalg::LinalgOp>(op), options,
                               /*roleOnly=*/false);
  MatmulAnalysis result;
  if (isa<linalg::LinalgOp>(op)) {
    // Reported, not silently kept: the rewrite takes the named forms only.
    result.plan.op = op;
    result.decision = MatmulDecision::Skip;
    result.reason =
        ("a contraction written as " + op->getName().getStringRef() +
         "; only linalg.matmul and linalg.batch_matmul (and "
         "mxfp8train.grouped_mm) are rewritten (upstream "
         "linalg-specialize-generic-ops turns a matmul-shaped "
         "linalg.generic with (m, k) x (k, n) maps into linalg.matmul; in "
         "MLIR 22 it builds an invalid one from a transposed operand)")
            .str();
    return result;
  }
  result.plan.op = op;
  result.reason = "not a linalg.matmul, linalg.batch_matmul or "
                  "mxfp8train.grouped_mm";
  return result;
}

//===----------------------------------------------------------------------===//
// Rewrites
//===----------------------------------------------------------------------===//

/// The reassociation of a batch folded into M: (B, M, X) <-> (B * M, X).
static SmallVector<ReassociationIndices> getBatchRowsReassociation() {
  return {{0, 1}, {2}};
}

/// `activation` (B, M, K) as (B * M, K): an earlier such
/// `tensor.collapse_shape` of it in the block of `user` when there is one
/// (the sibling GEMMs of one activation then share its cast), else a new one.
static Value getOrCreateBatchRows(RewriterBase &rewriter, Location loc,
                                  Value activation, Operation *user) {
  SmallVector<ReassociationIndices> rows = getBatchRowsReassociation();
  for (Operation *other : activation.getUsers()) {
    auto collapse = dyn_cast<tensor::CollapseShapeOp>(other);
    if (collapse && collapse.getReassociationIndices() == rows &&
        collapse->getBlock() == user->getBlock() &&
        collapse->isBeforeInBlock(user))
      return collapse.getResult();
  }
  return tensor::CollapseShapeOp::create(rewriter, loc, activation, rows);
}

/// `product + init` element-wise in f32 (`product` is f32), rounded once to
/// the element type of `init`.
static Value addInitInHighPrecision(RewriterBase &rewriter, Location loc,
                                    Value product, Value init) {
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t rank = initType.getRank();
  AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{initType}, ValueRange{product}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [](OpBuilder &b, Location bodyLoc, ValueRange args) {
        Value acc = args[1];
        Type f32 = args[0].getType();
        if (acc.getType() != f32)
          acc = arith::ExtFOp::create(b, bodyLoc, f32, acc);
        Value sum = arith::AddFOp::create(b, bodyLoc, acc, args[0]);
        if (sum.getType() != args[1].getType())
          sum = arith::TruncFOp::create(b, bodyLoc, args[1].getType(), sum);
        linalg::YieldOp::create(b, bodyLoc, sum);
      });
  return generic.getResult(0);
}

Operation *mxfp8train::rewriteMatmul(RewriterBase &rewriter,
                                     const MatmulPlan &plan,
                                     RecipeAttrInterface recipe) {
  if (plan.grouped.isGrouped)
    return rewriteGroupedMm(rewriter, plan, recipe);
  Operation *op = plan.op;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  Location loc = op->getLoc();
  recipe = getRecipeOrDefault(op->getContext(), recipe);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  // foldBatchIntoM: the (B, M, K) activation as (B * M, K).
  Value lhsStored = plan.lhs.stored;
  int64_t lhsAxis = plan.lhs.axis;
  if (plan.foldBatchIntoM) {
    lhsStored = getOrCreateBatchRows(rewriter, loc, lhsStored, op);
    lhsAxis = 1;
  }
  auto [lhsData, lhsScales] =
      getOrCreateQuantize(rewriter, loc, lhsStored, lhsAxis,
                          recipe.getOperandCast(plan.role, /*grouped=*/false,
                                                plan.getRecipeOperand(0)));
  auto [rhsData, rhsScales] =
      getOrCreateQuantize(rewriter, loc, plan.rhs.stored, plan.rhs.axis,
                          recipe.getOperandCast(plan.role, /*grouped=*/false,
                                                plan.getRecipeOperand(1)));
  StringAttr role = rewriter.getStringAttr(stringifyMatmulRole(plan.role));
  SmallVector<Operation *> maybeDead = {plan.lhs.transpose, plan.rhs.transpose};

  if (recipe.isEmulated()) {
    // torchao EMULATED: the matmul runs in the operands' own precision on
    // exactly dequantized MX values.
    Value lhs = getOrCreateDequantize(rewriter, loc, lhsData, lhsScales,
                                      plan.lhs.axis, plan.lhs.stored.getType());
    Value rhs = getOrCreateDequantize(rewriter, loc, rhsData, rhsScales,
                                      plan.rhs.axis, plan.rhs.stored.getType());
    AffineMap outMap = linalgOp.getIndexingMapsArray()[2];
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperand(0, lhs);
      op->setOperand(1, rhs);
      op->setAttr("indexing_maps", rewriter.getAffineMapArrayAttr(
                                       {plan.lhs.map, plan.rhs.map, outMap}));
      op->setAttr(kMatmulRoleAttrName, role);
      if (plan.gradOutputIsRhs)
        op->setAttr(kGradOutputAttrName, rewriter.getStringAttr("rhs"));
    });
    eraseDeadOps(rewriter, maybeDead);
    return op;
  }

  Value init = linalgOp.getDpsInitOperand(0)->get();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  bool addInit = plan.initKind == MatmulInitKind::Add;
  // With an init to add, keep the product in f32 so that the sum is rounded
  // only once.
  RankedTensorType productType =
      addInit ? resultType.clone(rewriter.getF32Type()) : resultType;
  RankedTensorType gemmType = productType;
  if (plan.foldBatchIntoM)
    gemmType =
        RankedTensorType::get({plan.m, plan.n}, productType.getElementType());
  auto scaledMm = ScaledMmOp::create(rewriter, loc, gemmType, lhsData,
                                     lhsScales, rhsData, rhsScales, plan.bias,
                                     plan.lhs.transposed, plan.rhs.transposed);
  setGemmAttributes(scaledMm, recipe, plan.role, /*grouped=*/false);
  if (plan.gradOutputIsRhs)
    scaledMm->setAttr(kGradOutputAttrName, rewriter.getStringAttr("rhs"));
  Value result = scaledMm.getResult();
  if (plan.foldBatchIntoM) {
    result = tensor::ExpandShapeOp::create(rewriter, loc, productType, result,
                                           getBatchRowsReassociation());
    // The broadcast weight, now unused.
    maybeDead.push_back(linalgOp.getDpsInputOperand(1)->get().getDefiningOp());
  }
  if (addInit)
    result = addInitInHighPrecision(rewriter, loc, result, init);
  rewriter.replaceOp(op, result);
  if (!addInit)
    maybeDead.push_back(init.getDefiningOp());
  eraseDeadOps(rewriter, maybeDead);
  return scaledMm;
}

std::string mxfp8train::describeConversion(const MatmulPlan &plan,
                                           RecipeAttrInterface recipe) {
  if (plan.grouped.isGrouped)
    return describeGroupedConversion(plan, recipe);
  recipe = getRecipeOrDefault(plan.op->getContext(), recipe);
  bool emulated = recipe.isEmulated();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "mxfp8train: converted" << (emulated ? " to emulated MX" : "")
     << " (role " << stringifyMatmulRole(plan.role);
  if (plan.roleFromAttribute)
    os << " from " << kMatmulRoleAttrName;
  if (!plan.gradOutputSource.empty())
    os << ", grad_output " << (plan.gradOutputIsRhs ? "rhs" : "lhs") << " from "
       << plan.gradOutputSource;
  os << ", lhs" << describeTransposeSource(plan.lhs) << " quantized along axis "
     << plan.lhs.axis
     << describeCast(recipe, plan.role, /*grouped=*/false,
                     plan.getRecipeOperand(0))
     << ", rhs" << describeTransposeSource(plan.rhs) << " along axis "
     << plan.rhs.axis
     << describeCast(recipe, plan.role, /*grouped=*/false,
                     plan.getRecipeOperand(1));
  if (plan.foldBatchIntoM)
    os << ", batch of " << plan.foldedBatch
       << " folded into M (rhs broadcast over it, quantized once)";
  if (!emulated && plan.initKind == MatmulInitKind::Bias)
    os << ", init as bias";
  if (!emulated && plan.initKind == MatmulInitKind::Add)
    os << ", init added in f32";
  os << ", recipe " << describeRecipe(recipe) << ")";
  return s;
}

LogicalResult mxfp8train::rewriteMatmuls(Operation *root,
                                         const RewriteMatmulsOptions &options,
                                         bool emitRemarks,
                                         RewriteMatmulsStats &stats,
                                         MatmulObserver observe) {
  SmallVector<Operation *> matmuls;
  root->walk([&](Operation *op) {
    if (isCandidateMatmul(op))
      matmuls.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  bool hadError = false;
  for (Operation *op : matmuls) {
    MatmulAnalysis analysis = analyzeMatmul(op, options);
    if (observe)
      observe(op, analysis);
    switch (analysis.decision) {
    case MatmulDecision::Invalid:
      op->emitError() << "mxfp8train: " << analysis.reason;
      hadError = true;
      ++stats.skipped;
      break;
    case MatmulDecision::Skip:
      if (emitRemarks)
        op->emitRemark() << "mxfp8train: skipped (" << analysis.reason << ")";
      ++stats.skipped;
      break;
    case MatmulDecision::KeepHighPrecision:
      if (emitRemarks)
        op->emitRemark() << "mxfp8train: kept in high precision ("
                         << analysis.reason << ")";
      ++stats.skipped;
      ++stats.keptHighPrecision;
      break;
    case MatmulDecision::Convert: {
      std::string text = describeConversion(analysis.plan, options.recipe);
      Location loc = op->getLoc();
      rewriteMatmul(rewriter, analysis.plan, options.recipe);
      if (emitRemarks)
        emitRemark(loc) << text;
      ++stats.converted;
      break;
    }
    }
  }
  return failure(hadError);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// Rewrites one `OpTy` matmul the way rewriteMatmuls does, without remarks.
template <typename OpTy>
struct RewriteMatmulPattern final : OpRewritePattern<OpTy> {
  RewriteMatmulPattern(MLIRContext *context, RewriteMatmulsOptions options,
                       PatternBenefit benefit)
      : OpRewritePattern<OpTy>(context, benefit), options(std::move(options)) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    MatmulAnalysis analysis = analyzeMatmul(op.getOperation(), options);
    if (analysis.decision != MatmulDecision::Convert)
      return rewriter.notifyMatchFailure(op, analysis.reason);
    rewriteMatmul(rewriter, analysis.plan, options.recipe);
    return success();
  }

  RewriteMatmulsOptions options;
};
} // namespace

void mxfp8train::populateMXFP8TrainRewriteMatmulsPatterns(
    RewritePatternSet &patterns, const RewriteMatmulsOptions &options,
    PatternBenefit benefit) {
  patterns.add<RewriteMatmulPattern<linalg::MatmulOp>,
               RewriteMatmulPattern<linalg::BatchMatmulOp>,
               RewriteMatmulPattern<GroupedMmOp>>(patterns.getContext(),
                                                  options, benefit);
}
