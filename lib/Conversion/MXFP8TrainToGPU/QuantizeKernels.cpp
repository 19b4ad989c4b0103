//===- QuantizeKernels.cpp - MX quantize patterns, 1x32 kernel --*- C++ -*-===//
//
// The memory-bound MX quantization kernels of convert-mxfp8train-to-gpu
// (docs/gpu.md has the design and the launch shapes): the patterns of
// `quantize` and `quantize_dual`, the 1x32 kernel, and the kernel-body
// pieces every MX cast kernel shares (QuantizeKernels.h). The column-tile
// kernels (32x1 and quantize_dual) are in ColumnCastKernels.cpp, the
// dequantize kernels in DequantizeKernels.cpp.
//
// - 1x32 quantize (blocks along the last dim): two lanes per 32-element
//   block; 16-byte loads (2 per lane for bf16, 4 for f32), amax with the
//   NaN-propagating `max.NaN` completed by one `shfl.sync.bfly`, the scale
//   byte from the shared computeScaleByte, the data through the hardware
//   `cvt.rn.satfinite.{e4m3,e5m2}x2.f32`, one 16-byte store per lane.
// - every quantize reads its input through a KernelInput (FusedProducer.h):
//   the tensor, an elementwise producer's operands with its body evaluated
//   on the loaded rows, or (32x1) a fused pad's input through its offsets.
//
// On sm_90a a quantize cast whose results feed a pre-dequantized GEMM
// operand also writes that operand's padded bf16 form and its guard flag
// (Gemm/DequantFusion.h): the 1x32 cast a K-major row per lane, the 32x1
// cast each column's K run.
//
// Blocked scales (SPEC §4.1) are written directly by the kernels through the
// shared getBlockedOffset; padding bytes are written as 0x00 by the same
// kernel. A block whose scale byte is 255 (NaN/Inf, SPEC §2.7) is all 0x7F.
//
//===----------------------------------------------------------------------===//

#include "QuantizeKernels.h"
#include "BlockView.h"
#include "CastLanes.h"
#include "FusedProducer.h"
#include "Gemm/DequantFusion.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using namespace mlir::mxfp8train::gpu_lowering::mx_cast;
using namespace mlir::mxfp8train::lowering;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

StringRef mx_cast::getModeTag(ScaleMode mode) {
  return stringifyScaleMode(mode);
}

//===----------------------------------------------------------------------===//
// Kernel-body pieces
//===----------------------------------------------------------------------===//

/// The scalar amax of a vector in the input type as f32 (exact).
Value mx_cast::amaxF32(KernelBuilder &kb, Value absMax) {
  if (absMax.getType().isF32())
    return absMax;
  return arith::ExtFOp::create(kb, kb.getF32Type(), absMax);
}

/// fp8 bytes of `x * rcp` (f32 lanes), all 0x7F in a block whose scale
/// byte is 255: `isNaNBlock` is an i1 (one block) or, per lane, the word
/// mask of setColumnFactors (bytes 0xFF where the lane's block is NaN),
/// applied with bitwise ops on whole words instead of byte-wise selects.
Value mx_cast::quantizeLanes(KernelBuilder &kb, Value x, Value rcp,
                             Value isNaNBlock, Type f8Type) {
  auto type = cast<VectorType>(x.getType());
  if (!isa<VectorType>(rcp.getType()))
    rcp = vector::BroadcastOp::create(kb, type, rcp);
  Value y = arith::MulFOp::create(kb, x, rcp);
  Value q = kb.convertToF8(y, f8Type);
  auto byteType = VectorType::get(type.getShape(), kb.getI8Type());
  Value nan = kb.splatBits(byteType, 0x7F);
  if (auto maskType = dyn_cast<VectorType>(isNaNBlock.getType())) {
    // Whole words: q = (q & ~mask) | (0x7F.. & mask).
    Value words = kb.bitcastTo(maskType, q);
    Value keep = arith::XOrIOp::create(kb, isNaNBlock,
                                       kb.splatBits(maskType, ~uint64_t(0)));
    Value patch = arith::AndIOp::create(
        kb, kb.splatBits(maskType, 0x7F7F7F7F7F7F7F7Full), isNaNBlock);
    q = kb.bitcastTo(byteType,
                     arith::OrIOp::create(
                         kb, arith::AndIOp::create(kb, words, keep), patch));
  } else {
    q = arith::SelectOp::create(kb, isNaNBlock, nan, q);
  }
  return kb.bitcastTo(VectorType::get(type.getShape(), f8Type), q);
}

