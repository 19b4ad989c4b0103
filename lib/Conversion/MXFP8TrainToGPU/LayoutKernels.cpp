//===- LayoutKernels.cpp - padding and to_blocked kernels -------*- C++ -*-===//
//
// The data-movement kernels of convert-mxfp8train-to-gpu:
//
// - pad_token_groups / unpad_token_groups (SPEC §7.3): thread 0 of every CTA
//   turns `offs` into the clamped group starts/ends and padded starts/ends
//   in shared memory (exactly as the CPU lowering clamps them), then each
//   output row finds its group with a branch-free binary search and its
//   threads copy the row in 16-byte vectors (or write zeros).
// - to_blocked (`blocked`, `blocked_per_expert`; SPEC §4.1, §4.2 c): one
//   thread per 4 output bytes, in output order (coalesced 128-byte warp
//   stores), at the shared getBlockedOffset; padding bytes are 0x00.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using namespace mlir::mxfp8train::lowering;

//===----------------------------------------------------------------------===//
// Token-group padding
//===----------------------------------------------------------------------===//

namespace {
/// Rows of the group table in shared memory.
enum GroupTableRow : int64_t { kStart = 0, kEnd, kPadStart, kPadEnd, kRows };

/// Everything a pad/unpad kernel is specialised on.
struct GroupCopySpec {
  bool pad;
  /// Rows of the (clamped) token dimension: the input rows for pad, the
  /// result rows for unpad.
  int64_t tokens;
  /// Rows and columns of the result.
  int64_t outRows, cols;
  int64_t groups, alignment;
  Type elemType;
};
} // namespace

/// Elements per vector access of a row: 16 bytes when the width allows.
static int64_t getRowVectorSize(const GroupCopySpec &spec) {
  int64_t vec = 16 / (spec.elemType.getIntOrFloatBitWidth() / 8);
  while (spec.cols % vec != 0)
    vec /= 2;
  return vec;
}

/// Output rows one CTA copies per iteration: 1 for rows of at least 256
/// vectors (the threads loop over the row), else as many as fit.
static int64_t getRowsPerIteration(const GroupCopySpec &spec) {
  int64_t chunks = spec.cols / getRowVectorSize(spec);
  return chunks >= kThreadsPerCTA ? 1 : kThreadsPerCTA / chunks;
}

/// Iterations of the CTA-strided row loop.
static int64_t getRowGroups(const GroupCopySpec &spec) {
  return llvm::divideCeil(spec.outRows, getRowsPerIteration(spec));
}

/// Thread 0 fills `table` (kRows x G, i32, shared memory) from `offs`:
/// group g covers tokens [start, end) with end = min(max(offs[g], start),
/// tokens) and start the previous end, and padded rows [padStart, padEnd)
/// with padEnd = padStart + roundUp(end - start, alignment). With
/// `paddedOffs`, CTA 0 also writes the padded ends there. Ends with a CTA
/// barrier.
static void buildGroupTable(KernelBuilder &kb, const GroupCopySpec &spec,
                            Value offs, Value table, Value paddedOffs) {
  Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
  Value isFirst =
      arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, tid, kb.idx(0));
  kb.ifThen(isFirst, [&] {
    Value writeOffs =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, bid, kb.idx(0));
    Value zero = kb.i32(0);
    scf::ForOp::create(
        kb, kb.idx(0), kb.idx(spec.groups), kb.idx(1), ValueRange{zero, zero},
        [&](OpBuilder &nb, Location loc, Value g, ValueRange args) {
          KernelBuilder b(loc, nb);
          Value start = args[0], padStart = args[1];
          Value raw = memref::LoadOp::create(b, offs, g);
          Value end = arith::MinSIOp::create(
              b, arith::MaxSIOp::create(b, raw, start), b.i32(spec.tokens));
          Value n = arith::SubIOp::create(b, end, start);
          Value rounded = arith::MulIOp::create(
              b,
              arith::DivUIOp::create(
                  b, arith::AddIOp::create(b, n, b.i32(spec.alignment - 1)),
                  b.i32(spec.alignment)),
              b.i32(spec.alignment));
          Value padEnd = arith::AddIOp::create(b, padStart, rounded);
          Value fields[kRows] = {start, end, padStart, padEnd};
          for (int64_t f = 0; f < kRows; ++f)
            memref::StoreOp::create(b, fields[f], table,
                                    ValueRange{b.idx(f), g});
          if (paddedOffs)
            b.ifThen(writeOffs, [&] {
              memref::StoreOp::create(b, padEnd, paddedOffs, g);
            });
          scf::YieldOp::create(b, ValueRange{end, padEnd});
        });
  });
  gpu::BarrierOp::create(kb);
}

