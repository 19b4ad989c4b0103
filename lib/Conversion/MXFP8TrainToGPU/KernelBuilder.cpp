//===- KernelBuilder.cpp - writing CUDA kernels as IR -----------*- C++ -*-===//
//
// Implements KernelBuilder.h: the kernel-body vocabulary (grid-stride loops,
// aligned vector memory accesses, hardware fp8 conversions) and the host
// launch sequence.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

#include <numeric>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

//===----------------------------------------------------------------------===//
// KernelBuilder
//===----------------------------------------------------------------------===//

Value KernelBuilder::idx(int64_t v) {
  return arith::ConstantIndexOp::create(*this, v);
}

Value KernelBuilder::i32(int64_t v) {
  return arith::ConstantIntOp::create(*this, v, 32);
}

Value KernelBuilder::splatBits(VectorType type, uint64_t bitsValue) {
  Type elem = type.getElementType();
  unsigned width = elem.getIntOrFloatBitWidth();
  // The low `width` bits of `bitsValue` (callers pass ~0 for all ones).
  APInt bitsInt(width, bitsValue, /*isSigned=*/false, /*implicitTrunc=*/true);
  TypedAttr scalar;
  if (auto floatType = dyn_cast<FloatType>(elem))
    scalar = getFloatAttr(floatType,
                          APFloat(floatType.getFloatSemantics(), bitsInt));
  else
    scalar = getIntegerAttr(elem, bitsInt);
  return arith::ConstantOp::create(*this, DenseElementsAttr::get(type, scalar));
}

