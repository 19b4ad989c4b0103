//===- FusedProducer.cpp - elementwise producers in kernels ----*- C++ -*-===//
//
// KernelInput (FusedProducer.h): the decision to fuse an elementwise
// `linalg.generic` into the quantizes that read its results, and the
// evaluation of its body on the vectors a kernel loads.
//
//===----------------------------------------------------------------------===//

#include "FusedProducer.h"
#include "GroupTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

/// Tensor element types the vectorized kernels load and store: not i1,
/// whose vectors are packed bits in memory while every scalar access takes
/// a byte (i1 values inside a body are fine).
static bool isMemoryScalar(Type type) {
  return isa<FloatType>(type) || (isa<IntegerType>(type) && !type.isInteger(1));
}

/// Whether `value`, used inside `body`, is defined there or is a constant.
static bool isAvailableIn(Value value, Block &body) {
  return value.getParentBlock() == &body || matchPattern(value, m_Constant());
}

bool gpu_lowering::isKernelBody(Block &body, bool elementwiseOnly) {
  for (Operation &op : body.without_terminator()) {
    if (!isa_and_present<arith::ArithDialect, math::MathDialect>(
            op.getDialect()) ||
        op.getNumRegions() != 0 || !isMemoryEffectFree(&op) ||
        (elementwiseOnly && !isa<arith::ConstantOp>(op) &&
         !op.hasTrait<OpTrait::Elementwise>()))
      return false;
    for (Value operand : op.getOperands())
      if (!isAvailableIn(operand, body))
        return false;
    for (Type type : op.getResultTypes())
      if (!isa<IntegerType, FloatType>(type))
        return false;
  }
  return llvm::all_of(body.getTerminator()->getOperands(),
                      [&](Value v) { return isAvailableIn(v, body); });
}

static int64_t getTensorBytes(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

bool gpu_lowering::isElementwiseGeneric(linalg::GenericOp generic) {
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic->getNumResults() == 0 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  for (AffineMap map : generic.getIndexingMapsArray())
    if (!map.isIdentity())
      return false;
  for (Value operand : generic->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape() ||
        !isMemoryScalar(type.getElementType()))
      return false;
  }
  Block &body = generic.getRegion().front();
  for (BlockArgument out :
       body.getArguments().drop_front(generic.getNumDpsInputs()))
    if (!out.use_empty())
      return false;
  return isKernelBody(body, /*elementwiseOnly=*/true);
}

bool gpu_lowering::isFusableProducer(linalg::GenericOp generic) {
  if (!isElementwiseGeneric(generic))
    return false;
  // Every user a quantize, and fusing must not read more than the separate
  // kernel moves: each quantize reads all the inputs, against the inputs
  // read once, each result written once and read by each of its users.
  int64_t inputBytes = 0, unfusedBytes = 0, readers = 0;
  for (Value input : generic.getDpsInputs())
    inputBytes += getTensorBytes(input);
  unfusedBytes = inputBytes;
  for (Value result : generic->getResults()) {
    int64_t users = 0;
    for (Operation *user : result.getUsers()) {
      if (!isa<QuantizeOp, QuantizeDualOp>(user))
        return false;
      ++users;
    }
    readers += users;
    unfusedBytes += getTensorBytes(result) * (1 + users);
  }
  return readers * inputBytes <= unfusedBytes;
}

bool gpu_lowering::isFusablePad(PadTokenGroupsOp pad) {
  if (!pad || pad.getAlignment() % kBlockSize != 0)
    return false;
  RankedTensorType in = pad.getInput().getType();
  RankedTensorType out = pad.getResult().getType();
  if (!in.hasStaticShape() || !out.hasStaticShape() ||
      !pad.getOffs().getType().hasStaticShape() || in.getRank() != 2 ||
      in.getDimSize(0) == 0 || in.getDimSize(1) == 0 ||
      pad.getOffs().getType().getDimSize(0) == 0 || pad.getResult().use_empty())
    return false;
  return llvm::all_of(pad.getResult().getUsers(), [](Operation *user) {
    auto quantize = dyn_cast<QuantizeOp>(user);
    return quantize && !quantize.isFloat8() && quantize.getAxis() == 0;
  });
}

