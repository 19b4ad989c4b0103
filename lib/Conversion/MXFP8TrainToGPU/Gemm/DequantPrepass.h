//===- DequantPrepass.h - MX operands dequantized into bf16 ----*- C++ -*-===//
//
// The pre-pass of the default GEMM (GemmVariant::DequantBF16): one kernel
// per MX operand writes its exact bf16 values, K-major and zero-padded to
// whole CTA tiles, and raises a flag word when an element bf16 cannot hold
// exactly (the guarded fallback kernel then runs instead). The same kernel
// without scales packs a high-precision (bf16 / f16) operand the GEMM
// cannot read in place (MN-major, unaligned rows, 2d-2d token groups) into
// that padded K-major layout, unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_DEQUANTPREPASS_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_DEQUANTPREPASS_H

#include "../KernelBuilder.h"
#include "mxfp8train/Conversion/Utils/GemmTiling.h"

#include <string>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// Bytes per K row of the pre-pass's shared transpose tile (128 rows plus
/// 16 bytes, so that a column's bytes spread over the banks).
inline constexpr int64_t kTransposeStride = 144;

/// One MX operand dequantized by the pre-pass, or one high-precision
/// operand packed by it.
struct DequantSpec {
  /// The stored operand (rows x K per batch).
  gemm::OperandLayout l;
  int64_t batches = 1;
  /// The padded buffer: `batches x rowsPad x kPad`, K-major; bf16, or the
  /// element type of a packed operand.
  int64_t rowsPad = 0, kPad = 0;
  /// The operand's element type: fp8 (dequantized with its scales into
  /// bf16, the flag raised where that is inexact), or bf16 / f16 (packed:
  /// copied, no scales, no flag; any K and any group bounds).
  Type dataType;
  /// 2d-2d: the token groups of `offs` along K; each group's tokens start
  /// at a multiple of 64 of the padded K (0: K is not grouped).
  int64_t groups = 0;

  /// MX operand (fp8 with scales) rather than a high-precision one.
  bool scaled() const { return dataType.getIntOrFloatBitWidth() == 8; }
  /// Elements per item (one thread's work): 8 of one row for K-major data
  /// (a warp loads 256 fp8 bytes and stores 512 contiguous bytes), a
  /// 32-block of one row for MN-major data (rows fastest, so that each of
  /// the 32 element loads of a warp is contiguous).
  int64_t vec() const { return l.kMajor ? 8 : 32; }
  /// MN-major fp8 data with rows a multiple of 16 goes through shared
  /// memory in tiles of 32 K x 128 rows (16-byte loads of row chunks).
  bool transpose() const { return scaled() && !l.kMajor && l.rows % 16 == 0; }
  /// Work items: tiles (transpose) or items of vec() elements.
  int64_t numItems() const {
    if (transpose())
      return batches * (kPad / 32) * (rowsPad / 128);
    return batches * rowsPad * (kPad / vec());
  }
  /// Dynamic shared memory: the 2d-2d group table, then (transpose) the
  /// byte tile and 128 scale words.
  int64_t sharedBytes() const {
    int64_t bytes = llvm::alignTo(24 * groups, 16);
    if (transpose())
      bytes += 32 * kTransposeStride + 128 * 4;
    return groups || transpose() ? bytes : 0;
  }
  /// The kernel name (`gemm_dequant_k_e4m3_1x256x512_pad256x512`,
  /// `gemm_pack_mn_bf16_1x384x512_pad512x512`).
  std::string getName() const;
};

/// The scale bytes [lo, hi] for which every value e * 2^(s - 127) of an
/// element e of `dataType` (fp8) is a bf16 value (normal or subnormal), so
/// that the bf16 form of the operand is exact.
std::pair<int64_t, int64_t> getExactScaleRange(Type dataType);

/// Inside a kernel: whether (i1) the scale byte `s` (i32) lies outside
/// getExactScaleRange of `dataType`. The pre-pass's flag, the deferred fp8
/// stores and the fp8 restore decide on it alike.
Value emitOutsideExactRange(KernelBuilder &kb, Type dataType, Value s);

/// Inside a kernel: the OR (i32) of the flag words `flags` (memref<1xi32>
/// each) of one GEMM; nonzero: its fallback runs. The GEMM kernels' guard
/// and the fp8 restore read them alike.
Value emitLoadFlags(KernelBuilder &kb, ValueRange flags);

/// Inside a kernel: the bf16 values of the fp8 bytes `v` (vector<n x i8>
/// of `f8Type`) of one block with scale byte `s` (i32), e * 2^(s - 127),
/// exactly (NaN for s = 255 and for the fp8 NaN codes). Where a nonzero
/// byte has a scale byte outside the range in which bf16 holds every value
/// exactly, stores 1 to `flag` (memref<1xi32>): the guarded GEMM then runs
/// its fallback on the fp8 operand. The pre-pass and the quantize kernels
/// that write a GEMM's bf16 operand (DequantFusion.h) share it, so both
/// write the same bits.
Value emitExactBF16(KernelBuilder &kb, Type f8Type, Value v, Value s,
                    Value flag);

/// One group of the 2d-2d token-group walk over `offs` (memref<G x i32>):
/// group g holds tokens [start, end) with end = clamp(offs[g], start, k),
/// and starts at padded K `padStart`; the next group starts at padded K
/// `nextPad` = padStart + len rounded up to 64 (the GEMM's K tile). Where
/// `flag` is given, a nonempty group whose start or end is not a multiple
/// of 32 (a scale block shared by two groups) stores 1 to it. The pre-pass
/// and the quantize kernels that write a 2d-2d operand's bf16 form
/// (DequantFusion.h) share it, so both lay the groups out alike.
struct TokenGroup {
  Value end, len, nextPad;
};
TokenGroup emitTokenGroup(KernelBuilder &kb, Value offs, Value g, Value start,
                          Value padStart, int64_t k, Value flag);

/// Launches the pre-pass of `d` on the operand's `data` and `scales` (and,
/// 2d-2d, `offs`) into `padded` (flat bf16, batches x rowsPad x kPad
/// elements), raising `flag` (one i32, zeroed before) where the operand
/// needs the fallback. A packed operand (`!d.scaled()`) has neither
/// `scales` nor `flag` (null). The grid is one CTA per tile (transpose) or per
/// 256 items, capped at `maxCTAsPerSM` per SM (0: no cap; a grid-stride loop
/// covers the rest).
void launchDequantPrepass(RewriterBase &rewriter, Location loc,
                          const KernelCache &cache, const DequantSpec &d,
                          int64_t maxCTAsPerSM, Value data, Value scales,
                          Value offs, Value flag, Value padded);

/// Deferred fp8 data (DequantFusion.h): before the guarded fallback of a
/// GEMM whose operand of form `d` a quantize wrote as bf16 (`padded`, flat,
/// batches x rowsPad x kPad) without the fp8 bytes of the blocks that form
/// holds exactly, launches the kernel that writes those bytes into `data`
/// from `padded` and `scales` (and, 2d-2d, `offs`) when one of the GEMM's
/// flag words `flags` (memref<1xi32> each) is raised, so that the fallback
/// reads the quantize's whole fp8 data; it returns at once otherwise. One
/// CTA per SM (a grid-stride loop when it runs).
void launchFp8Restore(RewriterBase &rewriter, Location loc,
                      const KernelCache &cache, const DequantSpec &d,
                      Value padded, Value scales, Value offs, ValueRange flags,
                      Value data);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_DEQUANTPREPASS_H
