//===- Passes.td - mxfp8train lowering passes --------------*- tablegen -*-===//
//
// Lowerings of the mxfp8train dialect.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_PASSES_TD
#define MXFP8TRAIN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMXFP8TrainToLinalgPass
    : Pass<"convert-mxfp8train-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower mxfp8train ops to linalg/arith/tensor (the CPU reference path)";
  let description = [{
    Lowers `quantize`, `dequantize` and `scaled_mm` to `linalg.generic`,
    `linalg.matmul` and `arith` integer arithmetic, bit-exact with SPEC §2-§3
    for all four scale modes (the fp32 -> fp8 cast saturates and rounds to
    nearest-even without `arith.truncf`). `scaled_mm` dequantizes both
    operands exactly into f32 and accumulates in f32.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // MXFP8TRAIN_CONVERSION_PASSES_TD
