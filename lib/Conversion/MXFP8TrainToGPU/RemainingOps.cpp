//===- RemainingOps.cpp - tensor ops left to the upstream GPU path -*- C++ -*-//
//
// After the kernel patterns, the GPU pipeline hands what is left to upstream
// passes: one-shot bufferization, then convert-linalg-to-parallel-loops ->
// gpu-map-parallel-loops -> convert-parallel-loops-to-gpu. These forms
// would stay on the host or escape their region there, where every buffer
// is device memory (mxfp8train-gpu-device-buffers reports them); they are
// rewritten first:
//
// - A linalg op without a parallel loop (results of rank 0: a fill of a
//   scalar tensor, an elementwise op on scalars, a reduction to a scalar
//   such as a loss; or results indexed by reduction loops only) would have
//   its loads and stores run on the host. It gets a leading unit parallel
//   dimension: its inits are expanded with a leading unit dimension
//   (tensor.expand_shape) indexed by it, the inputs' maps ignore it, and
//   the results are collapsed back. The loop path then runs it as a
//   kernel of one iteration (a reduction: one thread).
// - A tensor an scf.for yields that does not update the loop's iter_arg in
//   place (a kernel's result: the kernels write new allocations; a linalg
//   op writing into a tensor.empty, e.g. an optimizer update reading a
//   scalar of the loop) is a new buffer, which one-shot bufferization can
//   only return from the loop as a new allocation per iteration. It is
//   copied into the loop's iter_arg (`linalg.copy outs(%iter_arg)`, the
//   last op of the body) so that the loop updates its buffer in place;
//   bufferization copies the initial value first where it is still needed
//   (a function argument, a later use). An scf.while whose condition passes
//   on what the loop carries, in order, gets the same copies in both
//   regions: what the condition passes on into the before region's
//   arguments, what the after region yields into its own.
// - The tensors an scf.if or scf.index_switch yields are copied, in each
//   region, into one destination made before it (a tensor.empty), so that
//   its result is that buffer rather than a region's own.
// - A host tensor.insert or tensor.from_elements (a scalar written into a
//   tensor: a step counter, a few hyper-parameters) becomes device ops:
//   each element a one-element linalg.fill of the scalar (a kernel that
//   takes it as an argument) inserted with tensor.insert_slice (a rank-0
//   destination: the fill itself). No host write, no wait.
// - A host tensor.extract of a tensor of more than one element or of a
//   slice (an element read for a branch) reads a one-element copy of it
//   (tensor.extract_slice + linalg.copy, a kernel), which
//   mxfp8train-gpu-device-buffers then copies to the host (gpu.memcpy of
//   one identity-layout element; upstream's memcpy takes no strided view).
//
// Before these, every linalg op's parallel loops are moved outside its
// reduction loops (interchanged; the same sums), which the loop path would
// otherwise run inside a thread's loop or as a host loop of launches. (The
// pass splits long reductions with few outputs and gives the reductions
// it can their own kernels before this: MXFP8TrainToGPU.cpp,
// ReductionKernels.cpp.)
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

/// Whether `op` is a linalg op on tensors without a parallel loop (its
/// results rank 0, or indexed by reduction loops only), which the loop path
/// would leave on the host.
static bool needsUnitLoop(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.getNumDpsInits() > 0 &&
         op.getNumParallelLoops() == 0;
}

/// Whether a reduction loop of `op` (on tensors) comes before one of its
/// parallel loops. The loop path nests the loops in order: a parallel loop
/// inside a sequential one runs in each thread's loop (or, with the
/// reduction outermost, the reduction becomes a host loop launching a
/// kernel per iteration: column sums over 16384 rows were 16384 launches).
static bool hasReductionOutsideParallel(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return false;
  bool seenReduction = false;
  for (utils::IteratorType type : op.getIteratorTypesArray()) {
    if (linalg::isReductionIterator(type))
      seenReduction = true;
    else if (seenReduction)
      return true;
  }
  return false;
}

/// Interchanges the loops of `op` so that its parallel loops come first and
/// its reduction loops innermost, each group in its order (named ops are
/// generalized first). Each result element still accumulates its
/// reduction in the same order: the same bits.
static LogicalResult moveReductionsInnermost(RewriterBase &rewriter,
                                             linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return op->emitOpError("cannot be generalized to put its parallel "
                             "loops outside its reduction loops");
    generic = *generalized;
  }
  SmallVector<unsigned> order;
  SmallVector<utils::IteratorType> types = generic.getIteratorTypesArray();
  for (bool reduction : {false, true})
    for (auto [d, type] : llvm::enumerate(types))
      if (linalg::isReductionIterator(type) == reduction)
        order.push_back(d);
  if (failed(linalg::interchangeGenericOp(rewriter, generic, order)))
    return generic.emitOpError("cannot interchange its loops");
  return success();
}

