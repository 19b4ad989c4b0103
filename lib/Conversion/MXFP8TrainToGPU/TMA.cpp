//===- TMA.cpp - tensor-memory-accelerator copies as IR ---------*- C++ -*-===//
//
// Implements TMA.h. The host side builds the memref descriptor that
// `mgpuTensorMapEncodeTiledMemref` reads (runtime/src/MgpuWrappers.cpp) with
// LLVM-dialect ops, so that one declaration serves every element type and
// the call lowers unchanged through the host pipeline, the JIT, ahead-of-time
// objects and the runtime's fake driver.
//
//===----------------------------------------------------------------------===//

#include "TMA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using namespace mlir::mxfp8train::gpu_lowering::tma;

/// The runtime entry points the host code calls (Runtime.exports `mgpu*`).
static constexpr llvm::StringLiteral kEncodeFn =
    "mgpuTensorMapEncodeTiledMemref";
static constexpr llvm::StringLiteral kFreeFn = "mgpuMemFree";

std::optional<DataType> tma::getDataType(Type elementType) {
  if (isa<FloatType>(elementType) && elementType.getIntOrFloatBitWidth() == 8)
    return DataType::UInt8;
  if (elementType.isInteger(8))
    return DataType::UInt8;
  if (elementType.isBF16())
    return DataType::BFloat16;
  if (elementType.isF16())
    return DataType::Float16;
  if (elementType.isF32())
    return DataType::Float32;
  if (elementType.isInteger(32))
    return DataType::Int32;
  return std::nullopt;
}

/// Bytes of the span of a swizzle mode (0 without swizzling).
static int64_t getSwizzleSpan(Swizzle swizzle) {
  switch (swizzle) {
  case Swizzle::None:
    return 0;
  case Swizzle::B32:
    return 32;
  case Swizzle::B64:
    return 64;
  case Swizzle::B128:
    return 128;
  }
  return 0;
}

bool tma::canCreateTensorMap(MemRefType type, const TensorMapSpec &spec,
                             std::string *why) {
  auto fail = [&](const Twine &message) {
    if (why)
      *why = message.str();
    return false;
  };
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return fail("a tensor map needs a static identity-layout buffer");
  int64_t rank = type.getRank();
  if (rank < 1 || rank > 5 || int64_t(spec.box.size()) != rank)
    return fail("a tensor map has rank 1 to 5 and one box extent per "
                "dimension");
  if (!getDataType(type.getElementType()))
    return fail("no tensor-map data type for the element type");
  int64_t elemBytes = type.getElementTypeBitWidth() / 8;
  int64_t stride = elemBytes;
  for (int64_t d = rank - 1; d >= 0; --d) {
    // A box may extend past the tensor (zero-filled), not past 256.
    if (spec.box[d] < 1 || spec.box[d] > 256)
      return fail("box extents must be in [1, 256]");
    if (d < rank - 1 && stride % 16 != 0)
      return fail("tensor-map strides must be multiples of 16 bytes");
    stride *= type.getDimSize(d);
  }
  int64_t innerBytes = spec.box.back() * elemBytes;
  if (innerBytes % 16 != 0)
    return fail("the innermost box extent must be a multiple of 16 bytes");
  int64_t span = getSwizzleSpan(spec.swizzle);
  if (span && innerBytes > span)
    return fail("the innermost box extent exceeds the swizzle span");
  return true;
}

/// Returns the `llvm.func` `name` of the module around `op`, declaring it
/// with `type` first if needed.
static LLVM::LLVMFuncOp getOrDeclare(RewriterBase &rewriter, Operation *op,
                                     StringRef name,
                                     LLVM::LLVMFunctionType type) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(rewriter, module.getLoc(), name, type);
}

/// `llvm.alloca` of `values.size()` i64 holding `values`.
static Value stackArray(RewriterBase &rewriter, Location loc,
                        ArrayRef<Value> values) {
  Type i64 = rewriter.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext());
  auto arrayType = LLVM::LLVMArrayType::get(i64, values.size());
  Value one = LLVM::ConstantOp::create(rewriter, loc, i64,
                                       rewriter.getI64IntegerAttr(1));
  Value array =
      LLVM::AllocaOp::create(rewriter, loc, ptrType, arrayType, one, 8);
  for (auto [i, v] : llvm::enumerate(values)) {
    Value slot = LLVM::GEPOp::create(rewriter, loc, ptrType, arrayType, array,
                                     ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
    LLVM::StoreOp::create(rewriter, loc, v, slot);
  }
  return array;
}

