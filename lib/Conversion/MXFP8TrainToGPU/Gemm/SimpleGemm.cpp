//===- SimpleGemm.cpp - simple tiled GEMM kernels ---------------*- C++ -*-===//
//
// Correct, simply tiled CUDA GEMM kernels for everything of a training step
// that multiplies matrices but has no specialised kernel: linalg
// contractions (`linalg.matmul` with any operand orientation, including the
// mixed bf16 x bf16 -> f32 form, `linalg.batch_matmul`), `grouped_mm`
// (2d-3d and 2d-2d), and, at a lower pattern benefit than the Hopper GEMMs
// of Gemm/WGMMA*.cpp, `scaled_mm` and `scaled_grouped_mm` with row-major
// scales. All of them sit below the specialised kernels' pattern benefit:
// on sm_90a the bf16 contractions and grouped_mm of a training step run the
// wgmma kernel (Gemm/HighPrecisionGemm.cpp) and only small, f32 or mixed
// ones come here; on other targets (and with `simple-gemm=true`) this is
// the high-precision step on the GPU, and the fallback of the MXFP8 GEMMs
// where no specialised kernel exists.
//
// One kernel shape for all of them: 64 x 64 output tiles, 256 threads with
// 4 x 4 outputs each (rows ty + 16 i, columns tx + 16 j), K in steps of 32
// through two f32 tiles in shared memory. Operands are converted to f32
// when the tile is filled: bf16/f16 widened exactly; MX elements decoded
// exactly (decodeElement, QuantizeArith) without their scale, whose bytes
// for the tile's rows go to shared memory (a K step of 32 is one scale
// block). High-precision products are accumulated in f32 with fused
// multiply-adds in K order. MX products q_a q_b are exact; each K step sums
// its 32 in f32 and adds the sum times 2^(sa + sb - 254), applied as two
// exact powers of two, so that SPEC §3.1's products stay finite where an
// operand element alone (e.g. scale byte 247 with |q| >= 256) exceeds f32.
// The result is rounded once (bias added first in f32). The CPU path
// accumulates in f32 in another order, so results agree to f32 rounding,
// not bit for bit.
//
// Grouped GEMMs follow the CPU lowering's clamped offsets: group g covers
// `[start_g, end_g)`, `start_0 = 0`, `end_g = min(max(offs[g], start_g),
// total)`, `start_{g+1} = end_g`. 2d-3d: a CTA visits every group that
// intersects its 64 rows, multiplying the rows of that group by expert g;
// rows of no group stay zero. 2d-2d: one CTA column (grid z) per group
// contracts over the group's tokens only; an empty group writes zeros.
//
//===----------------------------------------------------------------------===//

#include "../KernelBuilder.h"
#include "mxfp8train/Conversion/Utils/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using namespace mlir::mxfp8train::lowering;

FailureOr<linalg::ContractionDimensions>
gpu_lowering::matchGemmContraction(linalg::LinalgOp op,
                                   RewriterBase &rewriter) {
  std::string why;
  FailureOr<linalg::ContractionDimensions> dims =
      mxfp8train::matchGemmContraction(op, &why);
  if (failed(dims))
    return rewriter.notifyMatchFailure(op, why);
  if (!hasStaticShapes(op))
    return rewriter.notifyMatchFailure(op, "dynamic shapes");
  return dims;
}