/// The reassociation between a tensor of rank `rank` and its expansion
/// with a leading unit dimension.
static SmallVector<ReassociationIndices> getUnitReassociation(int64_t rank) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rank; ++d)
    groups.push_back(d == 0 ? ReassociationIndices{0, 1}
                            : ReassociationIndices{d + 1});
  return groups;
}

/// Rewrites `op` (needsUnitLoop) with a leading unit parallel dimension:
/// every init expanded with a leading unit dimension indexed by it, the
/// inputs' maps ignoring it; named ops other than fill are generalized
/// first.
static LogicalResult addUnitLoop(RewriterBase &rewriter, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto expand = [&](Value init) -> Value {
    auto type = cast<RankedTensorType>(init.getType());
    SmallVector<int64_t> shape = {1};
    llvm::append_range(shape, type.getShape());
    auto unitType = RankedTensorType::get(shape, type.getElementType());
    // The collapsed result of an op rewritten before (a fill's) as it was.
    if (auto collapsed = init.getDefiningOp<tensor::CollapseShapeOp>();
        collapsed && collapsed.getSrcType() == unitType &&
        collapsed.getReassociationIndices() ==
            getUnitReassociation(type.getRank()))
      return collapsed.getSrc();
    return tensor::ExpandShapeOp::create(rewriter, loc, unitType, init,
                                         getUnitReassociation(type.getRank()));
  };
  auto collapse = [&](ValueRange results) {
    SmallVector<Value> collapsed;
    for (Value result : results) {
      int64_t rank = cast<RankedTensorType>(result.getType()).getRank() - 1;
      collapsed.push_back(tensor::CollapseShapeOp::create(
          rewriter, loc, result, getUnitReassociation(rank)));
    }
    return collapsed;
  };
  if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation())) {
    Value unitInit = expand(fill.getDpsInits()[0]);
    auto unitFill =
        linalg::FillOp::create(rewriter, loc, fill.value(), unitInit);
    rewriter.replaceOp(op, collapse(unitFill->getResults()));
    return success();
  }
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return op.emitError("a linalg op without a parallel loop that cannot "
                          "be generalized has no GPU lowering");
    generic = *generalized;
    rewriter.setInsertionPoint(generic);
  }
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineMap> maps;
  for (OpOperand *input : generic.getDpsInputOperands())
    maps.push_back(generic.getMatchingIndexingMap(input).shiftDims(1));
  SmallVector<Value> unitInits;
  SmallVector<Type> unitTypes;
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    AffineMap map = generic.getMatchingIndexingMap(&init).shiftDims(1);
    maps.push_back(map.insertResult(getAffineDimExpr(0, ctx), 0));
    unitInits.push_back(expand(init.get()));
    unitTypes.push_back(unitInits.back().getType());
  }
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel};
  llvm::append_range(iterators, generic.getIteratorTypesArray());
  auto unit = linalg::GenericOp::create(rewriter, loc, unitTypes,
                                        generic.getDpsInputs(), unitInits, maps,
                                        iterators);
  // linalg.index of loop d is now the index of loop d + 1.
  generic.getRegion().walk([&](linalg::IndexOp index) {
    // (Not those of a linalg op nested in the body: its own loops.)
    if (index->getParentOfType<linalg::LinalgOp>() == generic)
      rewriter.modifyOpInPlace(index,
                               [&] { index.setDim(index.getDim() + 1); });
  });
  rewriter.inlineRegionBefore(generic.getRegion(), unit.getRegion(),
                              unit.getRegion().begin());
  rewriter.replaceOp(generic, collapse(unit->getResults()));
  return success();
}

