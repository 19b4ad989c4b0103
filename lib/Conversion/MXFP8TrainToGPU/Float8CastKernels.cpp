//===- Float8CastKernels.cpp - Float8 quantize kernels --------*- C++ -*-===//
//
// The Float8 casts (f32 scales, SPEC-float8 §2) of convert-mxfp8train-to-gpu.
// Every cast is viewed as `outer x red x inner`, reduced along `red`:
//
// - row (axiswise, nothing after the axis: the rowwise cast along the last
//   dim): one kernel. `threadsPerRow` threads (32..256) of a CTA share a
//   row; each loads its 16-byte chunks into registers (or, past
//   kMaxRowChunksPerThread chunks, reads the row a second time), the amax
//   is completed by `shfl.sync.bfly` and, across warps, a word of shared
//   memory per warp; the scale comes from the shared computeFloat8Scale and
//   the data from the registers.
// - column (axiswise along any other dim, e.g. the colwise cast of an
//   (M, K) tensor or the -2 axis of (E, K, N) weights) and tensor
//   (tensorwise): the group amax needs every CTA, so it goes through device
//   words without a host round-trip: the words are zeroed in-stream
//   (`gpu.memset`), an amax kernel reads each element once (coalesced
//   16-byte row loads; a column amax in CTA tiles of 128 rows x 32 strips,
//   reduced over the CTA's warps in shared memory first) and `atomicMax`es
//   the u32 bits of the f32 |x|
//   (non-negative floats order like their bits and every NaN's bits
//   exceed +Inf's, so a NaN makes the word a NaN and the scale NaN, as
//   SPEC-float8 §2.7 wants; |.| clears the sign of -0.0), and a cast
//   kernel turns each word into the scale with computeFloat8Scale, casts
//   and writes the scales.
// - dequantize: elementwise, 16 output bytes per thread, the hardware
//   `cvt.rn.f16x2.{e4m3,e5m2}x2` (exact), the IEEE f32 division `q / s`
//   (`div.rn.f32`) and one rounding to the result type.
//
// The data cast is `RN_f32(x * s)` then the hardware
// `cvt.rn.satfinite.{e4m3,e5m2}x2.f32`, the RNE satfinite cast that
// encodeElement (and so castToFloat8) computes; a NaN product (NaN scale,
// or ±Inf times the scale 0) is forced to 0x7F as on the CPU path.
//
//===----------------------------------------------------------------------===//

#include "Float8CastKernels.h"
#include "CastLanes.h"
#include "Float8SiblingCasts.h"
#include "FusedProducer.h"
#include "Gemm/Float8TransposeFusion.h"
#include "Gemm/GemmAmaxFusion.h"
#include "mxfp8train/Conversion/Utils/Float8Arith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using namespace mlir::mxfp8train::lowering;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

namespace {
/// Everything a Float8 quantize kernel is specialised on.
struct Float8CastSpec {
  Float8View view;
  Type inType, f8Type;
  bool pow2;
};
} // namespace

int64_t gpu_lowering::getLaneCount(int64_t contiguous, Type elemType) {
  int64_t lanes = 16 / (elemType.getIntOrFloatBitWidth() / 8);
  while (contiguous % lanes != 0)
    lanes /= 2;
  return lanes;
}

int64_t gpu_lowering::getAccessBytes(int64_t lanes, Type type) {
  return lanes * type.getIntOrFloatBitWidth() / 8;
}

//===----------------------------------------------------------------------===//
// Kernel-body pieces
//===----------------------------------------------------------------------===//

Value gpu_lowering::castLanes(KernelBuilder &kb, Value x, Value s,
                              Type f8Type) {
  auto type = cast<VectorType>(x.getType());
  if (!isa<VectorType>(s.getType()))
    s = vector::BroadcastOp::create(kb, type, s);
  Value y = arith::MulFOp::create(kb, x, s);
  Value q = kb.convertToF8(y, f8Type);
  auto byteType = VectorType::get(type.getShape(), kb.getI8Type());
  Value isNaN = arith::CmpFOp::create(kb, arith::CmpFPredicate::UNO, y, y);
  q = arith::SelectOp::create(kb, isNaN, kb.splatBits(byteType, 0x7F), q);
  return kb.bitcastTo(VectorType::get(type.getShape(), f8Type), q);
}

Value gpu_lowering::reduceAmaxF32(KernelBuilder &kb, Value absLanes) {
  Value m = kb.reduceMax(absLanes);
  if (m.getType().isF32())
    return m;
  return arith::ExtFOp::create(kb, kb.getF32Type(), m);
}

Value gpu_lowering::warpMax(KernelBuilder &kb, Value a, int64_t width) {
  auto oneF32 = VectorType::get({1}, kb.getF32Type());
  Value v = vector::BroadcastOp::create(kb, oneF32, a);
  for (int64_t m = 1; m < width; m *= 2)
    v = arith::MaximumFOp::create(kb, v, kb.shuffleXor(v, m));
  return vector::ExtractOp::create(kb, v, 0);
}

