//===- Bars.h - the SQNR bars of the compare mode ---------------*- C++ -*-===//
//
// The SQNR bars that torchao's own tests hold its training recipes to, by
// recipe family, GEMM kind (dense linear or grouped) and role: MX from SPEC
// §8, Float8 from SPEC-float8 §7. mxfp8-run --compare checks each matmul
// converted alone against its bar and each result of a training step against
// the bar of its `mxfp8train.role`; mxfp8-compile records the same bars
// in the manifest of a converted module (the recipe in its
// `mxfp8train.recipe`), which mxfp8-launch prints and checks.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_BARS_H
#define MXFP8TRAIN_RUNNER_BARS_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::mxfp8train {

/// The bar (dB) of one matmul of `role` (`forward`, `dgrad`, `wgrad`)
/// converted alone under `recipe`; `grouped` for a grouped GEMM. The
/// per-linear bars: MX 27 / 25 / 24 dB (SPEC §8), Float8 25 / 24 / 23 dB
/// (SPEC-float8 §7), dense and grouped alike; 34 dB for a weight gradient
/// the recipe keeps in high precision.
double getMatmulBar(RecipeAttrInterface recipe, llvm::StringRef role,
                    bool grouped);

/// The bar (dB) of a result of a training step whose `mxfp8train.role` is
/// `output`, `input_grad` or `weight_grad`, or std::nullopt for another
/// role. `dense` / `grouped`: the result depends on a quantized dense /
/// grouped GEMM (neither: the dense bars). Dense: the per-linear bars;
/// grouped: MX's per-linear bars; Float8's MoE layer bars (23 / 29 / 21 dB,
/// SPEC-float8 §7 test_moe_training) for a result of several GEMMs
/// (`layer`), the per-GEMM bars of one grouped GEMM otherwise (a result of
/// one GEMM is that GEMM's output, and dX >= 29 dB does not hold for one
/// e4m3 GEMM). Where both apply, the lower bar.
std::optional<double> getResultBar(RecipeAttrInterface recipe,
                                   llvm::StringRef role, bool dense,
                                   bool grouped, bool layer);

/// The quantized GEMMs that one result of a converted function depends on.
struct ResultGemms {
  int64_t count = 0;
  /// Some of them are dense (scaled_mm or emulated) / grouped.
  bool dense = false, grouped = false;
};

/// For each result of the converted function `func`, the quantized GEMMs
/// (Conversion.h, isQuantizedGemm) in its backward slice.
llvm::SmallVector<ResultGemms> getQuantizedGemmsPerResult(func::FuncOp func);

/// The bar of a result with a training role, and how it applies.
struct RoleBar {
  double db = 0.0;
  /// The result depends on more than one quantized GEMM: torchao's bar holds
  /// for one, so it is only shown (the per-matmul comparison carries the
  /// check).
  bool reference = false;
};

/// The bar of a result of role `role` that depends on `gemms` under
/// `recipe` (getResultBar), or std::nullopt for a role without one.
std::optional<RoleBar> getRoleBar(RecipeAttrInterface recipe,
                                  llvm::StringRef role,
                                  const ResultGemms &gemms);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_RUNNER_BARS_H