/// Writes byte 0x00 at every padding position of the blocked layout of a
/// `numRows x numCols` scale matrix (rows >= numRows or columns >=
/// numCols of the padded `ceil(numRows/128)*128 x ceil(numCols/4)*4`
/// matrix), grid-stride over the padding positions only.
void mx_cast::emitBlockedPadding(KernelBuilder &kb, Value scales,
                                 int64_t numRows, int64_t numCols) {
  int64_t paddedRows = llvm::alignTo(numRows, 128);
  int64_t paddedCols = llvm::alignTo(numCols, 4);
  Type scaleType = cast<MemRefType>(scales.getType()).getElementType();
  auto storeZero = [&](Value r, Value c) {
    Bits bb = kb.bits();
    Value off = getBlockedOffset(bb, r, c, numCols);
    memref::StoreOp::create(kb, bb.byteAs(scaleType, bb.c(0)), scales, off);
  };
  // Whole padding rows.
  if (int64_t count = (paddedRows - numRows) * paddedCols) {
    kb.gridStrideLoop(kb.idx(count), [&](Value i) {
      Value r = arith::AddIOp::create(
          kb, kb.idx(numRows),
          arith::DivUIOp::create(kb, i, kb.idx(paddedCols)));
      Value c = arith::RemUIOp::create(kb, i, kb.idx(paddedCols));
      storeZero(r, c);
    });
  }
  // Padding columns of the real rows.
  int64_t extraCols = paddedCols - numCols;
  if (int64_t count = numRows * extraCols) {
    kb.gridStrideLoop(kb.idx(count), [&](Value i) {
      Value r = arith::DivUIOp::create(kb, i, kb.idx(extraCols));
      Value c = arith::AddIOp::create(
          kb, kb.idx(numCols),
          arith::RemUIOp::create(kb, i, kb.idx(extraCols)));
      storeZero(r, c);
    });
  }
}

/// Stores the i32 scale bytes `bytes` of blocks (r, c + j) of a scale matrix
/// with `numCols` columns: one vector store of consecutive bytes in the
/// row-major view (`index` gives its indices), or byte stores at the shared
/// blocked offsets (the blocked matrix is (other dim, block index), so `r`
/// and `c` are given in that orientation by the caller).
void mx_cast::storeScaleBytes(
    KernelBuilder &kb, ArrayRef<Value> bytes, Value scales, ScaleLayout layout,
    ArrayRef<Value> rowMajorIndex,
    function_ref<std::pair<Value, Value>(int64_t)> blockedPosition,
    int64_t blockedCols) {
  Type scaleType = cast<MemRefType>(scales.getType()).getElementType();
  if (layout == ScaleLayout::RowMajor) {
    if (bytes.size() == 1) {
      Bits bb = kb.bits();
      memref::StoreOp::create(kb, bb.byteAs(scaleType, bytes[0]), scales,
                              rowMajorIndex);
      return;
    }
    kb.store(kb.packBytes(bytes, scaleType), scales, rowMajorIndex,
             std::min<int64_t>(16, bytes.size()));
    return;
  }
  for (auto [j, byte] : llvm::enumerate(bytes)) {
    auto [r, c] = blockedPosition(j);
    Bits bb = kb.bits();
    Value off = getBlockedOffset(bb, r, c, blockedCols);
    memref::StoreOp::create(kb, bb.byteAs(scaleType, byte), scales, off);
  }
}

/// Runs `store` (the fp8 data stores of one block or tile) where `must`
/// holds, always where it is null (BF16OperandWriter::mustStoreFp8).
void mx_cast::storeFp8Where(KernelBuilder &kb, Value must,
                            function_ref<void()> store) {
  if (must)
    kb.ifThen(must, store);
  else
    store();
}

/// Lanes that share one 32-element block in the 1x32 quantize. Two halve
/// the bytes each thread keeps in flight and double the threads, so the
/// last wave of the grid is a smaller part of the launch (measured on the
/// H200: at 16384x8192 bf16 one lane per block runs 15.5 waves and reaches
/// 0.89 of copy bandwidth, 0.95 at 16384x8448 = 16.0 waves; docs/gpu.md).
static constexpr int64_t kQuantize1x32Lanes = 2;

/// Work items (threads) of the 1x32 quantize of `v`: kQuantize1x32Lanes per
/// block, padded to whole warps for the shuffle.
static int64_t getQuantize1x32Work(const BlockView &v) {
  return llvm::alignTo(v.rows * (v.cols / kBlockSize) * kQuantize1x32Lanes, 32);
}