/// The maximum of the f32 `a` over the `groupWarps` consecutive warps of
/// each thread's warp group, in every thread: warp shuffles, one word of
/// `wg` (workgroup memory, one f32 per warp) per warp, and two barriers
/// (the second lets the caller's next round reuse `wg`). Every thread of
/// the CTA must call it.
static Value ctaMax(KernelBuilder &kb, Value a, Value wg, int64_t groupWarps) {
  Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(kb, tid, kb.idx(32));
  Value lane = arith::RemUIOp::create(kb, tid, kb.idx(32));
  a = warpMax(kb, a, 32);
  kb.ifThen(
      arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, lane, kb.idx(0)),
      [&] { memref::StoreOp::create(kb, a, wg, ValueRange{warp}); });
  gpu::BarrierOp::create(kb);
  Value first = arith::MulIOp::create(
      kb, arith::DivUIOp::create(kb, warp, kb.idx(groupWarps)),
      kb.idx(groupWarps));
  Value m = memref::LoadOp::create(kb, wg, ValueRange{first});
  for (int64_t j = 1; j < groupWarps; ++j) {
    Value at = arith::AddIOp::create(kb, first, kb.idx(j));
    m = arith::MaximumFOp::create(kb, m, memref::LoadOp::create(kb, wg, at));
  }
  gpu::BarrierOp::create(kb);
  return m;
}

/// `scf.for iv = start; iv < count; iv += step` carrying the running
/// NaN-propagating maxima of `body(iv)` (one per value of `inits`, same
/// types); returns them.
static SmallVector<Value>
forLoopMax(KernelBuilder &kb, Value start, Value count, Value step,
           ValueRange inits, function_ref<SmallVector<Value>(Value)> body) {
  auto loop = scf::ForOp::create(kb, start, count, step, inits);
  {
    OpBuilder::InsertionGuard guard(kb);
    kb.setInsertionPointToEnd(loop.getBody());
    SmallVector<Value> values = body(loop.getInductionVar());
    SmallVector<Value> maxima;
    for (auto [running, v] : llvm::zip_equal(loop.getRegionIterArgs(), values))
      maxima.push_back(arith::MaximumFOp::create(kb, running, v));
    scf::YieldOp::create(kb, maxima);
  }
  return SmallVector<Value>(loop.getResults());
}

/// min(v, bound) of index values.
static Value clampIdx(KernelBuilder &kb, Value v, int64_t bound) {
  return arith::MinUIOp::create(kb, v, kb.idx(bound));
}