Value tma::createTensorMap(RewriterBase &rewriter, Location loc, Value buffer,
                           const TensorMapSpec &spec) {
  auto type = cast<MemRefType>(buffer.getType());
  assert(canCreateTensorMap(type, spec) && "invalid tensor map");
  MLIRContext *ctx = rewriter.getContext();
  Type i64 = rewriter.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto c = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(rewriter, loc, i64,
                                    rewriter.getI64IntegerAttr(v));
  };
  Operation *anchor = rewriter.getInsertionBlock()->getParentOp();
  auto encodeFn = getOrDeclare(
      rewriter, anchor, kEncodeFn,
      LLVM::LLVMFunctionType::get(
          ptrType, {i64, ptrType, i64, i64, i64, i64, i64, ptrType}));

  // The ranked descriptor {allocated, aligned, offset, sizes[r],
  // strides[r]} (eight bytes each) of the identity-layout buffer; the
  // runtime reads the aligned pointer, offset, sizes and strides.
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buffer);
  Value base = arith::IndexCastUIOp::create(rewriter, loc, i64, aligned);
  SmallVector<Value> desc = {base, base, c(0)};
  int64_t rank = type.getRank();
  for (int64_t d = 0; d < rank; ++d)
    desc.push_back(c(type.getDimSize(d)));
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * type.getDimSize(d + 1);
  for (int64_t s : strides)
    desc.push_back(c(s));
  Value descPtr = stackArray(rewriter, loc, desc);
  SmallVector<Value> box =
      llvm::map_to_vector(spec.box, [&](int64_t v) { return c(v); });
  Value boxPtr = stackArray(rewriter, loc, box);
  Value map =
      LLVM::CallOp::create(
          rewriter, loc, encodeFn,
          ValueRange{
              c(rank), descPtr,
              c(static_cast<int64_t>(*getDataType(type.getElementType()))),
              /*interleave=*/c(0), c(static_cast<int64_t>(spec.swizzle)),
              c(static_cast<int64_t>(spec.l2Promotion)),
              /*oobFill=zero*/ c(0), boxPtr})
          .getResult();

  return map;
}

void tma::freeTensorMapAtBlockEnd(RewriterBase &rewriter, Location loc,
                                  Value map) {
  MLIRContext *ctx = rewriter.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto freeFn = getOrDeclare(
      rewriter, rewriter.getInsertionBlock()->getParentOp(), kFreeFn,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                  {ptrType, ptrType}));
  // After the block's launches, like the pipeline's device buffers
  // (mgpuMemFree frees with cuMemFree, which waits for the device).
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(rewriter.getInsertionBlock()->getTerminator());
  Value null = LLVM::ZeroOp::create(rewriter, loc, ptrType);
  LLVM::CallOp::create(rewriter, loc, freeFn, ValueRange{map, null});
}

//===----------------------------------------------------------------------===//
// Device side
//===----------------------------------------------------------------------===//

static Value addressToPointer(ImplicitLocOpBuilder &b, Value address,
                              NVVM::NVVMMemorySpace space) {
  auto type =
      LLVM::LLVMPointerType::get(b.getContext(), static_cast<unsigned>(space));
  Value i64 = arith::IndexCastUIOp::create(b, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(b, type, i64);
}

Value tma::getSharedPointer(ImplicitLocOpBuilder &b, Value address) {
  return addressToPointer(b, address, NVVM::NVVMMemorySpace::Shared);
}

Value tma::getGlobalPointer(ImplicitLocOpBuilder &b, Value address) {
  return addressToPointer(b, address, NVVM::NVVMMemorySpace::Global);
}

void tma::initBarrier(ImplicitLocOpBuilder &b, Value mbar, int64_t count) {
  NVVM::MBarrierInitOp::create(
      b, mbar, arith::ConstantIntOp::create(b, count, 32), Value());
}

void tma::waitBarrier(ImplicitLocOpBuilder &b, Value mbar, Value parity) {
  // Suspend-time hint of the try_wait loop (ns), as the nvgpu lowering.
  NVVM::MBarrierTryWaitParityOp::create(
      b, mbar, parity, arith::ConstantIntOp::create(b, 10000000, 32));
}

void tma::waitClusterBarrier(ImplicitLocOpBuilder &b, Value mbar,
                             Value parity) {
  // nvvm.mbarrier.try_wait.parity is CTA scope only; nvvm.mbarrier.try_wait
  // with a phase takes the scope and returns whether the phase completed.
  Value ticks = arith::ConstantIntOp::create(b, 10000000, 32);
  scf::WhileOp::create(
      b, TypeRange{}, ValueRange{},
      [&](OpBuilder &nested, Location loc, ValueRange) {
        ImplicitLocOpBuilder ib(loc, nested);
        Value done =
            NVVM::MBarrierTryWaitOp::create(ib, ib.getI1Type(), mbar, parity,
                                            ticks, NVVM::MemScopeKind::CLUSTER);
        Value one = arith::ConstantIntOp::create(ib, ib.getI1Type(), 1);
        Value pending = arith::XOrIOp::create(ib, done, one);
        scf::ConditionOp::create(ib, pending, ValueRange{});
      },
      [&](OpBuilder &nested, Location loc, ValueRange) {
        scf::YieldOp::create(nested, loc);
      });
}

void tma::arriveBarrier(ImplicitLocOpBuilder &b, Value mbar) {
  NVVM::MBarrierArriveOp::create(b, Type(), mbar, Value(),
                                 NVVM::MemScopeKind::CTA, false);
}

void tma::arriveExpectTx(ImplicitLocOpBuilder &b, Value mbar, Value bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(
      b, Type(), mbar, bytes,
      NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA),
      b.getBoolAttr(false), Value());
}