Value KernelBuilder::globalThreadId() {
  Value tid = gpu::ThreadIdOp::create(*this, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(*this, gpu::Dimension::x);
  Value base = arith::MulIOp::create(*this, bid, idx(kThreadsPerCTA));
  return arith::AddIOp::create(*this, base, tid);
}

Value KernelBuilder::gridThreads() {
  Value grid = gpu::GridDimOp::create(*this, gpu::Dimension::x);
  return arith::MulIOp::create(*this, grid, idx(kThreadsPerCTA));
}

void KernelBuilder::gridStrideLoop(Value count,
                                   function_ref<void(Value)> body) {
  forLoop(globalThreadId(), count, gridThreads(), body);
}

void KernelBuilder::forLoop(Value start, Value count, Value step,
                            function_ref<void(Value)> body) {
  auto loop = scf::ForOp::create(*this, start, count, step);
  OpBuilder::InsertionGuard guard(*this);
  setInsertionPoint(loop.getBody()->getTerminator());
  body(loop.getInductionVar());
}

void KernelBuilder::ifThen(Value cond, function_ref<void()> then) {
  auto ifOp = scf::IfOp::create(*this, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(*this);
  setInsertionPoint(ifOp.thenBlock()->getTerminator());
  then();
}

Value KernelBuilder::load(VectorType type, Value memref, ValueRange indices,
                          int64_t align) {
  return vector::LoadOp::create(*this, type, memref, indices,
                                /*nontemporal=*/false, llvm::Align(align));
}

void KernelBuilder::store(Value vector, Value memref, ValueRange indices,
                          int64_t align) {
  vector::StoreOp::create(*this, vector, memref, indices,
                          /*nontemporal=*/false, llvm::Align(align));
}

Value KernelBuilder::bitcastTo(Type type, Value v) {
  if (v.getType() == type)
    return v;
  auto from = dyn_cast<VectorType>(v.getType());
  auto to = dyn_cast<VectorType>(type);
  if (from && to && from.getNumElements() != to.getNumElements())
    return vector::BitCastOp::create(*this, to, v);
  return arith::BitcastOp::create(*this, type, v);
}

Value KernelBuilder::absBits(Value v) {
  auto type = cast<VectorType>(v.getType());
  unsigned width = type.getElementTypeBitWidth();
  auto intType = VectorType::get(type.getShape(), getIntegerType(width));
  Value mask = splatBits(intType, (uint64_t(1) << (width - 1)) - 1);
  Value asInt = bitcastTo(intType, v);
  return bitcastTo(type, arith::AndIOp::create(*this, asInt, mask));
}

Value KernelBuilder::reduceMax(Value v) {
  return vector::ReductionOp::create(*this, vector::CombiningKind::MAXIMUMF, v);
}

Value KernelBuilder::convertToF8(Value f32Vector, Type f8Type) {
  auto type = cast<VectorType>(f32Vector.getType());
  int64_t n = type.getNumElements();
  auto convertPair = [&](Value hi, Value lo) -> Value {
    // PTX cvt.rn.satfinite.{e4m3,e5m2}x2.f32 d, a, b: `a` goes to the upper
    // byte of d, `b` to the lower one (the lower address after the bitcast).
    return NVVM::ConvertF32x2ToF8x2Op::create(
        *this, getI16Type(), hi, lo, NVVM::FPRoundingMode::RN,
        NVVM::SaturationMode::SATFINITE, /*relu=*/false, f8Type);
  };
  if (n == 1) {
    Value y = vector::ExtractOp::create(*this, f32Vector, 0);
    Value zero = arith::ConstantOp::create(*this, getF32FloatAttr(0.0f));
    Value pair = convertPair(zero, y);
    Value byte = arith::TruncIOp::create(*this, getI8Type(), pair);
    return vector::FromElementsOp::create(
        *this, VectorType::get({1}, getI8Type()), ValueRange{byte});
  }
  SmallVector<Value> pairs;
  for (int64_t k = 0; k < n; k += 2) {
    Value lo = vector::ExtractOp::create(*this, f32Vector, k);
    Value hi = vector::ExtractOp::create(*this, f32Vector, k + 1);
    pairs.push_back(convertPair(hi, lo));
  }
  Value packed = vector::FromElementsOp::create(
      *this, VectorType::get({n / 2}, getI16Type()), pairs);
  return bitcastTo(VectorType::get({n}, getI8Type()), packed);
}

Value KernelBuilder::convertFromF8(Value bytes, Type f8Type) {
  auto type = cast<VectorType>(bytes.getType());
  int64_t n = type.getNumElements();
  auto pairType = VectorType::get({2}, getI8Type());
  auto halfPairType = VectorType::get({2}, getF16Type());
  SmallVector<Value> halves;
  for (int64_t k = 0; k < n; k += 2) {
    Value lo = vector::ExtractOp::create(*this, bytes, k);
    Value hi = k + 1 < n
                   ? vector::ExtractOp::create(*this, bytes, k + 1).getResult()
                   : arith::ConstantIntOp::create(*this, 0, 8).getResult();
    Value pair =
        vector::FromElementsOp::create(*this, pairType, ValueRange{lo, hi});
    // PTX cvt.rn.f16x2.{e4m3,e5m2}x2: exact (every fp8 value, subnormals
    // included, is an f16 value).
    Value h = NVVM::ConvertF8x2ToF16x2Op::create(*this, halfPairType, pair,
                                                 /*relu=*/false, f8Type);
    for (int64_t j = 0; j < 2 && k + j < n; ++j)
      halves.push_back(vector::ExtractOp::create(*this, h, j));
  }
  Value half = vector::FromElementsOp::create(
      *this, VectorType::get({n}, getF16Type()), halves);
  return arith::ExtFOp::create(*this, VectorType::get({n}, getF32Type()), half);
}

Value KernelBuilder::placeE4M3(Value bytes) {
  // Each 32-bit word b3 b2 b1 b0 gives the pairs (b0, b1) and (b2, b3) by
  // one `prmt` each: x = b1 << 24 | b0 << 8 (every byte in the high byte of
  // its bf16 half, the sign already at bit 15). The magnitude bits shifted
  // right by 4 read as the bf16 of 2^-120 times the e4m3 value (normal or
  // subnormal alike).
  int64_t n = cast<VectorType>(bytes.getType()).getNumElements();
  Type word32 = getI32Type();
  auto words = VectorType::get({n / 4}, word32);
  auto pairs = VectorType::get({n / 2}, word32);
  Value w = bitcastTo(words, bytes);
  Value zero = i32(0);
  // Selector nibbles from byte 3 down to byte 0; index 4 is a zero byte.
  Value selectors[2] = {i32(0x1404), i32(0x3424)};
  SmallVector<Value> xs;
  for (int64_t i = 0; i < n / 4; ++i) {
    Value word = vector::ExtractOp::create(*this, w, i);
    for (Value sel : selectors)
      xs.push_back(NVVM::PermuteOp::create(*this, word32, word, zero, sel,
                                           NVVM::PermuteMode::DEFAULT));
  }
  Value x = vector::FromElementsOp::create(*this, pairs, xs);
  Value mag = arith::AndIOp::create(
      *this, arith::ShRUIOp::create(*this, x, splatBits(pairs, 4)),
      splatBits(pairs, 0x07F007F0));
  Value sign = arith::AndIOp::create(*this, x, splatBits(pairs, 0x80008000));
  return bitcastTo(VectorType::get({n}, getBF16Type()),
                   arith::OrIOp::create(*this, mag, sign));
}

Value KernelBuilder::packBytes(ArrayRef<Value> scalars, Type type) {
  SmallVector<Value> bytes;
  for (Value s : scalars)
    bytes.push_back(arith::TruncIOp::create(*this, getI8Type(), s));
  Value packed = vector::FromElementsOp::create(
      *this, VectorType::get({int64_t(bytes.size())}, getI8Type()), bytes);
  return bitcastTo(VectorType::get({int64_t(bytes.size())}, type), packed);
}

Value KernelBuilder::half(Value v, bool second) {
  // vector.shuffle rather than vector.extract_strided_slice: the GPU
  // lowering turns the former into llvm.shufflevector directly.
  int64_t n = cast<VectorType>(v.getType()).getNumElements();
  int64_t first = second ? n / 2 : 0;
  return vector::ShuffleOp::create(
      *this, v, v, llvm::to_vector(llvm::seq<int64_t>(first, first + n / 2)));
}

Value KernelBuilder::concat(Value a, Value b) {
  int64_t n = cast<VectorType>(a.getType()).getNumElements() +
              cast<VectorType>(b.getType()).getNumElements();
  return vector::ShuffleOp::create(*this, a, b,
                                   llvm::to_vector(llvm::seq<int64_t>(0, n)));
}

Value KernelBuilder::shuffleXor(Value v, int64_t mask) {
  auto type = cast<VectorType>(v.getType());
  int64_t bitsTotal = type.getNumElements() * type.getElementTypeBitWidth();
  auto shuffle = [&](Value word) -> Value {
    return gpu::ShuffleOp::create(*this, word, int32_t(mask), 32,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  if (bitsTotal < 32) {
    // One narrow integer, zero-extended to a word and back.
    auto narrowType = VectorType::get({1}, getIntegerType(bitsTotal));
    Value narrow =
        vector::ExtractOp::create(*this, bitcastTo(narrowType, v), 0);
    Value word = arith::ExtUIOp::create(*this, getI32Type(), narrow);
    Value back =
        arith::TruncIOp::create(*this, narrow.getType(), shuffle(word));
    return bitcastTo(type, vector::FromElementsOp::create(*this, narrowType,
                                                          ValueRange{back}));
  }
  auto wordType = VectorType::get({bitsTotal / 32}, getI32Type());
  Value words = bitcastTo(wordType, v);
  SmallVector<Value> theirs;
  for (int64_t w = 0; w < bitsTotal / 32; ++w)
    theirs.push_back(shuffle(vector::ExtractOp::create(*this, words, w)));
  return bitcastTo(type,
                   vector::FromElementsOp::create(*this, wordType, theirs));
}

//===----------------------------------------------------------------------===//
// KernelCache
//===----------------------------------------------------------------------===//

bool gpu_lowering::isEmptyBuffer(Type type) {
  auto memrefType = dyn_cast<MemRefType>(type);
  return memrefType && memrefType.hasStaticShape() &&
         memrefType.getNumElements() == 0;
}

gpu::GPUFuncOp KernelCache::getOrCreate(
    RewriterBase &rewriter, StringRef name, TypeRange argTypes,
    unsigned numInputs, TypeRange workgroup,
    function_ref<void(KernelBuilder &, ValueRange, ValueRange)> body) const {
  gpu::GPUModuleOp kernels = module;
  if (auto existing = kernels.lookupSymbol<gpu::GPUFuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(kernels.getBody());
  Location loc = kernels.getLoc();
  // Buffers without elements are not kernel parameters (launch drops them).
  SmallVector<Type> paramTypes;
  SmallVector<bool> paramIsInput;
  for (auto [i, type] : llvm::enumerate(argTypes)) {
    if (isEmptyBuffer(type))
      continue;
    paramTypes.push_back(type);
    paramIsInput.push_back(i < numInputs);
  }
  auto func = gpu::GPUFuncOp::create(
      rewriter, loc, name, rewriter.getFunctionType(paramTypes, {}), workgroup);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                rewriter.getUnitAttr());
  func.setKnownBlockSizeAttr(
      rewriter.getDenseI32ArrayAttr({int32_t(kThreadsPerCTA), 1, 1}));
  for (unsigned i = 0, e = paramTypes.size(); i < e; ++i) {
    func.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                    rewriter.getUnitAttr());
    func.setArgAttr(i,
                    paramIsInput[i] ? LLVM::LLVMDialect::getReadonlyAttrName()
                                    : LLVM::LLVMDialect::getWriteOnlyAttrName(),
                    rewriter.getUnitAttr());
  }
  Block &entry = func.getBody().front();
  rewriter.setInsertionPointToStart(&entry);
  KernelBuilder kb(loc, rewriter);
  // The body sees every argument; an empty buffer is a local placeholder
  // that no in-bounds access can touch.
  SmallVector<Value> args;
  unsigned param = 0;
  for (Type type : argTypes)
    args.push_back(isEmptyBuffer(type) ? Value(memref::AllocaOp::create(
                                             kb, cast<MemRefType>(type)))
                                       : Value(func.getArgument(param++)));
  body(kb, args, func.getWorkgroupAttributions());
  gpu::ReturnOp::create(kb);
  return func;
}

int64_t KernelCache::getGridSize(int64_t work) const {
  // One work item per thread: measured on the H200, a grid capped at the
  // resident CTAs (grid-stride) was 5-10 points of bandwidth slower for the
  // 1x32 kernels (docs/gpu.md). The kernels keep the grid-stride loop, so
  // the largest grid dimension is never a limit.
  int64_t ctas = llvm::divideCeil(work, kThreadsPerCTA);
  return std::max<int64_t>(1, std::min<int64_t>(ctas, (int64_t(1) << 31) - 1));
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

bool gpu_lowering::hasStaticShapes(Operation *op) {
  auto isStatic = [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return !shaped || shaped.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

MemRefType gpu_lowering::getMemRefType(RankedTensorType type) {
  return MemRefType::get(type.getShape(), type.getElementType());
}

Value gpu_lowering::toBuffer(RewriterBase &rewriter, Location loc,
                             Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto op = bufferization::ToBufferOp::create(rewriter, loc,
                                              getMemRefType(type), tensor);
  op.setReadOnly(true);
  return op;
}

Value gpu_lowering::allocResult(RewriterBase &rewriter, Location loc,
                                RankedTensorType type) {
  return memref::AllocOp::create(rewriter, loc, getMemRefType(type));
}

Value gpu_lowering::allocZeroedWords(RewriterBase &rewriter, Location loc,
                                     ArrayRef<int64_t> shape) {
  auto type = MemRefType::get(shape, rewriter.getI32Type());
  Value words = memref::AllocOp::create(rewriter, loc, type);
  if (type.getNumElements() > 0)
    gpu::MemsetOp::create(
        rewriter, loc, Type(), ValueRange{}, words,
        arith::ConstantIntOp::create(rewriter, loc, 0, 32).getResult());
  return words;
}

Value gpu_lowering::toTensor(RewriterBase &rewriter, Location loc,
                             Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto tensorType =
      RankedTensorType::get(type.getShape(), type.getElementType());
  return bufferization::ToTensorOp::create(rewriter, loc, tensorType, buffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

SmallVector<Value> gpu_lowering::allocResults(RewriterBase &rewriter,
                                              Operation *op) {
  SmallVector<Value> buffers;
  for (Type type : op->getResultTypes())
    buffers.push_back(
        allocResult(rewriter, op->getLoc(), cast<RankedTensorType>(type)));
  return buffers;
}

Value gpu_lowering::collapseTo(RewriterBase &rewriter, Location loc,
                               Value memref, ArrayRef<int64_t> shape) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getShape() == shape)
    return memref;
  SmallVector<ReassociationIndices> groups;
  int64_t dim = 0, rank = type.getRank();
  bool coarsening = true;
  for (int64_t size : shape) {
    // Take dims until the product reaches `size`; trailing unit dims join
    // the last group.
    if (dim == rank) {
      coarsening = false;
      break;
    }
    ReassociationIndices group;
    int64_t product = 1;
    do {
      product *= type.getDimSize(dim);
      group.push_back(dim++);
    } while (product < size && dim < rank);
    coarsening &= product == size;
    groups.push_back(group);
  }
  if (coarsening && !groups.empty()) {
    while (dim < rank)
      groups.back().push_back(dim++);
    return memref::CollapseShapeOp::create(rewriter, loc, memref, groups);
  }
  // Not a coarsening (a rank-1 buffer viewed as 1 x N, or groups that zero
  // sizes make ambiguous): flatten, then expand to `shape`.
  Value flat = memref;
  if (rank != 1) {
    ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    flat = memref::CollapseShapeOp::create(rewriter, loc, memref,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (shape.size() == 1)
    return flat;
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, int64_t(shape.size())));
  return memref::ExpandShapeOp::create(rewriter, loc, shape, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

void gpu_lowering::launch(RewriterBase &rewriter, Location loc,
                          gpu::GPUFuncOp kernel, int64_t gridX,
                          ValueRange args) {
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  Value one = c(1);
  SmallVector<Value> params = llvm::filter_to_vector(
      args, [](Value arg) { return !isEmptyBuffer(arg.getType()); });
  gpu::LaunchFuncOp::create(rewriter, loc, kernel,
                            gpu::KernelDim3{c(gridX), one, one},
                            gpu::KernelDim3{c(kThreadsPerCTA), one, one},
                            /*dynamicSharedMemorySize=*/Value(), params);
}

LogicalResult gpu_lowering::launchAndReplace(RewriterBase &rewriter,
                                             Operation *op,
                                             gpu::GPUFuncOp kernel,
                                             int64_t gridX, ValueRange args,
                                             ValueRange buffers) {
  launch(rewriter, op->getLoc(), kernel, gridX, args);
  return replaceWithBuffers(rewriter, op, buffers);
}

LogicalResult gpu_lowering::replaceWithBuffers(RewriterBase &rewriter,
                                               Operation *op,
                                               ValueRange buffers) {
  SmallVector<Value> tensors;
  for (Value buffer : buffers)
    tensors.push_back(toTensor(rewriter, op->getLoc(), buffer));
  rewriter.replaceOp(op, tensors);
  return success();
}

std::string gpu_lowering::getTypeTag(Type type) {
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (isa<Float8E4M3FNType>(type))
    return "e4m3";
  if (isa<Float8E5M2Type>(type))
    return "e5m2";
  if (type.isInteger(32))
    return "i32";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string gpu_lowering::getShapeTag(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}