namespace {
/// Tile sizes of the kernel.
constexpr int64_t kTileM = 64, kTileN = 64, kTileK = 32;
/// Shared-memory row length (one float of padding against bank conflicts
/// when a tile is filled along K).
constexpr int64_t kSmemRow = 65;
/// The 256 threads as 16 x 16; each owns 4 x 4 outputs.
constexpr int64_t kThreadsSide = 16, kPerThread = 4;

/// A loop dimension of the GEMM: batch, group (the expert of a 2d-3d
/// weight, or the output group of a 2d-2d GEMM), M, N, K.
enum class Dim : char { B = 'b', G = 'g', M = 'm', N = 'n', K = 'k' };

/// One operand of the kernel: the dims of its stored shape, in order.
struct OperandSpec {
  SmallVector<Dim> dims;
  /// bf16, f16, f32, or an fp8 type (then `scaled`).
  Type elemType;
  /// MX operand: a row-major scale tensor with the same dims, K / 32.
  bool scaled = false;
};

enum class GemmKind { Dense, Grouped2D3D, Grouped2D2D };

/// Everything a kernel is specialised on.
struct GemmSpec {
  GemmKind kind = GemmKind::Dense;
  /// Batch (dense) or number of groups (grouped) — grid z.
  int64_t batch = 1;
  int64_t m = 0, n = 0, k = 0;
  OperandSpec a, b;
  SmallVector<Dim> cDims;
  Type cElemType;
  /// The output's initial value is an input (linalg semantics: C += A B).
  bool hasInit = false;
  Type initElemType;
  /// 1-D bias along N (scaled_mm).
  bool hasBias = false;
  Type biasElemType;
  /// Groups: the i32 offsets.
  int64_t numGroups = 0;
  /// Total of the grouped dim (M rows for 2d-3d, K tokens for 2d-2d).
  int64_t groupTotal = 0;
};

/// An MX GEMM: its tiles hold unscaled elements and the scale bytes of
/// their rows (both operands are MX in every scaled GEMM).
bool isScaledGemm(const GemmSpec &spec) {
  return spec.a.scaled || spec.b.scaled;
}

/// `mkbf16` for kernel names.
std::string getOperandTag(const OperandSpec &op) {
  std::string s;
  for (Dim d : op.dims)
    s.push_back(char(d));
  return s + getTypeTag(op.elemType);
}

std::string getKernelName(const GemmSpec &spec) {
  std::string kind = spec.kind == GemmKind::Dense         ? "gemm"
                     : spec.kind == GemmKind::Grouped2D3D ? "grouped_gemm_2d3d"
                                                          : "grouped_gemm_2d2d";
  std::string c;
  for (Dim d : spec.cDims)
    c.push_back(char(d));
  std::string name =
      llvm::formatv("{0}_{1}_{2}_{3}{4}", kind, getOperandTag(spec.a),
                    getOperandTag(spec.b), c, getTypeTag(spec.cElemType));
  if (spec.hasInit)
    name += "_init" + getTypeTag(spec.initElemType);
  if (spec.hasBias)
    name += "_bias" + getTypeTag(spec.biasElemType);
  name += llvm::formatv("_{0}x{1}x{2}x{3}", spec.batch, spec.m, spec.n, spec.k);
  if (spec.numGroups)
    name += llvm::formatv("_g{0}", spec.numGroups);
  return name;
}

/// Builds the kernel body. `args`: A, [A scales], B, [B scales], [C init],
/// [bias], [offs], C.
class GemmBodyBuilder {
public:
  GemmBodyBuilder(KernelBuilder &kb, const GemmSpec &spec, ValueRange args,
                  ValueRange smem)
      : kb(kb), spec(spec), as(smem[0]), bs(smem[1]) {
    if (isScaledGemm(spec)) {
      aScaleTile = smem[2];
      bScaleTile = smem[3];
    }
    unsigned i = 0;
    aBuf = args[i++];
    if (spec.a.scaled)
      aScales = args[i++];
    bBuf = args[i++];
    if (spec.b.scaled)
      bScales = args[i++];
    if (spec.hasInit)
      init = args[i++];
    if (spec.hasBias)
      bias = args[i++];
    if (spec.numGroups)
      offs = args[i++];
    c = args[i++];
  }

  void build();

private:
  using DimValues = llvm::SmallDenseMap<char, Value>;

  Value f32Zero() {
    return arith::ConstantOp::create(kb, kb.getF32FloatAttr(0.0f));
  }
  Value cmpIdx(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(kb, p, x, y);
  }
  Value ult(Value x, Value y) {
    return cmpIdx(arith::CmpIPredicate::ult, x, y);
  }
  Value land(Value x, Value y) { return arith::AndIOp::create(kb, x, y); }
  Value addI(Value x, Value y) { return arith::AddIOp::create(kb, x, y); }
  Value mulI(Value x, Value y) { return arith::MulIOp::create(kb, x, y); }

  /// The indices of a stored operand at `at`; the K index divided by 32
  /// when `scales`.
  SmallVector<Value> indicesOf(ArrayRef<Dim> dims, const DimValues &at,
                               bool scales = false) {
    SmallVector<Value> ix;
    for (Dim d : dims) {
      Value v = at.lookup(char(d));
      if (scales && d == Dim::K)
        v = arith::DivUIOp::create(kb, v, kb.idx(32));
      ix.push_back(v);
    }
    return ix;
  }

  /// Element of an operand as f32: the exact value of a high-precision
  /// element, the exact unscaled value q of an MX element.
  Value loadF32(Value buffer, const OperandSpec &op, const DimValues &at) {
    Value v = memref::LoadOp::create(kb, buffer, indicesOf(op.dims, at));
    Bits bb = kb.bits();
    if (!op.scaled)
      return bb.toF32(v);
    return decodeElement(bb, bb.byteOf(v), getElementFormat(op.elemType));
  }

