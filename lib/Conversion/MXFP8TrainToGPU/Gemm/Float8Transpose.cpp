//===- Float8Transpose.cpp - MN-major fp8 operands made K-major -*- C++ -*-===//
//
// The fp8 transpose pre-pass of the sm_90a Float8 GEMM (Float8Transpose.h).
// One CTA of 256 threads per 128 x 128 byte tile (a grid-stride loop over
// the tiles):
//
//   load   thread t copies 16-byte chunk c = i % 8 of source row i / 8
//          (i = t, t + 256, ...: eight threads read a 128-byte line), zero
//          past the operand's rows, past K and past the tile's token group
//          (rows not a multiple of 16: the chunk in 16 / w loads of w
//          bytes, w the widest of 8, 4, 2, 1 dividing rows, each guarded);
//          the chunk goes to shared chunk c ^ (row / 16 % 8) of the row;
//   store  thread t (warp w, lane l): output rows 4 g .. 4 g + 3 of the
//          tile (g = 4 w + l / 8) at K chunk q = l % 8 (16 source rows
//          q * 16 ..): 16 four-byte loads from shared memory (a source
//          row's bytes of the four output rows), the 4 x 16 bytes
//          regrouped per output row in registers, four 16-byte stores
//          (eight threads write a 128-byte line of the K-major output);
//          a quarter of the shared-memory loads of one byte per load.
//
// The swizzle spreads the eight K chunks a warp reads at one column over
// eight bank groups (without it every one of them hits the same banks):
// the 32 words a warp loads at once fall into 32 distinct banks.
// Bytes are copied unchanged, NaN codes included.
//
//===----------------------------------------------------------------------===//

#include "Float8Transpose.h"
#include "GemmSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

constexpr int64_t kTile = kFloat8TransposeTile;

int64_t Float8TransposeSpec::getOutputK() const {
  if (!groups)
    return k;
  return llvm::alignTo(k, kTile) + kTile * groups;
}

int64_t Float8TransposeSpec::numTiles() const {
  return batches * llvm::divideCeil(getOutputK(), kTile) *
         llvm::divideCeil(rows, kTile);
}

std::string Float8TransposeSpec::getName() const {
  return llvm::formatv("gemm_f8_transpose_{0}_b{1}_k{2}_r{3}{4}",
                       getTypeTag(dataType), batches, k, rows,
                       groups ? llvm::formatv("_g{0}", groups).str() : "")
      .str();
}

std::string gpu_lowering::whyNotFloat8Transpose(int64_t k) {
  if (k % 16)
    return llvm::formatv("the fp8 transpose of an MN-major operand needs its "
                         "K ({0}) a multiple of 16",
                         k)
        .str();
  return "";
}

Float8TransposeSpec
gpu_lowering::getFloat8TransposeSpec(const GemmSpec &spec,
                                     const gemm::OperandLayout &l, bool batched,
                                     Type dataType) {
  Float8TransposeSpec d;
  d.batches = batched ? spec.batches : 1;
  d.rows = l.rows;
  d.k = l.k;
  d.groups = spec.kind == GemmKind::Grouped2d2d ? spec.batches : 0;
  d.dataType = dataType;
  return d;
}

std::string gpu_lowering::whyNotFloat8GroupedTranspose(const GemmSpec &spec) {
  if (spec.a.kMajor || spec.b.kMajor)
    return "the Float8 grouped GEMM 2d-2d needs both operands stored tokens "
           "first (lhs (T, M) with transpose_lhs, rhs (T, N)), found one "
           "stored K-major";
  for (const gemm::OperandLayout *l : {&spec.a, &spec.b})
    if (std::string why = whyNotFloat8Transpose(l->k); !why.empty())
      return why;
  return "";
}

