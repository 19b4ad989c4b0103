//===- DequantFusion.cpp - quantize kernels write bf16 operands -*- C++ -*-===//
//
// The fusion plan of DequantFusion.h: which quantize results write which
// pre-dequantized GEMM operand, and the buffers, tensor maps and flag words
// they share; and the stores of the bf16 form inside a quantize kernel.
//
//===----------------------------------------------------------------------===//

#include "DequantFusion.h"
#include "../GroupTable.h"
#include "GemmMainloop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

namespace {
/// The quantize result pair a GEMM operand's data and scales are.
struct QuantizeSource {
  Operation *op = nullptr;
  /// The data result (0, or 2 for the colwise cast of quantize_dual).
  unsigned dataResult = 0;
  /// 1x32 (blocks along the last dimension) or 32x1 (along rank-2).
  bool rowwise = true;
};
} // namespace

/// The quantize (or quantize_dual axis) whose results `data` and `scales`
/// are, when they are the data and scales of one cast along one of the last
/// two dimensions; std::nullopt otherwise.
static std::optional<QuantizeSource> getQuantizeSource(Value data,
                                                       Value scales) {
  auto dataResult = dyn_cast<OpResult>(data);
  auto scaleResult = dyn_cast<OpResult>(scales);
  if (!dataResult || !scaleResult ||
      dataResult.getOwner() != scaleResult.getOwner() ||
      scaleResult.getResultNumber() != dataResult.getResultNumber() + 1)
    return std::nullopt;
  Operation *op = dataResult.getOwner();
  unsigned index = dataResult.getResultNumber();
  if (!hasStaticShapes(op))
    return std::nullopt;
  if (auto q = dyn_cast<QuantizeOp>(op)) {
    if (q.isFloat8())
      return std::nullopt;
    int64_t rank = q.getInput().getType().getRank();
    auto axis = static_cast<int64_t>(q.getAxis());
    if (axis == rank - 1)
      return QuantizeSource{op, index, true};
    if (rank >= 2 && axis == rank - 2)
      return QuantizeSource{op, index, false};
    return std::nullopt;
  }
  if (isa<QuantizeDualOp>(op))
    return QuantizeSource{op, index, index == 0};
  return std::nullopt;
}