/// The first group g with `key < table[field][g]` (the table row is
/// non-decreasing), or G: a fixed number of branch-free bisection steps.
static Value findGroup(KernelBuilder &kb, Value table, GroupTableRow field,
                       Value key, int64_t groups) {
  Value lo = kb.idx(0), hi = kb.idx(groups);
  int64_t steps = llvm::Log2_64_Ceil(groups + 1);
  Value fieldIdx = kb.idx(field);
  for (int64_t s = 0; s < steps; ++s) {
    Value active = arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, lo, hi);
    Value mid = arith::DivUIOp::create(kb, arith::AddIOp::create(kb, lo, hi),
                                       kb.idx(2));
    Value midC = arith::MinUIOp::create(kb, mid, kb.idx(groups - 1));
    Value bound = memref::LoadOp::create(kb, table, ValueRange{fieldIdx, midC});
    Value below =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::slt, key, bound);
    Value goLeft = arith::AndIOp::create(kb, active, below);
    Value notBelow = arith::XOrIOp::create(
        kb, below, arith::ConstantIntOp::create(kb, 1, 1));
    Value goRight = arith::AndIOp::create(kb, active, notBelow);
    hi = arith::SelectOp::create(kb, goLeft, mid, hi);
    lo = arith::SelectOp::create(kb, goRight,
                                 arith::AddIOp::create(kb, mid, kb.idx(1)), lo);
  }
  return lo;
}

/// pad (in, offs, out, paddedOffs) / unpad (in, offs, out): every output
/// row is a copy of one input row or zeros.
static void buildGroupCopy(KernelBuilder &kb, const GroupCopySpec &spec,
                           ValueRange args, Value table) {
  Value in = args[0], offs = args[1], out = args[2];
  Value paddedOffs = spec.pad ? args[3] : Value();
  buildGroupTable(kb, spec, offs, table, paddedOffs);

  int64_t elemBytes = spec.elemType.getIntOrFloatBitWidth() / 8;
  int64_t vec = getRowVectorSize(spec);
  int64_t chunks = spec.cols / vec;
  int64_t rowsPerIter = getRowsPerIteration(spec);
  int64_t rowGroups = getRowGroups(spec);
  auto vecType = VectorType::get({vec}, spec.elemType);

  Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  Value slot = arith::DivUIOp::create(kb, tid, kb.idx(chunks));
  Value chunk0 = arith::RemUIOp::create(kb, tid, kb.idx(chunks));
  if (rowsPerIter == 1) {
    slot = kb.idx(0);
    chunk0 = tid;
  }
  Value bid = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(kb, gpu::Dimension::x);
  kb.forLoop(bid, kb.idx(rowGroups), grid, [&](Value rg) {
    Value row = arith::AddIOp::create(
        kb, arith::MulIOp::create(kb, rg, kb.idx(rowsPerIter)), slot);
    Value active = arith::AndIOp::create(
        kb,
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, slot,
                              kb.idx(rowsPerIter)),
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, row,
                              kb.idx(spec.outRows)));
    kb.ifThen(active, [&] {
      Type i32 = kb.getI32Type();
      Value key = arith::IndexCastOp::create(kb, i32, row);
      auto field = [&](GroupTableRow f, Value g) -> Value {
        return memref::LoadOp::create(kb, table, ValueRange{kb.idx(f), g});
      };
      Value g =
          findGroup(kb, table, spec.pad ? kPadEnd : kEnd, key, spec.groups);
      Value inGroup = arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, g,
                                            kb.idx(spec.groups));
      Value gc = arith::MinUIOp::create(kb, g, kb.idx(spec.groups - 1));
      Value start = field(kStart, gc), padStart = field(kPadStart, gc);
      Value src, valid = inGroup;
      if (spec.pad) {
        // Padded row `key` holds token start + (key - padStart) if that is
        // below the group's end.
        Value local = arith::SubIOp::create(kb, key, padStart);
        src = arith::AddIOp::create(kb, start, local);
        Value below = arith::CmpIOp::create(kb, arith::CmpIPredicate::slt, src,
                                            field(kEnd, gc));
        valid = arith::AndIOp::create(kb, valid, below);
      } else {
        src = arith::AddIOp::create(kb, padStart,
                                    arith::SubIOp::create(kb, key, start));
      }
      Value srcRow = arith::IndexCastOp::create(kb, kb.getIndexType(), src);
      int64_t step = rowsPerIter == 1 ? kThreadsPerCTA : chunks;
      kb.forLoop(chunk0, kb.idx(chunks), kb.idx(step), [&](Value c) {
        Value col = arith::MulIOp::create(kb, c, kb.idx(vec));
        auto ifOp = scf::IfOp::create(
            kb, valid,
            [&](OpBuilder &nb, Location loc) {
              KernelBuilder b(loc, nb);
              Value v = b.load(vecType, in, {srcRow, col}, vec * elemBytes);
              scf::YieldOp::create(b, v);
            },
            [&](OpBuilder &nb, Location loc) {
              KernelBuilder b(loc, nb);
              Value zero = b.splatBits(vecType, 0);
              scf::YieldOp::create(b, zero);
            });
        kb.store(ifOp.getResult(0), out, {row, col}, vec * elemBytes);
      });
    });
  });
}

