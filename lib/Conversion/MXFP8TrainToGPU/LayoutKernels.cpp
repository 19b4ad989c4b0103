//===- LayoutKernels.cpp - padding and to_blocked kernels -------*- C++ -*-===//
//
// The data-movement kernels of convert-mxfp8train-to-gpu:
//
// - pad_token_groups / unpad_token_groups (SPEC §7.3): thread 0 of every CTA
//   turns `offs` into the clamped group starts/ends and padded starts/ends
//   in shared memory (exactly as the CPU lowering clamps them), then each
//   output row finds its group with a branch-free binary search and its
//   threads copy the row in 16-byte vectors (or write zeros).
// - to_blocked (every layout; SPEC §4.1, §4.2): one thread per 4 output
//   bytes, in output order (coalesced 128-byte warp stores), each finding
//   its source entry with the shared inverse of the blocked offset
//   (getBlockedPosition); padding bytes are 0x00. The grouped layouts
//   (blocked_m_groups, blocked_k_groups) first build the same group table
//   as the padding kernels, from the runtime `offs`, and each word finds
//   its group by bisection; every read is clamped into the scale matrix.
//
//===----------------------------------------------------------------------===//

#include "FusedProducer.h"
#include "GroupTable.h"
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
  /// A pad whose padded data fused casts read (isFusablePad): only the
  /// padded offsets are written.
  bool offsOnly = false;

  GroupTableSpec getTableSpec() const {
    return {groups, tokens, /*unit=*/1, alignment};
  }
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
  if (chunks == 0)
    return 1;
  return chunks >= kThreadsPerCTA ? 1 : kThreadsPerCTA / chunks;
}

/// Iterations of the CTA-strided row loop: none for rows without columns.
static int64_t getRowGroups(const GroupCopySpec &spec) {
  if (spec.cols == 0)
    return 0;
  return llvm::divideCeil(spec.outRows, getRowsPerIteration(spec));
}