/// Whether `value`, yielded by `loop`, updates the loop's iter_arg
/// `iterArg` in place: a chain of destination-style ops (linalg ops,
/// tensor.insert_slice), nested loops and casts whose destination leads
/// back to it, with no read of `iterArg` after the chain's first write
/// (bufferization would put that write in a new buffer). One-shot
/// bufferization can then keep the loop's buffer; any other value (a
/// kernel's new buffer, a linalg op writing into a tensor.empty) would be
/// a new allocation per iteration.
static bool updatesInPlace(Value value, BlockArgument iterArg) {
  Block *body = iterArg.getOwner();
  Operation *firstWrite = nullptr;
  while (value != iterArg) {
    auto result = dyn_cast<OpResult>(value);
    if (!result)
      return false;
    Operation *def = result.getOwner();
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(def)) {
      value = dps.getTiedOpOperand(result)->get();
    } else if (auto nested = dyn_cast<scf::ForOp>(def)) {
      value = nested.getTiedLoopInit(result)->get();
    } else if (isa<tensor::CastOp>(def)) {
      value = def->getOperand(0);
    } else {
      return false;
    }
    firstWrite = def;
  }
  if (!firstWrite)
    return true;
  Operation *writeInBody = body->findAncestorOpInBlock(*firstWrite);
  if (!writeInBody)
    return false;
  // The first write may read the iter_arg itself only element by element
  // (an input with the map of the init it writes); every other read must
  // come before it.
  auto readsInPlace = [&](Operation *user) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    if (user != firstWrite || !linalgOp)
      return user == firstWrite && !linalgOp;
    for (OpOperand *input : linalgOp.getDpsInputOperands()) {
      if (input->get() != iterArg)
        continue;
      OpOperand *init =
          llvm::find_if(linalgOp.getDpsInitsMutable(),
                        [&](OpOperand &o) { return o.get() == iterArg; });
      if (init == linalgOp.getDpsInitsMutable().end() ||
          linalgOp.getMatchingIndexingMap(input) !=
              linalgOp.getMatchingIndexingMap(init))
        return false;
    }
    return true;
  };
  return llvm::all_of(iterArg.getUsers(), [&](Operation *user) {
    Operation *inBody = body->findAncestorOpInBlock(*user);
    return readsInPlace(user) || (inBody && inBody != writeInBody &&
                                  inBody->isBeforeInBlock(writeInBody));
  });
}

/// The root of `value` through reshapes and casts (views bufferization
/// keeps in place).
static Value getViewSource(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::CastOp>(
            def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// Copies the tensors `terminator` passes on (`passed[i]`, which the next
/// iteration receives as `targets[i]`, a block argument of the region
/// `terminator` ends) into those arguments where they do not update them
/// in place. A passed value that is (a view of) another argument of the
/// block (iter_args exchanged) is first copied into a new tensor, so that
/// no copy into an argument overwrites what another still reads.
static void copyIntoArguments(RewriterBase &rewriter, Operation *terminator,
                              MutableArrayRef<OpOperand> passed,
                              ArrayRef<BlockArgument> targets) {
  rewriter.setInsertionPoint(terminator);
  SmallVector<std::pair<OpOperand *, BlockArgument>> toCopy;
  // (Dynamic shapes have no GPU lowering: reported before this pass in the
  // pipeline, left alone here.)
  for (auto [operand, target] : llvm::zip_equal(passed, targets)) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (type && type.hasStaticShape() && !updatesInPlace(operand.get(), target))
      toCopy.push_back({&operand, target});
  }
  SmallVector<Value> sources;
  for (auto [operand, target] : toCopy) {
    Value source = operand->get();
    auto root = dyn_cast<BlockArgument>(getViewSource(source));
    if (root && root.getOwner() == target.getOwner() && root != target) {
      // A new buffer holding a copy (HostInterface.cpp's idiom).
      source = bufferization::AllocTensorOp::create(
          rewriter, terminator->getLoc(),
          cast<RankedTensorType>(source.getType()), ValueRange{}, source);
    }
    sources.push_back(source);
  }
  for (auto [entry, source] : llvm::zip_equal(toCopy, sources)) {
    auto [operand, target] = entry;
    auto copy =
        linalg::CopyOp::create(rewriter, terminator->getLoc(), source, target);
    rewriter.modifyOpInPlace(terminator,
                             [&] { operand->set(copy->getResult(0)); });
  }
}

/// Copies what `loop` yields into its iter_args where it does not update
/// them in place.
static void copyYieldsIntoIterArgs(RewriterBase &rewriter, scf::ForOp loop) {
  Operation *yield = loop.getBody()->getTerminator();
  copyIntoArguments(rewriter, yield, yield->getOpOperands(),
                    loop.getRegionIterArgs());
}

/// An scf.while whose condition passes on as many values as the loop
/// carries, each of the type of the argument it comes from, carries its
/// tensors as an scf.for does: what the condition passes on is copied into
/// the before region's arguments and what the after region yields into
/// its own arguments, where they do not update them in place. Bufferization
/// then keeps one buffer per carried tensor (in the condition's order)
/// rather than one per iteration. Other loops are left as they are (their
/// buffers are reported by mxfp8train-gpu-device-buffers).
static void copyWhileCarriedTensors(RewriterBase &rewriter, scf::WhileOp loop) {
  scf::ConditionOp condition = loop.getConditionOp();
  Block *before = loop.getBeforeBody();
  Block *after = loop.getAfterBody();
  if (condition.getArgs().size() != before->getNumArguments() ||
      condition.getArgs().getTypes() != before->getArgumentTypes())
    return;
  copyIntoArguments(rewriter, condition,
                    condition->getOpOperands().drop_front(),
                    before->getArguments());
  Operation *yield = loop.getYieldOp();
  copyIntoArguments(rewriter, yield, yield->getOpOperands(),
                    after->getArguments());
}

/// Rewrites the host tensor.extract `extract` of a tensor of more than one
/// element, or of a slice (a strided view once bufferized), to read a
/// one-element copy of that element.
static void extractFromCopy(RewriterBase &rewriter, tensor::ExtractOp extract) {
  RankedTensorType type = extract.getTensor().getType();
  // A slice, also behind reshapes and casts.
  bool isSlice = isa_and_present<tensor::ExtractSliceOp>(
      getViewSource(extract.getTensor()).getDefiningOp());
  if (!type.hasStaticShape() || (type.getNumElements() <= 1 && !isSlice))
    return;
  Location loc = extract.getLoc();
  int64_t rank = type.getRank();
  rewriter.setInsertionPoint(extract);
  SmallVector<OpFoldResult> offsets(extract.getIndices());
  SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
  Value slice = tensor::ExtractSliceOp::create(
      rewriter, loc, extract.getTensor(), offsets, ones, ones);
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, SmallVector<int64_t>(rank, 1), type.getElementType());
  Value copy =
      linalg::CopyOp::create(rewriter, loc, slice, empty)->getResult(0);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  rewriter.replaceOpWithNewOp<tensor::ExtractOp>(
      extract, copy, SmallVector<Value>(rank, zero));
}