/// 1x32: (in (rows, cols), data (rows, cols), scales) — kQuantize1x32Lanes
/// consecutive lanes per block of 32 consecutive elements of a row, each
/// loading its 16-element part (32 bytes of bf16, 64 of f32) with 16-byte
/// loads; the partial amaxes are combined by one `shfl.sync.bfly`, both
/// lanes compute the scale byte and cast their part, the first stores the
/// byte. The shuffle needs whole warps: the loop runs to a multiple of 32
/// and items past the end redo the last block lane for lane (same bytes).
static void buildQuantize1x32(KernelBuilder &kb, const QuantizeSpec &spec,
                              const KernelInput &input, ValueRange in,
                              Value data, Value scales,
                              const BF16OperandWriter &bf16) {
  const BlockView &v = spec.view;
  int64_t blocksPerRow = v.cols / kBlockSize;
  int64_t lanes = kQuantize1x32Lanes, part = kBlockSize / lanes;
  int64_t work = v.rows * blocksPerRow * lanes;
  ElementFormat fmt = getElementFormat(spec.f8Type);
  auto inVec = VectorType::get({part}, spec.inType);
  kb.gridStrideLoop(kb.idx(getQuantize1x32Work(v)), [&](Value t) {
    Value valid =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, t, kb.idx(work));
    Value redo = arith::AddIOp::create(
        kb, kb.idx(work - lanes), arith::RemUIOp::create(kb, t, kb.idx(lanes)));
    Value item = arith::SelectOp::create(kb, valid, t, redo);
    Value i = arith::DivUIOp::create(kb, item, kb.idx(lanes));
    Value lane = arith::RemUIOp::create(kb, item, kb.idx(lanes));
    Value r = arith::DivUIOp::create(kb, i, kb.idx(blocksPerRow));
    Value blk = arith::RemUIOp::create(kb, i, kb.idx(blocksPerRow));
    Value col = arith::AddIOp::create(
        kb, arith::MulIOp::create(kb, blk, kb.idx(kBlockSize)),
        arith::MulIOp::create(kb, lane, kb.idx(part)));
    // 32 (bf16) or 64 (f32) contiguous bytes: 16-byte vector loads, all
    // issued before the reduction uses them.
    Value x = input.load(kb, inVec, in, {r, col}, 16);
    auto oneF32 = VectorType::get({1}, kb.getF32Type());
    Value mine = vector::BroadcastOp::create(
        kb, oneF32, amaxF32(kb, kb.reduceMax(kb.absBits(x))));
    for (int64_t m = 1; m < lanes; m *= 2)
      mine = arith::MaximumFOp::create(kb, mine, kb.shuffleXor(mine, m));
    Value amax = vector::ExtractOp::create(kb, mine, 0);
    Bits bb = kb.bits();
    Value byte = computeScaleByte(bb, amax, spec.mode, fmt);
    Value rcp = computeReciprocal(bb, byte);
    Value isNaN = bb.eq(byte, bb.c(255));
    Value q = quantizeLanes(kb, toF32(kb, x), rcp, isNaN, spec.f8Type);
    Value must = bf16 ? bf16.mustStoreFp8(kb, {byte}) : Value();
    storeFp8Where(kb, must, [&] { kb.store(q, data, {r, col}, 16); });
    if (bf16)
      bf16.storeRow(kb, q, byte, r, col);
    Value first =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, lane, kb.idx(0));
    kb.ifThen(first, [&] {
      storeScaleBytes(
          kb, {byte}, scales, spec.layout, {r, blk},
          [&](int64_t) { return std::make_pair(r, blk); }, blocksPerRow);
    });
  });
  if (spec.layout == ScaleLayout::Blocked)
    emitBlockedPadding(kb, scales, v.rows, blocksPerRow);
  if (bf16)
    bf16.zeroPadding(kb);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// quantize -> one launch of a 1x32 (last axis) or 32x1 (other axes)
/// kernel.
struct QuantizeOpToGPU final : KernelPattern<QuantizeOp> {
  QuantizeOpToGPU(MLIRContext *ctx, KernelCache cache, bool fuseProducers)
      : KernelPattern(ctx, std::move(cache)), fuseProducers(fuseProducers) {}

