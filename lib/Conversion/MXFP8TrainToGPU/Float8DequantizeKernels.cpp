//===- Float8DequantizeKernels.cpp - Float8 dequantize kernels --*- C++ -*-===//
//
// The dense Float8 `dequantize` (f32 scales, SPEC-float8 §2.6) of
// convert-mxfp8train-to-gpu: elementwise over the cast's canonical view
// (Float8View), 16 output bytes per thread, the hardware
// `cvt.rn.f16x2.{e4m3,e5m2}x2` (exact), the IEEE f32 division `q / s`
// (`div.rn.f32`, dequantizeToF32) and one rounding to the result type.
// The per-group dequantize is in Float8GroupCastKernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "CastLanes.h"
#include "Float8CastKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

/// Dequantize: (data, scales, out) in the view of `v` — one 16-byte output
/// chunk (8 bf16 / 4 f32) per work item: `RN_out(RN_f32(q / s))`.
static void buildFloat8Dequantize(KernelBuilder &kb, const Float8View &v,
                                  Type f8Type, Type outType, Value data,
                                  Value scales, Value out) {
  int64_t lanes = getLaneCount(v.contiguous(), outType);
  auto f32Vec = VectorType::get({lanes}, kb.getF32Type());
  int64_t perRow = v.contiguous() / lanes;
  int64_t work =
      v.outer * (v.kind == Float8ViewKind::Column ? v.red : 1) * perRow;
  Value tensorScale;
  if (v.kind == Float8ViewKind::Tensor)
    tensorScale = memref::LoadOp::create(kb, scales, ValueRange{});
  kb.gridStrideLoop(kb.idx(work), [&](Value i) {
    Value col = arith::MulIOp::create(
        kb, arith::RemUIOp::create(kb, i, kb.idx(perRow)), kb.idx(lanes));
    Value rest = arith::DivUIOp::create(kb, i, kb.idx(perRow));
    SmallVector<Value> index;
    Value s;
    switch (v.kind) {
    case Float8ViewKind::Tensor:
      index = {col};
      s = vector::BroadcastOp::create(kb, f32Vec, tensorScale);
      break;
    case Float8ViewKind::Row:
      index = {rest, col};
      s = vector::BroadcastOp::create(
          kb, f32Vec, memref::LoadOp::create(kb, scales, ValueRange{rest}));
      break;
    case Float8ViewKind::Column: {
      Value r = arith::RemUIOp::create(kb, rest, kb.idx(v.red));
      Value o = arith::DivUIOp::create(kb, rest, kb.idx(v.red));
      index = {o, r, col};
      s = kb.load(f32Vec, scales, {o, col}, lanes * 4);
      break;
    }
    }
    Value q = kb.load(VectorType::get({lanes}, f8Type), data, index, lanes);
    Value p = dequantizeToF32(kb, q, s);
    kb.store(finishDequantized(kb, p, outType), out, index,
             getAccessBytes(lanes, outType));
  });
}

namespace {
/// Float8 dequantize -> one elementwise launch.
struct Float8DequantizeOpToGPU final : KernelPattern<DequantizeOp> {
  using KernelPattern::KernelPattern;

  LogicalResult rewriteStatic(DequantizeOp op,
                              PatternRewriter &rewriter) const override {
    if (!op.isFloat8() || op.isPerGroup())
      return rewriter.notifyMatchFailure(op, "not a dense Float8 cast");
    Location loc = op.getLoc();
    RankedTensorType dataType = op.getData().getType();
    bool tensorwise = *op.getGranularity() == Float8Granularity::Tensorwise;
    Float8View v =
        Float8View::get(dataType.getShape(), tensorwise, op.getAxis());
    Type f8Type = dataType.getElementType();
    Type outType = op.getResult().getType().getElementType();

    Value data = collapseTo(
        rewriter, loc, toBuffer(rewriter, loc, op.getData()), v.dataShape());
    Value scales = toBuffer(rewriter, loc, op.getScales());
    if (v.kind != Float8ViewKind::Tensor)
      scales = collapseTo(rewriter, loc, scales, v.scaleShape());
    SmallVector<Value> buffers = allocResults(rewriter, op);
    Value out = collapseTo(rewriter, loc, buffers[0], v.dataShape());

    std::string name = llvm::formatv(
        "float8_dequantize_{0}_{1}_{2}_{3}", v.tag(), getTypeTag(f8Type),
        getTypeTag(outType), getShapeTag(v.dataShape()));
    SmallVector<Type> argTypes = {data.getType(), scales.getType(),
                                  out.getType()};
    gpu::GPUFuncOp kernel =
        cache.getOrCreate(rewriter, name, argTypes, /*numInputs=*/2, {},
                          [&](KernelBuilder &kb, ValueRange args, ValueRange) {
                            buildFloat8Dequantize(kb, v, f8Type, outType,
                                                  args[0], args[1], args[2]);
                          });
    int64_t lanes = getLaneCount(v.contiguous(), outType);
    int64_t work = v.outer * (v.kind == Float8ViewKind::Column ? v.red : 1) *
                   (v.contiguous() / lanes);
    return launchAndReplace(rewriter, op, kernel, cache.getGridSize(work),
                            {data, scales, out}, buffers);
  }
};
} // namespace

void gpu_lowering::populateFloat8DequantizeKernelPatterns(
    RewritePatternSet &patterns, KernelCache &cache) {
  patterns.add<Float8DequantizeOpToGPU>(patterns.getContext(), cache);
}