void gpu_lowering::emitFloat8TransposeTiles(KernelBuilder &kb,
                                            const Float8TransposeSpec &d,
                                            Value offs, ValueRange outs,
                                            ValueRange tileBufs,
                                            const Float8TileSource &source) {
  assert(!outs.empty() && outs.size() == tileBufs.size() &&
         "one shared tile per output");
  auto c = [&](int64_t v) { return kb.idx(v); };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(kb, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubIOp::create(kb, x, y);
  };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(kb, x, c(y));
  };
  auto divu = [&](Value x, int64_t y) -> Value {
    return arith::DivUIOp::create(kb, x, c(y));
  };
  auto remu = [&](Value x, int64_t y) -> Value {
    return arith::RemUIOp::create(kb, x, c(y));
  };
  auto ult = [&](Value x, Value y) -> Value {
    return arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, x, y);
  };
  auto andi = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(kb, x, y);
  };
  int64_t kOut = d.getOutputK();
  int64_t rowTiles = llvm::divideCeil(d.rows, kTile);
  int64_t kTiles = llvm::divideCeil(kOut, kTile);
  auto b16 = VectorType::get({16}, kb.getI8Type());
  auto f8x16 = VectorType::get({16}, d.dataType);
  Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
  Value gridDim = gpu::GridDimOp::create(kb, gpu::Dimension::x);
  kb.forLoop(bid, c(d.numTiles()), gridDim, [&](Value tile) {
    Value rt = remu(tile, rowTiles);
    Value kt = remu(divu(tile, rowTiles), kTiles);
    Value batch = divu(tile, rowTiles * kTiles);
    Value outK0 = mul(kt, kTile);
    // The tile's source rows: [src0, srcEnd) of K; `live` is false for a
    // 2d-2d tile past the last group's padded end (nothing to write).
    Value src0 = outK0, srcEnd = c(d.k), group;
    Value live = arith::ConstantIntOp::create(kb, 1, 1);
    if (d.groups) {
      // Group g covers the output K [padStart, padStart + ceil(len / 128)
      // x 128); its ends clamped as on the CPU path (max with the start,
      // min with K).
      Value f = arith::ConstantIntOp::create(kb, 0, 1);
      auto scan =
          scf::ForOp::create(kb, c(0), c(d.groups), c(1),
                             ValueRange{c(0), c(0), f, c(0), c(0), c(0)});
      {
        OpBuilder::InsertionGuard g(kb);
        kb.setInsertionPointToStart(scan.getBody());
        ValueRange it = scan.getRegionIterArgs();
        Value start = it[0], padStart = it[1];
        Value raw = arith::IndexCastOp::create(
            kb, kb.getIndexType(),
            memref::LoadOp::create(kb, offs, scan.getInductionVar()));
        Value end = arith::MinSIOp::create(
            kb, arith::MaxSIOp::create(kb, raw, start), c(d.k));
        Value padEnd =
            add(padStart,
                mul(divu(add(sub(end, start), c(kTile - 1)), kTile), kTile));
        // Operands are built one statement at a time: argument evaluation
        // order differs between compilers and the IR order must not.
        Value beforeEnd = ult(outK0, padEnd);
        Value afterStart = arith::CmpIOp::create(kb, arith::CmpIPredicate::ule,
                                                 padStart, outK0);
        Value hit = andi(afterStart, beforeEnd);
        auto sel = [&](Value x, Value y) -> Value {
          return arith::SelectOp::create(kb, hit, x, y);
        };
        Value anyHit = arith::OrIOp::create(kb, it[2], hit);
        Value hitSrc0 = sel(add(start, sub(outK0, padStart)), it[3]);
        Value hitEnd = sel(end, it[4]);
        Value hitGroup = sel(scan.getInductionVar(), it[5]);
        scf::YieldOp::create(
            kb, ValueRange{end, padEnd, anyHit, hitSrc0, hitEnd, hitGroup});
      }
      live = scan.getResult(2);
      src0 = scan.getResult(3);
      srcEnd = scan.getResult(4);
      group = scan.getResult(5);
    }
    kb.ifThen(live, [&] {
      Value rowBase = mul(rt, kTile);
      if (source.beginTile)
        source.beginTile(batch, rowBase, group);
      // Load: 1024 chunks of 16 bytes, four per thread, the loads of
      // source.loadBatch chunks issued before the first of them is used.
      struct Item {
        Value kk, chunk, srcK, col, in;
        SmallVector<Value> raw;
      };
      int64_t perThread = kTile * 8 / 256;
      assert(perThread % source.loadBatch == 0 && "whole batches");
      for (int64_t i0 = 0; i0 < perThread; i0 += source.loadBatch) {
        SmallVector<Item, 4> items;
        for (int64_t i = i0; i < i0 + source.loadBatch; ++i) {
          Item it;
          Value item = add(tid, c(256 * i));
          it.kk = divu(item, 8);
          it.chunk = remu(item, 8);
          it.srcK = add(src0, it.kk);
          it.col = add(rowBase, mul(it.chunk, 16));
          Value inCol = ult(it.col, c(d.rows));
          Value inK = ult(it.srcK, srcEnd);
          it.in = andi(inK, inCol);
          it.raw = source.load(batch, it.srcK, it.col, it.in);
          items.push_back(it);
        }
        for (const Item &it : items) {
          SmallVector<Value> bytes =
              source.convert ? source.convert(it.raw, batch, it.srcK, it.col,
                                              it.chunk, it.in)
                             : it.raw;
          assert(bytes.size() == outs.size() && "one chunk per output");
          Value slot =
              arith::XOrIOp::create(kb, it.chunk, remu(divu(it.kk, 16), 8));
          Value slotOff = mul(slot, 16);
          Value rowOff = mul(it.kk, kTile);
          for (auto [chunkBytes, tileBuf] : llvm::zip_equal(bytes, tileBufs))
            kb.store(chunkBytes, tileBuf, add(rowOff, slotOff), 16);
        }
      }
      gpu::BarrierOp::create(kb);
      // Store: thread (warp w, lane l) writes output rows 4 g .. 4 g + 3
      // (g = 4 w + l / 8) of the tile at K chunk q = l % 8 (source rows
      // 16 q .. 16 q + 15): per source row one 4-byte word (the four rows'
      // bytes, in shared chunk (g / 4) ^ q), then each output row's 16
      // bytes from byte i of the 16 words, one 16-byte store per row.
      Value warp = divu(tid, 32), lane = remu(tid, 32);
      Value q = remu(lane, 8);
      // One op per statement, so that the IR does not depend on the host
      // compiler's argument evaluation order.
      Value laneGroup = divu(lane, 8);
      Value warpGroup = mul(warp, 4);
      Value g = add(warpGroup, laneGroup);
      Value slotOff = mul(arith::XOrIOp::create(kb, divu(g, 4), q), 16);
      Value wordOff = add(slotOff, mul(remu(g, 4), 4));
      auto b4 = VectorType::get({4}, kb.getI8Type());
      // One output after the other: 16 words in registers at a time.
      for (auto [out, tileBuf] : llvm::zip_equal(outs, tileBufs)) {
        SmallVector<Value, 16> words;
        for (int64_t j = 0; j < 16; ++j) {
          Value kk = add(mul(q, 16), c(j));
          words.push_back(
              kb.load(b4, tileBuf, {add(mul(kk, kTile), wordOff)}, 4));
        }
        Value outK = add(outK0, mul(q, 16));
        Value inK = ult(outK, c(kOut));
        for (int64_t i = 0; i < 4; ++i) {
          SmallVector<Value, 16> bytes;
          for (Value w : words)
            bytes.push_back(vector::ExtractOp::create(kb, w, i));
          Value v = vector::FromElementsOp::create(kb, b16, bytes);
          Value row = add(rowBase, add(mul(g, 4), c(i)));
          Value inRow = ult(row, c(d.rows));
          kb.ifThen(andi(inRow, inK), [&] {
            Value off = add(mul(add(mul(batch, d.rows), row), kOut), outK);
            kb.store(kb.bitcastTo(f8x16, v), out, off, 16);
          });
        }
      }
      // The tile is read before the next one overwrites it.
      gpu::BarrierOp::create(kb);
    });
  });
}