  LogicalResult rewriteStatic(QuantizeOp op,
                              PatternRewriter &rewriter) const override {
    if (op.isFloat8())
      return rewriter.notifyMatchFailure(op,
                                         "Float8 cast: Float8CastKernels.cpp");
    Location loc = op.getLoc();
    RankedTensorType inputType = op.getInput().getType();
    QuantizeSpec spec{BlockView::get(inputType.getShape(), op.getAxis()),
                      inputType.getElementType(),
                      op.getData().getType().getElementType(),
                      op.getScaleMode(), op.getScaleLayout()};
    const BlockView &v = spec.view;

    // A 32x1 cast reads a fused pad_token_groups' input through its offsets.
    KernelInput input =
        KernelInput::get(op.getInput(), fuseProducers, cache.getFusePadding());
    SmallVector<Value> ins = input.getViews(rewriter, loc, v.dataShape());
    SmallVector<Value> buffers = allocResults(rewriter, op);
    Value data = collapseTo(rewriter, loc, buffers[0], v.dataShape());
    Value scales = buffers[1];
    if (spec.layout == ScaleLayout::RowMajor)
      scales = collapseTo(rewriter, loc, buffers[1], v.scaleShape());

    std::string name = llvm::formatv(
        "quantize_{0}_{1}_{2}_{3}_{4}_{5}", v.rowwise ? "1x32" : "32x1",
        getTypeTag(spec.inType), getTypeTag(spec.f8Type), getModeTag(spec.mode),
        getLayoutTag(spec.layout), getShapeTag(v.dataShape()));
    name += input.getNameTag();
    // The GEMM operand's bf16 form this cast writes too (sm_90a).
    const DequantFusion *fusion = cache.getDequantFusion();
    const FusedDequantOperand *fused =
        fusion ? fusion->getQuantizeOutput(op, 0) : nullptr;
    name += BF16OperandWriter::getNameTag(fused, "bf16");
    SmallVector<Value> args = ins;
    args.append({data, scales});
    if (fused)
      args.append({fused->buffer, fused->flag});
    // 2d-2d forms: the GEMM's token group offsets.
    if (fused && fused->offs)
      args.push_back(fused->offs);
    // The 32x1 kernel's lanes per column tile.
    int64_t cpt = getColsPerThread(v.cols);
    int64_t split =
        v.rowwise ? 1 : getColumnSplit(cache, input, fused != nullptr, cpt);
    unsigned n = ins.size();
    gpu::GPUFuncOp kernel = cache.getOrCreate(
        rewriter, name, ValueRange(args).getTypes(), /*numInputs=*/n, {},
        [&](KernelBuilder &kb, ValueRange kargs, ValueRange) {
          BF16OperandWriter bf16;
          if (fused)
            bf16 = BF16OperandWriter(*fused, kargs[n + 2], kargs[n + 3],
                                     fused->offs ? kargs[n + 4] : Value());
          if (v.rowwise)
            buildQuantize1x32(kb, spec, input, kargs.take_front(n), kargs[n],
                              kargs[n + 1], bf16);
          else
            buildQuantize32x1(kb, spec, input, split, kargs.take_front(n),
                              kargs[n], kargs[n + 1], bf16);
        });
    // The offsets follow the outputs but are read.
    if (fused && fused->offs) {
      kernel.removeArgAttr(n + 4, LLVM::LLVMDialect::getWriteOnlyAttrName());
      kernel.setArgAttr(n + 4, LLVM::LLVMDialect::getReadonlyAttrName(),
                        rewriter.getUnitAttr());
    }
    int64_t work =
        v.rowwise ? getQuantize1x32Work(v)
                  : split * getColumnTiles(v, cpt, split, split > 1).second;
    return launchAndReplace(rewriter, op, kernel, cache.getGridSize(work), args,
                            buffers);
  }

  bool fuseProducers;
};

/// quantize_dual -> one launch that reads the input once.
struct QuantizeDualOpToGPU final : KernelPattern<QuantizeDualOp> {
  QuantizeDualOpToGPU(MLIRContext *ctx, KernelCache cache, bool fuseProducers)
      : KernelPattern(ctx, std::move(cache)), fuseProducers(fuseProducers) {}