namespace {
/// pad_token_groups / unpad_token_groups -> one launch.
template <typename OpTy> struct GroupCopyOpToGPU final : KernelPattern<OpTy> {
  using KernelPattern<OpTy>::KernelPattern;

  LogicalResult rewriteStatic(OpTy op,
                              PatternRewriter &rewriter) const override {
    constexpr bool pad = std::is_same_v<OpTy, PadTokenGroupsOp>;
    Location loc = op.getLoc();
    RankedTensorType inType = op.getInput().getType();
    RankedTensorType outType = op.getResult().getType();
    RankedTensorType offsType = op.getOffs().getType();
    GroupCopySpec spec{pad,
                       pad ? inType.getDimSize(0) : outType.getDimSize(0),
                       outType.getDimSize(0),
                       outType.getDimSize(1),
                       offsType.getDimSize(0),
                       int64_t(op.getAlignment()),
                       inType.getElementType()};
    if (spec.groups == 0)
      return rewriter.notifyMatchFailure(op, "no groups");

    SmallVector<Value> args = {toBuffer(rewriter, loc, op.getInput()),
                               toBuffer(rewriter, loc, op.getOffs())};
    SmallVector<Value> results = allocResults(rewriter, op);
    llvm::append_range(args, results);
    std::string name =
        llvm::formatv("{0}_token_groups_{1}_a{2}_{3}_to_{4}_g{5}",
                      pad ? "pad" : "unpad", getTypeTag(spec.elemType),
                      spec.alignment, getShapeTag(inType.getShape()),
                      getShapeTag(outType.getShape()), spec.groups);
    auto tableType = MemRefType::get(
        {kRows, spec.groups}, rewriter.getI32Type(), AffineMap(),
        gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                   gpu::AddressSpace::Workgroup));
    gpu::GPUFuncOp kernel = this->cache.getOrCreate(
        rewriter, name, ValueRange(args).getTypes(), /*numInputs=*/2,
        {tableType}, [&](KernelBuilder &kb, ValueRange kargs, ValueRange wg) {
          buildGroupCopy(kb, spec, kargs, wg[0]);
        });
    const GPUTargetInfo &target = this->cache.getTarget();
    int64_t grid = std::max<int64_t>(
        1, std::min(getRowGroups(spec), target.numSMs * target.ctasPerSM));
    return launchAndReplace(rewriter, op, kernel, grid, args, results);
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// to_blocked
//===----------------------------------------------------------------------===//

/// (in (E?, R, C), out (E?, size)): one thread per 4 output bytes.
static void buildToBlocked(KernelBuilder &kb, int64_t experts, int64_t rows,
                           int64_t cols, Value in, Value out) {
  int64_t colTiles = llvm::divideCeil(cols, 4);
  int64_t tiles = llvm::divideCeil(rows, 128) * colTiles;
  int64_t wordsPerExpert = tiles * 128;
  Type scaleType = cast<MemRefType>(in.getType()).getElementType();
  auto index = [&](Value e, ValueRange rest) {
    SmallVector<Value> ix;
    if (experts > 1)
      ix.push_back(e);
    llvm::append_range(ix, rest);
    return ix;
  };
  kb.gridStrideLoop(kb.idx(experts * wordsPerExpert), [&](Value i) {
    Value e = arith::DivUIOp::create(kb, i, kb.idx(wordsPerExpert));
    Value w = arith::RemUIOp::create(kb, i, kb.idx(wordsPerExpert));
    // Word w of the output holds rows {r, r+32, r+64, r+96}[q] x 4 columns:
    // w = tile*128 + (r%32)*4 + (r%128)/32.
    Value tile = arith::DivUIOp::create(kb, w, kb.idx(128));
    Value inTile = arith::RemUIOp::create(kb, w, kb.idx(128));
    Value r = arith::AddIOp::create(
        kb,
        arith::AddIOp::create(
            kb,
            arith::MulIOp::create(
                kb, arith::DivUIOp::create(kb, tile, kb.idx(colTiles)),
                kb.idx(128)),
            arith::MulIOp::create(
                kb, arith::RemUIOp::create(kb, inTile, kb.idx(4)), kb.idx(32))),
        arith::DivUIOp::create(kb, inTile, kb.idx(4)));
    Value c0 = arith::MulIOp::create(
        kb, arith::RemUIOp::create(kb, tile, kb.idx(colTiles)), kb.idx(4));
    Bits bb = kb.bits();
    Value rowIn = bb.ult(r, bb.cIdx(rows));
    Value rc = bb.minu(r, bb.cIdx(rows - 1));
    SmallVector<Value> bytes;
    for (int64_t j = 0; j < 4; ++j) {
      Value c = bb.add(c0, bb.cIdx(j));
      Value inBounds = bb.land(rowIn, bb.ult(c, bb.cIdx(cols)));
      Value cc = bb.minu(c, bb.cIdx(cols - 1));
      Value v = memref::LoadOp::create(kb, in, index(e, {rc, cc}));
      bytes.push_back(bb.select(inBounds, bb.byteOf(v), bb.c(0)));
    }
    // The shared formula; equals 4*w by construction.
    Value off = getBlockedOffset(bb, r, c0, cols);
    kb.store(kb.packBytes(bytes, scaleType), out, index(e, {off}), 4);
  });
}

namespace {
/// to_blocked with the `blocked` or `blocked_per_expert` layout -> one
/// launch. The grouped layouts (m/k groups) have no GPU kernel yet.
struct ToBlockedOpToGPU final : KernelPattern<ToBlockedOp> {
  using KernelPattern::KernelPattern;

  LogicalResult rewriteStatic(ToBlockedOp op,
                              PatternRewriter &rewriter) const override {
    ScaleLayout layout = op.getLayout();
    if (layout != ScaleLayout::Blocked &&
        layout != ScaleLayout::BlockedPerExpert)
      return rewriter.notifyMatchFailure(op, "grouped layout");
    Location loc = op.getLoc();
    RankedTensorType inType = op.getScales().getType();
    int64_t rank = inType.getRank();
    int64_t experts = rank == 3 ? inType.getDimSize(0) : 1;
    int64_t rows = inType.getDimSize(rank - 2),
            cols = inType.getDimSize(rank - 1);
    Value in = toBuffer(rewriter, loc, op.getScales());
    SmallVector<Value> buffers = allocResults(rewriter, op);
    Value out = buffers[0];
    if (experts == 1) {
      in = collapseTo(rewriter, loc, in, {rows, cols});
      out = collapseTo(rewriter, loc, out, {getBlockedScaleSize(rows, cols)});
    }
    std::string name =
        llvm::formatv("to_blocked_{0}", getShapeTag(inType.getShape()));
    gpu::GPUFuncOp kernel = cache.getOrCreate(
        rewriter, name, {in.getType(), out.getType()}, /*numInputs=*/1, {},
        [&](KernelBuilder &kb, ValueRange args, ValueRange) {
          buildToBlocked(kb, experts, rows, cols, args[0], args[1]);
        });
    int64_t words = experts * getBlockedScaleSize(rows, cols) / 4;
    return launchAndReplace(rewriter, op, kernel, cache.getGridSize(words),
                            {in, out}, buffers);
  }
};
} // namespace

void gpu_lowering::populateLayoutKernelPatterns(RewritePatternSet &patterns,
                                                KernelCache &cache) {
  patterns.add<GroupCopyOpToGPU<PadTokenGroupsOp>,
               GroupCopyOpToGPU<UnpadTokenGroupsOp>, ToBlockedOpToGPU>(
      patterns.getContext(), cache);
}