/// The workgroup memory of ctaMax: one f32 per warp of the CTA.
static MemRefType getWarpMaxType(MLIRContext *ctx) {
  return MemRefType::get(
      {kThreadsPerCTA / 32}, Float32Type::get(ctx), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

//===----------------------------------------------------------------------===//
// Row kernel (axiswise along the innermost extent)
//===----------------------------------------------------------------------===//

/// Chunks per thread above which the row kernel reads its row twice (amax,
/// then cast) instead of keeping it in registers: 64 bf16 / 32 f32 values,
/// rows of up to 16384 bf16 / 8192 f32 elements in one read.
static constexpr int64_t kMaxRowChunksPerThread = 8;

namespace {
/// How the row kernel splits a row of `chunks` 16-byte chunks (`lanes`
/// elements each) over `threadsPerRow` threads, `chunksPerThread` each.
struct RowPlan {
  int64_t lanes, chunks, threadsPerRow, chunksPerThread;
  bool twoPass;

  static RowPlan get(const Float8View &v, Type inType) {
    RowPlan p;
    p.lanes = getLaneCount(v.red, inType);
    p.chunks = v.red / p.lanes;
    p.threadsPerRow =
        std::clamp<int64_t>(llvm::PowerOf2Ceil(p.chunks), 32, kThreadsPerCTA);
    p.chunksPerThread = llvm::divideCeil(p.chunks, p.threadsPerRow);
    p.twoPass = p.chunksPerThread > kMaxRowChunksPerThread;
    return p;
  }
  int64_t rowsPerCTA() const { return kThreadsPerCTA / threadsPerRow; }
  /// CTAs of one row group each.
  int64_t groups(const Float8View &v) const {
    return llvm::divideCeil(v.outer, rowsPerCTA());
  }
};
} // namespace

/// Row: (in (rows, K), data (rows, K), scales (rows), wg) — the CTAs walk
/// row groups (grid-stride, uniform per CTA so that the barriers are);
/// thread `sub` of a row takes chunks sub, sub + threadsPerRow, ...
/// Threads of the last group past the last row redo it (same bytes).
static void buildRowQuantize(KernelBuilder &kb, const Float8CastSpec &spec,
                             const KernelInput &input, ValueRange in,
                             Value data, Value scales, Value wg) {
  const Float8View &v = spec.view;
  RowPlan p = RowPlan::get(v, spec.inType);
  ElementFormat fmt = getElementFormat(spec.f8Type);
  auto inVec = VectorType::get({p.lanes}, spec.inType);
  int64_t inAlign = getAccessBytes(p.lanes, spec.inType);
  int64_t t = p.threadsPerRow;
  Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  Value sub = arith::RemUIOp::create(kb, tid, kb.idx(t));
  Value rowInCTA = arith::DivUIOp::create(kb, tid, kb.idx(t));
  Value start = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
  Value step = gpu::GridDimOp::create(kb, gpu::Dimension::x);
  kb.forLoop(start, kb.idx(p.groups(v)), step, [&](Value g) {
    Value r = clampIdx(
        kb,
        arith::AddIOp::create(
            kb, arith::MulIOp::create(kb, g, kb.idx(p.rowsPerCTA())), rowInCTA),
        v.outer - 1);
    auto chunkAt = [&](int64_t u) {
      return arith::AddIOp::create(kb, sub, kb.idx(u * t)).getResult();
    };
    auto colOf = [&](Value j) {
      return arith::MulIOp::create(kb, j, kb.idx(p.lanes)).getResult();
    };
    auto loadChunk = [&](Value j) {
      return input.load(kb, inVec, in, {r, colOf(j)}, inAlign);
    };
    // amax of the thread's chunks: all loads issued before the reduction.
    SmallVector<Value> xs;
    Value amax;
    if (!p.twoPass) {
      for (int64_t u = 0; u < p.chunksPerThread; ++u)
        xs.push_back(loadChunk(clampIdx(kb, chunkAt(u), p.chunks - 1)));
      Value m = kb.absBits(xs[0]);
      for (Value x : ArrayRef(xs).drop_front())
        m = arith::MaximumFOp::create(kb, m, kb.absBits(x));
      amax = reduceAmaxF32(kb, m);
    } else {
      Bits bb = kb.bits();
      amax = forLoopMax(kb, sub, kb.idx(p.chunks), kb.idx(t), {bb.cf(0.0f)},
                        [&](Value j) -> SmallVector<Value> {
                          return {reduceAmaxF32(kb, kb.absBits(loadChunk(j)))};
                        })[0];
    }
    amax = t == 32 ? warpMax(kb, amax, 32) : ctaMax(kb, amax, wg, t / 32);
    Bits bb = kb.bits();
    Value s = computeFloat8Scale(bb, amax, fmt, spec.pow2);
    kb.ifThen(
        arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, sub, kb.idx(0)),
        [&] { memref::StoreOp::create(kb, s, scales, ValueRange{r}); });
    auto castChunk = [&](Value x, Value j) {
      kb.store(castLanes(kb, toF32(kb, x), s, spec.f8Type), data, {r, colOf(j)},
               p.lanes);
    };
    if (p.twoPass) {
      kb.forLoop(sub, kb.idx(p.chunks), kb.idx(t),
                 [&](Value j) { castChunk(loadChunk(j), j); });
      return;
    }
    for (int64_t u = 0; u < p.chunksPerThread; ++u) {
      Value j = chunkAt(u);
      if ((u + 1) * t <= p.chunks) {
        castChunk(xs[u], j);
        continue;
      }
      kb.ifThen(arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, j,
                                      kb.idx(p.chunks)),
                [&] { castChunk(xs[u], j); });
    }
  });
}

//===----------------------------------------------------------------------===//
// Amax kernels (column and tensor) and the casts that read their words
//===----------------------------------------------------------------------===//

/// Chunks in flight per thread of the tensor amax kernel, and its grid cap
/// (one atomic per CTA on one word).
static constexpr int64_t kTensorAmaxUnroll = 4;
static constexpr int64_t kTensorAmaxMaxCTAs = 2048;

/// A column work item `i` over (outer, row chunk, column group), the column
/// group fastest (a warp's row loads are contiguous): {o, r0, rowChunk, c0}.
static std::array<Value, 4>
decomposeColumnItem(KernelBuilder &kb, Value i, int64_t groupsPerRow,
                    int64_t rowChunks, int64_t rowsPer, int64_t lanes) {
  Value cg = arith::RemUIOp::create(kb, i, kb.idx(groupsPerRow));
  Value rest = arith::DivUIOp::create(kb, i, kb.idx(groupsPerRow));
  Value rc = arith::RemUIOp::create(kb, rest, kb.idx(rowChunks));
  Value o = arith::DivUIOp::create(kb, rest, kb.idx(rowChunks));
  return {o, arith::MulIOp::create(kb, rc, kb.idx(rowsPer)), rc,
          arith::MulIOp::create(kb, cg, kb.idx(lanes))};
}

Value gpu_lowering::loadScalesFromAmaxWords(KernelBuilder &kb, Value words,
                                            ValueRange index, int64_t lanes,
                                            Type f8Type, bool pow2) {
  ElementFormat fmt = getElementFormat(f8Type);
  Value amaxBits = kb.load(VectorType::get({lanes}, kb.getI32Type()), words,
                           index, lanes * 4);
  SmallVector<Value> perColumn;
  for (int64_t j = 0; j < lanes; ++j) {
    Bits bb = kb.bits();
    Value amax = bb.f32FromBits(vector::ExtractOp::create(kb, amaxBits, j));
    perColumn.push_back(computeFloat8Scale(bb, amax, fmt, pow2));
  }
  return vector::FromElementsOp::create(
      kb, VectorType::get({lanes}, kb.getF32Type()), perColumn);
}

