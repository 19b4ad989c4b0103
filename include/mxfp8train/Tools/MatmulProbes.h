//===- MatmulProbes.h - per-matmul checks of a training step ----*- C++ -*-===//
//
// torchao judges each MXFP8 or Float8 linear on its own: the converted GEMM
// against the high-precision GEMM on the same high-precision inputs (SPEC §8,
// SPEC-float8 §7). The probe
// module makes that measurable inside a whole training step: its entry
// function also returns, for every matmul the recipe converts, the matmul's
// own result and the result of a converted copy reading the same operands.
// mxfp8-run --compare (--per-matmul) and mxfp8-compile --per-matmul use it.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TOOLS_MATMULPROBES_H
#define MXFP8TRAIN_TOOLS_MATMULPROBES_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::mxfp8train {

/// One matmul of the per-matmul check.
struct MatmulProbe {
  /// Location name of the matmul (or "matmul#i").
  std::string name;
  /// forward / dgrad / wgrad, or "" when not converted.
  std::string role;
  /// "converted", "kept in high precision" or "skipped: <reason>".
  std::string decision;
  /// Shape and element type of the matmul result.
  Type type;
  /// A grouped GEMM (`mxfp8train.grouped_mm`) rather than a dense one.
  bool grouped = false;
  /// Index of the high-precision result among the extra results; the
  /// converted one follows it.
  int64_t extraIndex = -1;
};

/// Role attribute (`mxfp8train.role`) of the extra results of a probe
/// function: `matmul_hp` on the high-precision result, `matmul_forward`,
/// `matmul_dgrad` or `matmul_wgrad` on the converted one that follows it.
inline constexpr llvm::StringLiteral kProbeHighPrecisionRole = "matmul_hp";
inline constexpr llvm::StringLiteral kProbeConvertedRolePrefix = "matmul_";

/// A short description of a location: the name of a NameLoc, file:line:col,
/// or the first describable part of a fused location.
std::string describeLocation(Location loc);

/// Builds the probe module of function `entry` of `module` (a clone): the
/// entry function returns its results, then a pair per converted matmul (in
/// `probes`, with every candidate matmul and the recipe's decision). The
/// extra results carry `mxfp8run.name` (the matmul's name) and the roles
/// above. Fails with `error` set when the function has more than one block.
FailureOr<OwningOpRef<ModuleOp>> buildProbeModule(
    ModuleOp module, llvm::StringRef entry, RecipeAttrInterface recipe,
    llvm::SmallVectorImpl<MatmulProbe> &probes, std::string &error);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_TOOLS_MATMULPROBES_H
