//===- GroupTable.cpp - token-group tables of the kernels -------*- C++ -*-===//
//
// Implements GroupTable.h.
//
//===----------------------------------------------------------------------===//

#include "GroupTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

GroupBounds gpu_lowering::emitGroupBounds(KernelBuilder &kb,
                                          const GroupTableSpec &spec, Value raw,
                                          Value start, Value padStart) {
  Value end = arith::MinSIOp::create(kb, arith::MaxSIOp::create(kb, raw, start),
                                     kb.i32(spec.tokens));
  // Both are in [0, tokens]: unsigned division is exact.
  Value first = start, last = end;
  if (spec.unit != 1) {
    first = arith::DivUIOp::create(kb, start, kb.i32(spec.unit));
    last = arith::DivUIOp::create(kb, end, kb.i32(spec.unit));
  }
  Value n = arith::SubIOp::create(kb, last, first);
  Value rounded = arith::MulIOp::create(
      kb,
      arith::DivUIOp::create(
          kb, arith::AddIOp::create(kb, n, kb.i32(spec.alignment - 1)),
          kb.i32(spec.alignment)),
      kb.i32(spec.alignment));
  return {end, first, last, arith::AddIOp::create(kb, padStart, rounded)};
}

void gpu_lowering::buildGroupTable(KernelBuilder &kb,
                                   const GroupTableSpec &spec, Value offs,
                                   Value table, Value paddedOffs) {
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
          auto [end, first, last, padEnd] =
              emitGroupBounds(b, spec, raw, start, padStart);
          Value fields[kRows] = {first, last, padStart, padEnd};
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

MemRefType gpu_lowering::getGroupTableType(MLIRContext *ctx, int64_t groups) {
  return MemRefType::get(
      {kRows, groups}, IntegerType::get(ctx, 32), AffineMap(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

Value gpu_lowering::findGroup(KernelBuilder &kb, Value table,
                              GroupTableRow field, Value key, int64_t groups) {
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

bool gpu_lowering::haveSameOffsets(Value a, Value b) {
  if (a == b)
    return true;
  auto padA = a.getDefiningOp<PadTokenGroupsOp>();
  auto padB = b.getDefiningOp<PadTokenGroupsOp>();
  return padA && padB && a == padA.getPaddedOffs() &&
         b == padB.getPaddedOffs() &&
         padA.getAlignment() == padB.getAlignment() &&
         padA.getInput().getType().getDimSize(0) ==
             padB.getInput().getType().getDimSize(0) &&
         haveSameOffsets(padA.getOffs(), padB.getOffs());
}
