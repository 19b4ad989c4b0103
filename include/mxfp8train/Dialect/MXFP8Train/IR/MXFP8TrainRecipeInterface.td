//===- MXFP8TrainRecipeInterface.td - training recipe interface -*- tablegen -*-===//
//
// The attribute interface that every training recipe attribute implements
// (`#mxfp8train.recipe` for MXFP8, `#mxfp8train.float8_recipe` for Float8),
// so that a rewrite can ask either for the facts that it needs.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINRECIPEINTERFACE_TD
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINRECIPEINTERFACE_TD

include "mlir/IR/OpBase.td"

def MXFP8Train_RecipeAttrInterface : AttrInterface<"RecipeAttrInterface"> {
  let cppNamespace = "::mlir::mxfp8train";
  let description = [{
    A training recipe: how the matmuls of a training graph are quantized
    (torchao's `TrainingOpBaseConfig`, whose two halves are
    `MXFP8TrainingOpConfig` and `Float8TrainingOpConfig`). The methods are
    the facts every recipe has; the recipe's own attribute holds the rest.
  }];
  let methods = [
    InterfaceMethod<"The torchao name of the recipe equal to this one, or \"\"",
      "::llvm::StringRef", "getRecipeName">,
    InterfaceMethod<"True for a Float8 recipe (f32 tensorwise/rowwise scales), "
                    "false for MXFP8 (e8m0 scales per 32 elements)",
      "bool", "isFloat8">,
    InterfaceMethod<"The element type of the forward operands (f8E4M3FN or "
                    "f8E5M2)",
      "::mlir::Type", "getForwardElemType">,
    InterfaceMethod<"The result type of grouped GEMMs (bf16 or f32)",
      "::mlir::Type", "getGroupedOutDtype">,
    InterfaceMethod<"True when the weight-gradient GEMM stays in high precision",
      "bool", "hasHighPrecisionWgrad">,
    InterfaceMethod<"The token-group alignment that grouped GEMMs need, or 0 "
                    "when the recipe does not pad token groups",
      "int64_t", "getTokenGroupPadding">,
    InterfaceMethod<"True when the GEMM of `role` (dense, or grouped when "
                    "`grouped`) stays in high precision: neither operand is "
                    "cast",
      "bool", "isHighPrecisionGemm",
      (ins "::mlir::mxfp8train::MatmulRole":$role, "bool":$grouped)>,
    InterfaceMethod<"How operand `operand` (0: lhs, 1: rhs) of the GEMM of "
                    "`role` (dense, or grouped when `grouped`) is cast: "
                    "element type, MX or Float8 granularity, scale mode or "
                    "pow2 (SPEC §5.1, SPEC-float8 §4.2, §4.4). Only "
                    "meaningful when isHighPrecisionGemm is false",
      "::mlir::mxfp8train::RecipeOperandCast", "getOperandCast",
      (ins "::mlir::mxfp8train::MatmulRole":$role, "bool":$grouped,
           "unsigned":$operand)>,
    InterfaceMethod<"torchao's `use_fast_accum` for the GEMM of `role` (dense, "
                    "or grouped when `grouped`): a performance attribute "
                    "that lets an fp8 GEMM accumulate without periodic f32 "
                    "promotion. False for MX, whose GEMMs have no such "
                    "option",
      "bool", "usesFastAccum",
      (ins "::mlir::mxfp8train::MatmulRole":$role, "bool":$grouped)>,
    InterfaceMethod<"True when the GEMMs run in high precision on exactly "
                    "dequantized operands (torchao KernelPreference.EMULATED)",
      "bool", "isEmulated">,
  ];
}

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINRECIPEINTERFACE_TD
