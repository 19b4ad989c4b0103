//===- ReductionKernels.cpp - linalg reductions as kernels ------*- C++ -*-===//
//
// A linalg op with reduction loops that no other kernel takes (a loss or a
// norm summed to a scalar, a bias gradient's column sums, a row max, the
// levels of a split reduction (Conversion/Utils/SplitReductions.h), a
// contraction with another body) becomes one kernel: a thread per point
// of its parallel loops (grid-stride), which keeps its accumulator in a
// register, starts from the init element (or the constant of a
// `linalg.fill` init, whose kernel then goes away), runs the reduction
// loops in their order (innermost unrolled: the loads of up to 8
// iterations first, then the body on each in turn) and stores the result
// once. Consecutive threads take consecutive points of the parallel loop
// that the most input bytes have innermost (coalesced loads; else the
// output's innermost).
//
// Before the other kernels, an elementwise producer whose only use is such
// a reduction (the squares of an MSE loss) is fused into it (upstream
// linalg::fuseElementwiseOps): the reduction kernel evaluates the
// producer's body on the producer's operands, and the producer's result
// is never written. The same scalar ops on the same values: the same bits.
//
// The loop path it replaces stored and reloaded the accumulator in every
// iteration (its buffers may alias) with one load in flight per thread,
// passed the loop bounds as kernel arguments, mapped threads in loop
// order, and launched a kernel for each fill. Each output element is the
// same sequence of body evaluations in both: the same bits.
//
//===----------------------------------------------------------------------===//

#include "FusedProducer.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

/// Iterations of the innermost reduction loop whose loads are issued
/// together (at most; the largest of 8, 4, 2 dividing its extent).
static constexpr int64_t kReductionUnroll = 8;

/// Element types the kernels load, evaluate and store as they are.
static bool isKernelScalar(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return llvm::is_contained({8u, 16u, 32u, 64u}, intType.getWidth());
  return isa<BFloat16Type, Float16Type, Float32Type, Float64Type>(type);
}

/// The constant a `linalg.fill` writes into `init`, if it does.
static TypedAttr getFillConstant(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return {};
  TypedAttr value;
  if (!matchPattern(fill.value(), m_Constant(&value)) ||
      value.getType() != getElementTypeOrSelf(init.getType()))
    return {};
  return value;
}

bool gpu_lowering::isReductionKernelCandidate(linalg::LinalgOp op) {
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || op.getNumReductionLoops() == 0 ||
      op.hasIndexSemantics() || !hasStaticShapes(op))
    return false;
  if (llvm::any_of(op.getStaticLoopRanges(),
                   [](int64_t range) { return range <= 0; }))
    return false;
  // Indices of loop dimensions and constants only.
  for (AffineMap map : op.getIndexingMapsArray())
    for (AffineExpr expr : map.getResults())
      if (!isa<AffineDimExpr, AffineConstantExpr>(expr))
        return false;
  // Each result element written by exactly one thread, which accumulates
  // all of its reduction: the init indexed by every parallel loop once, and
  // by constants only along unit dimensions (a keepdim `(i, j) -> (i, 0)`).
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap initMap = op.getMatchingIndexingMap(init);
  ArrayRef<int64_t> initShape =
      cast<ShapedType>(init->get().getType()).getShape();
  llvm::SmallBitVector seen(iterators.size());
  for (auto [expr, size] : llvm::zip_equal(initMap.getResults(), initShape)) {
    if (isa<AffineConstantExpr>(expr)) {
      if (size != 1)
        return false;
      continue;
    }
    unsigned dim = cast<AffineDimExpr>(expr).getPosition();
    if (!linalg::isParallelIterator(iterators[dim]) || seen.test(dim))
      return false;
    seen.set(dim);
  }
  if (int64_t(seen.count()) != int64_t(op.getNumParallelLoops()))
    return false;
  for (Value operand : op->getOperands())
    if (!isKernelScalar(getElementTypeOrSelf(operand.getType())))
      return false;
  return isKernelBody(*op.getBlock(), /*elementwiseOnly=*/false);
}

