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
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_DEQUANTFUSION_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_DEQUANTFUSION_H

#include "DequantPrepass.h"

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
/// std::nullopt otherwise (GemmPatterns.cpp).
std::optional<std::array<PreDequantOperand, 2>>
getPreDequantOperands(Operation *op);

/// A GEMM operand's padded bf16 form written by a quantize kernel.
struct FusedDequantOperand {
  PreDequantOperand form;
  /// The flat bf16 buffer (batches x rowsPad x kPad) and its tensor map.
  Value buffer, map;
  /// memref<1xi32>, zeroed before the quantize; 1 when the fallback must
  /// run.
  Value flag;
};

/// The quantize results that write a GEMM operand's bf16 form, and the
/// GEMM operands that read it.
class DequantFusion {
public:
  /// Plans the fusion over `module` (sm_90a, v8 GEMMs) and creates the
  /// buffers, maps and flag words of the fused operands. Only forms whose
  /// padded K equals K are fused (no K padding to zero; the padding rows
  /// are zeroed by the quantize kernel).
  static std::shared_ptr<DequantFusion> plan(ModuleOp module);

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
  BF16OperandWriter(const DequantSpec &d, Value buffer, Value flag)
      : d(&d), buffer(buffer), flag(flag) {}
  explicit operator bool() const { return d != nullptr; }

  /// K-major form (a 1x32 cast): the fp8 values `q` (a vector of n
  /// elements of one block, scale byte `s`, i32) at row `row` (index, of
  /// the batches x rows of the cast's view) and columns [col, col + n).
  void storeRow(KernelBuilder &kb, Value q, Value s, Value row,
                Value col) const;
  /// MN-major form (a 32x1 cast): the fp8 bytes `bytes` (vector<n x i8>,
  /// one block, scale byte `s`) of batch `o`, operand row `c` (a column of
  /// the cast's view) and K [k0, k0 + n), stored contiguously.
  void storeColumn(KernelBuilder &kb, Value bytes, Value s, Value o, Value c,
                   Value k0) const;
  /// Zeros the padding rows of every batch (grid-stride, after the cast's
  /// loop), where the form has any.
  void zeroPaddingRows(KernelBuilder &kb) const;

  /// The kernel-name suffix of a cast writing `form` (`_{prefix}b1r4096`:
  /// batches and padded rows; K is not padded), empty for null.
  static std::string getNameTag(const FusedDequantOperand *form,
                                StringRef prefix);

private:
  const DequantSpec *d = nullptr;
  Value buffer, flag;
};

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_DEQUANTFUSION_H