/// The transpose kernel's body: args are data, [offs], out; `tileBuf` the
/// shared buffer. Its chunks are the stored bytes.
static void emitTransposeKernel(KernelBuilder &kb, const Float8TransposeSpec &d,
                                ValueRange args, Value tileBuf) {
  Value data = args[0];
  Value offs = d.groups ? args[1] : Value();
  auto b16 = VectorType::get({16}, kb.getI8Type());
  auto f8x16 = VectorType::get({16}, d.dataType);
  // Source rows of `rows` bytes: a chunk is one 16-byte load when rows is a
  // multiple of 16, else 16 / w loads of the widest w (8, 4, 2, 1) that
  // divides rows, each at its own alignment and guarded by the row count
  // (a chunk may end past the operand's last row).
  int64_t width = 16;
  while (d.rows % width)
    width /= 2;
  Float8TileSource source;
  source.load = [&](Value batch, Value srcK, Value col,
                    Value in) -> SmallVector<Value> {
    auto offsetOf = [&](Value c) -> Value {
      Value dataBase = arith::MulIOp::create(kb, batch, kb.idx(d.rows * d.k));
      Value rowOff = arith::MulIOp::create(kb, srcK, kb.idx(d.rows));
      return arith::AddIOp::create(kb, dataBase,
                                   arith::AddIOp::create(kb, rowOff, c));
    };
    if (width == 16) {
      auto ld = scf::IfOp::create(kb, TypeRange{b16}, in, true);
      OpBuilder::InsertionGuard g(kb);
      kb.setInsertionPointToStart(ld.thenBlock());
      scf::YieldOp::create(
          kb, kb.bitcastTo(b16, kb.load(f8x16, data, offsetOf(col), 16)));
      kb.setInsertionPointToStart(ld.elseBlock());
      scf::YieldOp::create(kb, kb.splatBits(b16, 0));
      return {ld.getResult(0)};
    }
    // `in` holds for a chunk that starts inside the rows (and K); each
    // further piece also needs its own first row inside. The pieces are
    // concatenated in halves (vector.shuffle).
    auto piece = VectorType::get({width}, d.dataType);
    auto pieceBytes = VectorType::get({width}, kb.getI8Type());
    SmallVector<Value, 16> pieces;
    for (int64_t j = 0; j < 16; j += width) {
      Value at = col, inPiece = in;
      if (j) {
        at = arith::AddIOp::create(kb, col, kb.idx(j));
        Value inRows = arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, at,
                                             kb.idx(d.rows));
        inPiece = arith::AndIOp::create(kb, in, inRows);
      }
      auto ld = scf::IfOp::create(kb, TypeRange{pieceBytes}, inPiece, true);
      OpBuilder::InsertionGuard g(kb);
      kb.setInsertionPointToStart(ld.thenBlock());
      scf::YieldOp::create(
          kb,
          kb.bitcastTo(pieceBytes, kb.load(piece, data, offsetOf(at), width)));
      kb.setInsertionPointToStart(ld.elseBlock());
      scf::YieldOp::create(kb, kb.splatBits(pieceBytes, 0));
      pieces.push_back(ld.getResult(0));
    }
    while (pieces.size() > 1) {
      SmallVector<Value, 8> halves;
      for (size_t i = 0; i < pieces.size(); i += 2)
        halves.push_back(kb.concat(pieces[i], pieces[i + 1]));
      pieces = std::move(halves);
    }
    return {pieces.front()};
  };
  emitFloat8TransposeTiles(kb, d, offs, args.back(), tileBuf, source);
}