  /// Stores the scale bytes (i32) of the 64 rows `[x0, x0 + 64)` of MX
  /// operand `op` for the scale block of `k0` into `tile`; rows past
  /// `xSize` (and operands without scales) get 127 (2^0).
  void fillScaleTile(Value tile, Value scales, const OperandSpec &op, Dim xDim,
                     Value x0, int64_t xSize, Value k0,
                     const DimValues &fixed) {
    Value xx = tid;
    kb.ifThen(ult(tid, kb.idx(kTileM)), [&] {
      Value x = addI(x0, xx);
      Value byte;
      if (op.scaled) {
        DimValues at = fixed;
        at[char(xDim)] = x;
        at[char(Dim::K)] = k0;
        auto ifOp = scf::IfOp::create(kb, TypeRange{kb.getI32Type()},
                                      ult(x, kb.idx(xSize)),
                                      /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(kb);
          kb.setInsertionPointToStart(ifOp.thenBlock());
          Value s =
              memref::LoadOp::create(kb, scales, indicesOf(op.dims, at, true));
          scf::YieldOp::create(kb, kb.bits().byteOf(s));
          kb.setInsertionPointToStart(ifOp.elseBlock());
          scf::YieldOp::create(kb, kb.i32(127));
        }
        byte = ifOp.getResult(0);
      } else {
        byte = kb.i32(127);
      }
      memref::StoreOp::create(kb, byte, tile, ValueRange{xx});
    });
  }

  /// `acc + sum * 2^(sa + sb - 254)` for scale bytes `sa`, `sb` (i32): the
  /// power of two as two exact factors 2^e1 * 2^e2 (e1 = e / 2, e2 = e - e1,
  /// both in [-127, 127] and of one sign, so the first product overflows
  /// or leaves the normal range only where the whole does); NaN when
  /// either byte is 255.
  Value addScaledSum(Value acc, Value sum, Value sa, Value sb) {
    // One op per statement: the IR does not depend on the compiler's
    // argument evaluation order.
    Bits bb = kb.bits();
    Value bias = bb.c(254), two = bb.c(2), nanByte = bb.c(255);
    Value byteOfOne = bb.c(127);
    Value sum2 = bb.add(sa, sb);
    Value e = bb.sub(sum2, bias);
    Value e1 = arith::DivSIOp::create(kb, e, two);
    Value e2 = bb.sub(e, e1);
    Value aNaN = bb.eq(sa, nanByte);
    Value bNaN = bb.eq(sb, nanByte);
    Value nan = bb.lor(aNaN, bNaN);
    Value f1 = decodeScale(bb, bb.add(e1, byteOfOne));
    Value e2Byte = bb.add(e2, byteOfOne);
    Value f2 = decodeScale(bb, bb.select(nan, nanByte, e2Byte));
    Value partial = arith::MulFOp::create(kb, sum, f1);
    Value scaled = arith::MulFOp::create(kb, partial, f2);
    return arith::AddFOp::create(kb, acc, scaled);
  }

  /// `cond ? value() : 0.0f` without evaluating `value` when false.
  Value loadIf(Value cond, function_ref<Value()> value) {
    auto ifOp = scf::IfOp::create(kb, TypeRange{kb.getF32Type()}, cond,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(kb);
      kb.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(kb, value());
      kb.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(kb, f32Zero());
    }
    return ifOp.getResult(0);
  }

  /// Fills a 32 x 64 shared tile (`smem[kk][x]`) of operand `op` along
  /// `xDim` (M for A, N for B) for the K range starting at `k0`; elements
  /// outside `[kLo, kHi)`, outside the operand, or rejected by `rowOk`
  /// are zero.
  void fillTile(Value smem, Value buffer, const OperandSpec &op, Dim xDim,
                Value x0, int64_t xSize, Value k0, Value kLo, Value kHi,
                DimValues fixed, function_ref<Value(Value)> rowOk = nullptr) {
    // Threads run along the stored innermost dim for coalesced loads.
    bool kInner = op.dims.back() == Dim::K;
    int64_t perThread = kTileK * kTileM / kThreadsPerCTA;
    for (int64_t i = 0; i < perThread; ++i) {
      Value l = addI(tid, kb.idx(i * kThreadsPerCTA));
      Value xx =
          kInner ? arith::DivUIOp::create(kb, l, kb.idx(kTileK)).getResult()
                 : arith::RemUIOp::create(kb, l, kb.idx(kTileM)).getResult();
      Value kk =
          kInner ? arith::RemUIOp::create(kb, l, kb.idx(kTileK)).getResult()
                 : arith::DivUIOp::create(kb, l, kb.idx(kTileM)).getResult();
      Value x = addI(x0, xx), k = addI(k0, kk);
      Value ok =
          land(ult(x, kb.idx(xSize)),
               land(cmpIdx(arith::CmpIPredicate::uge, k, kLo), ult(k, kHi)));
      if (rowOk)
        ok = land(ok, rowOk(x));
      DimValues at = fixed;
      at[char(xDim)] = x;
      at[char(Dim::K)] = k;
      Value v = loadIf(ok, [&] { return loadF32(buffer, op, at); });
      memref::StoreOp::create(kb, v, smem, ValueRange{kk, xx});
    }
  }