/// The parallel loop consecutive threads take: the one innermost in the
/// inputs with the most bytes (their loads coalesce), else the output's
/// innermost parallel loop, else the last parallel loop. -1: none.
static int64_t getFastestParallelLoop(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto innermostDim = [&](AffineMap map) -> int64_t {
    if (map.getNumResults() == 0)
      return -1;
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    return dim ? int64_t(dim.getPosition()) : -1;
  };
  llvm::SmallDenseMap<int64_t, int64_t> bytes;
  for (OpOperand *input : op.getDpsInputOperands()) {
    int64_t dim = innermostDim(op.getMatchingIndexingMap(input));
    auto type = cast<ShapedType>(input->get().getType());
    if (dim >= 0 && linalg::isParallelIterator(iterators[dim]))
      bytes[dim] += type.getNumElements() *
                    llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
  int64_t best = -1;
  for (auto [dim, count] : bytes)
    if (best < 0 || count > bytes[best] || (count == bytes[best] && dim > best))
      best = dim;
  if (best >= 0)
    return best;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (AffineExpr expr : llvm::reverse(outMap.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr);
        dim && linalg::isParallelIterator(iterators[dim.getPosition()]))
      return dim.getPosition();
  for (int64_t d = int64_t(iterators.size()) - 1; d >= 0; --d)
    if (linalg::isParallelIterator(iterators[d]))
      return d;
  return -1;
}

/// The indices `map` gives at the loop indices `loops` (a rank-0 operand,
/// viewed as one element: index 0).
static SmallVector<Value> applyMap(KernelBuilder &kb, AffineMap map,
                                   ArrayRef<Value> loops) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(loops[dim.getPosition()]);
    else
      indices.push_back(kb.idx(cast<AffineConstantExpr>(expr).getValue()));
  }
  if (indices.empty())
    indices.push_back(kb.idx(0));
  return indices;
}

/// The body of `op` on `inputs` (one scalar per input) and the accumulator
/// `acc`: the value it yields.
static Value evaluateBody(KernelBuilder &kb, linalg::LinalgOp op,
                          ValueRange inputs, Value acc) {
  Block &body = *op.getBlock();
  IRMapping map;
  map.map(op.getRegionInputArgs(), inputs);
  map.map(op.getRegionOutputArgs()[0], acc);
  auto mapped = [&](Value value) -> Value {
    if (Value v = map.lookupOrNull(value))
      return v;
    // A constant captured from outside the body.
    Operation *clone = kb.clone(*value.getDefiningOp());
    map.map(value, clone->getResult(0));
    return clone->getResult(0);
  };
  for (Operation &bodyOp : body.without_terminator()) {
    for (Value operand : bodyOp.getOperands())
      (void)mapped(operand);
    kb.clone(bodyOp, map);
  }
  return mapped(body.getTerminator()->getOperand(0));
}

/// A buffer viewed with at least one dimension (rank 0: one element).
static Value viewAsRanked(RewriterBase &rewriter, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() > 0)
    return buffer;
  return memref::ExpandShapeOp::create(
      rewriter, loc, MemRefType::get({1}, type.getElementType()), buffer,
      ArrayRef<ReassociationIndices>{});
}

namespace {
/// The loop structure of one candidate and the kernel arguments it reads.
struct ReductionKernel {
  /// (mutable: the op interface's accessors are not const.)
  mutable linalg::LinalgOp op;
  SmallVector<int64_t> ranges;
  /// Parallel loops, the one consecutive threads take last.
  SmallVector<unsigned> parallelOrder;
  SmallVector<unsigned> reductionLoops;
  /// The init's fill constant (null: the init is read).
  TypedAttr initConstant;
  /// Kernel argument of each input (inputs that are one tensor share one).
  SmallVector<unsigned> argOfInput;
  SmallVector<Value> tensors;

