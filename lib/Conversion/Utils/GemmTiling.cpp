//===- GemmTiling.cpp - target-independent GEMM tiling arithmetic -*- C++ -*-=//
//
// Implements GemmTiling.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/GemmTiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gemm;

std::pair<int64_t, int64_t> gemm::getGroupedTile(int64_t t, int64_t tilesM,
                                                 int64_t tilesN,
                                                 int64_t groupM) {
  int64_t perBand = groupM * tilesN;
  int64_t band = t / perBand;
  int64_t firstM = band * groupM;
  int64_t bandRows = std::min(tilesM - firstM, groupM);
  int64_t inBand = t % perBand;
  return {firstM + inBand % bandRows, inBand / bandRows};
}

std::pair<Value, Value> gemm::emitGroupedTile(ImplicitLocOpBuilder &b, Value t,
                                              int64_t tilesM, int64_t tilesN,
                                              int64_t groupM) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  Value perBand = c(groupM * tilesN);
  Value band = arith::DivUIOp::create(b, t, perBand);
  Value firstM = arith::MulIOp::create(b, band, c(groupM));
  Value bandRows = arith::MinUIOp::create(
      b, arith::SubIOp::create(b, c(tilesM), firstM), c(groupM));
  Value inBand = arith::RemUIOp::create(b, t, perBand);
  Value mTile = arith::AddIOp::create(
      b, firstM, arith::RemUIOp::create(b, inBand, bandRows));
  Value nTile = arith::DivUIOp::create(b, inBand, bandRows);
  return {mTile, nTile};
}

int64_t OperandLayout::getDataOffset(int64_t row, int64_t kk) const {
  return kMajor ? row * k + kk : kk * rows + row;
}

int64_t OperandLayout::getScaleOffset(int64_t row, int64_t kBlock) const {
  int64_t blocks = k / 32;
  if (blockedScales)
    return getBlockedOffset(row, kBlock, blocks);
  return kMajor ? row * blocks + kBlock : kBlock * rows + row;
}

int64_t OperandLayout::getScaleSize() const {
  int64_t blocks = k / 32;
  if (blockedScales)
    return llvm::divideCeil(rows, 128) * 128 * llvm::divideCeil(blocks, 4) * 4;
  return rows * blocks;
}

int64_t gemm::getBlockedOffset(int64_t row, int64_t col, int64_t numCols) {
  int64_t colTiles = llvm::divideCeil(numCols, 4);
  int64_t tile = (row / 128) * colTiles + col / 4;
  int64_t inTile = (row % 32) * 16 + (row % 128 / 32) * 4 + col % 4;
  return tile * 512 + inTile;
}

int64_t gemm::getSwizzle128Offset(int64_t row, int64_t byte) {
  int64_t chunk = (byte / 16) ^ (row % 8);
  return row * 128 + chunk * 16 + byte % 16;
}

uint64_t gemm::getWgmmaDescriptor(uint64_t address, uint64_t leadingByteOffset,
                                  uint64_t strideByteOffset, Swizzle swizzle) {
  uint64_t d = (address >> 4) & 0x3FFF;
  d |= ((leadingByteOffset >> 4) & 0x3FFF) << 16;
  d |= ((strideByteOffset >> 4) & 0x3FFF) << 32;
  d |= static_cast<uint64_t>(swizzle) << 62;
  return d;
}

Value gemm::emitWgmmaDescriptorLow(ImplicitLocOpBuilder &b, Value address,
                                   uint64_t bits) {
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, v, 32); };
  Value addr = arith::IndexCastUIOp::create(b, b.getI32Type(), address);
  Value field = arith::AndIOp::create(b, arith::ShRUIOp::create(b, addr, c(4)),
                                      c(0x3FFF));
  return arith::OrIOp::create(b, field, c(static_cast<uint32_t>(bits)));
}

Value gemm::emitWgmmaDescriptor(ImplicitLocOpBuilder &b, Value low,
                                int64_t step, uint64_t bits) {
  Type i64 = b.getI64Type();
  Value word = arith::ExtUIOp::create(
      b, i64,
      arith::AddIOp::create(b, low, arith::ConstantIntOp::create(b, step, 32)));
  return arith::OrIOp::create(
      b, word,
      arith::ConstantIntOp::create(
          b, i64, static_cast<int64_t>(bits & ~uint64_t(0xFFFFFFFF))));
}
