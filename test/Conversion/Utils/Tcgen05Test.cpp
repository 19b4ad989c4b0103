//===- Tcgen05Test.cpp - golden values of Tcgen05.h -------------*- C++ -*-===//
//
// The sm_100a encodings against values worked out by hand from the PTX ISA
// bit tables (instruction descriptor of kind::mxf8f6f4, Table 43; shared
// memory descriptor, Table 40; Tensor Memory addresses) and from SPEC §4.1
// (blocked scale chunks), and the IR emitters folded on constants against
// the integer functions. Each expected value is written as the sum of its
// fields, not taken from the encoder. The first three instruction
// descriptors are also the values KERNELS.md §6.6 measured from CUTLASS's
// make_instr_desc_block_scaled (whose M field, M >> 4 at bit 24, has the
// same bits as the ISA's M >> 7 at bit 27 for M = 128 and 256). The
// kind::f8f6f4 descriptor (no block scaling) is checked likewise against
// the ISA's table for kind::f16 / tf32 / f8f6f4 / i8.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/Tcgen05.h"
#include "mxfp8train/Conversion/Utils/GemmTiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::tcgen05;

namespace {

BlockScaledMma mma(int64_t m, int64_t n) {
  BlockScaledMma d;
  d.m = m;
  d.n = n;
  return d;
}

TEST(Tcgen05InstrDesc, DenseE4M3Shapes) {
  // N >> 3 = 32 at bit 17, UE8M0 at bit 23, M >> 7 = 1 at bit 27.
  EXPECT_EQ(getBlockScaledInstrDesc(mma(128, 256)),
            (32u << 17) | (1u << 23) | (1u << 27));
  EXPECT_EQ(getBlockScaledInstrDesc(mma(128, 256)), 0x08C00000u);
  EXPECT_EQ(getBlockScaledInstrDesc(mma(256, 256)), 0x10C00000u);
  EXPECT_EQ(getBlockScaledInstrDesc(mma(128, 128)), 0x08A00000u);
  EXPECT_EQ(getBlockScaledInstrDesc(mma(128, 8)), 0x08820000u);
  EXPECT_EQ(getBlockScaledInstrDesc(mma(256, 16)), 0x10840000u);
}

TEST(Tcgen05InstrDesc, ScaleFactorIds) {
  BlockScaledMma d = mma(128, 256);
  d.sfaId = 3;
  d.sfbId = 3;
  // SFA ID at bits 29-30, SFB ID at bits 4-5.
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x68C00030u);
  d.sfaId = 1;
  d.sfbId = 2;
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x08C00000u | (1u << 29) | (2u << 4));
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x28C00020u);
  // One 128-K stage: the four MMAs k = 0..3 select byte k of both words.
  for (uint32_t k = 0; k < 4; ++k) {
    d.sfaId = d.sfbId = k;
    EXPECT_EQ(getBlockScaledInstrDesc(d), 0x08C00000u | k << 29 | k << 4);
  }
}

TEST(Tcgen05InstrDesc, FormatsMajorsNegation) {
  BlockScaledMma d = mma(128, 256);
  d.a = ElementFormat::E5M2; // code 1 at bits 7-9
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x08C00080u);
  d.b = ElementFormat::E5M2; // code 1 at bits 10-12
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x08C00480u);
  d.a = ElementFormat::E4M3;
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x08C00400u);
  d = mma(128, 256);
  d.a = ElementFormat::E2M1; // code 5
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x08C00000u | (5u << 7));
  d = mma(128, 256);
  d.aMajor = Major::MN; // bit 15
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x08C08000u);
  d.bMajor = Major::MN; // bit 16
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x08C18000u);
  d = mma(128, 256);
  d.negateA = true; // bit 13
  d.negateB = true; // bit 14
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x08C06000u);
  d = mma(128, 256);
  d.scale = ScaleFormat::UE4M3; // bit 23 clear
  EXPECT_EQ(getBlockScaledInstrDesc(d), 0x08400000u);
}