  /// Accumulates the K range `[kLo, kHi)` into `acc`.
  SmallVector<Value> kLoop(ValueRange acc, Value kLo, Value kHi,
                           DimValues fixed,
                           function_ref<Value(Value)> rowOk = nullptr) {
    // Tiles start at kLo rounded down to 32 (group starts are not aligned).
    Value kStart =
        mulI(arith::DivUIOp::create(kb, kLo, kb.idx(kTileK)), kb.idx(kTileK));
    auto loop = scf::ForOp::create(kb, kStart, kHi, kb.idx(kTileK), acc);
    OpBuilder::InsertionGuard guard(kb);
    kb.setInsertionPointToStart(loop.getBody());
    Value k0 = loop.getInductionVar();
    fillTile(as, aBuf, spec.a, Dim::M, m0, spec.m, k0, kLo, kHi, fixed, rowOk);
    fillTile(bs, bBuf, spec.b, Dim::N, n0, spec.n, k0, kLo, kHi, fixed);
    bool scaled = isScaledGemm(spec);
    if (scaled) {
      fillScaleTile(aScaleTile, aScales, spec.a, Dim::M, m0, spec.m, k0, fixed);
      fillScaleTile(bScaleTile, bScales, spec.b, Dim::N, n0, spec.n, k0, fixed);
    }
    gpu::BarrierOp::create(kb);
    // MX: the K step's sums start from zero and are scaled after the loop.
    SmallVector<Value> innerInits =
        scaled ? SmallVector<Value>(acc.size(), f32Zero())
               : llvm::to_vector_of<Value>(loop.getRegionIterArgs());
    auto inner = scf::ForOp::create(kb, kb.idx(0), kb.idx(kTileK), kb.idx(1),
                                    innerInits);
    {
      OpBuilder::InsertionGuard innerGuard(kb);
      kb.setInsertionPointToStart(inner.getBody());
      Value kk = inner.getInductionVar();
      SmallVector<Value> av, bv;
      for (int64_t i = 0; i < kPerThread; ++i) {
        av.push_back(memref::LoadOp::create(
            kb, as, ValueRange{kk, addI(ty, kb.idx(kThreadsSide * i))}));
        bv.push_back(memref::LoadOp::create(
            kb, bs, ValueRange{kk, addI(tx, kb.idx(kThreadsSide * i))}));
      }
      SmallVector<Value> next;
      for (int64_t i = 0; i < kPerThread; ++i)
        for (int64_t j = 0; j < kPerThread; ++j)
          next.push_back(math::FmaOp::create(
              kb, av[i], bv[j], inner.getRegionIterArgs()[i * kPerThread + j]));
      scf::YieldOp::create(kb, next);
    }
    SmallVector<Value> updated = llvm::to_vector_of<Value>(inner.getResults());
    if (scaled) {
      SmallVector<Value> sa, sb;
      for (int64_t i = 0; i < kPerThread; ++i) {
        sa.push_back(memref::LoadOp::create(
            kb, aScaleTile, ValueRange{addI(ty, kb.idx(kThreadsSide * i))}));
        sb.push_back(memref::LoadOp::create(
            kb, bScaleTile, ValueRange{addI(tx, kb.idx(kThreadsSide * i))}));
      }
      for (int64_t i = 0; i < kPerThread; ++i)
        for (int64_t j = 0; j < kPerThread; ++j) {
          int64_t ij = i * kPerThread + j;
          updated[ij] = addScaledSum(loop.getRegionIterArgs()[ij], updated[ij],
                                     sa[i], sb[j]);
        }
    }
    gpu::BarrierOp::create(kb);
    scf::YieldOp::create(kb, updated);
    return llvm::to_vector_of<Value>(loop.getResults());
  }

  /// The clamped `[start, end)` of group `g` given the previous end.
  Value clampedEnd(Value g, Value start) {
    Value raw = memref::LoadOp::create(kb, offs, ValueRange{g});
    Value end = arith::IndexCastOp::create(kb, kb.getIndexType(), raw);
    end = arith::MaxSIOp::create(kb, end, start);
    return arith::MinSIOp::create(kb, end, kb.idx(spec.groupTotal));
  }