void tma::loadTensorTile(ImplicitLocOpBuilder &b, Value dst, Value tensorMap,
                         Value mbar, ValueRange coords) {
  // shared::cta destination: the executing CTA's own shared memory.
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      b, dst, tensorMap, coords, mbar, ValueRange(), Value(), Value(),
      NVVM::TMALoadModeAttr::get(b.getContext(), NVVM::TMALoadMode::TILE),
      b.getBoolAttr(true), NVVM::CTAGroupKindAttr(), Value());
}

Value tma::mapToClusterRank(ImplicitLocOpBuilder &b, Value ptr, Value rank) {
  auto type = LLVM::LLVMPointerType::get(
      b.getContext(),
      static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  return NVVM::MapaOp::create(b, type, ptr, rank);
}

/// The shared::cluster form of cp.async.bulk.tensor (destination and
/// barrier in the cluster window) with the optional `multicastMask` (i16)
/// and CTA group.
static void loadTensorTileToCluster(ImplicitLocOpBuilder &b, Value dst,
                                    Value tensorMap, Value mbar,
                                    ValueRange coords, Value multicastMask,
                                    NVVM::CTAGroupKindAttr group) {
  MLIRContext *ctx = b.getContext();
  // The destination as a shared::cluster address of this CTA
  // (cvta.to.shared::cluster); the barrier operand is typed as a
  // shared::cta pointer by the NVVM op but carries the shared::cluster
  // address unchanged (the shared::cta window lies in the shared::cluster
  // window, so this CTA's own barriers have the same address in both).
  auto clusterType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  auto sharedType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  Value clusterDst = LLVM::AddrSpaceCastOp::create(b, clusterType, dst);
  Value address = LLVM::PtrToIntOp::create(b, b.getI64Type(), mbar);
  Value barrier = LLVM::IntToPtrOp::create(b, sharedType, address);
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      b, clusterDst, tensorMap, coords, barrier, ValueRange(), multicastMask,
      Value(), NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
      b.getBoolAttr(false), group, Value());
}

void tma::loadTensorTileForPair(ImplicitLocOpBuilder &b, Value dst,
                                Value tensorMap, Value mbar,
                                ValueRange coords) {
  loadTensorTileToCluster(
      b, dst, tensorMap, mbar, coords, Value(),
      NVVM::CTAGroupKindAttr::get(b.getContext(), NVVM::CTAGroupKind::CTA_2));
}

void tma::loadTensorTileMulticast(ImplicitLocOpBuilder &b, Value dst,
                                  Value tensorMap, Value mbar,
                                  ValueRange coords, uint16_t ctaMask) {
  Value mask = arith::ConstantIntOp::create(b, b.getI16Type(), ctaMask);
  loadTensorTileToCluster(b, dst, tensorMap, mbar, coords, mask,
                          NVVM::CTAGroupKindAttr());
}

void tma::arriveClusterBarrier(ImplicitLocOpBuilder &b, Value mbar,
                               NVVM::MemScopeKind scope) {
  NVVM::MBarrierArriveOp::create(b, Type(), mbar, Value(), scope, false);
}

void tma::arriveClusterBarrierIf(ImplicitLocOpBuilder &b, Value mbar,
                                 Value predicate) {
  NVVM::InlinePtxOp::create(
      b, TypeRange(), ValueRange{mbar}, ValueRange(),
      "mbarrier.arrive.release.cta.shared::cluster.b64 _, [$0];", predicate);
}

void tma::loadBulk(ImplicitLocOpBuilder &b, Value dst, Value src, Value mbar,
                   int64_t bytes) {
  assert(bytes % 16 == 0 && "bulk copies move multiples of 16 bytes");
  NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
      b, dst, src, mbar, arith::ConstantIntOp::create(b, bytes, 32), Value(),
      Value());
}