  LogicalResult rewriteStatic(QuantizeDualOp op,
                              PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inputType = op.getInput().getType();
    int64_t rank = inputType.getRank();
    Type inType = inputType.getElementType();
    QuantizeSpec rowSpec{BlockView::get(inputType.getShape(), rank - 1), inType,
                         op.getRowwiseData().getType().getElementType(),
                         op.getScaleMode(), op.getRowwiseLayout()};
    QuantizeSpec colSpec{BlockView::get(inputType.getShape(), rank - 2), inType,
                         op.getColwiseData().getType().getElementType(),
                         op.getScaleMode(), op.getColwiseLayout()};
    const BlockView &v = colSpec.view;
    // The kernel indexes both results in the (outer, rows, cols) view.
    SmallVector<int64_t> rowScaleShape =
        v.outer == 1
            ? SmallVector<int64_t>{v.rows, v.cols / kBlockSize}
            : SmallVector<int64_t>{v.outer, v.rows, v.cols / kBlockSize};

    KernelInput input =
        KernelInput::get(op.getInput(), fuseProducers, cache.getFusePadding());
    SmallVector<Value> ins = input.getViews(rewriter, loc, v.dataShape());
    SmallVector<Value> buffers = allocResults(rewriter, op), views;
    views.push_back(collapseTo(rewriter, loc, buffers[0], v.dataShape()));
    views.push_back(rowSpec.layout == ScaleLayout::RowMajor
                        ? collapseTo(rewriter, loc, buffers[1], rowScaleShape)
                        : buffers[1]);
    views.push_back(collapseTo(rewriter, loc, buffers[2], v.dataShape()));
    views.push_back(colSpec.layout == ScaleLayout::RowMajor
                        ? collapseTo(rewriter, loc, buffers[3], v.scaleShape())
                        : buffers[3]);

    std::string name = llvm::formatv(
        "quantize_dual_{0}_{1}_{2}_{3}_{4}_{5}_{6}", getTypeTag(inType),
        getTypeTag(rowSpec.f8Type), getTypeTag(colSpec.f8Type),
        getModeTag(op.getScaleMode()), getLayoutTag(rowSpec.layout),
        getLayoutTag(colSpec.layout), getShapeTag(v.dataShape()));
    name += input.getNameTag();
    // The GEMM operands' bf16 forms the two casts write too (sm_90a).
    const DequantFusion *fusion = cache.getDequantFusion();
    const FusedDequantOperand *rowFused =
        fusion ? fusion->getQuantizeOutput(op, 0) : nullptr;
    const FusedDequantOperand *colFused =
        fusion ? fusion->getQuantizeOutput(op, 2) : nullptr;
    name += BF16OperandWriter::getNameTag(rowFused, "rbf16");
    name += BF16OperandWriter::getNameTag(colFused, "cbf16");
    // getColumnSplit lanes per 32 x cpt tile.
    int64_t cpt = getDualColsPerThread(inType);
    int64_t split = getColumnSplit(cache, input, colFused != nullptr, cpt);
    SmallVector<Value> args = ins;
    llvm::append_range(args, views);
    for (const FusedDequantOperand *fused : {rowFused, colFused})
      if (fused)
        args.append({fused->buffer, fused->flag});
    unsigned n = ins.size();
    // The rowwise scale bytes of a CTA through workgroup memory.
    int64_t staged = cache.getStageRowScales()
                         ? getStagedRowScaleBlocks(rowSpec, v, cpt, split)
                         : 0;
    SmallVector<Type> workgroup;
    if (staged)
      workgroup.push_back(MemRefType::get(
          {kBlockSize * staged}, rewriter.getI8Type(),
          MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                     gpu::AddressSpace::Workgroup)));
    gpu::GPUFuncOp kernel = cache.getOrCreate(
        rewriter, name, ValueRange(args).getTypes(), /*numInputs=*/n, workgroup,
        [&](KernelBuilder &kb, ValueRange kargs, ValueRange wg) {
          unsigned next = n + 4;
          auto writer = [&](const FusedDequantOperand *fused) {
            if (!fused)
              return BF16OperandWriter();
            next += 2;
            return BF16OperandWriter(*fused, kargs[next - 2], kargs[next - 1]);
          };
          BF16OperandWriter rowBF16 = writer(rowFused);
          BF16OperandWriter colBF16 = writer(colFused);
          buildQuantizeDual(kb, rowSpec, colSpec, input, split,
                            kargs.take_front(n), kargs[n], kargs[n + 1],
                            kargs[n + 2], kargs[n + 3], rowBF16, colBF16,
                            wg.empty() ? Value() : wg[0]);
        });
    int64_t work = split * getColumnTiles(v, cpt, split, true).second;
    return launchAndReplace(rewriter, op, kernel, cache.getGridSize(work), args,
                            buffers);
  }

  bool fuseProducers;
};

} // namespace

void gpu_lowering::populateQuantizeKernelPatterns(RewritePatternSet &patterns,
                                                  KernelCache &cache,
                                                  bool fuseProducers) {
  patterns.add<QuantizeOpToGPU, QuantizeDualOpToGPU>(patterns.getContext(),
                                                     cache, fuseProducers);
}
