//===- ColumnCastKernels.cpp - 32x1 and quantize_dual kernels ---*- C++ -*-===//
//
// The MX quantize kernels that walk 32-row column tiles (docs/gpu.md
// "Kernels and launch shapes"; the patterns are in QuantizeKernels.cpp):
//
// - 32x1 quantize (blocks along any other dim): one thread per 4 columns x
//   32 rows; each row load of a warp is contiguous (256 bytes for bf16) and
//   all 32 are in flight before the first use. With a fused producer or a
//   written bf16 form, 4 lanes x 8 rows per tile, the column amaxes
//   completed by recursive halving (`shfl.sync.bfly`).
// - quantize_dual: one thread per 32 rows x 8 bytes (4 bf16 / 2 f32
//   columns) on the same column-tile walk (4 lanes per tile in the same
//   cases), read once for both results; the 1x32 amaxes, spread over the
//   lanes of a block, are completed by recursive halving so that each
//   scale byte is computed by one lane, and the bytes are gathered back
//   for the two casts. A CTA's row-major rowwise scale bytes go through
//   workgroup memory and are stored as whole words of each row.
//
// A column tile's rows come through its KernelInput (FusedProducer.h): a
// fused producer's operands are all loaded before its body is evaluated,
// and a fused pad's rows are the block's tokens or zeros.
//
//===----------------------------------------------------------------------===//

#include "BlockView.h"
#include "CastLanes.h"
#include "FusedProducer.h"
#include "Gemm/DequantFusion.h"
#include "KernelBuilder.h"
#include "QuantizeKernels.h"

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

/// Columns per thread of a 32x1 quantize tile: 4 (8 bytes of bf16, 16 of
/// f32 per row; measured best on the H200, docs/gpu.md), fewer when `cols`
/// needs it, so that every row access is one aligned vector access.
int64_t mx_cast::getColsPerThread(int64_t cols) {
  int64_t cpt = 4;
  while (cols % cpt != 0)
    cpt /= 2;
  return cpt;
}

/// The 32x1 thread tile: 32 rows of `cpt` columns, their per-column scale
/// bytes, reciprocals and NaN-block flags; shared by quantize 32x1 and the
/// dual.
namespace {
struct ColumnTile {
  SmallVector<Value> rows;  // 32 x vector<cpt x inType>
  Value absMax;             // vector<cpt x inType>, running max |.|
  SmallVector<Value> bytes; // cpt x i32 scale bytes
  Value rcp;                // vector<cpt x f32>
  Value isNaN;              // words whose bytes are 0xFF for NaN blocks
};
} // namespace

/// Loads the tile's `n` rows from r0 (columns [c0, c0 + cpt)), every load
/// issued before the first use (KernelInput::loadAll), and their column
/// amax. A fused pad's rows (KernelInput::mapPaddedBlock of the tile's
/// block row `blockRow0`) are its tokens, or zeros past the group's tokens
/// (their loads clamped in bounds and selected away).
static void loadTile(KernelBuilder &kb, const QuantizeSpec &spec,
                     const KernelInput &input, ValueRange in, ColumnTile &tile,
                     Value o, Value blockRow0, Value r0, Value c0, int64_t cpt,
                     int64_t n) {
  int64_t elemBytes = spec.inType.getIntOrFloatBitWidth() / 8;
  auto inVec = VectorType::get({cpt}, spec.inType);
  KernelInput::PaddedBlock block;
  Value local0;
  if (input.isPadded()) {
    block = input.mapPaddedBlock(kb, in, blockRow0);
    local0 = arith::SubIOp::create(kb, r0, blockRow0);
  }
  SmallVector<SmallVector<Value>> at;
  SmallVector<Value> valid;
  for (int64_t k = 0; k < n; ++k) {
    Value r = arith::AddIOp::create(kb, r0, kb.idx(k));
    if (input.isPadded()) {
      Value local = arith::AddIOp::create(kb, local0, kb.idx(k));
      valid.push_back(arith::CmpIOp::create(kb, arith::CmpIPredicate::ult,
                                            local, block.count));
      r = arith::MinUIOp::create(kb,
                                 arith::AddIOp::create(kb, block.src, local),
                                 kb.idx(input.getPadTokens() - 1));
    }
    at.push_back(spec.view.index(o, r, c0));
  }
  tile.rows = input.loadAll(kb, inVec, in, at, cpt * elemBytes);
  for (size_t k = 0; k < tile.rows.size(); ++k) {
    if (input.isPadded())
      tile.rows[k] = arith::SelectOp::create(kb, valid[k], tile.rows[k],
                                             kb.splatBits(inVec, 0));
    Value a = kb.absBits(tile.rows[k]);
    tile.absMax =
        tile.absMax ? arith::MaximumFOp::create(kb, tile.absMax, a).getResult()
                    : a;
  }
}