/// Whether the quantize cast `src` writes the data of operand form `form`:
/// a K-major operand is a 1x32 cast of (batches x rows, K), an MN-major one
/// a 32x1 cast of (batches, K, rows); the padded K is K (nothing along K
/// to zero), or, 2d-2d, K holds token groups and the cast is one
/// quantize of (K, rows).
static bool castMatchesForm(const QuantizeSource &src,
                            const PreDequantOperand &form) {
  const DequantSpec &d = form.d;
  if (!d.scaled() || d.rowsPad < d.l.rows || src.rowwise != d.l.kMajor)
    return false;
  if (d.groups ? src.rowwise || d.batches != 1 || !isa<QuantizeOp>(src.op)
               : d.kPad != d.l.k)
    return false;
  auto type = cast<RankedTensorType>(src.op->getOperand(0).getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  if (src.rowwise) {
    int64_t rows = 1;
    for (int64_t dim : shape.drop_back())
      rows *= dim;
    return shape.back() == d.l.k && rows == d.batches * d.l.rows;
  }
  int64_t outer = 1;
  for (int64_t dim : shape.drop_back(2))
    outer *= dim;
  return outer == d.batches && shape[rank - 2] == d.l.k &&
         shape[rank - 1] == d.l.rows;
}

/// The data and scales of operand `i` (0: A, 1: B) of a GEMM op.
static std::pair<Value, Value> getOperandValues(Operation *op, unsigned i) {
  if (auto mm = dyn_cast<ScaledMmOp>(op))
    return i == 0 ? std::make_pair(mm.getLhs(), mm.getLhsScales())
                  : std::make_pair(mm.getRhs(), mm.getRhsScales());
  auto gmm = cast<ScaledGroupedMmOp>(op);
  return i == 0 ? std::make_pair(gmm.getLhs(), gmm.getLhsScales())
                : std::make_pair(gmm.getRhs(), gmm.getRhsScales());
}

/// Whether every use of the fp8 data `fused` holds (`quantize`'s result
/// `dataResult`) is a GEMM operand that reads `fused`: then only the
/// GEMMs' fallback kernels read the fp8 bytes.
static bool onlyFusedGemmsRead(const DequantFusion &fusion,
                               const FusedDequantOperand *fused,
                               Operation *quantize, unsigned dataResult) {
  for (OpOperand &use : quantize->getResult(dataResult).getUses()) {
    Operation *gemm = use.getOwner();
    std::optional<unsigned> operand;
    if (auto mm = dyn_cast<ScaledMmOp>(gemm)) {
      if (&use == &mm.getLhsMutable())
        operand = 0;
      else if (&use == &mm.getRhsMutable())
        operand = 1;
    } else if (auto gmm = dyn_cast<ScaledGroupedMmOp>(gemm)) {
      if (&use == &gmm.getLhsMutable())
        operand = 0;
      else if (&use == &gmm.getRhsMutable())
        operand = 1;
    }
    if (!operand || fusion.getGemmOperand(gemm, *operand) != fused)
      return false;
  }
  return true;
}

std::shared_ptr<DequantFusion> DequantFusion::plan(ModuleOp module,
                                                   const GPUTargetInfo &target,
                                                   bool deferFp8) {
  auto fusion = std::make_shared<DequantFusion>();
  SmallVector<Operation *> gemms;
  // Float8 GEMMs read fp8 in place (WGMMAFloat8): nothing to dequantize.
  module.walk([&](Operation *op) {
    if (auto mm = dyn_cast<ScaledMmOp>(op); mm && !mm.isFloat8())
      gemms.push_back(op);
    if (auto gmm = dyn_cast<ScaledGroupedMmOp>(op); gmm && !gmm.isFloat8())
      gemms.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  DominanceInfo dominance(module);
  for (Operation *gemm : gemms) {
    // A GEMM without users is erased, not lowered.
    if (gemm->use_empty())
      continue;
    std::optional<std::array<PreDequantOperand, 2>> forms =
        getPreDequantOperands(gemm, target);
    if (!forms)
      continue;
    for (unsigned i = 0; i < 2; ++i) {
      const PreDequantOperand &form = (*forms)[i];
      auto [data, scales] = getOperandValues(gemm, i);
      std::optional<QuantizeSource> src = getQuantizeSource(data, scales);
      // Same block: the buffers at its start and the flag word zeroed
      // before the quantize are in place for the GEMM, on one stream.
      if (!src || src->op->getBlock() != gemm->getBlock() ||
          !castMatchesForm(*src, form))
        continue;
      // 2d-2d: the quantize lays the groups out from the GEMM's offsets.
      Value offs;
      if (form.d.groups)
        offs = cast<ScaledGroupedMmOp>(gemm).getOffs();
      auto key = std::make_pair(src->op, src->dataResult);
      if (FusedDequantOperand *existing = fusion->byQuantize.lookup(key)) {
        // One form per quantize result; the GEMMs that read exactly that
        // form (and, 2d-2d, the same token groups) share it.
        if (existing->form.d.getName() == form.d.getName() &&
            existing->form.boxRows == form.boxRows &&
            (!offs ||
             haveSameOffsets(
                 existing->offs.getDefiningOp<bufferization::ToBufferOp>()
                     .getTensor(),
                 offs)))
          fusion->byGemm[{gemm, i}] = existing;
        continue;
      }
      // The offsets the quantize takes must exist before it.
      if (offs && !dominance.properlyDominates(offs, src->op))
        continue;
      auto fused = std::make_unique<FusedDequantOperand>();
      fused->form = form;
      Location loc = src->op->getLoc();
      rewriter.setInsertionPoint(src->op);
      const DequantSpec &d = form.d;
      PaddedOperand padded = createPaddedOperands(
          rewriter, loc, {{d.batches * d.rowsPad, d.kPad, form.boxRows}})[0];
      fused->buffer = padded.buffer;
      fused->map = padded.map;
      rewriter.setInsertionPoint(src->op);
      fused->flag = allocZeroedWords(rewriter, loc, {1});
      if (offs) {
        rewriter.setInsertionPoint(src->op);
        fused->offs = toBuffer(rewriter, loc, offs);
      }
      fusion->byQuantize[key] = fused.get();
      fusion->byGemm[{gemm, i}] = fused.get();
      fusion->operands.push_back(std::move(fused));
    }
  }
  if (deferFp8)
    for (auto [key, fused] : fusion->byQuantize)
      fused->fp8Deferred =
          onlyFusedGemmsRead(*fusion, fused, key.first, key.second);
  return fusion;
}

const FusedDequantOperand *
DequantFusion::getQuantizeOutput(Operation *quantize,
                                 unsigned dataResult) const {
  return byQuantize.lookup({quantize, dataResult});
}

const FusedDequantOperand *
DequantFusion::getGemmOperand(Operation *gemm, unsigned operand) const {
  return byGemm.lookup({gemm, operand});
}

//===----------------------------------------------------------------------===//
// Inside the quantize kernels
//===----------------------------------------------------------------------===//

void BF16OperandWriter::storeRow(KernelBuilder &kb, Value q, Value s, Value row,
                                 Value col) const {
  auto type = cast<VectorType>(q.getType());
  Value bytes =
      kb.bitcastTo(VectorType::get(type.getShape(), kb.getI8Type()), q);
  Value bf = emitExactBF16(kb, d->dataType, bytes, s, flag);
  // Row `row` of the view is row row % rows of batch row / rows.
  Value r = row;
  if (d->rowsPad != d->l.rows)
    r = arith::AddIOp::create(
        kb,
        arith::MulIOp::create(
            kb, arith::DivUIOp::create(kb, row, kb.idx(d->l.rows)),
            kb.idx(d->rowsPad)),
        arith::RemUIOp::create(kb, row, kb.idx(d->l.rows)));
  Value off = arith::AddIOp::create(
      kb, arith::MulIOp::create(kb, r, kb.idx(d->kPad)), col);
  kb.store(bf, buffer, off, std::min<int64_t>(16, 2 * type.getNumElements()));
}

Value BF16OperandWriter::mustStoreFp8(KernelBuilder &kb, ArrayRef<Value> bytes,
                                      Value whole) const {
  if (!fp8Deferred)
    return Value();
  Value must = arith::ConstantIntOp::create(kb, 0, 1);
  for (Value s : bytes)
    must = arith::OrIOp::create(kb, must,
                                emitOutsideExactRange(kb, d->dataType, s));
  if (whole)
    must = arith::OrIOp::create(
        kb, must,
        arith::XOrIOp::create(kb, whole,
                              arith::ConstantIntOp::create(kb, 1, 1)));
  return must;
}

BF16OperandWriter::ColumnK BF16OperandWriter::mapColumnK(KernelBuilder &kb,
                                                         Value k0) const {
  if (!d->groups)
    return {k0, Value(), Value()};
  auto c = [&](int64_t v) { return kb.idx(v); };
  Value no = arith::ConstantIntOp::create(kb, 0, 1);
  // `whole` only where the fp8 stores need it.
  SmallVector<Value> init = {c(0), c(0), k0, no};
  if (fp8Deferred)
    init.push_back(no);
  auto walk = scf::ForOp::create(kb, c(0), c(d->groups), c(1), init);
  {
    OpBuilder::InsertionGuard g(kb);
    kb.setInsertionPointToStart(walk.getBody());
    ValueRange it = walk.getRegionIterArgs();
    Value start = it[0], padStart = it[1];
    TokenGroup group = emitTokenGroup(kb, offs, walk.getInductionVar(), start,
                                      padStart, d->l.k, flag);
    Value fromStart =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ule, start, k0);
    Value beforeEnd =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, k0, group.end);
    Value aligned =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(kb, start, c(32)), c(0));
    Value hit = arith::AndIOp::create(
        kb, arith::AndIOp::create(kb, fromStart, beforeEnd), aligned);
    Value shifted = arith::AddIOp::create(kb, padStart,
                                          arith::SubIOp::create(kb, k0, start));
    Value pk = arith::SelectOp::create(kb, hit, shifted, it[2]);
    Value held = arith::OrIOp::create(kb, it[3], hit);
    SmallVector<Value> next = {group.end, group.nextPad, pk, held};
    if (fp8Deferred) {
      Value endsInside = arith::CmpIOp::create(
          kb, arith::CmpIPredicate::ule, arith::AddIOp::create(kb, k0, c(32)),
          group.end);
      next.push_back(arith::OrIOp::create(
          kb, it[4], arith::AndIOp::create(kb, hit, endsInside)));
    }
    scf::YieldOp::create(kb, next);
  }
  return {walk.getResult(2), walk.getResult(3),
          fp8Deferred ? walk.getResult(4) : Value()};
}