/// Work items of the column kernels with `rowsPer` rows each.
static int64_t getColumnWork(const Float8View &v, Type inType,
                             int64_t rowsPer) {
  return v.outer * llvm::divideCeil(v.red, rowsPer) *
         (v.inner / getLaneCount(v.inner, inType));
}

AmaxTileThread gpu_lowering::getAmaxTileThread(KernelBuilder &kb, Value sb,
                                               Value rb, int64_t strips,
                                               int64_t lanes, bool fusedInput) {
  Bits bb = kb.bits();
  Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  Value lane = bb.remu(tid, bb.cIdx(32));
  Value warp = bb.divu(tid, bb.cIdx(32));
  Value firstStrip = bb.mul(sb, bb.cIdx(kAmaxTileStrips));
  Value laneStrip = bb.add(firstStrip, lane);
  Value strip = bb.minu(laneStrip, bb.cIdx(strips - 1));
  AmaxTileThread t;
  t.c0 = bb.mul(strip, bb.cIdx(lanes));
  t.tileRow = bb.mul(rb, bb.cIdx(getAmaxTileRows(fusedInput)));
  Value warpRow = bb.mul(warp, bb.cIdx(getAmaxWarpRows(fusedInput)));
  t.r0 = bb.add(t.tileRow, warpRow);
  return t;
}