/// The reciprocals and NaN flags of the tile's columns from their scale
/// bytes `bytes` (i32 each), which become `tile.bytes`.
static void setColumnFactors(KernelBuilder &kb, ColumnTile &tile,
                             ArrayRef<Value> bytes) {
  int64_t cpt = bytes.size();
  tile.bytes.assign(bytes.begin(), bytes.end());
  SmallVector<Value> rcps, nans;
  for (Value byte : bytes) {
    Bits bb = kb.bits();
    rcps.push_back(computeReciprocal(bb, byte));
    // 0xFF for byte 255, else 0, by arithmetic ((byte + 1) >> 8 is 1 only
    // for 255): LLVM keeps the word-wide masking instead of turning it back
    // into one select per byte.
    Value one = bb.shr(bb.add(byte, bb.c(1)), bb.c(8));
    nans.push_back(bb.mul(one, bb.c(0xFF)));
  }
  tile.rcp = vector::FromElementsOp::create(
      kb, VectorType::get({cpt}, kb.getF32Type()), rcps);
  // Pack the byte masks into words of up to 4 bytes.
  int64_t bytesPerWord = std::min<int64_t>(cpt, 4);
  SmallVector<Value> words;
  for (int64_t w = 0; w < cpt / bytesPerWord; ++w) {
    Bits bb = kb.bits();
    Value word = bb.c(0);
    for (int64_t j = 0; j < bytesPerWord; ++j)
      word = bb.bor(word, bb.shl(nans[w * bytesPerWord + j], bb.c(8 * j)));
    if (bytesPerWord < 4)
      word = arith::TruncIOp::create(kb, kb.getIntegerType(8 * bytesPerWord),
                                     word);
    words.push_back(word);
  }
  tile.isNaN = vector::FromElementsOp::create(
      kb,
      VectorType::get({int64_t(words.size())},
                      kb.getIntegerType(8 * bytesPerWord)),
      words);
}

/// The scale bytes (i32) of the block amaxes `absMax` (a vector in the
/// input type).
static SmallVector<Value>
computeScaleBytes(KernelBuilder &kb, const QuantizeSpec &spec, Value absMax) {
  ElementFormat fmt = getElementFormat(spec.f8Type);
  SmallVector<Value> bytes;
  int64_t n = cast<VectorType>(absMax.getType()).getNumElements();
  for (int64_t j = 0; j < n; ++j) {
    Value a = amaxF32(kb, vector::ExtractOp::create(kb, absMax, j));
    Bits bb = kb.bits();
    bytes.push_back(computeScaleByte(bb, a, spec.mode, fmt));
  }
  return bytes;
}

/// The bf16 form of the fp8 rows `qs` (vector<cpt x f8> each, consecutive
/// rows from r0 of columns [c0, c0 + cpt)) of a 32x1 tile: per column, its
/// rows as one contiguous K run with the column's scale byte `bytes[j]`, at
/// the padded K `at` of r0 (BF16OperandWriter::mapColumnK) where the form
/// holds it.
static void storeColumnsBF16(KernelBuilder &kb, const BF16OperandWriter &bf16,
                             ArrayRef<Value> qs, ArrayRef<Value> bytes, Value o,
                             Value c0, const BF16OperandWriter::ColumnK &at) {
  auto n = static_cast<int64_t>(qs.size());
  auto rowBytes = VectorType::get(
      cast<VectorType>(qs.front().getType()).getShape(), kb.getI8Type());
  SmallVector<Value> rows = llvm::map_to_vector(
      qs, [&](Value q) { return kb.bitcastTo(rowBytes, q); });
  Value pk = at.pk, held = at.held;
  auto store = [&] {
    for (auto [j, byte] : llvm::enumerate(bytes)) {
      SmallVector<Value> column = llvm::map_to_vector(rows, [&](Value row) {
        return vector::ExtractOp::create(kb, row, int64_t(j)).getResult();
      });
      Value v = vector::FromElementsOp::create(
          kb, VectorType::get({n}, kb.getI8Type()), column);
      bf16.storeColumn(kb, v, byte, o, arith::AddIOp::create(kb, c0, kb.idx(j)),
                       pk);
    }
  };
  if (held)
    kb.ifThen(held, store);
  else
    store();
}

