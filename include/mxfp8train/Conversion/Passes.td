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
  let summary = "Lower mxfp8train ops to linalg/arith/tensor/scf (the CPU reference path)";
  let description = [{
    Lowers every mxfp8train op to `linalg.generic`, `linalg.matmul` /
    `linalg.batch_matmul`, `tensor` slices and reshapes, `scf` loops and
    `arith` integer arithmetic, bit-exact with SPEC §2-§4 and §7 for all four
    scale modes, `f8E4M3FN` and `f8E5M2` elements, any rank and axis, and
    every scale layout (docs/numerics.md).

    - `quantize`: `expand_shape` of the axis into (n/32, 32), a reduction
      generic for the amax (`arith.maximumf` from +0.0), an elementwise
      generic for the e8m0 byte, an elementwise generic for the data,
      `collapse_shape`; blocked scales are gathered into `to_blocked` order.
      The fp32 -> fp8 cast (round to nearest even, saturating, subnormals
      kept) is integer arithmetic on the f32 bits, never `arith.truncf`.
    - `dequantize`: fp8 and e8m0 bytes decoded with integer ops, an exact
      f32 product, rounded to nearest even into bf16 with integer ops.
    - `scaled_mm`: both operands dequantized exactly into f32 in the
      canonical (M, K) x (K, N) orientation, an f32 matmul from zero, the
      bias added in f32, one rounding into the result type.
    - `to_blocked`: `blocked` and `blocked_per_expert` are one gather
      generic; `blocked_m_groups` / `blocked_k_groups` are an `scf.for` over
      the groups that gathers each group's `to_blocked` bytes into its region
      of a zero-filled result (SPEC §4.2; empty groups write nothing).
    - `pad_token_groups` / `unpad_token_groups`: a zero-filled result and one
      row-block `linalg.copy` per group; `padded_offs` in i32.
    - `grouped_mm` / `scaled_grouped_mm`: every operand converted (or
      dequantized, after un-swizzling grouped blocked scales) to f32 once,
      then an `scf.for` over the groups around statically shaped f32
      `linalg.matmul`s: 2d-3d in 32-, 8- and 1-row chunks of each group
      (each expert's weight converted once, empty groups skipped, rows past
      `offs[-1]` zero), 2d-2d in 128-, 32-, 8- and 1-token chunks accumulated
      into the expert's zero-filled (N, K) result; one rounding at the end.

    `offs` is runtime data. Every group loop clamps the offsets into
    [0, total] and to non-decreasing values (group g covers
    `[end(g-1), min(max(offs[g], end(g-1)), total))`), so malformed offsets
    never make an access leave its tensor. `blocked_k_groups` uses
    `offs / 32` (floor) as torchao does.

    Every shape must be static: an op with a dynamic size is reported and
    the pass fails, before anything is rewritten.

    ```mlir
    %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
        : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>
    // becomes
    %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 2, 32] ...
    %amax = linalg.generic {iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%e : tensor<4x2x32xbf16>) outs(%zeros : tensor<4x2xf32>) { ... arith.maximumf ... }
    %s = linalg.generic ins(%amax) outs(... tensor<4x2xf8E8M0FNU>) { ... }
    %d = linalg.generic ins(%e, %s) outs(... tensor<4x2x32xf8E4M3FN>) { ... }
    %q = tensor.collapse_shape %d [[0], [1, 2]] ...
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // MXFP8TRAIN_CONVERSION_PASSES_TD