KernelInput KernelInput::get(Value tensor, bool fuse, bool fusePad) {
  if (auto pad = tensor.getDefiningOp<PadTokenGroupsOp>();
      fusePad && pad && tensor == pad.getResult() && isFusablePad(pad)) {
    // A producer that also feeds a pad is not fusable (isFusableProducer),
    // so the pad's input is a tensor.
    KernelInput input = get(pad.getInput(), fuse);
    input.pad = pad;
    input.tensors.push_back(pad.getOffs());
    return input;
  }
  KernelInput input;
  auto generic = tensor.getDefiningOp<linalg::GenericOp>();
  if (!fuse || !isFusableProducer(generic)) {
    input.tensors.push_back(tensor);
    return input;
  }
  input.producer = generic;
  input.results = {cast<OpResult>(tensor).getResultNumber()};
  for (Value operand : generic.getDpsInputs()) {
    auto *it = llvm::find(input.tensors, operand);
    input.argOfInput.push_back(it - input.tensors.begin());
    if (it == input.tensors.end())
      input.tensors.push_back(operand);
  }
  return input;
}

KernelInput KernelInput::getSiblings(ArrayRef<Value> tensors, bool fuse) {
  assert(!tensors.empty() && "at least one tensor");
  KernelInput input = get(tensors.front(), fuse);
  assert((input.producer || tensors.size() == 1) &&
         "several tensors are read together only as results of a fused "
         "producer");
  for (Value tensor : tensors.drop_front()) {
    auto result = cast<OpResult>(tensor);
    assert(result.getOwner() == input.producer.getOperation() &&
           "sibling tensors are results of one producer");
    input.results.push_back(result.getResultNumber());
  }
  return input;
}

std::string gpu_lowering::getElementwiseBodyHash(linalg::LinalgOp generic,
                                                 StringRef extra,
                                                 unsigned bits) {
  // The body in a canonical text: each op's name, attributes, operands (a
  // body argument, an earlier op's result, or a constant's value) and
  // result types, then the yielded values.
  std::string text;
  llvm::raw_string_ostream os(text);
  Block &body = *generic.getBlock();
  llvm::DenseMap<Value, unsigned> ids;
  for (BlockArgument arg : body.getArguments()) {
    ids[arg] = ids.size();
    os << arg.getType() << ";";
  }
  auto printValue = [&](Value v) {
    auto it = ids.find(v);
    if (it != ids.end()) {
      os << "%" << it->second;
      return;
    }
    Attribute attr;
    (void)matchPattern(v, m_Constant(&attr));
    os << attr;
  };
  for (Operation &op : body.without_terminator()) {
    os << op.getName() << "(";
    for (Value operand : op.getOperands()) {
      printValue(operand);
      os << ",";
    }
    os << ")" << op.getAttrDictionary() << op.getPropertiesAsAttribute();
    for (Value result : op.getResults()) {
      ids[result] = ids.size();
      os << result.getType() << ";";
    }
  }
  os << "yield ";
  for (Value yielded : body.getTerminator()->getOperands()) {
    printValue(yielded);
    os << ",";
  }
  os << extra;
  uint64_t hash = llvm::xxh3_64bits(text);
  if (bits == 64)
    return llvm::formatv("{0:x-16}", hash).str();
  return llvm::formatv("{0:x-8}", static_cast<uint32_t>(hash)).str();
}