//===----------------------------------------------------------------------===//
// Column tiles (32x1 and dual)
//===----------------------------------------------------------------------===//

/// Lanes that share one 32-row column tile of the 32x1 and dual kernels
/// (each loads 32 / split rows): 1 lane, as the dual's 8-byte rows (4 bf16
/// / 2 f32 columns x 32 rows, 256 bytes of loads in flight per lane, 128
/// registers, 2 CTAs per SM; a warp's row loads are 256 contiguous bytes).
/// Measured on the H200 (docs/gpu.md), the dual on 16384 x 16384 bf16: 89 %
/// of copy bandwidth, against 88 % for 2 lanes x 16 rows of 16 bytes, 86 %
/// for 2 lanes x 16 rows of 8 bytes or 4 lanes x 8 rows of 16 bytes (3 CTAs
/// per SM; 85-86 % with 4 forced).
static constexpr int64_t kColumnSplit = 1;
/// The same for a kernel that evaluates a fused producer (FusedProducer.h):
/// the body's registers per row (several inputs, f32 temporaries) leave
/// one CTA per SM at 32 rows per lane; 4 lanes of 8 rows keep more warps
/// in flight (measured on the H200, docs/gpu.md: better than 2 lanes). And
/// for a kernel that writes the colwise cast's bf16 form (DequantFusion.h):
/// each lane stores 16 bytes (8 K) of each of its columns' K-major rows,
/// the 4 lanes of a tile together 64 contiguous bytes, whole 32-byte
/// sectors per store instruction (one lane of 32 rows stores 64 bytes per
/// column as four 16-byte halves of sectors; ncu of the dual on the H200:
/// L2 at 73 % of its peak with DRAM at 43 %).
static constexpr int64_t kFusedColumnSplit = 4;

/// The lanes per 32-row column tile of a 32x1 or dual kernel on `input`
/// that writes (`colForm`) or not the colwise bf16 form;
/// `KernelCache::getColumnCastLanes` overrides. At most the tile's columns
/// (`cpt`): the amax reductions halve a lane's vector of cpt column maxima
/// once per doubling of the lanes.
int64_t mx_cast::getColumnSplit(const KernelCache &cache,
                                const KernelInput &input, bool colForm,
                                int64_t cpt) {
  int64_t lanes = cache.getColumnCastLanes();
  if (!lanes)
    lanes = input.isFused() || colForm ? kFusedColumnSplit : kColumnSplit;
  return std::min(lanes, cpt);
}

/// Column tiles of the walk over `v` (`work`) and the tiles its loop runs
/// (`padded`): a multiple of a warp's tiles where the lanes shuffle.
std::pair<int64_t, int64_t> mx_cast::getColumnTiles(const BlockView &v,
                                                    int64_t cpt, int64_t split,
                                                    bool shuffles) {
  int64_t work = v.outer * (v.rows / kBlockSize) * (v.cols / cpt);
  return {work, shuffles ? int64_t(llvm::alignTo(work, 32 / split)) : work};
}

/// True (i1) where bit `mask` of `lane` (index) is set.
static Value laneBitSet(KernelBuilder &kb, Value lane, int64_t mask) {
  Value bit = arith::AndIOp::create(kb, lane, kb.idx(mask));
  return arith::CmpIOp::create(kb, arith::CmpIPredicate::ne, bit, kb.idx(0));
}