  KernelBuilder &kb;
  const GemmSpec &spec;
  Value as, bs;
  /// MX GEMMs: the i32 scale bytes of the tiles' 64 rows (M for A, N for B).
  Value aScaleTile, bScaleTile;
  Value aBuf, aScales, bBuf, bScales, init, bias, offs, c;
  Value tid, tx, ty, m0, n0, bz;
};
} // namespace

void GemmBodyBuilder::build() {
  tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  tx = arith::RemUIOp::create(kb, tid, kb.idx(kThreadsSide));
  ty = arith::DivUIOp::create(kb, tid, kb.idx(kThreadsSide));
  n0 = mulI(gpu::BlockIdOp::create(kb, gpu::Dimension::x), kb.idx(kTileN));
  m0 = mulI(gpu::BlockIdOp::create(kb, gpu::Dimension::y), kb.idx(kTileM));
  bz = gpu::BlockIdOp::create(kb, gpu::Dimension::z);

  auto rowOf = [&](int64_t i) {
    return addI(m0, addI(ty, kb.idx(kThreadsSide * i)));
  };
  auto colOf = [&](int64_t j) {
    return addI(n0, addI(tx, kb.idx(kThreadsSide * j)));
  };
  DimValues fixed;
  fixed[char(Dim::B)] = bz;

  // Initial accumulators.
  SmallVector<Value> acc;
  for (int64_t i = 0; i < kPerThread; ++i)
    for (int64_t j = 0; j < kPerThread; ++j) {
      if (!spec.hasInit) {
        acc.push_back(f32Zero());
        continue;
      }
      Value row = rowOf(i), col = colOf(j);
      Value ok = land(ult(row, kb.idx(spec.m)), ult(col, kb.idx(spec.n)));
      DimValues at = fixed;
      at[char(Dim::M)] = row;
      at[char(Dim::N)] = col;
      acc.push_back(loadIf(ok, [&] {
        Value v = memref::LoadOp::create(kb, init, indicesOf(spec.cDims, at));
        return kb.bits().toF32(v);
      }));
    }

  switch (spec.kind) {
  case GemmKind::Dense:
    acc = kLoop(acc, kb.idx(0), kb.idx(spec.k), fixed);
    break;
  case GemmKind::Grouped2D3D: {
    // Every group that intersects rows [m0, m0 + 64), expert g on its rows.
    SmallVector<Value> inits = {kb.idx(0)};
    llvm::append_range(inits, acc);
    auto loop = scf::ForOp::create(kb, kb.idx(0), kb.idx(spec.numGroups),
                                   kb.idx(1), inits);
    {
      OpBuilder::InsertionGuard guard(kb);
      kb.setInsertionPointToStart(loop.getBody());
      Value g = loop.getInductionVar();
      Value start = loop.getRegionIterArgs()[0];
      Value end = clampedEnd(g, start);
      ValueRange current = loop.getRegionIterArgs().drop_front();
      Value hit =
          land(ult(start, end),
               land(ult(start, addI(m0, kb.idx(kTileM))), ult(m0, end)));
      auto ifOp = scf::IfOp::create(kb, ValueRange(current).getTypes(), hit,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard ifGuard(kb);
        kb.setInsertionPointToStart(ifOp.thenBlock());
        DimValues at = fixed;
        at[char(Dim::G)] = g;
        SmallVector<Value> updated =
            kLoop(current, kb.idx(0), kb.idx(spec.k), at, [&](Value row) {
              return land(cmpIdx(arith::CmpIPredicate::uge, row, start),
                          ult(row, end));
            });
        scf::YieldOp::create(kb, updated);
        kb.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(kb, current);
      }
      SmallVector<Value> yielded = {end};
      llvm::append_range(yielded, ifOp.getResults());
      scf::YieldOp::create(kb, yielded);
    }
    acc = llvm::to_vector_of<Value>(loop.getResults().drop_front());
    break;
  }
  case GemmKind::Grouped2D2D: {
    // The tokens of group bz: walk the clamped offsets up to it.
    auto loop = scf::ForOp::create(kb, kb.idx(0), addI(bz, kb.idx(1)),
                                   kb.idx(1), ValueRange{kb.idx(0), kb.idx(0)});
    {
      OpBuilder::InsertionGuard guard(kb);
      kb.setInsertionPointToStart(loop.getBody());
      Value prevEnd = loop.getRegionIterArgs()[1];
      Value end = clampedEnd(loop.getInductionVar(), prevEnd);
      scf::YieldOp::create(kb, ValueRange{prevEnd, end});
    }
    Value start = loop.getResult(0), end = loop.getResult(1);
    DimValues at = fixed;
    at[char(Dim::G)] = bz;
    acc = kLoop(acc, start, end, at);
    break;
  }
  }

  // Epilogue: bias in f32, one rounding, guarded stores.
  for (int64_t i = 0; i < kPerThread; ++i)
    for (int64_t j = 0; j < kPerThread; ++j) {
      Value row = rowOf(i), col = colOf(j);
      Value ok = land(ult(row, kb.idx(spec.m)), ult(col, kb.idx(spec.n)));
      Value v = acc[i * kPerThread + j];
      kb.ifThen(ok, [&] {
        Bits bb = kb.bits();
        Value r = v;
        if (spec.hasBias) {
          Value bv = memref::LoadOp::create(kb, bias, ValueRange{col});
          r = arith::AddFOp::create(kb, r, bb.toF32(bv));
        }
        DimValues at = fixed;
        at[char(Dim::G)] = bz;
        at[char(Dim::M)] = row;
        at[char(Dim::N)] = col;
        memref::StoreOp::create(kb, bb.fromF32(spec.cElemType, r), c,
                                indicesOf(spec.cDims, at));
      });
    }
}