std::string gpu_lowering::getInputAliasing(ArrayRef<unsigned> argOfInput) {
  bool own = llvm::all_of(llvm::enumerate(argOfInput), [](auto indexed) {
    return indexed.value() == indexed.index();
  });
  if (own)
    return "";
  std::string reads = " reads ";
  llvm::interleave(
      argOfInput, [&](unsigned a) { reads += std::to_string(a); },
      [&] { reads += ","; });
  return reads;
}

std::string KernelInput::getNameTag() const {
  std::string tag;
  if (producer) {
    std::string read = "result ";
    llvm::interleave(
        results, [&](unsigned r) { read += std::to_string(r); },
        [&] { read += ","; });
    read += getInputAliasing(argOfInput);
    tag = "_ew" + getElementwiseBodyHash(producer, read);
  }
  if (pad)
    tag +=
        llvm::formatv("_pad{0}a{1}t{2}", pad.getOffs().getType().getDimSize(0),
                      pad.getAlignment(), getPadTokens())
            .str();
  return tag;
}

SmallVector<Value> gpu_lowering::evaluateElementwiseBody(
    KernelBuilder &kb, linalg::GenericOp generic, ValueRange inputs) {
  ArrayRef<int64_t> shape = cast<VectorType>(inputs[0].getType()).getShape();
  auto vectorOf = [&](Type element) { return VectorType::get(shape, element); };
  Block &body = generic.getRegion().front();
  IRMapping map;
  for (auto [i, input] : llvm::enumerate(inputs))
    map.map(body.getArgument(i), input);
  // Constants, in the body or captured from outside it, become splats.
  auto mapped = [&](Value value) -> Value {
    if (Value v = map.lookupOrNull(value))
      return v;
    Attribute attr;
    (void)matchPattern(value, m_Constant(&attr));
    Value splat = arith::ConstantOp::create(
        kb, DenseElementsAttr::get(vectorOf(value.getType()), attr));
    map.map(value, splat);
    return splat;
  };
  for (Operation &op : body.without_terminator()) {
    if (isa<arith::ConstantOp>(op)) {
      mapped(op.getResult(0));
      continue;
    }
    for (Value operand : op.getOperands())
      mapped(operand);
    // The same op, lane by lane: elementwise ops take vectors of their
    // scalar operand types.
    Operation *clone = kb.clone(op, map);
    for (OpResult result : clone->getResults())
      result.setType(vectorOf(result.getType()));
  }
  SmallVector<Value> results;
  for (Value yielded : body.getTerminator()->getOperands())
    results.push_back(mapped(yielded));
  return results;
}

SmallVector<Value> KernelInput::loadOperands(KernelBuilder &kb, VectorType type,
                                             ValueRange args,
                                             ValueRange indices,
                                             int64_t align) const {
  if (!producer)
    return {kb.load(type, args[0], indices, align)};
  int64_t inBits = type.getElementTypeBitWidth();
  SmallVector<Value> inputs;
  for (auto [i, operand] : llvm::enumerate(producer.getDpsInputs())) {
    Type element = cast<RankedTensorType>(operand.getType()).getElementType();
    // The same element alignment in this input's element size.
    int64_t bits = element.getIntOrFloatBitWidth();
    int64_t inputAlign =
        std::clamp<int64_t>(align * bits / inBits, 1, int64_t{16});
    inputs.push_back(kb.load(VectorType::get(type.getShape(), element),
                             args[argOfInput[i]], indices, inputAlign));
  }
  return inputs;
}

SmallVector<Value> KernelInput::evaluate(KernelBuilder &kb,
                                         ValueRange operands) const {
  if (!producer)
    return {operands.front()};
  SmallVector<Value> all = evaluateElementwiseBody(kb, producer, operands);
  return llvm::map_to_vector(results, [&](unsigned r) { return all[r]; });
}

Value KernelInput::load(KernelBuilder &kb, VectorType type, ValueRange args,
                        ValueRange indices, int64_t align) const {
  assert(getNumResults() == 1 && "load() reads one result; loadEach several");
  return evaluate(kb, loadOperands(kb, type, args, indices, align)).front();
}