/// Maximum of the vectors `v` of the lanes `lane ^ m` for the masks
/// `masks`, scattered over those lanes (recursive halving): at each step a
/// lane keeps one half of its vector (the upper half where `lane & m` is
/// set), sends the other half to lane `lane ^ m` and takes the maximum with
/// that lane's copy of the half it kept. Returns the full maxima of
/// `size / 2^|masks|` consecutive entries and the position (index) of the
/// first of them in `v`. max is exact, so the order does not matter.
static std::pair<Value, Value> reduceScatterMax(KernelBuilder &kb, Value v,
                                                Value lane,
                                                ArrayRef<int64_t> masks) {
  Value first = kb.idx(0);
  for (int64_t m : masks) {
    int64_t n = cast<VectorType>(v.getType()).getNumElements();
    Value upper = laneBitSet(kb, lane, m);
    Value lo = kb.half(v, false), hi = kb.half(v, true);
    Value keep = arith::SelectOp::create(kb, upper, hi, lo);
    Value send = arith::SelectOp::create(kb, upper, lo, hi);
    v = arith::MaximumFOp::create(kb, keep, kb.shuffleXor(send, m));
    first = arith::AddIOp::create(
        kb, first,
        arith::SelectOp::create(kb, upper, kb.idx(n / 2), kb.idx(0)));
  }
  return {v, first};
}

/// The inverse exchange of reduceScatterMax (recursive doubling): every
/// lane ends with the whole vector, in the original order.
static Value allGather(KernelBuilder &kb, Value v, Value lane,
                       ArrayRef<int64_t> masks) {
  for (int64_t m : llvm::reverse(masks)) {
    Value upper = laneBitSet(kb, lane, m);
    Value theirs = kb.shuffleXor(v, m);
    v = arith::SelectOp::create(kb, upper, kb.concat(theirs, v),
                                kb.concat(v, theirs));
  }
  return v;
}

namespace {
/// One lane's part of a 32 x cpt column tile that `split` lanes of a warp
/// share: rows [r0, r0 + 32 / split) of the tile's block rows [blockRow0,
/// blockRow0 + 32) (block row `rb`), columns [c0, c0 + cpt) of batch `o`.
struct ColumnTilePart {
  Value lane; // the lane in its warp
  Value o, blockRow0, rb, c0, r0;
  int64_t split;
  ColumnTile tile; // the part's rows, loaded
};
} // namespace

/// Grid-stride loop over the 32 x cpt column tiles of `spec.view`, `split`
/// lanes per tile, 32 / split apart in a warp (a warp's loads of one row
/// stay contiguous); runs `body` on each lane's part once its row loads
/// are issued. Where the lanes shuffle (`shuffles`) every lane of a warp
/// runs the same iterations (the loop goes to a multiple of 32): items
/// past the end redo the item `work - align + i % align` lane for lane
/// (`align` divides the work: the dual's 1x32 blocks are lane-aligned) and
/// store the same bytes again, so no store is guarded.
static void forEachColumnTilePart(KernelBuilder &kb, const QuantizeSpec &spec,
                                  const KernelInput &input, ValueRange in,
                                  int64_t cpt, int64_t split, int64_t align,
                                  bool shuffles,
                                  function_ref<void(ColumnTilePart &)> body) {
  const BlockView &v = spec.view;
  int64_t itemsPerWarp = 32 / split, tileRows = kBlockSize / split;
  auto [work, padded] = getColumnTiles(v, cpt, split, shuffles);
  kb.gridStrideLoop(kb.idx(split * padded), [&](Value t) {
    ColumnTilePart p;
    p.split = split;
    p.lane = arith::RemUIOp::create(kb, t, kb.idx(32));
    // Lane l of warp w takes row part l / itemsPerWarp of item
    // itemsPerWarp * w + l % itemsPerWarp.
    Value i = t, part = kb.idx(0);
    if (split > 1) {
      part = arith::DivUIOp::create(kb, p.lane, kb.idx(itemsPerWarp));
      i = arith::AddIOp::create(
          kb,
          arith::MulIOp::create(kb, arith::DivUIOp::create(kb, t, kb.idx(32)),
                                kb.idx(itemsPerWarp)),
          arith::RemUIOp::create(kb, p.lane, kb.idx(itemsPerWarp)));
    }
    if (padded != work) {
      Value valid =
          arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, i, kb.idx(work));
      Value redo =
          arith::AddIOp::create(kb, kb.idx(work - align),
                                arith::RemUIOp::create(kb, i, kb.idx(align)));
      i = arith::SelectOp::create(kb, valid, i, redo);
    }
    auto [o, blockRow0, rb, c0] = decomposeColumnItem(kb, i, v, cpt);
    p.o = o;
    p.blockRow0 = blockRow0;
    p.rb = rb;
    p.c0 = c0;
    p.r0 = arith::AddIOp::create(
        kb, p.blockRow0, arith::MulIOp::create(kb, part, kb.idx(tileRows)));
    loadTile(kb, spec, input, in, p.tile, p.o, p.blockRow0, p.r0, p.c0, cpt,
             tileRows);
    body(p);
  });
}

