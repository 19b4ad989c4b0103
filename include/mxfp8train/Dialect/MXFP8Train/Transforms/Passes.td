//===- Passes.td - mxfp8train rewrite passes ---------------*- tablegen -*-===//
//
// Passes that turn high-precision training graphs into mxfp8train ops.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_PASSES_TD
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MXFP8TrainRewriteMatmulsPass
    : Pass<"mxfp8train-rewrite-matmuls", "::mlir::ModuleOp"> {
  let summary = "Replace eligible linalg matmuls with quantize + scaled_mm";
  let description = [{
    Rewrites bf16/f32 `linalg.matmul` (any transposed form, through
    `indexing_maps` or a producing `linalg.transpose`) and
    `linalg.batch_matmul` into `mxfp8train.quantize` of each operand along
    its contraction dimension followed by `mxfp8train.scaled_mm`, following
    the recipe (torchao `MXFP8TrainingOpConfig`, SPEC §5-§6).

    Weight-gradient matmuls are recognised (see docs/rewrite.md) and kept in
    high precision when the recipe has `wgrad_with_hp = true`. Every matmul
    converted or skipped gets a remark with the reason.
  }];
  let options = [
    Option<"recipe", "recipe", "std::string", "\"mxfp8_rceil\"",
           "Recipe: a torchao recipe name (mxfp8_rceil, "
           "mxfp8_rceil_wgrad_with_hp, mxfp8_emulated_rceil) or the body of "
           "a #mxfp8train.recipe<...> attribute">,
    Option<"minSize", "min-size", "int64_t", "0",
           "Skip matmuls with M, N or K smaller than this">,
    ListOption<"exclude", "exclude", "std::string",
               "Skip matmuls whose location name contains one of these "
               "strings (torchao filters by module FQN)">,
    Option<"emitRemarks", "remarks", "bool", "true",
           "Emit a remark for every matmul converted or skipped">
  ];
  let dependentDialects = [
    "::mlir::mxfp8train::MXFP8TrainDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::arith::ArithDialect"
  ];
}

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_PASSES_TD