  explicit ReductionKernel(linalg::LinalgOp op) : op(op) {
    ranges = op.getStaticLoopRanges();
    int64_t fastest = getFastestParallelLoop(op);
    for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray())) {
      if (linalg::isReductionIterator(type))
        reductionLoops.push_back(d);
      else if (int64_t(d) != fastest)
        parallelOrder.push_back(d);
    }
    if (fastest >= 0)
      parallelOrder.push_back(fastest);
    initConstant = getFillConstant(op.getDpsInits()[0]);
    for (Value input : op.getDpsInputs()) {
      auto *it = llvm::find(tensors, input);
      argOfInput.push_back(it - tensors.begin());
      if (it == tensors.end())
        tensors.push_back(input);
    }
  }

  int64_t getParallelPoints() const {
    int64_t points = 1;
    for (unsigned d : parallelOrder)
      points *= ranges[d];
    return points;
  }

  /// A name specialised on everything the kernel depends on.
  std::string getName() const {
    std::string extra;
    llvm::raw_string_ostream os(extra);
    for (int64_t range : ranges)
      os << range << ",";
    for (utils::IteratorType type : op.getIteratorTypesArray())
      os << (linalg::isReductionIterator(type) ? "r" : "p");
    for (AffineMap map : op.getIndexingMapsArray())
      os << map;
    os << "init:" << initConstant << getInputAliasing(argOfInput);
    for (Value operand : op->getOperands())
      os << operand.getType();
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    return llvm::formatv("reduction_{0}_{1}r_{2}",
                         result.getRank() == 0 ? std::string("scalar")
                                               : getShapeTag(result.getShape()),
                         reductionLoops.size(),
                         getElementwiseBodyHash(op, extra, /*bits=*/64))
        .str();
  }

  /// The kernel body: `args` are the distinct inputs, the init unless
  /// initConstant, then the result.
  void build(KernelBuilder &kb, ValueRange args) const {
    unsigned numTensors = tensors.size();
    Value initArg = initConstant ? Value() : args[numTensors];
    Value resultArg = args.back();
    AffineMap outMap = op.getIndexingMapMatchingResult(op->getResult(0));
    kb.gridStrideLoop(kb.idx(getParallelPoints()), [&](Value linear) {
      SmallVector<Value> loops(ranges.size(), Value());
      Value rest = linear;
      for (auto [k, d] : llvm::enumerate(llvm::reverse(parallelOrder))) {
        if (ranges[d] == 1) {
          loops[d] = kb.idx(0);
        } else if (k + 1 == parallelOrder.size()) {
          // The slowest loop: what is left is below its extent.
          loops[d] = rest;
        } else {
          loops[d] = arith::RemUIOp::create(kb, rest, kb.idx(ranges[d]));
          rest = arith::DivUIOp::create(kb, rest, kb.idx(ranges[d]));
        }
      }
      Value acc;
      if (initConstant)
        acc = arith::ConstantOp::create(kb, initConstant);
      else
        acc = memref::LoadOp::create(kb, initArg, applyMap(kb, outMap, loops));
      acc = emitReductionLoops(kb, args, loops, 0, acc);
      memref::StoreOp::create(kb, acc, resultArg, applyMap(kb, outMap, loops));
    });
  }

  /// Reduction loops `level` and inside, at the loop indices fixed so far,
  /// from `acc`: the accumulator after them.
  Value emitReductionLoops(KernelBuilder &kb, ValueRange args,
                           SmallVector<Value> &loops, size_t level,
                           Value acc) const {
    unsigned d = reductionLoops[level];
    bool innermost = level + 1 == reductionLoops.size();
    int64_t unroll = 1;
    if (innermost)
      for (int64_t u = kReductionUnroll; u > 1; u /= 2)
        if (ranges[d] % u == 0) {
          unroll = u;
          break;
        }
    if (ranges[d] == 1) {
      loops[d] = kb.idx(0);
      return innermost ? emitIterations(kb, args, loops, d, 1, acc)
                       : emitReductionLoops(kb, args, loops, level + 1, acc);
    }
    // (One op per statement: the order of the emitted constants does not
    // depend on the host compiler's argument evaluation.)
    Value lower = kb.idx(0);
    Value upper = kb.idx(ranges[d]);
    Value step = kb.idx(unroll);
    auto loop = scf::ForOp::create(kb, lower, upper, step, ValueRange{acc});
    OpBuilder::InsertionGuard guard(kb);
    kb.setInsertionPointToStart(loop.getBody());
    loops[d] = loop.getInductionVar();
    Value next = innermost ? emitIterations(kb, args, loops, d, unroll,
                                            loop.getRegionIterArgs()[0])
                           : emitReductionLoops(kb, args, loops, level + 1,
                                                loop.getRegionIterArgs()[0]);
    scf::YieldOp::create(kb, next);
    return loop.getResult(0);
  }

  /// `count` iterations of the innermost reduction loop `d` from its index
  /// in `loops`: every input loaded first, then the body in order.
  Value emitIterations(KernelBuilder &kb, ValueRange args,
                       SmallVector<Value> &loops, unsigned d, int64_t count,
                       Value acc) const {
    Value base = loops[d];
    SmallVector<SmallVector<Value>> inputs(count);
    for (int64_t u = 0; u < count; ++u) {
      loops[d] = u == 0
                     ? base
                     : arith::AddIOp::create(kb, base, kb.idx(u)).getResult();
      for (auto [i, input] : llvm::enumerate(op.getDpsInputOperands()))
        inputs[u].push_back(memref::LoadOp::create(
            kb, args[argOfInput[i]],
            applyMap(kb, op.getMatchingIndexingMap(input), loops)));
    }
    loops[d] = base;
    for (int64_t u = 0; u < count; ++u)
      acc = evaluateBody(kb, op, inputs[u], acc);
    return acc;
  }
};
} // namespace