void gpu_lowering::launchFloat8Transpose(RewriterBase &rewriter, Location loc,
                                         const KernelCache &cache,
                                         const Float8TransposeSpec &d,
                                         Value data, Value offs, Value out) {
  assert(cast<MemRefType>(out.getType()).getNumElements() ==
             d.getBufferElements() &&
         "the transposed buffer holds batches x rows x getOutputK() bytes");
  SmallVector<Value> kargs = {data};
  if (d.groups)
    kargs.push_back(offs);
  int64_t numInputs = kargs.size();
  kargs.push_back(out);
  SmallVector<Type> types =
      llvm::map_to_vector(kargs, [](Value v) { return v.getType(); });
  auto wgSpace = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                            gpu::AddressSpace::Workgroup);
  Type tileType = MemRefType::get({kTile * kTile}, rewriter.getI8Type(),
                                  MemRefLayoutAttrInterface(), wgSpace);
  gpu::GPUFuncOp kernel =
      cache.getOrCreate(rewriter, d.getName(), types, numInputs, tileType,
                        [&](KernelBuilder &kb, ValueRange args, ValueRange wg) {
                          emitTransposeKernel(kb, d, args, wg[0]);
                        });
  // Up to the resident CTAs of the part (16 KiB of shared memory each);
  // the grid-stride loop covers the rest.
  const GPUTargetInfo &target = cache.getTarget();
  int64_t grid =
      std::clamp<int64_t>(d.numTiles(), 1, target.numSMs * target.ctasPerSM);
  launch(rewriter, loc, kernel, grid, kargs);
}
