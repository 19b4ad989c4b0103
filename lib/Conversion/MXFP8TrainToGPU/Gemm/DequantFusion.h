//===- DequantFusion.h - quantize kernels write bf16 operands ---*- C++ -*-===//
//
// On sm_90a the default GEMM (v8) reads its MX operands as padded K-major
// bf16 that a dequantization pre-pass writes from the fp8 data and scales
// (DequantPrepass.h). Where those come straight from a quantize (or one
// axis of a quantize_dual) in the same block, the quantize kernel already
// holds the fp8 bytes and their scale bytes: the fusion plan makes it write
// the GEMM's bf16 operand too (the same bits, emitExactBF16) and raise its
// own flag word, and the GEMM launches no pre-pass for that operand.
//
// The plan is made before the lowering patterns run: per fused quantize
// result, the padded bf16 buffer with its tensor map (at the start of the
// block, createPaddedOperands) and a flag word zeroed just before the
// quantize. The quantize and GEMM patterns look their ops up in it. A
// quantize result feeds at most one padded form; the GEMM operands that
// need exactly that form share it, others keep their pre-pass.
//
// 2d-2d (the grouped wgrad, K = tokens): a 32x1 quantize of (tokens, rows)
// writes the form with each token group laid out from a multiple of 64 of
// the padded K, as the pre-pass does (emitTokenGroup), from the GEMM's
// `offs`, which it takes as one more argument; it zeros each group's tail
// up to that multiple. Two GEMMs share such a form only when their `offs`
// are the same values (one SSA value, or the padded offsets of two
// pad_token_groups of the same offsets, alignment and token count).
//
// Deferred fp8 (`defer-fp8`): where only the GEMMs that read the form read
// the quantize's fp8 data, that data is needed only by the guarded
// fallback. The kernel then stores the fp8 bytes of the blocks the bf16
// form cannot hold exactly (a scale byte outside the exact range; 2d-2d,
// a block not wholly inside a token group that starts at a multiple of 32)
// and skips the rest; each GEMM launches a restore kernel before its
// fallback (DequantPrepass.h, launchFp8Restore), which returns at once
// unless the GEMM's flags are raised and otherwise writes the skipped
// blocks back from the bf16 form (e = bf16 * 2^(127 - s), exact).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_DEQUANTFUSION_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_DEQUANTFUSION_H

#include "DequantPrepass.h"
#include "GemmLaunch.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <array>
#include <memory>
#include <optional>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// One MX operand of a pre-dequantized GEMM as its pre-pass would write it.
struct PreDequantOperand {
  DequantSpec d;
  /// Rows of one box of the operand's tensor map (the tile's M or N).
  int64_t boxRows = 0;
};

/// The two operand forms (A, B) of `op` (scaled_mm, scaled_grouped_mm)
/// where the sm_90a lowering runs the pre-dequantized GEMM on it (its
/// configuration asks for dequant_bf16 and the form has that kernel);
/// std::nullopt otherwise (GemmPatterns.cpp). The forms' boxes depend on
/// the cluster along M, which `target` (gemm-cluster-m) may choose.
std::optional<std::array<PreDequantOperand, 2>>
getPreDequantOperands(Operation *op, const GPUTargetInfo &target);

/// A GEMM operand's padded bf16 form written by a quantize kernel.
struct FusedDequantOperand {
  PreDequantOperand form;
  /// The flat bf16 buffer (batches x rowsPad x kPad) and its tensor map.
  Value buffer, map;
  /// memref<1xi32>, zeroed before the quantize; 1 when the fallback must
  /// run.
  Value flag;
  /// 2d-2d: the GEMM's token group offsets (memref<G x i32>, a
  /// bufferization.to_buffer created before the quantize); null otherwise.
  Value offs;
  /// The quantize stores only the fp8 blocks the bf16 form cannot hold;
  /// the GEMMs restore the others before their fallback launch.
  bool fp8Deferred = false;
};

/// The quantize results that write a GEMM operand's bf16 form, and the
/// GEMM operands that read it.
class DequantFusion {
public:
  /// Plans the fusion over `module` (sm_90a, v8 GEMMs) and creates the
  /// buffers, maps and flag words of the fused operands. Only forms whose
  /// padded K equals K are fused (no K padding to zero; the padding rows
  /// are zeroed by the quantize kernel). `deferFp8`: the fp8 data only the
  /// fused GEMMs read is deferred (fp8Deferred). `target`: the lowering's
  /// (the GEMMs' configuration, as they are lowered).
  static std::shared_ptr<DequantFusion>
  plan(ModuleOp module, const GPUTargetInfo &target, bool deferFp8 = false);