LogicalResult gpu_lowering::lowerReductionKernel(RewriterBase &rewriter,
                                                 linalg::LinalgOp op,
                                                 const KernelCache &cache) {
  ReductionKernel plan(op);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> args;
  for (Value tensor : plan.tensors)
    args.push_back(
        viewAsRanked(rewriter, loc, toBuffer(rewriter, loc, tensor)));
  unsigned numInputs = args.size();
  Value init = op.getDpsInits()[0];
  if (!plan.initConstant) {
    args.push_back(viewAsRanked(rewriter, loc, toBuffer(rewriter, loc, init)));
    ++numInputs;
  }
  SmallVector<Value> buffers = allocResults(rewriter, op);
  args.push_back(viewAsRanked(rewriter, loc, buffers[0]));
  gpu::GPUFuncOp kernel = cache.getOrCreate(
      rewriter, plan.getName(), ValueRange(args).getTypes(), numInputs, {},
      [&](KernelBuilder &kb, ValueRange kargs, ValueRange) {
        plan.build(kb, kargs);
      });
  Operation *fill = init.getDefiningOp<linalg::FillOp>();
  if (failed(launchAndReplace(rewriter, op, kernel,
                              cache.getGridSize(plan.getParallelPoints()), args,
                              buffers)))
    return failure();
  // The fill only this reduction read.
  if (plan.initConstant && fill && fill->use_empty())
    rewriter.eraseOp(fill);
  return success();
}

/// The input of `op` an elementwise producer can be fused through: a
/// result of an elementwise generic (FusedProducer.h) with this use only,
/// read through a permutation of the loops (each element once: the body is
/// not evaluated again for a broadcast), whose operands the kernels load as
/// they are. Null: none.
static OpOperand *getFusableInput(linalg::LinalgOp op) {
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto producer = input->get().getDefiningOp<linalg::GenericOp>();
    if (!producer || producer->getNumResults() != 1 ||
        !input->get().hasOneUse() || !isElementwiseGeneric(producer) ||
        !op.getMatchingIndexingMap(input).isPermutation())
      continue;
    if (llvm::all_of(producer->getOperands(), [](Value operand) {
          return isKernelScalar(getElementTypeOrSelf(operand.getType()));
        }))
      return input;
  }
  return nullptr;
}

void gpu_lowering::fuseProducersIntoReductions(Operation *root) {
  // Not contractions: the GEMM kernels take those, as they are.
  SmallVector<linalg::LinalgOp> reductions =
      collectHostLinalgOps(root, [](linalg::LinalgOp op) {
        return isReductionKernelCandidate(op) && !isSimpleGemmCandidate(op);
      });
  IRRewriter rewriter(root->getContext());
  for (linalg::LinalgOp op : reductions) {
    while (OpOperand *input = getFusableInput(op)) {
      unsigned operandNumber = input->getOperandNumber();
      if (!isa<linalg::GenericOp>(op)) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::GenericOp> generic =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generic))
          break;
        op = *generic;
        input = &op->getOpOperand(operandNumber);
      }
      if (!linalg::areElementwiseOpsFusable(input))
        break;
      Operation *producer = input->get().getDefiningOp();
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, input);
      if (failed(fused))
        break;
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          return use.getOwner() != producer;
        });
      rewriter.eraseOp(op);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      op = cast<linalg::LinalgOp>(fused->fusedOp);
    }
  }
}