TEST(Tcgen05InstrDesc, ValidShapes) {
  auto shape = [](int64_t m, int64_t n, int64_t ctaGroup,
                  Major bMajor = Major::K,
                  ElementFormat b = ElementFormat::E4M3) {
    BlockScaledMma d = mma(m, n);
    d.bMajor = bMajor;
    d.b = b;
    return isValidMmaShape(d, ctaGroup) && isValidBlockScaledMma(d, ctaGroup);
  };
  EXPECT_TRUE(shape(128, 256, 1));
  EXPECT_TRUE(shape(128, 8, 1));
  EXPECT_FALSE(shape(128, 260, 1));
  EXPECT_FALSE(shape(128, 12, 1));
  EXPECT_FALSE(shape(64, 256, 1));
  EXPECT_FALSE(shape(256, 256, 1));
  EXPECT_TRUE(shape(256, 256, 2));
  EXPECT_TRUE(shape(256, 16, 2));
  EXPECT_FALSE(shape(256, 24, 2));
  EXPECT_FALSE(shape(128, 256, 2));
  EXPECT_FALSE(shape(128, 256, 4));
  // An MN-major ("transposed") 8-bit B: N in steps of 16 (one CTA) or 32
  // (a pair), from the PTX ISA's table of N for 8-bit transposed B.
  EXPECT_TRUE(shape(128, 16, 1, Major::MN));
  EXPECT_FALSE(shape(128, 8, 1, Major::MN));
  EXPECT_FALSE(shape(128, 24, 1, Major::MN, ElementFormat::E5M2));
  EXPECT_TRUE(shape(128, 256, 1, Major::MN, ElementFormat::E5M2));
  EXPECT_TRUE(shape(256, 32, 2, Major::MN));
  EXPECT_FALSE(shape(256, 16, 2, Major::MN));
  EXPECT_FALSE(shape(256, 48, 2, Major::MN));
  EXPECT_TRUE(shape(256, 256, 2, Major::MN));
  // MN-major is for the 8-bit formats only; MX scales are UE8M0.
  EXPECT_FALSE(shape(128, 256, 1, Major::MN, ElementFormat::E2M1));
  EXPECT_TRUE(shape(128, 8, 1, Major::K, ElementFormat::E2M1));
  BlockScaledMma ue4m3 = mma(128, 256);
  ue4m3.scale = ScaleFormat::UE4M3;
  EXPECT_TRUE(isValidMmaShape(ue4m3, 1));
  EXPECT_FALSE(isValidBlockScaledMma(ue4m3, 1));
}

F8F6F4Mma f8Mma(int64_t m, int64_t n) {
  F8F6F4Mma d;
  d.m = m;
  d.n = n;
  return d;
}

// kind::f8f6f4 (no block scaling; the Float8 GEMM): D format F32 = 1 at
// bits 4-5, N >> 3 at bit 17, M >> 4 at bit 24 (not M >> 7 at bit 27),
// nothing at bit 23 (no scale type) nor at 29-30 (no SFA ID).
TEST(Tcgen05F8F6F4InstrDesc, Shapes) {
  // e4m3 x e4m3, K-major, 128 x 256: 1 << 4 | 32 << 17 | 8 << 24.
  EXPECT_EQ(getF8F6F4InstrDesc(f8Mma(128, 256)),
            (1u << 4) | (32u << 17) | (8u << 24));
  EXPECT_EQ(getF8F6F4InstrDesc(f8Mma(128, 256)), 0x08400010u);
  EXPECT_EQ(getF8F6F4InstrDesc(f8Mma(128, 256)), 138412048u);
  // The pair (cta_group::2): M = 256, M >> 4 = 16.
  EXPECT_EQ(getF8F6F4InstrDesc(f8Mma(256, 256)), 0x10400010u);
  EXPECT_EQ(getF8F6F4InstrDesc(f8Mma(128, 128)), 0x08200010u);
  EXPECT_EQ(getF8F6F4InstrDesc(f8Mma(128, 8)), 0x08020010u);
  EXPECT_EQ(getF8F6F4InstrDesc(f8Mma(256, 16)), 0x10040010u);
}

