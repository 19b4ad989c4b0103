//===- DequantizeKernels.cpp - MX dequantize kernels ------------*- C++ -*-===//
//
// The MX `dequantize` lowering of convert-mxfp8train-to-gpu (docs/gpu.md has
// the launch shapes): 1x32 / 32x1 kernels with 16 contiguous output bytes
// per lane, the hardware `cvt.rn.f16x2.{e4m3,e5m2}x2` (exact), an exact f32
// product with the shared decodeScale, NaN made the CPU path's quiet NaN,
// RNE to bf16. Float8 dequantize: Float8CastKernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "BlockView.h"
#include "CastLanes.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using namespace mlir::mxfp8train::lowering;

//===----------------------------------------------------------------------===//
// Dequantize kernels
//===----------------------------------------------------------------------===//

/// Decoded scale of byte `byte` (i32) as f32.
static Value decodeScaleByte(KernelBuilder &kb, Value scaleValue) {
  Bits bb = kb.bits();
  return decodeScale(bb, bb.byteOf(scaleValue));
}

namespace {
/// Everything a dequantize kernel is specialised on.
struct DequantizeSpec {
  BlockView view;
  Type f8Type, outType;
  ScaleLayout layout;
};
} // namespace

/// Loads of the 1x32 dequantize that one thread keeps in flight.
static constexpr int64_t kDequantizeUnroll = 4;

/// Elements of one 16-byte output vector of the 1x32 dequantize.
static int64_t getDequantizeChunk(Type outType) {
  return 16 / (outType.getIntOrFloatBitWidth() / 8);
}

/// Threads of the 1x32 dequantize: each converts kDequantizeUnroll chunks.
static int64_t getDequantize1x32Threads(const BlockView &v, Type outType) {
  int64_t chunks = v.rows * v.cols / getDequantizeChunk(outType);
  return llvm::divideCeil(chunks, kDequantizeUnroll);
}

/// 1x32: (data, scales, out) — lanes take consecutive 16-byte chunks of the
/// output (8 bf16 or 4 f32 values, so 32 / chunk lanes per block and warp
/// accesses that are contiguous), kDequantizeUnroll chunks per thread, all
/// loads issued first. Threads past the end redo the last chunk (same bytes).
static void buildDequantize1x32(KernelBuilder &kb, const DequantizeSpec &spec,
                                Value data, Value scales, Value out) {
  const BlockView &v = spec.view;
  int64_t cpt = getDequantizeChunk(spec.outType);
  int64_t chunksPerRow = v.cols / cpt;
  int64_t chunks = v.rows * chunksPerRow;
  int64_t blocksPerRow = v.cols / kBlockSize;
  int64_t threads = getDequantize1x32Threads(v, spec.outType);
  auto qType = VectorType::get({cpt}, spec.f8Type);
  kb.gridStrideLoop(kb.idx(threads), [&](Value t) {
    SmallVector<std::pair<Value, Value>> pos;
    SmallVector<Value> qs, ss;
    for (int64_t u = 0; u < kDequantizeUnroll; ++u) {
      Value idx = arith::MinUIOp::create(
          kb, arith::AddIOp::create(kb, t, kb.idx(u * threads)),
          kb.idx(chunks - 1));
      Value r = arith::DivUIOp::create(kb, idx, kb.idx(chunksPerRow));
      Value col = arith::MulIOp::create(
          kb, arith::RemUIOp::create(kb, idx, kb.idx(chunksPerRow)),
          kb.idx(cpt));
      Value blk = arith::DivUIOp::create(kb, col, kb.idx(kBlockSize));
      pos.push_back({r, col});
      qs.push_back(kb.load(qType, data, {r, col}, cpt));
      if (spec.layout == ScaleLayout::Blocked) {
        Bits bb = kb.bits();
        Value off = getBlockedOffset(bb, r, blk, blocksPerRow);
        ss.push_back(memref::LoadOp::create(kb, scales, off));
      } else {
        ss.push_back(memref::LoadOp::create(kb, scales, ValueRange{r, blk}));
      }
    }
    for (int64_t u = 0; u < kDequantizeUnroll; ++u) {
      Value scale = decodeScaleByte(kb, ss[u]);
      Value bytes = kb.bitcastTo(VectorType::get({cpt}, kb.getI8Type()), qs[u]);
      Value x = kb.convertFromF8(bytes, spec.f8Type);
      Value p = arith::MulFOp::create(
          kb, x, vector::BroadcastOp::create(kb, x.getType(), scale));
      kb.store(finishDequantized(kb, p, spec.outType), out,
               {pos[u].first, pos[u].second}, 16);
    }
  });
}

/// Columns per thread of the 32x1 dequantize: one 16-byte output vector
/// per row (8 bf16 or 4 f32), so that a warp's stores are contiguous;
/// fewer when `cols` needs it.
static int64_t getDequantizeColsPerThread(int64_t cols, Type outType) {
  int64_t cpt = 16 / (outType.getIntOrFloatBitWidth() / 8);
  while (cols % cpt != 0)
    cpt /= 2;
  return cpt;
}