MemRefType gpu_lowering::getColumnAmaxReduceType(MLIRContext *ctx) {
  return MemRefType::get(
      {kThreadsPerCTA * 8}, Float32Type::get(ctx), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

void gpu_lowering::reduceColumnAmaxInCTA(
    KernelBuilder &kb, Value acc, Value buf, Value c0, int64_t lanes,
    function_ref<void(Value column, Value bits)> atomicMax) {
  Bits bb = kb.bits();
  Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  Value warp = bb.divu(tid, bb.cIdx(32));
  Value lane = bb.remu(tid, bb.cIdx(32));
  // Slot (w, l) holds the lanes of warp w's lane l.
  kb.store(acc, buf, {bb.mul(tid, bb.cIdx(8))}, lanes * 4);
  gpu::BarrierOp::create(kb);
  Value owner = bb.ult(warp, bb.cIdx(lanes));
  kb.ifThen(owner, [&] {
    Bits b2 = kb.bits();
    // Operands are built one statement at a time: argument evaluation
    // order differs between compilers and the IR order must not.
    Value laneSlot = b2.mul(lane, b2.cIdx(8));
    Value own = b2.add(laneSlot, warp);
    Value m;
    for (int64_t w = 0; w < kThreadsPerCTA / 32; ++w) {
      Value at = b2.add(own, b2.cIdx(w * 32 * 8));
      Value v = memref::LoadOp::create(kb, buf, ValueRange{at});
      m = m ? arith::MaximumFOp::create(kb, m, v).getResult() : v;
    }
    Value column = b2.add(c0, warp);
    Value bits = b2.f32Bits(m);
    atomicMax(column, bits);
  });
  // The buffer is read before the next tile overwrites it.
  gpu::BarrierOp::create(kb);
}

/// Column amax: (in (outer, red, inner), words (outer, inner) i32; `buf`
/// the reduction buffer) — CTA tiles of getAmaxTileRows rows x
/// kAmaxTileStrips strips of `lanes` columns, one tile per CTA
/// (grid-stride): each thread loads its strip's getAmaxWarpRows rows at once
/// (rows past the end clamped to the last: max is idempotent; strips past
/// the last likewise), then reduceColumnAmaxInCTA: one atomicMax per
/// column per tile.
static void buildColumnAmax(KernelBuilder &kb, const Float8CastSpec &spec,
                            const KernelInput &input, ValueRange in,
                            Value words, Value buf) {
  const Float8View &v = spec.view;
  int64_t lanes = getLaneCount(v.inner, spec.inType);
  int64_t strips = v.inner / lanes;
  int64_t stripBlocks = llvm::divideCeil(strips, kAmaxTileStrips);
  int64_t warpRows = getAmaxWarpRows(input.isFused());
  int64_t tileRows = getAmaxTileRows(input.isFused());
  int64_t rowBlocks = llvm::divideCeil(v.red, tileRows);
  auto inVec = VectorType::get({lanes}, spec.inType);
  int64_t inAlign = getAccessBytes(lanes, spec.inType);
  Value start = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
  Value step = gpu::GridDimOp::create(kb, gpu::Dimension::x);
  int64_t tiles = v.outer * rowBlocks * stripBlocks;
  kb.forLoop(start, kb.idx(tiles), step, [&](Value tile) {
    Bits bb = kb.bits();
    Value sb = bb.remu(tile, bb.cIdx(stripBlocks));
    Value rest = bb.divu(tile, bb.cIdx(stripBlocks));
    Value rb = bb.remu(rest, bb.cIdx(rowBlocks));
    Value o = bb.divu(rest, bb.cIdx(rowBlocks));
    auto [c0, tileRow, r0] =
        getAmaxTileThread(kb, sb, rb, strips, lanes, input.isFused());
    (void)tileRow;
    SmallVector<Value> xs;
    for (int64_t j = 0; j < warpRows; ++j) {
      Value r =
          clampIdx(kb, arith::AddIOp::create(kb, r0, kb.idx(j)), v.red - 1);
      xs.push_back(input.load(kb, inVec, in, {o, r, c0}, inAlign));
    }
    Value m = kb.absBits(xs[0]);
    for (Value x : ArrayRef(xs).drop_front())
      m = arith::MaximumFOp::create(kb, m, kb.absBits(x));
    reduceColumnAmaxInCTA(
        kb, toF32(kb, m), buf, c0, lanes, [&](Value column, Value bits) {
          memref::AtomicRMWOp::create(kb, arith::AtomicRMWKind::maxu, bits,
                                      words, ValueRange{o, column});
        });
  });
}

/// CTAs of the column amax kernel of view `v`: one per tile.
static int64_t getColumnAmaxTiles(const Float8View &v, Type inType,
                                  bool fusedInput) {
  int64_t strips = v.inner / getLaneCount(v.inner, inType);
  return v.outer * llvm::divideCeil(v.red, getAmaxTileRows(fusedInput)) *
         llvm::divideCeil(strips, kAmaxTileStrips);
}

/// Column cast: (in, words (outer, inner), data, scales (outer, inner)) —
/// one thread per `lanes` columns x min(kColumnCastRows, red) rows: the
/// scales of its columns from their amax words, written by the threads of
/// the first row chunk, then the rows cast in batches of kRowBatch loads.
static void buildColumnCast(KernelBuilder &kb, const Float8CastSpec &spec,
                            const KernelInput &input, ValueRange in,
                            Value words, Value data, Value scales) {
  const Float8View &v = spec.view;
  int64_t lanes = getLaneCount(v.inner, spec.inType);
  int64_t rowsPer = std::min(kColumnCastRows, v.red);
  auto inVec = VectorType::get({lanes}, spec.inType);
  int64_t inAlign = getAccessBytes(lanes, spec.inType);
  Value work = kb.idx(getColumnWork(v, spec.inType, rowsPer));
  kb.gridStrideLoop(work, [&](Value i) {
    auto [o, r0, rc, c0] =
        decomposeColumnItem(kb, i, v.inner / lanes,
                            llvm::divideCeil(v.red, rowsPer), rowsPer, lanes);
    Value s = loadScalesFromAmaxWords(kb, words, {o, c0}, lanes, spec.f8Type,
                                      spec.pow2);
    Value firstChunk =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, rc, kb.idx(0));
    kb.ifThen(firstChunk, [&] { kb.store(s, scales, {o, c0}, lanes * 4); });
    for (int64_t k0 = 0; k0 < rowsPer; k0 += kRowBatch) {
      SmallVector<Value> rows, xs;
      for (int64_t k = k0; k < std::min(k0 + kRowBatch, rowsPer); ++k) {
        rows.push_back(
            clampIdx(kb, arith::AddIOp::create(kb, r0, kb.idx(k)), v.red - 1));
        xs.push_back(input.load(kb, inVec, in, {o, rows.back(), c0}, inAlign));
      }
      for (auto [r, x] : llvm::zip(rows, xs))
        kb.store(castLanes(kb, toF32(kb, x), s, spec.f8Type), data, {o, r, c0},
                 lanes);
    }
  });
}

/// Tensor amax: (in (n), words (N) i32) — grid-stride over 16-byte chunks,
/// kTensorAmaxUnroll loads in flight per thread, then the CTA's maximum
/// (ctaMax) and one `atomicMax` per CTA, for each of the N results the
/// input reads (sibling casts: word r is result r's).
static void buildTensorAmax(KernelBuilder &kb, const Float8CastSpec &spec,
                            const KernelInput &input, ValueRange in,
                            Value words, Value wg) {
  const Float8View &v = spec.view;
  int64_t lanes = getLaneCount(v.red, spec.inType);
  int64_t chunks = v.red / lanes;
  unsigned numResults = input.getNumResults();
  auto inVec = VectorType::get({lanes}, spec.inType);
  int64_t inAlign = getAccessBytes(lanes, spec.inType);
  Value threads = kb.gridThreads();
  Value stride = arith::MulIOp::create(kb, threads, kb.idx(kTensorAmaxUnroll));
  SmallVector<Value> inits(numResults, kb.splatBits(inVec, 0));
  SmallVector<Value> acc = forLoopMax(
      kb, kb.globalThreadId(), kb.idx(chunks), stride, inits,
      [&](Value i) -> SmallVector<Value> {
        // xs[u][r]: result r of the u-th chunk.
        SmallVector<SmallVector<Value>> xs;
        for (int64_t u = 0; u < kTensorAmaxUnroll; ++u) {
          Value j = clampIdx(
              kb,
              arith::AddIOp::create(
                  kb, i, arith::MulIOp::create(kb, threads, kb.idx(u))),
              chunks - 1);
          xs.push_back(input.loadEach(
              kb, inVec, in, {arith::MulIOp::create(kb, j, kb.idx(lanes))},
              inAlign));
        }
        SmallVector<Value> maxima;
        for (unsigned r = 0; r < numResults; ++r) {
          Value m = kb.absBits(xs[0][r]);
          for (ArrayRef<Value> x : ArrayRef(xs).drop_front())
            m = arith::MaximumFOp::create(kb, m, kb.absBits(x[r]));
          maxima.push_back(m);
        }
        return maxima;
      });
  SmallVector<Value> amax;
  for (Value a : acc)
    amax.push_back(ctaMax(kb, reduceAmaxF32(kb, a), wg, kThreadsPerCTA / 32));
  Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  kb.ifThen(arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, tid, kb.idx(0)),
            [&] {
              Bits bb = kb.bits();
              for (auto [r, a] : llvm::enumerate(amax))
                memref::AtomicRMWOp::create(kb, arith::AtomicRMWKind::maxu,
                                            bb.f32Bits(a), words,
                                            ValueRange{kb.idx(r)});
            });
}