TEST(Tcgen05F8F6F4InstrDesc, FormatsMajorsNegation) {
  F8F6F4Mma d = f8Mma(128, 256);
  // The tensorwise recipe's grad_input: e5m2 grad_output (A, code 1 at
  // bits 7-9) x e4m3 weight.
  d.a = ElementFormat::E5M2;
  EXPECT_EQ(getF8F6F4InstrDesc(d), 0x08400090u);
  d.b = ElementFormat::E5M2; // code 1 at bits 10-12
  EXPECT_EQ(getF8F6F4InstrDesc(d), 0x08400490u);
  d = f8Mma(128, 256);
  d.aMajor = Major::MN; // bit 15: A stored (K, M), the wgrad lhs
  EXPECT_EQ(getF8F6F4InstrDesc(d), 0x08408010u);
  d.bMajor = Major::MN; // bit 16: B stored (K, N), the dgrad rhs
  EXPECT_EQ(getF8F6F4InstrDesc(d), 0x08418010u);
  d = f8Mma(128, 256);
  d.negateA = d.negateB = true; // bits 13, 14
  EXPECT_EQ(getF8F6F4InstrDesc(d), 0x08406010u);
  // The same fields as the block-scaled descriptor, the scale bits aside.
  BlockScaledMma s = mma(128, 256);
  s.a = ElementFormat::E5M2;
  s.aMajor = s.bMajor = Major::MN;
  d = f8Mma(128, 256);
  d.a = ElementFormat::E5M2;
  d.aMajor = d.bMajor = Major::MN;
  EXPECT_EQ(getF8F6F4InstrDesc(d) & 0x007FFFC0u,
            getBlockScaledInstrDesc(s) & 0x007FFFC0u);
}

TEST(Tcgen05F8F6F4InstrDesc, Validity) {
  F8F6F4Mma d = f8Mma(128, 256);
  EXPECT_TRUE(isValidF8F6F4Mma(d, 1));
  EXPECT_FALSE(isValidF8F6F4Mma(d, 2));
  d.aMajor = d.bMajor = Major::MN;
  d.a = ElementFormat::E5M2;
  EXPECT_TRUE(isValidF8F6F4Mma(d, 1));
  // MN-major is for the 8-bit formats only.
  d.a = ElementFormat::E2M1;
  EXPECT_FALSE(isValidF8F6F4Mma(d, 1));
  d.aMajor = Major::K;
  EXPECT_TRUE(isValidF8F6F4Mma(d, 1));
  d.b = ElementFormat::E3M2;
  EXPECT_FALSE(isValidF8F6F4Mma(d, 1));
  EXPECT_FALSE(isValidF8F6F4Mma(f8Mma(128, 12), 1));
  EXPECT_TRUE(isValidF8F6F4Mma(f8Mma(256, 256), 2));
  // N = 8 is legal for a K-major B only.
  d = f8Mma(128, 8);
  EXPECT_TRUE(isValidF8F6F4Mma(d, 1));
  d.bMajor = Major::MN;
  EXPECT_FALSE(isValidF8F6F4Mma(d, 1));
}

TEST(Tcgen05InstrDesc, ElementFormatsOfTypes) {
  MLIRContext ctx;
  Builder b(&ctx);
  EXPECT_EQ(getElementFormat(b.getType<Float8E4M3FNType>()),
            ElementFormat::E4M3);
  EXPECT_EQ(getElementFormat(b.getType<Float8E5M2Type>()), ElementFormat::E5M2);
  EXPECT_EQ(getElementFormat(b.getType<Float4E2M1FNType>()),
            ElementFormat::E2M1);
  EXPECT_EQ(getElementFormat(b.getBF16Type()), std::nullopt);
  EXPECT_EQ(getElementFormat(b.getType<Float8E8M0FNUType>()), std::nullopt);
}