/// 32x1: (data, scales, out) — one thread per 32 rows x cpt columns (16
/// bytes of fp8 per row when the width allows).
static void buildDequantize32x1(KernelBuilder &kb, const DequantizeSpec &spec,
                                Value data, Value scales, Value out) {
  const BlockView &v = spec.view;
  int64_t cpt = getDequantizeColsPerThread(v.cols, spec.outType);
  int64_t outBytes = spec.outType.getIntOrFloatBitWidth() / 8;
  int64_t rowBlocks = v.rows / kBlockSize;
  int64_t work = v.outer * rowBlocks * (v.cols / cpt);
  kb.gridStrideLoop(kb.idx(work), [&](Value i) {
    auto [o, r0, rb, c0] = decomposeColumnItem(kb, i, v, cpt);
    SmallVector<Value> scaleValues;
    if (spec.layout == ScaleLayout::Blocked) {
      for (int64_t j = 0; j < cpt; ++j) {
        Bits bb = kb.bits();
        Value c = bb.add(c0, bb.cIdx(j));
        Value off = getBlockedOffset(bb, c, rb, rowBlocks);
        scaleValues.push_back(
            decodeScaleByte(kb, memref::LoadOp::create(kb, scales, off)));
      }
    } else {
      Type scaleType = cast<MemRefType>(scales.getType()).getElementType();
      Value row = kb.load(VectorType::get({cpt}, scaleType), scales,
                          v.index(o, rb, c0), cpt);
      for (int64_t j = 0; j < cpt; ++j)
        scaleValues.push_back(
            decodeScaleByte(kb, vector::ExtractOp::create(kb, row, j)));
    }
    Value scale = vector::FromElementsOp::create(
        kb, VectorType::get({cpt}, kb.getF32Type()), scaleValues);
    // Rows in batches of 8: eight loads in flight before their first use.
    constexpr int64_t kBatch = 8;
    for (int64_t k0 = 0; k0 < kBlockSize; k0 += kBatch) {
      SmallVector<Value> rows, qs;
      for (int64_t k = k0; k < k0 + kBatch; ++k) {
        Value r = arith::AddIOp::create(kb, r0, kb.idx(k));
        rows.push_back(r);
        qs.push_back(kb.load(VectorType::get({cpt}, spec.f8Type), data,
                             v.index(o, r, c0), cpt));
      }
      for (int64_t k = 0; k < kBatch; ++k) {
        Value x = kb.convertFromF8(
            kb.bitcastTo(VectorType::get({cpt}, kb.getI8Type()), qs[k]),
            spec.f8Type);
        Value p = arith::MulFOp::create(kb, x, scale);
        kb.store(finishDequantized(kb, p, spec.outType), out,
                 v.index(o, rows[k], c0),
                 std::min<int64_t>(16, cpt * outBytes));
      }
    }
  });
}

//===----------------------------------------------------------------------===//
// Pattern
//===----------------------------------------------------------------------===//

namespace {
/// dequantize -> one launch of a 1x32 or 32x1 kernel.
struct DequantizeOpToGPU final : KernelPattern<DequantizeOp> {
  using KernelPattern::KernelPattern;

  LogicalResult rewriteStatic(DequantizeOp op,
                              PatternRewriter &rewriter) const override {
    if (op.isFloat8())
      return rewriter.notifyMatchFailure(op,
                                         "Float8 cast: Float8CastKernels.cpp");
    Location loc = op.getLoc();
    RankedTensorType dataType = op.getData().getType();
    DequantizeSpec spec{BlockView::get(dataType.getShape(), op.getAxis()),
                        dataType.getElementType(),
                        op.getResult().getType().getElementType(),
                        op.getScaleLayout()};
    const BlockView &v = spec.view;

    Value data = collapseTo(
        rewriter, loc, toBuffer(rewriter, loc, op.getData()), v.dataShape());
    Value scales = toBuffer(rewriter, loc, op.getScales());
    if (spec.layout == ScaleLayout::RowMajor)
      scales = collapseTo(rewriter, loc, scales, v.scaleShape());
    SmallVector<Value> buffers = allocResults(rewriter, op);
    Value out = collapseTo(rewriter, loc, buffers[0], v.dataShape());

    std::string name = llvm::formatv(
        "dequantize_{0}_{1}_{2}_{3}_{4}", v.rowwise ? "1x32" : "32x1",
        getTypeTag(spec.f8Type), getTypeTag(spec.outType),
        getLayoutTag(spec.layout), getShapeTag(v.dataShape()));
    SmallVector<Type> argTypes = {data.getType(), scales.getType(),
                                  out.getType()};
    gpu::GPUFuncOp kernel = cache.getOrCreate(
        rewriter, name, argTypes, /*numInputs=*/2, {},
        [&](KernelBuilder &kb, ValueRange args, ValueRange) {
          if (v.rowwise)
            buildDequantize1x32(kb, spec, args[0], args[1], args[2]);
          else
            buildDequantize32x1(kb, spec, args[0], args[1], args[2]);
        });
    int64_t work =
        v.rowwise
            ? getDequantize1x32Threads(v, spec.outType)
            : v.outer * (v.rows / kBlockSize) *
                  (v.cols / getDequantizeColsPerThread(v.cols, spec.outType));
    return launchAndReplace(rewriter, op, kernel, cache.getGridSize(work),
                            {data, scales, out}, buffers);
  }
};
} // namespace

void gpu_lowering::populateDequantizeKernelPatterns(RewritePatternSet &patterns,
                                                    KernelCache &cache) {
  patterns.add<DequantizeOpToGPU>(patterns.getContext(), cache);
}