/// The colwise (32x1) scales of a lane's tile part: its column amaxes
/// completed over the tile's lanes (recursive halving), the bytes of the
/// cpt / split columns this lane ends with computed and stored to
/// `scales`, and all cpt bytes gathered back into the tile's factors.
static void computeColumnScales(KernelBuilder &kb, const QuantizeSpec &spec,
                                ColumnTilePart &p, Value scales) {
  const BlockView &v = spec.view;
  int64_t rowBlocks = v.rows / kBlockSize;
  int64_t cpt = cast<VectorType>(p.tile.absMax.getType()).getNumElements();
  SmallVector<int64_t> masks;
  for (int64_t m = 32 / p.split; m < 32; m *= 2)
    masks.push_back(m);
  auto [mine, first] = reduceScatterMax(kb, p.tile.absMax, p.lane, masks);
  SmallVector<Value> bytes = computeScaleBytes(kb, spec, mine);
  Value c = arith::AddIOp::create(kb, p.c0, first);
  // The blocked matrix of a 32x1 cast is (column, row block).
  storeScaleBytes(
      kb, bytes, scales, spec.layout, v.index(p.o, p.rb, c),
      [&](int64_t j) {
        return std::make_pair(
            arith::AddIOp::create(kb, c, kb.idx(j)).getResult(), p.rb);
      },
      rowBlocks);
  if (masks.empty())
    return setColumnFactors(kb, p.tile, bytes);
  Value all = allGather(kb, kb.packBytes(bytes, kb.getI8Type()), p.lane, masks);
  SmallVector<Value> allBytes;
  for (int64_t j = 0; j < cpt; ++j) {
    Bits bb = kb.bits();
    allBytes.push_back(bb.byteOf(vector::ExtractOp::create(kb, all, j)));
  }
  setColumnFactors(kb, p.tile, allBytes);
}

/// The colwise fp8 rows `qs` (vector<cpt x f8> each) of a lane's tile part:
/// stored to `data` where the tile's bytes need them (deferred fp8), and
/// into the bf16 form (`bf16`) as the part's stretch of each column's K
/// run: the block's padded K (BF16OperandWriter::mapColumnK) plus the
/// part's first row within the block.
static void storeColumnCasts(KernelBuilder &kb, const BlockView &v,
                             const ColumnTilePart &p, ArrayRef<Value> qs,
                             Value data, const BF16OperandWriter &bf16) {
  int64_t cpt = cast<VectorType>(qs.front().getType()).getNumElements();
  BF16OperandWriter::ColumnK at;
  if (bf16) {
    at = bf16.mapColumnK(kb, p.blockRow0);
    at.pk = arith::AddIOp::create(kb, at.pk,
                                  arith::SubIOp::create(kb, p.r0, p.blockRow0));
  }
  storeFp8Where(
      kb, bf16 ? bf16.mustStoreFp8(kb, p.tile.bytes, at.whole) : Value(), [&] {
        for (auto [k, q] : llvm::enumerate(qs)) {
          Value r = arith::AddIOp::create(kb, p.r0, kb.idx(k));
          kb.store(q, data, v.index(p.o, r, p.c0), cpt);
        }
      });
  if (bf16)
    storeColumnsBF16(kb, bf16, qs, p.tile.bytes, p.o, p.c0, at);
}