TEST(Tcgen05SmemDescriptor, KMajorSwizzle128Fp8Tile) {
  // Address 0x400 -> field 0x40; LBO 16 -> field 1 at bit 16; SBO 1024 ->
  // field 64 at bit 32; version 0b001 at bit 46; 128B swizzle = 2 at 61.
  uint64_t expected =
      0x40ull | (1ull << 16) | (64ull << 32) | (1ull << 46) | (2ull << 61);
  EXPECT_EQ(expected, 0x4000404000010040ull);
  EXPECT_EQ(getKMajorSwizzle128Descriptor(0x400), expected);
  EXPECT_EQ(getKMajorSwizzle128Descriptor(0), 0x4000404000010000ull);
  // Not the wgmma encoding (swizzle 1 at bits 62-63, no version bit).
  EXPECT_NE(getKMajorSwizzle128Descriptor(0x400),
            gemm::getWgmmaDescriptor(0x400, 16, 1024, gemm::Swizzle::B128));
  // One K step of an fp8 MMA (32 bytes) adds 2 to the address field.
  EXPECT_EQ(getKMajorSwizzle128Descriptor(0x420) -
                getKMajorSwizzle128Descriptor(0x400),
            2ull);
}

TEST(Tcgen05SmemDescriptor, MNMajorSwizzle128Fp8Tile) {
  // Address 0x400 -> 0x40; LBO 16384 (128 K rows x 128 bytes: the next
  // 128-column box) -> field 1024 at bit 16; SBO 1024 (8 K rows) -> 64 at
  // bit 32; version at bit 46; 128B swizzle = 2 at 61.
  uint64_t expected =
      0x40ull | (1024ull << 16) | (64ull << 32) | (1ull << 46) | (2ull << 61);
  EXPECT_EQ(expected, 0x4000404004000040ull);
  EXPECT_EQ(getMNMajorSwizzle128Descriptor(0x400, 16384), expected);
  // Only the LBO differs from the K-major descriptor.
  EXPECT_EQ(getMNMajorSwizzle128Descriptor(0x400, 16),
            getKMajorSwizzle128Descriptor(0x400));
  // One K step of an fp8 MMA (32 rows of 128 bytes) adds 256 to the
  // address field.
  EXPECT_EQ(getMNMajorSwizzle128Descriptor(0x1400, 16384) -
                getMNMajorSwizzle128Descriptor(0x400, 16384),
            256ull);
}

TEST(Tcgen05SmemDescriptor, ScaleChunkSource) {
  // 0x31000 -> 0x3100; SBO 128 -> 8 at bit 32; version; no swizzle.
  EXPECT_EQ(getScaleChunkDescriptor(0x31000),
            0x3100ull | (8ull << 32) | (1ull << 46));
  EXPECT_EQ(getScaleChunkDescriptor(0x31000), 0x0000400800003100ull);
}

TEST(Tcgen05SmemDescriptor, Fields) {
  SmemDescriptor d;
  // (x & 0x3FFFF) >> 4: address bits above 17 are dropped.
  d.address = 0x40010;
  EXPECT_EQ(getSmemDescriptor(d), 1ull | (1ull << 46));
  d = SmemDescriptor();
  d.swizzle = SmemSwizzle::B64;
  EXPECT_EQ(getSmemDescriptor(d), (1ull << 46) | (4ull << 61));
  d.swizzle = SmemSwizzle::B32;
  EXPECT_EQ(getSmemDescriptor(d), (1ull << 46) | (6ull << 61));
  d.swizzle = SmemSwizzle::B128Atom32;
  EXPECT_EQ(getSmemDescriptor(d), (1ull << 46) | (1ull << 61));
  d = SmemDescriptor();
  d.baseOffset = 3;
  d.leadingAbsolute = true;
  EXPECT_EQ(getSmemDescriptor(d), (1ull << 46) | (3ull << 49) | (1ull << 52));
  d = SmemDescriptor();
  d.leadingByteOffset = 0x800;
  d.strideByteOffset = 0x3FFF0;
  EXPECT_EQ(getSmemDescriptor(d),
            (0x80ull << 16) | (0x3FFFull << 32) | (1ull << 46));
}