/// pad (in, offs, out, paddedOffs) / unpad (in, offs, out): every output
/// row is a copy of one input row or zeros.
static void buildGroupCopy(KernelBuilder &kb, const GroupCopySpec &spec,
                           ValueRange args, Value table) {
  if (spec.offsOnly) {
    // (offs, paddedOffs).
    buildGroupTable(kb, spec.getTableSpec(), args[0], table, args[1]);
    return;
  }
  Value in = args[0], offs = args[1], out = args[2];
  Value paddedOffs = spec.pad ? args[3] : Value();
  buildGroupTable(kb, spec.getTableSpec(), offs, table, paddedOffs);
  // Rows without columns hold nothing to copy; pad still writes paddedOffs.
  if (spec.cols == 0)
    return;

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
    // A pad whose padded data the 32x1 casts read through its offsets
    // (FusedProducer.h): once they are lowered, only the padded offsets
    // are left to compute.
    if constexpr (pad) {
      if (this->cache.getFusePadding() && isFusablePad(op))
        return rewriter.notifyMatchFailure(op, "read by the fused casts");
      spec.offsOnly = op.getResult().use_empty();
    }

    SmallVector<Value> args, results;
    if (!spec.offsOnly)
      args.push_back(toBuffer(rewriter, loc, op.getInput()));
    args.push_back(toBuffer(rewriter, loc, op.getOffs()));
    if (spec.offsOnly)
      results.push_back(allocResult(
          rewriter, loc, cast<RankedTensorType>(op->getResult(1).getType())));
    else
      results = allocResults(rewriter, op);
    llvm::append_range(args, results);
    std::string name =
        llvm::formatv("{0}_token_groups_{1}_a{2}_{3}_to_{4}_g{5}",
                      pad ? "pad" : "unpad", getTypeTag(spec.elemType),
                      spec.alignment, getShapeTag(inType.getShape()),
                      getShapeTag(outType.getShape()), spec.groups);
    if (spec.offsOnly)
      name += "_offs";
    MemRefType tableType =
        getGroupTableType(rewriter.getContext(), spec.groups);
    gpu::GPUFuncOp kernel = this->cache.getOrCreate(
        rewriter, name, ValueRange(args).getTypes(),
        /*numInputs=*/spec.offsOnly ? 1 : 2, {tableType},
        [&](KernelBuilder &kb, ValueRange kargs, ValueRange wg) {
          buildGroupCopy(kb, spec, kargs, wg[0]);
        });
    if (spec.offsOnly) {
      launch(rewriter, loc, kernel, 1, args);
      rewriter.replaceAllUsesWith(op->getResult(1),
                                  toTensor(rewriter, loc, results[0]));
      rewriter.eraseOp(op);
      return success();
    }
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

/// The 4 scale bytes of one output word as a vector<4 x e8m0>: byte j is
/// entry (row, colBase + col0 + j) of the `rows` x `cols` scale matrix of
/// slice `lead...` of `in` where `rowValid` and `col0 + j < colLimit`, else
/// the padding byte 0x00. `in` stores that matrix (rows, cols), or with
/// `transposed` its transpose (cols, rows). The reads are clamped into the
/// matrix, so padding lanes (and words outside every group) read in bounds;
/// their values are selected away.
static Value gatherScaleWord(KernelBuilder &kb, Value in, ValueRange lead,
                             int64_t rows, int64_t cols, bool transposed,
                             Value row, Value rowValid, Value colBase,
                             Value col0, Value colLimit) {
  Bits bb = kb.bits();
  Type scaleType = cast<MemRefType>(in.getType()).getElementType();
  Value rc = bb.minu(row, bb.cIdx(rows - 1));
  SmallVector<Value> bytes;
  for (int64_t j = 0; j < 4; ++j) {
    Value c = bb.add(col0, bb.cIdx(j));
    Value valid = bb.land(rowValid, bb.ult(c, colLimit));
    Value cc = bb.minu(bb.add(colBase, c), bb.cIdx(cols - 1));
    SmallVector<Value> indices = llvm::to_vector(lead);
    if (transposed)
      indices.append({cc, rc});
    else
      indices.append({rc, cc});
    Value v = memref::LoadOp::create(kb, in, indices);
    bytes.push_back(bb.select(valid, bb.byteOf(v), bb.c(0)));
  }
  return kb.packBytes(bytes, scaleType);
}

/// (in (E?, R, C) or transposed (E?, C, R), out (E?, size)): one thread per
/// 4 output bytes, in output order; the word's entry comes from the shared
/// inverse of the blocked offset (getBlockedPosition).
static void buildToBlocked(KernelBuilder &kb, int64_t experts, int64_t rows,
                           int64_t cols, bool transposed, Value in, Value out) {
  int64_t colTiles = llvm::divideCeil(cols, 4);
  int64_t wordsPerExpert = *getBlockedScaleSize(rows, cols) / 4;
  kb.gridStrideLoop(kb.idx(experts * wordsPerExpert), [&](Value i) {
    Bits bb = kb.bits();
    SmallVector<Value> lead;
    if (experts > 1)
      lead.push_back(bb.divu(i, bb.cIdx(wordsPerExpert)));
    Value off = bb.mul(bb.remu(i, bb.cIdx(wordsPerExpert)), bb.cIdx(4));
    auto [r, c0] = getBlockedPosition(bb, off, bb.cIdx(colTiles));
    Value word = gatherScaleWord(kb, in, lead, rows, cols, transposed, r,
                                 bb.ult(r, bb.cIdx(rows)), bb.cIdx(0), c0,
                                 bb.cIdx(cols));
    lead.push_back(off);
    kb.store(word, out, lead, 4);
  });
}

namespace {
/// Everything a grouped to_blocked kernel (blocked_m_groups,
/// blocked_k_groups) is specialised on.
struct GroupedBlockedSpec {
  bool kGroups;
  /// The scale matrix (R, C) and the number of groups.
  int64_t rows, cols, groups;
  /// The input stores the matrix transposed, (C, R).
  bool transposed;

  /// Bytes of the result.
  int64_t getSize() const {
    return kGroups ? *getBlockedKGroupsScaleSize(rows, cols, groups)
                   : *getBlockedMGroupsScaleSize(rows, cols, groups);
  }
  /// M-groups: rows, padded to 128 per group. K-groups: scale columns (one
  /// per 32 tokens of `offs`), padded to 4 per group.
  GroupTableSpec getTableSpec() const {
    if (kGroups)
      return {groups, cols * kBlockSize, kBlockSize, 4};
    return {groups, rows, 1, 128};
  }
};
} // namespace

/// (in (R, C) or transposed (C, R), offs (G), out (size)): one thread per
/// 4 output bytes, in
/// output order as buildToBlocked, after the group table (buildGroupTable:
/// offsets clamped as the CPU lowering clamps them). Every byte is written
/// once: group entries, or 0x00.
///
/// blocked_m_groups: group g's region starts at row P_g, a multiple of 128,
/// of a (R + 128 G, Cp) matrix, so the result is the to_blocked of that
/// virtual matrix whose row P_g + i is scale row start_g + i for i < n_g and
/// zero elsewhere. A word's virtual row picks its group (the padded rows
/// [padStart, padEnd) that hold it).
///
/// blocked_k_groups: group g's region holds bytes [Q_g Rp, (Q_g + cp_g) Rp)
/// (Q_g: the padded scale columns before it, cp_g its own), so the padded
/// column off / Rp of byte `off` picks the group, and the byte's position in
/// the group's own to_blocked (cp_g / 4 column tiles) its entry.
static void buildGroupedToBlocked(KernelBuilder &kb,
                                  const GroupedBlockedSpec &spec, Value in,
                                  Value offs, Value out, Value table) {
  Type scaleType = cast<MemRefType>(in.getType()).getElementType();
  Value words = kb.idx(spec.getSize() / 4);
  if (spec.groups == 0) {
    // No group: every byte is padding.
    Value zeros = kb.packBytes(SmallVector<Value>(4, kb.i32(0)), scaleType);
    kb.gridStrideLoop(words, [&](Value w) {
      Value off = arith::MulIOp::create(kb, w, kb.idx(4));
      kb.store(zeros, out, {off}, 4);
    });
    return;
  }
  buildGroupTable(kb, spec.getTableSpec(), offs, table, Value());
  int64_t rows = spec.rows, cols = spec.cols, groups = spec.groups;
  int64_t rowsPadded = llvm::divideCeil(rows, 128) * 128;
  kb.gridStrideLoop(words, [&](Value w) {
    Bits bb = kb.bits();
    Value off = bb.mul(w, bb.cIdx(4));
    Value virtualRow, col0, key;
    if (spec.kGroups) {
      key = bb.divu(off, bb.cIdx(rowsPadded));
    } else {
      std::tie(virtualRow, col0) =
          getBlockedPosition(bb, off, bb.cIdx(llvm::divideCeil(cols, 4)));
      key = virtualRow;
    }
    Value g =
        findGroup(kb, table, kPadEnd,
                  arith::IndexCastOp::create(kb, kb.getI32Type(), key), groups);
    Value inGroup = bb.ult(g, bb.cIdx(groups));
    Value gc = bb.minu(g, bb.cIdx(groups - 1));
    auto field = [&](GroupTableRow f) -> Value {
      Value v = memref::LoadOp::create(kb, table, ValueRange{kb.idx(f), gc});
      return arith::IndexCastOp::create(kb, kb.getIndexType(), v);
    };
    Value start = field(kStart), padStart = field(kPadStart);
    Value n = bb.sub(field(kEnd), start);
    Value word;
    if (spec.kGroups) {
      // At least one tile, so that a word outside every group divides by a
      // nonzero count (its bytes are padding anyway).
      Value tiles = arith::MaxUIOp::create(
          kb, bb.divu(bb.sub(field(kPadEnd), padStart), bb.cIdx(4)),
          bb.cIdx(1));
      Value local = bb.sub(off, bb.mul(padStart, bb.cIdx(rowsPadded)));
      auto [r, jl] = getBlockedPosition(bb, local, tiles);
      Value valid = bb.land(inGroup, bb.ult(r, bb.cIdx(rows)));
      word = gatherScaleWord(kb, in, {}, rows, cols, spec.transposed, r, valid,
                             start, jl, n);
    } else {
      Value local = bb.sub(virtualRow, padStart);
      Value valid = bb.land(inGroup, bb.ult(local, n));
      word = gatherScaleWord(kb, in, {}, rows, cols, spec.transposed,
                             bb.add(start, local), valid, bb.cIdx(0), col0,
                             bb.cIdx(cols));
    }
    kb.store(word, out, {off}, 4);
  });
}

/// The grouped layouts: at most the resident CTAs (each builds the group
/// table once), grid-stride over the output words.
static void launchGroupedToBlocked(RewriterBase &rewriter, Location loc,
                                   const KernelCache &cache,
                                   const GroupedBlockedSpec &spec, Value in,
                                   Value offs, Value out) {
  SmallVector<Value> args = {in, offs, out};
  std::string name = llvm::formatv(
      "to_blocked_{0}{1}_groups_{2}_g{3}", spec.transposed ? "t_" : "",
      spec.kGroups ? "k" : "m",
      getShapeTag(cast<MemRefType>(in.getType()).getShape()), spec.groups);
  SmallVector<Type> workgroup;
  if (spec.groups > 0)
    workgroup.push_back(getGroupTableType(rewriter.getContext(), spec.groups));
  gpu::GPUFuncOp kernel = cache.getOrCreate(
      rewriter, name, ValueRange(args).getTypes(), /*numInputs=*/2, workgroup,
      [&](KernelBuilder &kb, ValueRange kargs, ValueRange wg) {
        buildGroupedToBlocked(kb, spec, kargs[0], kargs[1], kargs[2],
                              wg.empty() ? Value() : wg[0]);
      });
  const GPUTargetInfo &target = cache.getTarget();
  int64_t grid = std::min(cache.getGridSize(spec.getSize() / 4),
                          target.numSMs * target.ctasPerSM);
  launch(rewriter, loc, kernel, std::max<int64_t>(grid, 1), args);
}

/// The scale matrix (rows, cols) of a stored scale buffer of `shape`, and
/// its slices (experts): (E?, R, C), or transposed (E?, C, R).
static std::tuple<int64_t, int64_t, int64_t>
getScaleMatrix(ArrayRef<int64_t> shape, bool transposed) {
  size_t rank = shape.size();
  int64_t experts = rank == 3 ? shape[0] : 1;
  int64_t d0 = shape[rank - 2], d1 = shape[rank - 1];
  return transposed ? std::make_tuple(experts, d1, d0)
                    : std::make_tuple(experts, d0, d1);
}

void gpu_lowering::emitToBlocked(RewriterBase &rewriter, Location loc,
                                 const KernelCache &cache, ScaleLayout layout,
                                 bool transposed, Value in, Value offs,
                                 Value out) {
  auto inType = cast<MemRefType>(in.getType());
  auto [experts, rows, cols] = getScaleMatrix(inType.getShape(), transposed);
  if (layout == ScaleLayout::BlockedMGroups ||
      layout == ScaleLayout::BlockedKGroups) {
    GroupedBlockedSpec spec{layout == ScaleLayout::BlockedKGroups, rows, cols,
                            cast<MemRefType>(offs.getType()).getDimSize(0),
                            transposed};
    launchGroupedToBlocked(rewriter, loc, cache, spec, in, offs, out);
    return;
  }
  int64_t size = *getBlockedScaleSize(rows, cols);
  if (experts == 1) {
    in = collapseTo(rewriter, loc, in,
                    transposed ? SmallVector<int64_t>{cols, rows}
                               : SmallVector<int64_t>{rows, cols});
    out = collapseTo(rewriter, loc, out, {size});
    experts = 1;
  } else {
    out = collapseTo(rewriter, loc, out, {experts, size});
  }
  std::string name = llvm::formatv("to_blocked_{0}{1}", transposed ? "t_" : "",
                                   getShapeTag(inType.getShape()));
  gpu::GPUFuncOp kernel = cache.getOrCreate(
      rewriter, name, {in.getType(), out.getType()}, /*numInputs=*/1, {},
      [&](KernelBuilder &kb, ValueRange args, ValueRange) {
        buildToBlocked(kb, experts, rows, cols, transposed, args[0], args[1]);
      });
  launch(rewriter, loc, kernel, cache.getGridSize(experts * size / 4),
         {in, out});
}

namespace {
/// to_blocked -> one launch (emitToBlocked).
struct ToBlockedOpToGPU final : KernelPattern<ToBlockedOp> {
  using KernelPattern::KernelPattern;

  LogicalResult rewriteStatic(ToBlockedOp op,
                              PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value in = toBuffer(rewriter, loc, op.getScales());
    Value offs = op.getOffs() ? toBuffer(rewriter, loc, op.getOffs()) : Value();
    SmallVector<Value> buffers = allocResults(rewriter, op);
    emitToBlocked(rewriter, loc, cache, op.getLayout(), /*transposed=*/false,
                  in, offs, buffers[0]);
    rewriter.replaceOp(op, toTensor(rewriter, loc, buffers[0]));
    return success();
  }
};
} // namespace

void gpu_lowering::populateLayoutKernelPatterns(RewritePatternSet &patterns,
                                                KernelCache &cache) {
  patterns.add<GroupCopyOpToGPU<PadTokenGroupsOp>,
               GroupCopyOpToGPU<UnpadTokenGroupsOp>, ToBlockedOpToGPU>(
      patterns.getContext(), cache);
}