/// Replaces `op` (result `resultType`) by one launch of the kernel of
/// `spec` on `inputs` (in the kernel's argument order, tensors).
static void replaceWithGemm(RewriterBase &rewriter, Operation *op,
                            const KernelCache &cache, const GemmSpec &spec,
                            ValueRange inputs, RankedTensorType resultType) {
  Location loc = op->getLoc();
  SmallVector<Value> buffers;
  for (Value v : inputs)
    buffers.push_back(toBuffer(rewriter, loc, v));
  Value out = allocResult(rewriter, loc, resultType);
  buffers.push_back(out);
  MLIRContext *ctx = rewriter.getContext();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto smemType = MemRefType::get({kTileK, kSmemRow}, rewriter.getF32Type(),
                                  MemRefLayoutAttrInterface(), workgroup);
  SmallVector<Type> workgroupTypes = {smemType, smemType};
  if (isScaledGemm(spec))
    workgroupTypes.append(2, MemRefType::get({kTileM}, rewriter.getI32Type(),
                                             MemRefLayoutAttrInterface(),
                                             workgroup));
  gpu::GPUFuncOp kernel = cache.getOrCreate(
      rewriter, getKernelName(spec), ValueRange(buffers).getTypes(),
      /*numInputs=*/inputs.size(), workgroupTypes,
      [&](KernelBuilder &kb, ValueRange args, ValueRange smem) {
        GemmBodyBuilder(kb, spec, args, smem).build();
      });
  // At least two CTAs per SM, so at most 128 registers a thread: without a
  // bound, ptxas 13.0 for sm_100a keeps some kernels under 64 registers and
  // spills (the MN-major loaders, the bf16 2d-3d walk; scripts/gemm-variants.py
  // and test/Target/PTX/gemm-variants-sm100a.test check every kernel).
  kernel->setAttr("nvvm.minctasm", rewriter.getI32IntegerAttr(2));
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  gpu::LaunchFuncOp::create(rewriter, loc, kernel,
                            gpu::KernelDim3{c(llvm::divideCeil(spec.n, kTileN)),
                                            c(llvm::divideCeil(spec.m, kTileM)),
                                            c(spec.batch)},
                            gpu::KernelDim3{c(kThreadsPerCTA), c(1), c(1)},
                            /*dynamicSharedMemorySize=*/Value(), buffers);
  rewriter.replaceOp(op, toTensor(rewriter, loc, out));
}

/// True for element types the kernels read as high-precision operands.
static bool isHighPrecisionType(Type t) { return t.isBF16() || t.isF32(); }

/// Dims of a stored 2-D (or 3-D with a leading `lead`) operand whose
/// logical orientation is (first, second), stored transposed or not.
static SmallVector<Dim> getDims(std::optional<Dim> lead, Dim first, Dim second,
                                bool transposed) {
  SmallVector<Dim> dims;
  if (lead)
    dims.push_back(*lead);
  dims.push_back(transposed ? second : first);
  dims.push_back(transposed ? first : second);
  return dims;
}