void BF16OperandWriter::storeColumn(KernelBuilder &kb, Value bytes, Value s,
                                    Value o, Value c, Value pk) const {
  int64_t n = cast<VectorType>(bytes.getType()).getNumElements();
  Value bf = emitExactBF16(kb, d->dataType, bytes, s, flag);
  Value r = arith::AddIOp::create(
      kb, arith::MulIOp::create(kb, o, kb.idx(d->rowsPad)), c);
  Value off = arith::AddIOp::create(
      kb, arith::MulIOp::create(kb, r, kb.idx(d->kPad)), pk);
  kb.store(bf, buffer, off, std::min<int64_t>(16, 2 * n));
}

void BF16OperandWriter::zeroPadding(KernelBuilder &kb) const {
  auto zeros = VectorType::get({8}, kb.getBF16Type());
  if (d->groups) {
    // Item (row, group g): zeros at padded K [P_g + len_g, P_{g+1}), 8 at a
    // time (len_g a multiple of 8; a group off the 32-element blocks has
    // raised the flag and the GEMM does not read this form).
    auto c = [&](int64_t v) { return kb.idx(v); };
    kb.gridStrideLoop(c(d->batches * d->rowsPad * d->groups), [&](Value i) {
      Value row = arith::DivUIOp::create(kb, i, c(d->groups));
      Value g = arith::RemUIOp::create(kb, i, c(d->groups));
      // The walk up to group g: its start, padded start and length.
      Value gEnd = arith::AddIOp::create(kb, g, c(1));
      auto walk = scf::ForOp::create(kb, c(0), gEnd, c(1),
                                     ValueRange{c(0), c(0), c(0)});
      {
        OpBuilder::InsertionGuard guard(kb);
        kb.setInsertionPointToStart(walk.getBody());
        ValueRange it = walk.getRegionIterArgs();
        TokenGroup group = emitTokenGroup(kb, offs, walk.getInductionVar(),
                                          it[0], it[1], d->l.k, Value());
        Value tailStart = arith::AddIOp::create(kb, it[1], group.len);
        scf::YieldOp::create(kb,
                             ValueRange{group.end, group.nextPad, tailStart});
      }
      Value tailEnd = walk.getResult(1), tailStart = walk.getResult(2);
      Value whole = arith::CmpIOp::create(
          kb, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(kb, tailStart, c(8)), c(0));
      Value rowBase = arith::MulIOp::create(kb, row, c(d->kPad));
      kb.ifThen(whole, [&] {
        kb.forLoop(tailStart, tailEnd, c(8), [&](Value pk) {
          Value off = arith::AddIOp::create(kb, rowBase, pk);
          kb.store(kb.splatBits(zeros, 0), buffer, off, 16);
        });
      });
    });
  }
  int64_t padRows = d->rowsPad - d->l.rows;
  if (padRows == 0)
    return;
  // 8 bf16 (16 bytes) per item; kPad is a multiple of 64.
  int64_t perBatch = padRows * d->kPad / 8;
  kb.gridStrideLoop(kb.idx(d->batches * perBatch), [&](Value i) {
    Value b = arith::DivUIOp::create(kb, i, kb.idx(perBatch));
    Value rest = arith::RemUIOp::create(kb, i, kb.idx(perBatch));
    Value base = arith::MulIOp::create(
        kb,
        arith::AddIOp::create(kb,
                              arith::MulIOp::create(kb, b, kb.idx(d->rowsPad)),
                              kb.idx(d->l.rows)),
        kb.idx(d->kPad));
    Value off = arith::AddIOp::create(
        kb, base, arith::MulIOp::create(kb, rest, kb.idx(8)));
    kb.store(kb.splatBits(zeros, 0), buffer, off, 16);
  });
}

std::string BF16OperandWriter::getNameTag(const FusedDequantOperand *form,
                                          StringRef prefix) {
  if (!form)
    return "";
  const DequantSpec &d = form->form.d;
  std::string groups = d.groups ? llvm::formatv("g{0}", d.groups).str() : "";
  return llvm::formatv("_{0}b{1}r{2}{3}{4}", prefix, d.batches, d.rowsPad,
                       groups, form->fp8Deferred ? "_f8lazy" : "")
      .str();
}