SmallVector<Value> KernelInput::loadEach(KernelBuilder &kb, VectorType type,
                                         ValueRange args, ValueRange indices,
                                         int64_t align) const {
  return evaluate(kb, loadOperands(kb, type, args, indices, align));
}

SmallVector<Value> KernelInput::loadAll(KernelBuilder &kb, VectorType type,
                                        ValueRange args,
                                        ArrayRef<SmallVector<Value>> indices,
                                        int64_t align) const {
  SmallVector<SmallVector<Value>> loaded;
  for (ArrayRef<Value> at : indices)
    loaded.push_back(loadOperands(kb, type, args, at, align));
  assert(getNumResults() == 1 && "loadAll() reads one result");
  return llvm::map_to_vector(loaded, [&](ArrayRef<Value> operands) {
    return evaluate(kb, operands).front();
  });
}

SmallVector<Value> KernelInput::getViews(RewriterBase &rewriter, Location loc,
                                         ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> source = llvm::to_vector(shape);
  if (pad)
    source[source.size() - 2] = getPadTokens();
  SmallVector<Value> views;
  for (Value tensor : tensors) {
    Value buffer = toBuffer(rewriter, loc, tensor);
    views.push_back(pad && tensor == pad.getOffs()
                        ? buffer
                        : collapseTo(rewriter, loc, buffer, source));
  }
  return views;
}

int64_t KernelInput::getPadTokens() const {
  return pad.getInput().getType().getDimSize(0);
}

KernelInput::PaddedBlock KernelInput::mapPaddedBlock(KernelBuilder &kb,
                                                     ValueRange args,
                                                     Value row0) const {
  int64_t groups = pad.getOffs().getType().getDimSize(0);
  GroupTableSpec spec{groups, getPadTokens(), /*unit=*/1,
                      int64_t(pad.getAlignment())};
  Value offs = args.back();
  Value key = arith::IndexCastOp::create(kb, kb.getI32Type(), row0);
  // (start, padStart, src, count) over the groups: the block lies in group
  // g's padded rows [padStart, padEnd) for at most one g.
  Value zero = kb.i32(0);
  auto walk = scf::ForOp::create(kb, kb.idx(0), kb.idx(groups), kb.idx(1),
                                 ValueRange{zero, zero, zero, zero});
  {
    OpBuilder::InsertionGuard guard(kb);
    kb.setInsertionPointToStart(walk.getBody());
    ValueRange it = walk.getRegionIterArgs();
    Value start = it[0], padStart = it[1];
    Value raw = memref::LoadOp::create(kb, offs, walk.getInductionVar());
    GroupBounds b = emitGroupBounds(kb, spec, raw, start, padStart);
    Value hit = arith::AndIOp::create(
        kb, arith::CmpIOp::create(kb, arith::CmpIPredicate::ule, padStart, key),
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, key, b.padEnd));
    // Tokens [src, end) of the group from the block's first row: none
    // where the block lies in the group's padding (alignment 128: up to 3
    // whole blocks of zeros).
    Value src = arith::AddIOp::create(kb, start,
                                      arith::SubIOp::create(kb, key, padStart));
    Value count = arith::MinSIOp::create(
        kb,
        arith::MaxSIOp::create(kb, arith::SubIOp::create(kb, b.end, src), zero),
        kb.i32(kBlockSize));
    scf::YieldOp::create(
        kb, ValueRange{b.end, b.padEnd,
                       arith::SelectOp::create(kb, hit, src, it[2]),
                       arith::SelectOp::create(kb, hit, count, it[3])});
  }
  // A block past every group keeps count 0.
  auto toIndex = [&](Value v) {
    return arith::IndexCastUIOp::create(kb, kb.getIndexType(), v).getResult();
  };
  return {toIndex(walk.getResult(2)), toIndex(walk.getResult(3))};
}