/// Tensor cast: (in (n), words (N), then per result data (n) and scale ())
/// — every thread computes the scales from the words once; thread 0
/// writes them; one 16-byte chunk per work item, cast for each of the N
/// results the input reads.
static void buildTensorCast(KernelBuilder &kb, const Float8CastSpec &spec,
                            const KernelInput &input, ValueRange in,
                            Value words, ArrayRef<Value> datas,
                            ArrayRef<Value> scales) {
  const Float8View &v = spec.view;
  ElementFormat fmt = getElementFormat(spec.f8Type);
  int64_t lanes = getLaneCount(v.red, spec.inType);
  auto inVec = VectorType::get({lanes}, spec.inType);
  int64_t inAlign = getAccessBytes(lanes, spec.inType);
  SmallVector<Value> s;
  for (unsigned r = 0; r < datas.size(); ++r) {
    Bits bb = kb.bits();
    Value amax = bb.f32FromBits(
        memref::LoadOp::create(kb, words, ValueRange{kb.idx(r)}));
    s.push_back(computeFloat8Scale(bb, amax, fmt, spec.pow2));
  }
  kb.ifThen(arith::CmpIOp::create(kb, arith::CmpIPredicate::eq,
                                  kb.globalThreadId(), kb.idx(0)),
            [&] {
              for (auto [scale, buffer] : llvm::zip_equal(s, scales))
                memref::StoreOp::create(kb, scale, buffer, ValueRange{});
            });
  kb.gridStrideLoop(kb.idx(v.red / lanes), [&](Value i) {
    Value col = arith::MulIOp::create(kb, i, kb.idx(lanes));
    SmallVector<Value> xs = input.loadEach(kb, inVec, in, {col}, inAlign);
    for (auto [x, scale, data] : llvm::zip_equal(xs, s, datas))
      kb.store(castLanes(kb, toF32(kb, x), scale, spec.f8Type), data, {col},
               lanes);
  });
}

//===----------------------------------------------------------------------===//
// Dequantization (shared with Float8DequantizeKernels.cpp and the per-group
// casts)
//===----------------------------------------------------------------------===//