SmallVector<linalg::LinalgOp> gpu_lowering::collectHostLinalgOps(
    Operation *root, llvm::function_ref<bool(linalg::LinalgOp)> pred) {
  SmallVector<linalg::LinalgOp> ops;
  root->walk([&](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        linalgOp && pred(linalgOp) && !op->getParentOfType<linalg::LinalgOp>())
      ops.push_back(linalgOp);
    return WalkResult::advance();
  });
  return ops;
}

/// `dest` with the element at `indices` set to `scalar`, as device ops: a
/// one-element linalg.fill inserted with tensor.insert_slice (rank 0: a
/// fill of `dest`).
static Value insertScalar(RewriterBase &rewriter, Location loc, Value scalar,
                          Value dest, ArrayRef<OpFoldResult> indices) {
  auto type = cast<RankedTensorType>(dest.getType());
  int64_t rank = type.getRank();
  if (rank == 0)
    return linalg::FillOp::create(rewriter, loc, scalar, dest).getResult(0);
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, SmallVector<int64_t>(rank, 1), type.getElementType());
  Value one = linalg::FillOp::create(rewriter, loc, scalar, empty).getResult(0);
  SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
  return tensor::InsertSliceOp::create(rewriter, loc, one, dest, indices, ones,
                                       ones);
}

/// Host-built tensors (tensor.from_elements) of at most this many elements
/// become device fills: each element is two launches and a chain of
/// insert_slice ops that one-shot bufferization analyses in quadratic time
/// (128 elements: 3.8 s to compile, 256: 52 s).
constexpr int64_t kMaxHostElements = 64;