/// 32x1: (in, data, scales) — `split` lanes per 32 rows x cpt columns.
void mx_cast::buildQuantize32x1(KernelBuilder &kb, const QuantizeSpec &spec,
                                const KernelInput &input, int64_t split,
                                ValueRange in, Value data, Value scales,
                                const BF16OperandWriter &bf16) {
  const BlockView &v = spec.view;
  int64_t cpt = getColsPerThread(v.cols);
  forEachColumnTilePart(kb, spec, input, in, cpt, split, /*align=*/1,
                        /*shuffles=*/split > 1, [&](ColumnTilePart &p) {
                          computeColumnScales(kb, spec, p, scales);
                          SmallVector<Value> qs =
                              llvm::map_to_vector(p.tile.rows, [&](Value row) {
                                return quantizeLanes(kb, toF32(kb, row),
                                                     p.tile.rcp, p.tile.isNaN,
                                                     spec.f8Type);
                              });
                          storeColumnCasts(kb, v, p, qs, data, bf16);
                        });
  if (spec.layout == ScaleLayout::Blocked)
    emitBlockedPadding(kb, scales, v.cols, v.rows / kBlockSize);
  if (bf16)
    bf16.zeroPadding(kb);
}

//===----------------------------------------------------------------------===//
// quantize_dual
//===----------------------------------------------------------------------===//

/// bf16 lanes -> f32 lanes through integer ops on word pairs (exact): one
/// `shl` or `and` per element instead of an unpack and a `cvt.f32.bf16`.
static Value toF32ByShift(KernelBuilder &kb, Value v) {
  auto type = cast<VectorType>(v.getType());
  if (type.getElementType().isF32())
    return v;
  int64_t n = type.getNumElements();
  if (n % 2 != 0)
    return toF32(kb, v);
  // Word w holds lanes (2k, 2k+1): f32 bits `w << 16` and `w & 0xFFFF0000`.
  auto wordType = VectorType::get({n / 2}, kb.getI32Type());
  Value words = kb.bitcastTo(wordType, v);
  Value lo = arith::ShLIOp::create(kb, words, kb.splatBits(wordType, 16));
  Value hi =
      arith::AndIOp::create(kb, words, kb.splatBits(wordType, 0xFFFF0000));
  SmallVector<Value> lanes;
  for (int64_t k = 0; k < n / 2; ++k) {
    lanes.push_back(vector::ExtractOp::create(kb, lo, k));
    lanes.push_back(vector::ExtractOp::create(kb, hi, k));
  }
  Value bits = vector::FromElementsOp::create(
      kb, VectorType::get({n}, kb.getI32Type()), lanes);
  return kb.bitcastTo(VectorType::get({n}, kb.getF32Type()), bits);
}

/// Bytes of input per row of one lane of the dual kernel (kColumnSplit).
static constexpr int64_t kDualRowBytes = 8;

/// Columns of one lane of the dual kernel: kDualRowBytes of input per row.
int64_t mx_cast::getDualColsPerThread(Type inType) {
  return kDualRowBytes / (inType.getIntOrFloatBitWidth() / 8);
}

/// Rowwise scale blocks per row that one CTA's iteration of a dual kernel
/// covers, where its rowwise scale bytes are staged in workgroup memory,
/// else 0. A CTA's kThreadsPerCTA / split items are consecutive column
/// groups of one block row (where a block row's groups are a multiple of
/// them), so its 32 rows x kThreadsPerCTA / split * cpt / 32 scale bytes
/// (bf16: 32 with one lane per tile, one 32-byte sector per row; 8 with 4
/// lanes) are contiguous in each row of a row-major scale matrix. Stored
/// directly, each lane writes one byte per row, the bytes of 8 (one lane)
/// or 32 (4 lanes) rows per store instruction: partial sectors and 8 (32)
/// times the L2 write requests. Measured on the H200 (bench/README.md,
/// session 21): the one-lane bf16 dual at 16384 x 8192 went from 0.87 to
/// 0.92 of copy bandwidth (ncu: DRAM 79 -> 83 % of its peak, L2 at 87-88 %
/// both ways), every 4-lane dual of the main job's steps 3-16 % faster.
int64_t mx_cast::getStagedRowScaleBlocks(const QuantizeSpec &rowSpec,
                                         const BlockView &v, int64_t cpt,
                                         int64_t split) {
  int64_t items = kThreadsPerCTA / split;
  int64_t blocks = items * cpt / kBlockSize;
  if (rowSpec.layout != ScaleLayout::RowMajor || (v.cols / cpt) % items != 0 ||
      blocks % 4 != 0)
    return 0;
  return blocks;
}