Value gpu_lowering::dequantizeToF32(KernelBuilder &kb, Value q, Value s) {
  auto type = cast<VectorType>(q.getType());
  Value x = kb.convertFromF8(
      kb.bitcastTo(VectorType::get(type.getShape(), kb.getI8Type()), q),
      type.getElementType());
  // No fast-math flags: an IEEE division (div.rn.f32).
  return arith::DivFOp::create(kb, x, s);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// Float8 quantize -> the row kernel, or memset + amax + cast kernels.
///
/// Sibling tensorwise casts: the quantizes of different results of one
/// fused elementwise producer (e.g. the Llama MLP backward's dH1 and dH3,
/// two results of one generic over (dA, h1, h3)) that areSiblingCasts are
/// lowered together at the first of them: one amax kernel with a word per
/// cast and one cast kernel writing every cast's data, K-major copy and
/// scale, so the producer's operands are read twice in all instead of
/// twice per cast. The bytes are those of the separate kernels (each
/// result's amax, scale and cast are computed as alone).
struct Float8QuantizeOpToGPU final : KernelPattern<QuantizeOp> {
  Float8QuantizeOpToGPU(MLIRContext *ctx, KernelCache cache, bool fuseProducers)
      : KernelPattern(ctx, std::move(cache)), fuseProducers(fuseProducers) {}

  LogicalResult rewriteStatic(QuantizeOp op,
                              PatternRewriter &rewriter) const override {
    if (!op.isFloat8() || op.isPerGroup())
      return rewriter.notifyMatchFailure(op, "not a dense Float8 cast");
    Location loc = op.getLoc();
    RankedTensorType inputType = op.getInput().getType();
    bool tensorwise = *op.getGranularity() == Float8Granularity::Tensorwise;
    Float8CastSpec spec{
        Float8View::get(inputType.getShape(), tensorwise, op.getAxis()),
        inputType.getElementType(), op.getData().getType().getElementType(),
        op.getPow2()};
    const Float8View &v = spec.view;

    KernelInput input =
        KernelInput::get(op.getInput(), fuseProducers, cache.getFusePadding());
    // The casts lowered here: `op`, or its sibling group (in block order),
    // launched at the first.
    SmallVector<QuantizeOp> casts = getFloat8SiblingCasts(op, input, cache);
    if (casts.size() > 1) {
      input = KernelInput::getSiblings(
          llvm::map_to_vector(
              casts, [](QuantizeOp q) -> Value { return q.getInput(); }),
          fuseProducers);
      rewriter.setInsertionPoint(casts.front());
      loc = casts.front().getLoc();
    }
    // A GEMM epilogue takes this group's amaxes (Gemm/GemmAmaxFusion.h):
    // the group waits until that GEMM, which writes the words, is lowered.
    Value gemmWords;
    if (const GemmAmaxFusion *amaxes = cache.getGemmAmaxFusion();
        amaxes && amaxes->isPlanned(casts.front())) {
      gemmWords = amaxes->getWords(casts.front());
      if (!gemmWords)
        return rewriter.notifyMatchFailure(
            op, "its amax is taken by a GEMM epilogue not yet lowered");
    }
    SmallVector<Value> ins = input.getViews(rewriter, loc, v.dataShape());
    SmallVector<SmallVector<Value>> buffers;
    SmallVector<Value> datas, scales;
    for (QuantizeOp q : casts) {
      buffers.push_back(allocResults(rewriter, q));
      datas.push_back(
          collapseTo(rewriter, loc, buffers.back()[0], v.dataShape()));
      scales.push_back(
          v.kind == Float8ViewKind::Tensor
              ? buffers.back()[1]
              : collapseTo(rewriter, loc, buffers.back()[1], v.scaleShape()));
    }
    auto replaceAll = [&]() -> LogicalResult {
      for (auto [q, b] : llvm::zip_equal(casts, buffers))
        (void)replaceWithBuffers(rewriter, q, b);
      return success();
    };
    std::string tag =
        llvm::formatv("{0}_{1}_{2}{3}_{4}", v.tag(), getTypeTag(spec.inType),
                      getTypeTag(spec.f8Type), spec.pow2 ? "_pow2" : "",
                      getShapeTag(v.dataShape()));
    tag += input.getNameTag();
    unsigned n = ins.size();
    SmallVector<Type> warpMaxType = {getWarpMaxType(rewriter.getContext())};

    if (v.kind == Float8ViewKind::Row) {
      assert(!getKMajorOutput(op) &&
             "a row cast is never a GEMM's MN-major operand");
      RowPlan p = RowPlan::get(v, spec.inType);
      SmallVector<Value> args = ins;
      args.append({datas[0], scales[0]});
      gpu::GPUFuncOp kernel = cache.getOrCreate(
          rewriter, "float8_quantize_" + tag, ValueRange(args).getTypes(), n,
          p.threadsPerRow > 32 ? TypeRange(warpMaxType) : TypeRange(),
          [&](KernelBuilder &kb, ValueRange kargs, ValueRange wg) {
            buildRowQuantize(kb, spec, input, kargs.take_front(n), kargs[n],
                             kargs[n + 1], wg.empty() ? Value() : wg[0]);
          });
      return launchAndReplace(rewriter, op, kernel,
                              p.groups(v) /* one row group per CTA */, args,
                              buffers[0]);
    }

    bool column = v.kind == Float8ViewKind::Column;
    int64_t lanes = getLaneCount(v.contiguous(), spec.inType);
    Value words = gemmWords;
    if (!words)
      words = launchAmax(rewriter, loc, spec, input, casts.size(), ins);

    // The GEMMs that read the data MN-major read the K-major copy this
    // cast writes instead (Gemm/Float8TransposeFusion.h); siblings all
    // write one (areSiblingCasts).
    if (const FusedTransposedOperand *fused = getKMajorOutput(op)) {
      const Float8TransposeSpec &d = fused->form.d;
      SmallVector<int64_t> view = {d.batches * d.k, d.rows};
      SmallVector<Value> kIns = input.getViews(rewriter, loc, view);
      Value kWords = words;
      if (column) {
        int64_t numScales = v.outer * v.inner;
        kWords = collapseTo(rewriter, loc, words, {numScales});
      }
      SmallVector<Float8KMajorCastOutput> outputs;
      for (auto [q, b] : llvm::zip_equal(casts, buffers)) {
        const FusedTransposedOperand *qFused = getKMajorOutput(q);
        Value kData =
            qFused->writeData ? collapseTo(rewriter, loc, b[0], view) : Value();
        Value kScales =
            column ? collapseTo(rewriter, loc, b[1], {v.outer * v.inner})
                   : b[1];
        outputs.push_back({qFused, kData, kScales});
      }
      launchFloat8KMajorCast(rewriter, loc, cache, outputs,
                             column ? Float8ScaleLayout::Column
                                    : Float8ScaleLayout::Tensor,
                             input, kIns, kWords, spec.inType, spec.pow2);
      return replaceAll();
    }

    SmallVector<Value> castArgs = ins;
    castArgs.push_back(words);
    for (auto [data, scale] : llvm::zip_equal(datas, scales))
      castArgs.append({data, scale});
    gpu::GPUFuncOp castKernel = cache.getOrCreate(
        rewriter, "float8_cast_" + tag, ValueRange(castArgs).getTypes(), n + 1,
        {}, [&](KernelBuilder &kb, ValueRange kargs, ValueRange) {
          if (column) {
            buildColumnCast(kb, spec, input, kargs.take_front(n), kargs[n],
                            kargs[n + 1], kargs[n + 2]);
            return;
          }
          SmallVector<Value> kDatas, kScales;
          for (unsigned r = 0; r < casts.size(); ++r) {
            kDatas.push_back(kargs[n + 1 + 2 * r]);
            kScales.push_back(kargs[n + 2 + 2 * r]);
          }
          buildTensorCast(kb, spec, input, kargs.take_front(n), kargs[n],
                          kDatas, kScales);
        });
    int64_t castGrid =
        column ? cache.getGridSize(getColumnWork(
                     v, spec.inType, std::min(kColumnCastRows, v.red)))
               : cache.getGridSize(v.red / lanes);
    launch(rewriter, loc, castKernel, castGrid, castArgs);
    return replaceAll();
  }

  /// The amax words of a column or tensor cast (`casts` tensorwise
  /// siblings: one word each), zeroed in-stream, and the amax kernel that
  /// fills them from `ins` (the views of `input`); returns the words.
  Value launchAmax(PatternRewriter &rewriter, Location loc,
                   const Float8CastSpec &spec, const KernelInput &input,
                   int64_t casts, ArrayRef<Value> ins) const {
    const Float8View &v = spec.view;
    bool column = v.kind == Float8ViewKind::Column;
    SmallVector<int64_t> wordShape = v.kind == Float8ViewKind::Tensor
                                         ? SmallVector<int64_t>{casts}
                                         : v.scaleShape();
    Value words = allocZeroedWords(rewriter, loc, wordShape);
    unsigned n = ins.size();
    SmallVector<Value> amaxArgs(ins);
    amaxArgs.push_back(words);
    std::string amaxName = llvm::formatv(
        "float8_amax_{0}_{1}_{2}{3}", v.tag(), getTypeTag(spec.inType),
        getShapeTag(v.dataShape()), input.getNameTag());
    SmallVector<Type> reduceType = {
        getColumnAmaxReduceType(rewriter.getContext())};
    SmallVector<Type> warpMaxType = {getWarpMaxType(rewriter.getContext())};
    gpu::GPUFuncOp amaxKernel = cache.getOrCreate(
        rewriter, amaxName, ValueRange(amaxArgs).getTypes(), n,
        column ? TypeRange(reduceType) : TypeRange(warpMaxType),
        [&](KernelBuilder &kb, ValueRange kargs, ValueRange wg) {
          if (column)
            buildColumnAmax(kb, spec, input, kargs.take_front(n), kargs[n],
                            wg[0]);
          else
            buildTensorAmax(kb, spec, input, kargs.take_front(n), kargs[n],
                            wg[0]);
        });
    // The words are read and written by the atomics (the kernel's parameter
    // after the non-empty input buffers: an empty one is no parameter).
    unsigned wordsParam = llvm::count_if(
        ins, [](Value v) { return !isEmptyBuffer(v.getType()); });
    amaxKernel.removeArgAttr(wordsParam,
                             LLVM::LLVMDialect::getWriteOnlyAttrName());
    int64_t lanes = getLaneCount(v.contiguous(), spec.inType);
    int64_t amaxGrid =
        column ? std::max<int64_t>(
                     1, getColumnAmaxTiles(v, spec.inType, input.isFused()))
               : std::min(cache.getGridSize(llvm::divideCeil(
                              v.red / lanes, kTensorAmaxUnroll)),
                          kTensorAmaxMaxCTAs);
    launch(rewriter, loc, amaxKernel, amaxGrid, amaxArgs);
    return words;
  }

  /// The K-major copy this cast writes for Float8 GEMMs, or null.
  const FusedTransposedOperand *getKMajorOutput(QuantizeOp op) const {
    const Float8TransposeFusion *fusion = cache.getFloat8TransposeFusion();
    return fusion ? fusion->getQuantizeOutput(op) : nullptr;
  }

  bool fuseProducers;
};

} // namespace

void gpu_lowering::populateFloat8CastKernelPatterns(RewritePatternSet &patterns,
                                                    KernelCache &cache,
                                                    bool fuseProducers) {
  patterns.add<Float8QuantizeOpToGPU>(patterns.getContext(), cache,
                                      fuseProducers);
  populateFloat8DequantizeKernelPatterns(patterns, cache);
}