/// Rewrites the host element writes under `root` (tensor.insert,
/// tensor.from_elements of static shape outside linalg and tensor.generate
/// bodies) with insertScalar; fails at a tensor.from_elements of more than
/// kMaxHostElements elements.
static LogicalResult rewriteHostWrites(RewriterBase &rewriter,
                                       Operation *root) {
  SmallVector<Operation *> writes;
  root->walk([&](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    if (isa<tensor::InsertOp, tensor::FromElementsOp>(op) &&
        !op->getParentOfType<linalg::LinalgOp>() &&
        !op->getParentOfType<tensor::GenerateOp>() &&
        cast<RankedTensorType>(op->getResult(0).getType()).hasStaticShape())
      writes.push_back(op);
    return WalkResult::advance();
  });
  for (Operation *op : writes) {
    auto built = dyn_cast<tensor::FromElementsOp>(op);
    if (built && built.getType().getNumElements() > kMaxHostElements)
      return op->emitError()
             << "'tensor.from_elements' of " << built.getType().getNumElements()
             << " elements on the host: the GPU pipeline writes host "
                "elements one kernel each, up to "
             << kMaxHostElements
             << "; compute the tensor with a linalg op (a scalar in a "
                "linalg.generic body is passed to its kernel), or lower "
                "this function with mxfp8train-lower-to-cpu";
  }
  for (Operation *op : writes) {
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
      SmallVector<OpFoldResult> indices(insert.getIndices());
      rewriter.replaceOp(op, insertScalar(rewriter, loc, insert.getScalar(),
                                          insert.getDest(), indices));
      continue;
    }
    auto fromElements = cast<tensor::FromElementsOp>(op);
    RankedTensorType type = fromElements.getType();
    Value result = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           type.getElementType());
    SmallVector<int64_t> strides = computeSuffixProduct(type.getShape());
    for (auto [k, element] : llvm::enumerate(fromElements.getElements())) {
      SmallVector<OpFoldResult> indices;
      for (int64_t stride : strides)
        indices.push_back(rewriter.getIndexAttr(
            (int64_t(k) / stride) % type.getDimSize(indices.size())));
      result = insertScalar(rewriter, loc, element, result, indices);
    }
    rewriter.replaceOp(op, result);
  }
  return success();
}

LogicalResult gpu_lowering::prepareRemainingOps(Operation *root) {
  IRRewriter rewriter(root->getContext());
  if (failed(rewriteHostWrites(rewriter, root)))
    return failure();
  // Host element reads of larger tensors: a one-element copy first.
  SmallVector<tensor::ExtractOp> extracts;
  root->walk([&](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    if (auto extract = dyn_cast<tensor::ExtractOp>(op);
        extract && !op->getParentOfType<linalg::LinalgOp>() &&
        !op->getParentOfType<tensor::GenerateOp>())
      extracts.push_back(extract);
    return WalkResult::advance();
  });
  for (tensor::ExtractOp extract : extracts)
    extractFromCopy(rewriter, extract);
  // Parallel loops outside reduction loops (the split's partial results
  // have their reduction first).
  for (linalg::LinalgOp op :
       collectHostLinalgOps(root, hasReductionOutsideParallel))
    if (failed(moveReductionsInnermost(rewriter, op)))
      return failure();
  // Host code only: kernel bodies (gpu.module) carry no tensors.
  SmallVector<scf::ForOp> loops;
  SmallVector<scf::WhileOp> whileLoops;
  SmallVector<Operation *> branches;
  root->walk([&](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    if (auto loop = dyn_cast<scf::ForOp>(op))
      loops.push_back(loop);
    else if (auto loop = dyn_cast<scf::WhileOp>(op))
      whileLoops.push_back(loop);
    else if (isa<scf::IfOp, scf::IndexSwitchOp>(op))
      branches.push_back(op);
    return WalkResult::advance();
  });
  for (scf::ForOp loop : loops)
    copyYieldsIntoIterArgs(rewriter, loop);
  for (scf::WhileOp loop : whileLoops)
    copyWhileCarriedTensors(rewriter, loop);
  // The tensor results of an scf.if or scf.index_switch: every region
  // copies what it yields into one destination made before the op, so that
  // bufferization gives the result that destination's buffer rather than a
  // region's own.
  for (Operation *branch : branches) {
    for (auto [i, result] : llvm::enumerate(branch->getResults())) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type || !type.hasStaticShape())
        continue;
      rewriter.setInsertionPoint(branch);
      Value dest = tensor::EmptyOp::create(
          rewriter, branch->getLoc(), type.getShape(), type.getElementType());
      for (Region &region : branch->getRegions()) {
        if (region.empty())
          continue;
        auto yield = cast<scf::YieldOp>(region.front().getTerminator());
        rewriter.setInsertionPoint(yield);
        OpOperand &yielded = yield->getOpOperand(i);
        auto copy = linalg::CopyOp::create(rewriter, yield.getLoc(),
                                           yielded.get(), dest);
        rewriter.modifyOpInPlace(yield,
                                 [&] { yielded.set(copy->getResult(0)); });
      }
    }
  }
  // Then the ops without a parallel loop (those with rank-0 results among
  // them), the copies above included.
  for (linalg::LinalgOp op : collectHostLinalgOps(root, needsUnitLoop))
    if (failed(addUnitLoop(rewriter, op)))
      return failure();
  return success();
}