/// Stores the rowwise scale bytes that the CTA's lanes left in `stage`
/// (32 rows x `blocks` bytes, the tile rows of block row `blockRow0`,
/// blocks from `blk`'s first block of the CTA) as 4-byte words of the
/// rows of `rowScales`, then lets the next iteration reuse `stage`.
static void storeStagedRowScales(KernelBuilder &kb, const BlockView &v,
                                 Value stage, int64_t blocks, Value o,
                                 Value blockRow0, Value blk, Value rowScales) {
  gpu::BarrierOp::create(kb);
  int64_t wordsPerRow = blocks / 4;
  Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  Value writer = arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, tid,
                                       kb.idx(kBlockSize * wordsPerRow));
  kb.ifThen(writer, [&] {
    Value row = arith::AddIOp::create(
        kb, blockRow0, arith::DivUIOp::create(kb, tid, kb.idx(wordsPerRow)));
    Value blk0 = arith::SubIOp::create(
        kb, blk, arith::RemUIOp::create(kb, blk, kb.idx(blocks)));
    Value col = arith::AddIOp::create(
        kb, blk0,
        arith::MulIOp::create(
            kb, arith::RemUIOp::create(kb, tid, kb.idx(wordsPerRow)),
            kb.idx(4)));
    Value word =
        kb.load(VectorType::get({4}, kb.getI8Type()), stage,
                ValueRange{arith::MulIOp::create(kb, tid, kb.idx(4))}, 4);
    Type scaleType = cast<MemRefType>(rowScales.getType()).getElementType();
    kb.store(kb.bitcastTo(VectorType::get({4}, scaleType), word), rowScales,
             v.index(o, row, col), 4);
  });
  gpu::BarrierOp::create(kb);
}