namespace {
/// linalg contractions with one M, one N, one K and at most one batch dim,
/// operand maps that are permutations of their dims, bf16/f32 operands and
/// result (e.g. linalg.matmul with transposed indexing maps, the mixed
/// bf16 x bf16 -> f32 form, linalg.batch_matmul).
struct ContractionToGPU final : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ContractionToGPU(MLIRContext *ctx, KernelCache cache, unsigned benefit)
      : OpInterfaceRewritePattern(ctx, benefit), cache(std::move(cache)) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<linalg::ContractionDimensions> dims =
        matchGemmContraction(op, rewriter);
    if (failed(dims))
      return failure();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto dimOf = [&](unsigned loop) -> std::optional<Dim> {
      if (loop == dims->m[0])
        return Dim::M;
      if (loop == dims->n[0])
        return Dim::N;
      if (loop == dims->k[0])
        return Dim::K;
      if (!dims->batch.empty() && loop == dims->batch[0])
        return Dim::B;
      return std::nullopt;
    };
    auto operandDims = [&](OpOperand &operand) -> FailureOr<SmallVector<Dim>> {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!map.isProjectedPermutation())
        return failure();
      SmallVector<Dim> result;
      for (AffineExpr e : map.getResults()) {
        std::optional<Dim> d = dimOf(cast<AffineDimExpr>(e).getPosition());
        if (!d)
          return failure();
        result.push_back(*d);
      }
      return result;
    };
    OpOperand *a = op.getDpsInputOperand(0), *b = op.getDpsInputOperand(1);
    OpOperand *init = op.getDpsInitOperand(0);
    FailureOr<SmallVector<Dim>> aDims = operandDims(*a),
                                bDims = operandDims(*b),
                                cDims = operandDims(*init);
    if (failed(aDims) || failed(bDims) || failed(cDims))
      return rewriter.notifyMatchFailure(op, "unsupported indexing maps");
    Type aType = getElementTypeOrSelf(a->get().getType());
    Type bType = getElementTypeOrSelf(b->get().getType());
    Type cType = getElementTypeOrSelf(init->get().getType());
    if (!isHighPrecisionType(aType) || !isHighPrecisionType(bType) ||
        !isHighPrecisionType(cType))
      return rewriter.notifyMatchFailure(op, "element types not bf16/f32");

    GemmSpec spec;
    spec.kind = GemmKind::Dense;
    spec.m = ranges[dims->m[0]];
    spec.n = ranges[dims->n[0]];
    spec.k = ranges[dims->k[0]];
    spec.batch = dims->batch.empty() ? 1 : ranges[dims->batch[0]];
    spec.a = {*aDims, aType, false};
    spec.b = {*bDims, bType, false};
    spec.cDims = *cDims;
    spec.cElemType = cType;
    // A zero fill as the init needs no read.
    auto fill = init->get().getDefiningOp<linalg::FillOp>();
    bool zeroInit = false;
    if (fill)
      if (auto cst = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>())
        if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
          zeroInit = f.getValue().isPosZero();
    SmallVector<Value> inputs = {a->get(), b->get()};
    if (!zeroInit) {
      spec.hasInit = true;
      spec.initElemType = cType;
      inputs.push_back(init->get());
    }
    replaceWithGemm(rewriter, op, cache, spec, inputs,
                    cast<RankedTensorType>(op->getResult(0).getType()));
    return success();
  }

  KernelCache cache;
};

/// Fills the grouped part of `spec` for a grouped op.
template <typename OpT>
static void setGroupedSpec(OpT op, GemmSpec &spec, Type aType, Type bType,
                           bool scaled) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  spec.numGroups = cast<RankedTensorType>(op.getOffs().getType()).getDimSize(0);
  spec.cElemType = resultType.getElementType();
  bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
  if (op.isTwoDTwoD()) {
    // lhs logical (N, tokens) -> kernel (M, K); rhs logical (tokens, K) ->
    // kernel (K, N); result (E, N, K) -> kernel (G, M, N).
    spec.kind = GemmKind::Grouped2D2D;
    spec.batch = spec.numGroups;
    spec.m = resultType.getDimSize(1);
    spec.n = resultType.getDimSize(2);
    spec.k = lhsType.getDimSize(tl ? 0 : 1);
    spec.groupTotal = spec.k;
    spec.a = {getDims(std::nullopt, Dim::M, Dim::K, tl), aType, scaled};
    spec.b = {getDims(std::nullopt, Dim::K, Dim::N, tr), bType, scaled};
    spec.cDims = {Dim::G, Dim::M, Dim::N};
  } else {
    spec.kind = GemmKind::Grouped2D3D;
    spec.m = resultType.getDimSize(0);
    spec.n = resultType.getDimSize(1);
    spec.k = lhsType.getDimSize(tl ? 0 : 1);
    spec.groupTotal = spec.m;
    spec.a = {getDims(std::nullopt, Dim::M, Dim::K, tl), aType, scaled};
    spec.b = {getDims(Dim::G, Dim::K, Dim::N, tr), bType, scaled};
    spec.cDims = {Dim::M, Dim::N};
  }
}