TEST(Tcgen05Tmem, AddressesAndAllocation) {
  EXPECT_EQ(getTmemAddress(0, 0), 0u);
  EXPECT_EQ(getTmemAddress(32, 256), 0x00200100u);
  EXPECT_EQ(getTmemAddress(96, 511), 0x006001FFu);
  EXPECT_EQ(getTmemAllocColumns(1), 32);
  EXPECT_EQ(getTmemAllocColumns(32), 32);
  EXPECT_EQ(getTmemAllocColumns(33), 64);
  EXPECT_EQ(getTmemAllocColumns(256), 256);
  EXPECT_EQ(getTmemAllocColumns(268), 512);
  EXPECT_EQ(getTmemAllocColumns(512), 512);
  EXPECT_EQ(getTmemAllocColumns(513), 0);
}

TEST(Tcgen05Tmem, BlockScaledLayout) {
  // 128 x 256 accumulator in columns 0-255; per stage 4 SFA + 8 SFB columns.
  TmemLayout l = getTmemLayout(256, 1, 4);
  EXPECT_EQ(l.getAccColumn(0), 0);
  EXPECT_EQ(l.sfaColumns, 4);
  EXPECT_EQ(l.sfbColumns, 8);
  EXPECT_EQ(l.getSfaColumn(0), 256);
  EXPECT_EQ(l.getSfbColumn(0), 260);
  EXPECT_EQ(l.getSfaColumn(1), 268);
  EXPECT_EQ(l.getSfbColumn(3), 256 + 3 * 12 + 4);
  EXPECT_EQ(l.getUsedColumns(), 304);
  EXPECT_EQ(l.getAllocColumns(), 512);
  // N = 128 with two accumulators: 256 + 4 * (4 + 4) = 288 columns.
  TmemLayout s = getTmemLayout(128, 2, 4);
  EXPECT_EQ(s.sfbColumns, 4);
  EXPECT_EQ(s.getAccColumn(1), 128);
  EXPECT_EQ(s.getSfaColumn(0), 256);
  EXPECT_EQ(s.getUsedColumns(), 288);
  // N = 192 rounds B's scales up to two 128-column chunks.
  EXPECT_EQ(getTmemLayout(192, 1, 1).sfbColumns, 8);
}

TEST(Tcgen05Scales, ChunkOffsets) {
  // K = 512: 16 K blocks, 4 chunks per 128-row block of 512 bytes each.
  EXPECT_EQ(getScaleChunkOffset(0, 0, 16), 0);
  EXPECT_EQ(getScaleChunkOffset(0, 1, 16), 512);
  EXPECT_EQ(getScaleChunkOffset(1, 0, 16), 4 * 512);
  EXPECT_EQ(getScaleChunkOffset(1, 2, 16), 6 * 512);
  // K = 96: 3 K blocks pad to one chunk column.
  EXPECT_EQ(getScaleChunkOffset(2, 0, 3), 2 * 512);
  // Every scale of a (256, 7) matrix is its chunk's offset plus its offset
  // inside a one-chunk (128, 4) matrix.
  for (int64_t r = 0; r < 256; ++r)
    for (int64_t kb = 0; kb < 7; ++kb)
      EXPECT_EQ(gemm::getBlockedOffset(r, kb, 7),
                getScaleChunkOffset(r / 128, kb / 4, 7) +
                    gemm::getBlockedOffset(r % 128, kb % 4, 4));
}