  /// The form `quantize` writes for its data result `dataResult` (0; 2 for
  /// the colwise data of quantize_dual), or null.
  const FusedDequantOperand *getQuantizeOutput(Operation *quantize,
                                               unsigned dataResult) const;
  /// The fused form GEMM `gemm` reads for operand `operand` (0: A, 1: B),
  /// or null.
  const FusedDequantOperand *getGemmOperand(Operation *gemm,
                                            unsigned operand) const;
  /// Number of fused quantize results.
  size_t size() const { return operands.size(); }

private:
  SmallVector<std::unique_ptr<FusedDequantOperand>> operands;
  DenseMap<std::pair<Operation *, unsigned>, FusedDequantOperand *> byQuantize,
      byGemm;
};

/// Inside a quantize kernel: writes the padded bf16 form `d` of a GEMM
/// operand (kernel arguments `buffer`, flat bf16, and `flag`, i32) from the
/// fp8 bytes the kernel computed, through emitExactBF16. Default
/// constructed: writes nothing.
class BF16OperandWriter {
public:
  BF16OperandWriter() = default;
  /// The form of `fused` (and whether its fp8 data is deferred) through
  /// the kernel arguments `buffer`, `flag` and, 2d-2d, `offs` (the token
  /// group offsets, memref<G x i32>; null otherwise).
  BF16OperandWriter(const FusedDequantOperand &fused, Value buffer, Value flag,
                    Value offs = Value())
      : d(&fused.form.d), buffer(buffer), flag(flag), offs(offs),
        fp8Deferred(fused.fp8Deferred) {}
  explicit operator bool() const { return d != nullptr; }

  /// Whether (i1) a quantize must store the fp8 bytes of blocks with the
  /// scale bytes `bytes` (i32 each): the fp8 data is not deferred (null:
  /// always), a byte lies outside the exact range of the bf16 form, or
  /// (`whole`, i1, 2d-2d: ColumnK::whole) the form does not hold the block
  /// wholly.
  Value mustStoreFp8(KernelBuilder &kb, ArrayRef<Value> bytes,
                     Value whole = Value()) const;

  /// K-major form (a 1x32 cast): the fp8 values `q` (a vector of n
  /// elements of one block, scale byte `s`, i32) at row `row` (index, of
  /// the batches x rows of the cast's view) and columns [col, col + n).
  void storeRow(KernelBuilder &kb, Value q, Value s, Value row,
                Value col) const;
  /// MN-major form (a 32x1 cast): where the 32-block of source K `k0`
  /// (a multiple of 32) lies in the padded K (`pk`), and whether the form
  /// holds it (`held`, null: always). Ungrouped: k0 itself. 2d-2d:
  /// P_g + k0 - start_g for the token group g that holds k0, held when g
  /// starts at a multiple of 32 (otherwise the walk raises the flag and the
  /// fallback runs); tokens past the last group are not held. `whole`
  /// (2d-2d): held, and the block ends inside g, so that the form holds all
  /// 32 of its values (null: always).
  struct ColumnK {
    Value pk, held, whole;
  };
  ColumnK mapColumnK(KernelBuilder &kb, Value k0) const;
  /// MN-major form (a 32x1 cast): the fp8 bytes `bytes` (vector<n x i8>,
  /// one block, scale byte `s`) of batch `o`, operand row `c` (a column of
  /// the cast's view) at padded K [pk, pk + n) (mapColumnK), stored
  /// contiguously.
  void storeColumn(KernelBuilder &kb, Value bytes, Value s, Value o, Value c,
                   Value pk) const;
  /// Zeros what the form holds besides the cast's values (grid-stride,
  /// after the cast's loop): the padding rows of every batch, and 2d-2d
  /// the tail of every token group up to its next multiple of 64.
  void zeroPadding(KernelBuilder &kb) const;

  /// The kernel-name suffix of a cast writing `form` (`_{prefix}b1r4096`:
  /// batches and padded rows, `g8` for a 2d-2d form of 8 token groups),
  /// empty for null.
  static std::string getNameTag(const FusedDequantOperand *form,
                                StringRef prefix);

private:
  const DequantSpec *d = nullptr;
  Value buffer, flag, offs;
  bool fp8Deferred = false;
};

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_DEQUANTFUSION_H