/// grouped_mm (bf16/f32, 2d-3d and 2d-2d).
struct GroupedMmToGPU final : OpRewritePattern<GroupedMmOp> {
  GroupedMmToGPU(MLIRContext *ctx, KernelCache cache, unsigned benefit)
      : OpRewritePattern(ctx, benefit), cache(std::move(cache)) {}

  LogicalResult matchAndRewrite(GroupedMmOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    GemmSpec spec;
    setGroupedSpec(op, spec, op.getLhs().getType().getElementType(),
                   op.getRhs().getType().getElementType(), false);
    replaceWithGemm(rewriter, op, cache, spec,
                    {op.getLhs(), op.getRhs(), op.getOffs()},
                    op.getResult().getType());
    return success();
  }

  KernelCache cache;
};

/// The spec and kernel inputs of scaled_mm with row-major scales (rank 2 or
/// 3, bias).
static void buildScaledSpec(ScaledMmOp op, GemmSpec &spec,
                            SmallVectorImpl<Value> &inputs) {
  RankedTensorType resultType = op.getResult().getType();
  int64_t rank = resultType.getRank();
  std::optional<Dim> lead;
  if (rank == 3)
    lead = Dim::B;
  bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  spec.kind = GemmKind::Dense;
  spec.batch = rank == 3 ? resultType.getDimSize(0) : 1;
  spec.m = resultType.getDimSize(rank - 2);
  spec.n = resultType.getDimSize(rank - 1);
  spec.k = lhsType.getDimSize(tl ? rank - 2 : rank - 1);
  spec.a = {getDims(lead, Dim::M, Dim::K, tl), lhsType.getElementType(), true};
  spec.b = {getDims(lead, Dim::K, Dim::N, tr),
            op.getRhs().getType().getElementType(), true};
  spec.cDims = getDims(lead, Dim::M, Dim::N, false);
  spec.cElemType = resultType.getElementType();
  inputs.append(
      {op.getLhs(), op.getLhsScales(), op.getRhs(), op.getRhsScales()});
  if (Value bias = op.getBias()) {
    spec.hasBias = true;
    spec.biasElemType = getElementTypeOrSelf(bias.getType());
    inputs.push_back(bias);
  }
}

/// The spec and kernel inputs of scaled_grouped_mm with row-major scales.
static void buildScaledSpec(ScaledGroupedMmOp op, GemmSpec &spec,
                            SmallVectorImpl<Value> &inputs) {
  setGroupedSpec(op, spec, op.getLhs().getType().getElementType(),
                 op.getRhs().getType().getElementType(), true);
  inputs.append({op.getLhs(), op.getLhsScales(), op.getRhs(), op.getRhsScales(),
                 op.getOffs()});
}

/// scaled_mm / scaled_grouped_mm with row-major scales -> the simple kernel
/// on exactly dequantized operands.
template <typename OpTy>
struct ScaledFallbackToGPU final : OpRewritePattern<OpTy> {
  ScaledFallbackToGPU(MLIRContext *ctx, KernelCache cache, unsigned benefit)
      : OpRewritePattern<OpTy>(ctx, benefit), cache(std::move(cache)) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    // The simple kernels read e8m0 block scales (MX) only.
    if (op.isFloat8())
      return rewriter.notifyMatchFailure(op, "Float8 (f32 scales)");
    if (op.getLhsScaleLayout() != ScaleLayout::RowMajor ||
        op.getRhsScaleLayout() != ScaleLayout::RowMajor)
      return rewriter.notifyMatchFailure(op, "scales not row_major");
    GemmSpec spec;
    SmallVector<Value> inputs;
    buildScaledSpec(op, spec, inputs);
    replaceWithGemm(rewriter, op, cache, spec, inputs,
                    op.getResult().getType());
    return success();
  }

  KernelCache cache;
};
} // namespace

void gpu_lowering::populateSimpleGemmKernelPatterns(RewritePatternSet &patterns,
                                                    KernelCache &cache,
                                                    unsigned benefit) {
  // Below the default benefit unless asked: the specialised GEMM patterns
  // (the MX GEMMs, the high-precision wgmma GEMM of sm_90a) are tried first.
  patterns
      .add<ContractionToGPU, GroupedMmToGPU, ScaledFallbackToGPU<ScaledMmOp>,
           ScaledFallbackToGPU<ScaledGroupedMmOp>>(patterns.getContext(), cache,
                                                   benefit);
}

bool gpu_lowering::isSimpleGemmCandidate(Operation *op) {
  if (isa<GroupedMmOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}