TEST(Tcgen05Scales, CopyAndTmemPlacement) {
  // 32x128b: 16-byte source row r -> lane r, columns 0-3.
  EXPECT_EQ(getCopy32x128bDestination(0), (TmemByte{0, 0, 0}));
  EXPECT_EQ(getCopy32x128bDestination(17), (TmemByte{1, 0, 1}));
  EXPECT_EQ(getCopy32x128bDestination(20), (TmemByte{1, 1, 0}));
  EXPECT_EQ(getCopy32x128bDestination(511), (TmemByte{31, 3, 3}));
  // Row r of the tile: lane r % 32, column r / 32 (4 per 128-row chunk),
  // byte = K block = SF ID of the MMA that reads it.
  EXPECT_EQ(getScaleTmemByte(0, 0), (TmemByte{0, 0, 0}));
  EXPECT_EQ(getScaleTmemByte(33, 2), (TmemByte{1, 1, 2}));
  EXPECT_EQ(getScaleTmemByte(127, 3), (TmemByte{31, 3, 3}));
  EXPECT_EQ(getScaleTmemByte(128, 0), (TmemByte{0, 4, 0}));
  EXPECT_EQ(getScaleTmemByte(130, 1), (TmemByte{2, 4, 1}));
  EXPECT_EQ(getScaleTmemByte(255, 3), (TmemByte{31, 7, 3}));
  for (int64_t r = 0; r < 256; ++r)
    for (int64_t kb = 0; kb < 4; ++kb)
      EXPECT_EQ(getScaleTmemByte(r, kb), (TmemByte{r % 32, r / 32, kb}));
}

} // namespace

//===----------------------------------------------------------------------===//
// The IR emitters fold to the integer functions
//===----------------------------------------------------------------------===//

namespace {

/// Folds the value `emit` builds from constants in a function and returns
/// the integer it becomes.
std::optional<int64_t>
foldEmitted(function_ref<Value(ImplicitLocOpBuilder &)> emit) {
  MLIRContext ctx;
  ctx.loadDialect<arith::ArithDialect, func::FuncDialect>();
  ImplicitLocOpBuilder b(UnknownLoc::get(&ctx), &ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getLoc());
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, "f", b.getFunctionType({}, {}));
  b.setInsertionPointToStart(func.addEntryBlock());
  Value v = emit(b);
  func::ReturnOp::create(b, v);
  func.setType(b.getFunctionType({}, {v.getType()}));
  if (failed(applyPatternsGreedily(module->getOperation(),
                                   RewritePatternSet(&ctx))))
    return std::nullopt;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  APInt value;
  if (!matchPattern(ret.getOperand(0), m_ConstantInt(&value)))
    return std::nullopt;
  return value.getSExtValue();
}

TEST(Tcgen05Emitters, FoldToTheIntegerFunctions) {
  // Descriptor bits without address, or-ed with a run-time address.
  uint64_t bits = getKMajorSwizzle128Descriptor(0);
  EXPECT_EQ(foldEmitted([&](ImplicitLocOpBuilder &b) {
              return emitSmemDescriptor(
                  b, arith::ConstantIndexOp::create(b, 0x1C400), bits);
            }),
            static_cast<int64_t>(getKMajorSwizzle128Descriptor(0x1C400)));
  EXPECT_EQ(foldEmitted([&](ImplicitLocOpBuilder &b) {
              return emitSmemDescriptor(
                  b, arith::ConstantIndexOp::create(b, 0x31200),
                  getScaleChunkDescriptor(0));
            }),
            static_cast<int64_t>(getScaleChunkDescriptor(0x31200)));
  EXPECT_EQ(foldEmitted([&](ImplicitLocOpBuilder &b) {
              Value base = arith::ConstantIntOp::create(b, 0x40, 32);
              return emitTmemAddress(b, base, 64, 260);
            }),
            static_cast<int64_t>(0x40 + getTmemAddress(64, 260)));
  for (auto [rowBlock, kChunk, kBlocks] :
       {std::tuple{0, 0, 16}, {1, 2, 16}, {3, 1, 7}, {2, 0, 3}}) {
    EXPECT_EQ(foldEmitted([&](ImplicitLocOpBuilder &b) {
                lowering::Bits bb(b, b.getLoc());
                return emitScaleChunkOffset(
                    bb, bb.cIdx(rowBlock), bb.cIdx(kChunk),
                    bb.cIdx(llvm::divideCeil(kBlocks, 4)));
              }),
              getScaleChunkOffset(rowBlock, kChunk, kBlocks));
  }
}

} // namespace