/// quantize_dual: (in, rowData, rowScales, colData, colScales) over the
/// (outer, rows, cols) view. A 32 x cpt tile (one 32x1 block per column) is
/// shared by `split` lanes (forEachColumnTilePart); the 32 / cpt lanes of a
/// 1x32 block are consecutive. Every scale byte is computed once: the
/// partial amaxes (per row of the lane's part, per column of the lane's
/// rows) are completed by recursive halving over the lanes that share
/// them, each lane computes and stores the bytes of the rows / columns it
/// ends with, and the bytes (not the reciprocals) are gathered back for
/// the casts. With `rowScaleStage` (workgroup memory of
/// getStagedRowScaleBlocks bytes per tile row), the rowwise scale bytes go
/// through it (storeStagedRowScales).
void mx_cast::buildQuantizeDual(KernelBuilder &kb, const QuantizeSpec &rowSpec,
                                const QuantizeSpec &colSpec,
                                const KernelInput &input, int64_t split,
                                ValueRange in, Value rowData, Value rowScales,
                                Value colData, Value colScales,
                                const BF16OperandWriter &rowBF16,
                                const BF16OperandWriter &colBF16,
                                Value rowScaleStage) {
  const BlockView &v = colSpec.view;
  int64_t cpt = getDualColsPerThread(colSpec.inType); // cols % 32 == 0
  int64_t stagedBlocks =
      rowScaleStage
          ? cast<MemRefType>(rowScaleStage.getType()).getNumElements() /
                kBlockSize
          : 0;
  int64_t lanesPerBlock = kBlockSize / cpt; // divides 32 / split
  int64_t blocksPerRow = v.cols / kBlockSize;
  // Lanes that share a row's 1x32 block.
  SmallVector<int64_t> rowMasks;
  for (int64_t m = 1; m < lanesPerBlock; m *= 2)
    rowMasks.push_back(m);
  forEachColumnTilePart(
      kb, colSpec, input, in, cpt, split, lanesPerBlock, /*shuffles=*/true,
      [&](ColumnTilePart &p) {
        ColumnTile &tile = p.tile;
        Value blk = arith::DivUIOp::create(kb, p.c0, kb.idx(kBlockSize));
        // Rowwise (1x32) scales: the amax of this lane's chunk of each row,
        // completed over the lanes of the block; this lane computes and
        // stores the bytes of tileRows / lanesPerBlock of the rows.
        SmallVector<Value> partial;
        for (Value row : tile.rows)
          partial.push_back(kb.reduceMax(kb.absBits(row)));
        Value rowAmax = vector::FromElementsOp::create(
            kb, VectorType::get({int64_t(partial.size())}, colSpec.inType),
            partial);
        auto [rowMine, rowFirst] =
            reduceScatterMax(kb, rowAmax, p.lane, rowMasks);
        SmallVector<Value> rowBytes = computeScaleBytes(kb, rowSpec, rowMine);
        for (auto [j, byte] : llvm::enumerate(rowBytes)) {
          Value local = arith::AddIOp::create(kb, rowFirst, kb.idx(j));
          if (rowScaleStage) {
            // The row within the tile's block row.
            local = arith::AddIOp::create(
                kb, local, arith::SubIOp::create(kb, p.r0, p.blockRow0));
            Value at = arith::AddIOp::create(
                kb, arith::MulIOp::create(kb, local, kb.idx(stagedBlocks)),
                arith::RemUIOp::create(kb, blk, kb.idx(stagedBlocks)));
            memref::StoreOp::create(
                kb, arith::TruncIOp::create(kb, kb.getI8Type(), byte),
                rowScaleStage, ValueRange{at});
            continue;
          }
          Value r = arith::AddIOp::create(kb, p.r0, local);
          storeScaleBytes(
              kb, {byte}, rowScales, rowSpec.layout, v.index(p.o, r, blk),
              [&](int64_t) { return std::make_pair(r, blk); }, blocksPerRow);
        }
        Value allRowBytes = allGather(
            kb, kb.packBytes(rowBytes, kb.getI8Type()), p.lane, rowMasks);
        computeColumnScales(kb, colSpec, p, colScales);

        // Both casts of every row: one conversion to f32, two products.
        SmallVector<Value> colQs;
        for (auto [k, row] : llvm::enumerate(tile.rows)) {
          Value x = toF32ByShift(kb, row);
          Bits bb = kb.bits();
          Value byte =
              bb.byteOf(vector::ExtractOp::create(kb, allRowBytes, int64_t(k)));
          Value rowQ = quantizeLanes(kb, x, computeReciprocal(bb, byte),
                                     bb.eq(byte, bb.c(255)), rowSpec.f8Type);
          colQs.push_back(
              quantizeLanes(kb, x, tile.rcp, tile.isNaN, colSpec.f8Type));
          Value r = arith::AddIOp::create(kb, p.r0, kb.idx(k));
          storeFp8Where(
              kb, rowBF16 ? rowBF16.mustStoreFp8(kb, {byte}) : Value(),
              [&] { kb.store(rowQ, rowData, v.index(p.o, r, p.c0), cpt); });
          if (rowBF16)
            rowBF16.storeRow(
                kb, rowQ, byte,
                arith::AddIOp::create(
                    kb, arith::MulIOp::create(kb, p.o, kb.idx(v.rows)), r),
                p.c0);
        }
        storeColumnCasts(kb, v, p, colQs, colData, colBF16);
        if (rowScaleStage)
          storeStagedRowScales(kb, v, rowScaleStage, stagedBlocks, p.o,
                               p.blockRow0, blk, rowScales);
      });
  if (rowSpec.layout == ScaleLayout::Blocked)
    emitBlockedPadding(kb, rowScales, v.rows, blocksPerRow);
  if (colSpec.layout == ScaleLayout::Blocked)
    emitBlockedPadding(kb, colScales, v.cols, v.rows / kBlockSize);
  if (rowBF16)
    rowBF16.zeroPadding(kb);
  if (colBF16)
    colBF16.zeroPadding(kb);
}
