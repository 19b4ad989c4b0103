//===- MXFP8TrainOps.td - mxfp8train operations ------------*- tablegen -*-===//
//
// quantize, dequantize, scaled_mm and scaled_grouped_mm; the expert-parallel
// exchange ops (moe_dispatch, moe_combine) are in MoeExchangeOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINOPS_TD
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINOPS_TD

include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainBase.td"
include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MXFP8Train_HighPrecisionTensor : RankedTensorOf<[BF16, F32]>;
def MXFP8Train_ElementTensor : RankedTensorOf<[F8E4M3FN, F8E5M2]>;
def MXFP8Train_ScaleTensor : RankedTensorOf<[F8E8M0FNU]>;
/// e8m0 scales (MX) or f32 scales (Float8, SPEC-float8 §2.6).
def MXFP8Train_AnyScaleTensor : RankedTensorOf<[F8E8M0FNU, F32]>;

def MXFP8Train_DefaultScaleLayout
    : DefaultValuedAttr<MXFP8Train_ScaleLayoutAttr,
                        "::mlir::mxfp8train::ScaleLayout::RowMajor">;

//===----------------------------------------------------------------------===//
// quantize
//===----------------------------------------------------------------------===//

def MXFP8Train_QuantizeOp : MXFP8Train_Op<"quantize", [Pure]> {
  let summary = "Split a tensor into fp8 elements and one e8m0 scale per 32-element block";
  let description = [{
    Quantizes `input` (bf16 or f32, rank ≥ 1) to MX format with blocks of 32
    consecutive elements along dimension `axis` (torchao `to_mx`, SPEC §2):

    - per block: `amax = max |v|` (NaN-propagating, started at +0.0),
      `byte = SCALE(amax, scale_mode)` (SPEC §2.2-2.5, computed in fp32 even
      for bf16 input);
    - per element: `q = cast(fl32(v * 2^(127 - byte)))`, round-to-nearest-even
      and saturating to the largest finite value (±448 for `f8E4M3FN`,
      ±57344 for `f8E5M2`), subnormals kept, the sign of zero kept;
    - a block holding NaN or ±Inf gets byte 255 and every element NaN
      (`0x7F` for `f8E4M3FN`).

    `axis = rank-1` is torchao's "dim0"/1x32 cast; `axis = rank-2` is the
    "dim1"/32x1 cast (SPEC §2.6), computed directly without transposing.

    Shapes: `data` has the shape of `input`. With `scale_layout = row_major`
    (the default) `scales` has the shape of `input` with `axis` divided by 32.
    With `scale_layout = blocked` (rank 2 only) `scales` is the 1-D
    `to_blocked` byte sequence of the (other dim, axis/32) scale matrix
    (SPEC §4.1), `ceil(R/128)*128 * ceil(C/4)*4` bytes.

    Errors: `axis` out of range, the axis size not a static multiple of 32,
    data or scale shapes or element types not as above.

    ```mlir
    %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
        : tensor<64x4096xbf16> -> tensor<64x4096xf8E4M3FN>, tensor<64x128xf8E8M0FNU>
    ```

    **Float8** (`granularity` given; torchao `hp_tensor_to_float8_dynamic`,
    SPEC-float8 §2): `mode` is not allowed, the scales are `f32` and hold the
    multiplier `s` (`fp8 = x * s`, torchao's `_scale`), layout `row_major`:

    - `granularity = tensorwise` (no `axis`): one scale, `tensor<f32>`;
    - `axis = a granularity = axiswise`: one scale per slice along `a`
      (amax over dimension `a`), scales of the input shape with dimension
      `a` set to 1;
    - `amax` NaN-propagating from +0.0, `s = RN_f32(max / max(amax, 1e-12))`,
      with `pow2` torchao's `round_scales_to_power_of_2`
      (`2^floor(RN_f32(log2 s))`, which rounds up just below a power of two,
      SPEC-float8 §2.4); `q = RNE(clamp(RN_f32(x * s), -max, max))`;
      NaN in a group makes the scale NaN and every byte NaN, ±Inf makes the
      scale 0 (SPEC-float8 §2.7).

    ```mlir
    %q, %s = mxfp8train.quantize %x axis = 1 granularity = axiswise pow2
        : tensor<64x4096xbf16> -> tensor<64x4096xf8E4M3FN>, tensor<64x1xf32>
    %t, %ts = mxfp8train.quantize %g granularity = tensorwise
        : tensor<64x4096xbf16> -> tensor<64x4096xf8E5M2>, tensor<f32>
    ```

    **Per-group (jagged) Float8 scales** (`offs` given; torchao
    `triton_fp8_per_group_colwise_scales`, the operands of the grouped 2d-2d
    weight gradient, SPEC-float8 §3.3): `input` is `(T, X)` tokens-major,
    `offs` the `E` cumulative exclusive group ends along T (i32, as
    `scaled_grouped_mm` takes them, clamped as there), `axis = 0
    granularity = axiswise`. The scales are `tensor<E x X x f32>`, one per
    group and column, with the amax over that group's rows only; the scale
    and cast arithmetic is that of the dense cast (an empty group has amax 0,
    so the EPS scale, and no data). Rows past the last group end are not
    read and their bytes are +0.

    ```mlir
    %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise pow2
        : tensor<4096x512xbf16>, tensor<8xi32> -> tensor<4096x512xf8E4M3FN>, tensor<8x512xf32>
    ```
  }];
  let arguments = (ins MXFP8Train_HighPrecisionTensor:$input,
                       Optional<RankedTensorOf<[I32]>>:$offs,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<MXFP8Train_ScaleModeAttr,
                           "::mlir::mxfp8train::ScaleMode::Floor">:$scale_mode,
                       MXFP8Train_DefaultScaleLayout:$scale_layout,
                       OptionalAttr<MXFP8Train_Float8GranularityAttr>:$granularity,
                       UnitAttr:$pow2);
  let results = (outs MXFP8Train_ElementTensor:$data,
                      MXFP8Train_AnyScaleTensor:$scales);
  let assemblyFormat = [{
    $input (`offs` `(` $offs^ `)`)?
    custom<QuantizeScaling>($axis, $scale_mode, $granularity, $pow2)
    (`layout` `=` `` $scale_layout^)? attr-dict
    `:` type($input) (`,` type($offs)^)? `->` type($data) `,` type($scales)
  }];
  let hasVerifier = 1;
  let builders = [
    // An MX quantize (no Float8 granularity).
    OpBuilder<(ins "::mlir::Type":$data, "::mlir::Type":$scales,
                   "::mlir::Value":$input, "int64_t":$axis,
                   "::mlir::mxfp8train::ScaleMode":$mode,
                   CArg<"::mlir::mxfp8train::ScaleLayout",
                        "::mlir::mxfp8train::ScaleLayout::RowMajor">:$layout), [{
      build($_builder, $_state, data, scales, input, /*offs=*/nullptr, axis,
            mode, layout, /*granularity=*/nullptr, /*pow2=*/false);
    }]>
  ];
  let extraClassDeclaration = [{
    /// True for a Float8 cast (`granularity` present, f32 scales).
    bool isFloat8() { return getGranularity().has_value(); }
    /// True for per-group (jagged) Float8 scales along the token axis
    /// (`offs` present).
    bool isPerGroup() { return static_cast<bool>(getOffs()); }
  }];
}

//===----------------------------------------------------------------------===//
// quantize_dual
//===----------------------------------------------------------------------===//

def MXFP8Train_QuantizeDualOp : MXFP8Train_Op<"quantize_dual", [Pure]> {
  let summary = "Quantize one tensor along its last two dimensions at once (1x32 and 32x1)";
  let description = [{
    Computes in one op what two `quantize` ops of the same `input` compute
    along `axis = rank-1` (the 1x32 / "dim0" / rowwise cast) and
    `axis = rank-2` (the 32x1 / "dim1" / colwise cast), with the same
    `mode`; the results are bit-identical to those two quantizes. The
    linear layer needs both casts of `x` (forward and wgrad) and of `dO`
    (dgrad and wgrad); a backend can read the input once and write both
    results (the GPU lowering does). `convert-mxfp8train-to-gpu` fuses two
    such quantizes into this op.

    Each cast has its own element type (from its data result type) and its
    own scale layout (`rowwise_layout`, `colwise_layout`: `row_major`, the
    default, or `blocked` for rank-2 input), with the shapes of `quantize`.

    Errors: rank < 2, the last two dimensions not static multiples of 32,
    data or scale shapes.

    ```mlir
    %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %x mode = rceil
        : tensor<64x4096xbf16> -> tensor<64x4096xf8E4M3FN>, tensor<64x128xf8E8M0FNU>,
                                  tensor<64x4096xf8E4M3FN>, tensor<2x4096xf8E8M0FNU>
    ```
  }];
  let arguments = (ins MXFP8Train_HighPrecisionTensor:$input,
                       MXFP8Train_ScaleModeAttr:$scale_mode,
                       MXFP8Train_DefaultScaleLayout:$rowwise_layout,
                       MXFP8Train_DefaultScaleLayout:$colwise_layout);
  let results = (outs MXFP8Train_ElementTensor:$rowwise_data,
                      MXFP8Train_ScaleTensor:$rowwise_scales,
                      MXFP8Train_ElementTensor:$colwise_data,
                      MXFP8Train_ScaleTensor:$colwise_scales);
  let assemblyFormat = [{
    $input `mode` `=` `` $scale_mode
    (`rowwise_layout` `=` `` $rowwise_layout^)?
    (`colwise_layout` `=` `` $colwise_layout^)? attr-dict
    `:` type($input) `->` type($rowwise_data) `,` type($rowwise_scales) `,`
        type($colwise_data) `,` type($colwise_scales)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// dequantize
//===----------------------------------------------------------------------===//

def MXFP8Train_DequantizeOp : MXFP8Train_Op<"dequantize", [Pure]> {
  let summary = "Reconstruct a high-precision tensor from fp8 elements and e8m0 scales";
  let description = [{
    `result[i] = float(data[i]) * 2^(scales[block(i)] - 127)` with blocks of 32
    along `axis` (torchao `MXTensor.dequantize`, SPEC §3). Scale byte 255 gives
    NaN; byte 0 is 2^-127, not zero. The product is exact unless it overflows
    (byte ≥ 247 with |q| ≥ 256) or underflows the result type; the result is
    rounded to nearest-even into `bf16` or `f32`.

    Shapes and layouts as for `quantize`: `scales` is the data shape with
    `axis` divided by 32 (`row_major`), or the blocked 1-D byte sequence of
    SPEC §4.1 (`blocked`, rank 2).

    Errors: `axis` out of range, the axis size not a static multiple of 32,
    `result` not of the shape of `data`, scale shapes or element types not
    as above.

    ```mlir
    %x = mxfp8train.dequantize %q [%s] axis = 1
        : tensor<64x4096xf8E4M3FN> [tensor<64x128xf8E8M0FNU>] -> tensor<64x4096xbf16>
    ```

    **Float8** (`granularity` given, f32 scales as `quantize` produces them):
    `result = RN(float(data) / s)` (torchao `to_original_precision`,
    SPEC-float8 §2.6), the f32 quotient rounded once into the result type.

    ```mlir
    %x = mxfp8train.dequantize %q [%s] granularity = tensorwise
        : tensor<64x4096xf8E4M3FN> [tensor<f32>] -> tensor<64x4096xbf16>
    ```

    With `offs` (per-group scales `(E, X)` of a `(T, X)` tensor, as the
    per-group `quantize` makes them): row t uses the scales of its group;
    rows past the last group end are +0.

    ```mlir
    %x = mxfp8train.dequantize %q [%s] offs(%offs) axis = 0 granularity = axiswise
        : tensor<4096x512xf8E4M3FN> [tensor<8x512xf32>], tensor<8xi32> -> tensor<4096x512xbf16>
    ```
  }];
  let arguments = (ins MXFP8Train_ElementTensor:$data,
                       MXFP8Train_AnyScaleTensor:$scales,
                       Optional<RankedTensorOf<[I32]>>:$offs,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       MXFP8Train_DefaultScaleLayout:$scale_layout,
                       OptionalAttr<MXFP8Train_Float8GranularityAttr>:$granularity);
  let results = (outs MXFP8Train_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $data `[` $scales `]` (`offs` `(` $offs^ `)`)?
    custom<DequantizeScaling>($axis, $granularity)
    (`layout` `=` `` $scale_layout^)?
    attr-dict `:` type($data) `[` type($scales) `]` (`,` type($offs)^)?
    `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    // An MX dequantize (no Float8 granularity).
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$data,
                   "::mlir::Value":$scales, "int64_t":$axis,
                   CArg<"::mlir::mxfp8train::ScaleLayout",
                        "::mlir::mxfp8train::ScaleLayout::RowMajor">:$layout), [{
      build($_builder, $_state, result, data, scales, /*offs=*/nullptr, axis,
            layout, /*granularity=*/nullptr);
    }]>
  ];
  let extraClassDeclaration = [{
    /// True for Float8 data (`granularity` present, f32 scales).
    bool isFloat8() { return getGranularity().has_value(); }
    /// True for per-group (jagged) Float8 scales (`offs` present).
    bool isPerGroup() { return static_cast<bool>(getOffs()); }
  }];
}

//===----------------------------------------------------------------------===//
// scaled_mm
//===----------------------------------------------------------------------===//

def MXFP8Train_ScaledMmOp : MXFP8Train_Op<"scaled_mm",
    [Pure]> {
  let summary = "MX block-scaled matrix multiplication with fp32 accumulation";
  let description = [{
    `result = lhs @ rhs (+ bias)` on MX operands (torchao `torch._scaled_mm`
    with `to_blocked` scales, SPEC §3.1, §6):

    `result[b, m, n] = round(Σ_k (q_l[m,k] · 2^(s_l[m,k/32]-127)) ·
                              (q_r[k,n] · 2^(s_r[k/32,n]-127)) + bias[n])`

    accumulated in fp32 (order unspecified) from exactly dequantized products,
    the bias added in high precision after the product, then rounded to
    nearest-even into the result type (`bf16` or `f32`). A NaN scale byte
    (255) makes the affected outputs NaN.

    Operands are given as stored. Logically `lhs` is `(M, K)` and `rhs` is
    `(K, N)`; `transpose_lhs` says `lhs` is stored `(K, M)` and
    `transpose_rhs` says `rhs` is stored `(N, K)` (the `x @ Wᵀ` of a linear
    forward). Rank 3 adds a leading batch dimension to both operands and the
    result. Each operand is quantized along K, so each scale tensor is its
    stored data shape with the K dimension divided by 32 (`row_major`), or
    the blocked 1-D sequence of the `(rows, K/32)` matrix, rows = M for `lhs`
    and N for `rhs` (`blocked`, rank 2 only, SPEC §4.1).

    `bias`, if present, is 1-D of size N, `bf16` or `f32`.

    Errors: rank not 2 or 3, batch or K mismatch, K not a multiple of 32,
    scale shape or layout not matching its operand, bias or result shape.

    ```mlir
    %y = mxfp8train.scaled_mm %xq [%xs], %wq [%ws] transpose_rhs
        : tensor<64x4096xf8E4M3FN> [tensor<64x128xf8E8M0FNU>],
          tensor<14336x4096xf8E4M3FN> [tensor<14336x128xf8E8M0FNU>]
          -> tensor<64x14336xbf16>
    ```

    **Float8** (both scale tensors `f32`, SPEC-float8 §5): each scale tensor
    holds the quantization multipliers `s` of its operand, either one scalar
    (`tensor<f32>`, tensorwise) or one per row of `lhs` / column of `rhs`
    (rowwise): the stored data shape with the K dimension set to 1, e.g.
    `(M, 1)` for `lhs (M, K)` and `(N, 1)` for `rhs` stored `(N, K)`. The two
    operands may mix tensorwise and rowwise (SPEC-float8 §3.2), not MX and
    Float8. `result = RN_out(RN_f32(RN_f32(acc * RN_f32(1/s_l[m])) *
    RN_f32(1/s_r[n])) + bias[n])` with `acc` the f32 sum of the exact fp8
    products; the bias is never scaled. K and N must be multiples of 16
    (`torch._scaled_mm`); two `f8E5M2` operands are rejected; layouts are
    `row_major`.

    ```mlir
    %y = mxfp8train.scaled_mm %xq [%xs], %wq [%ws] transpose_rhs
        : tensor<64x4096xf8E4M3FN> [tensor<64x1xf32>],
          tensor<14336x4096xf8E4M3FN> [tensor<14336x1xf32>]
          -> tensor<64x14336xbf16>
    ```
  }];
  let arguments = (ins MXFP8Train_ElementTensor:$lhs,
                       MXFP8Train_AnyScaleTensor:$lhs_scales,
                       MXFP8Train_ElementTensor:$rhs,
                       MXFP8Train_AnyScaleTensor:$rhs_scales,
                       Optional<RankedTensorOf<[BF16, F32], [HasAnyRankOfPred<[1]>]>>:$bias,
                       UnitAttr:$transpose_lhs,
                       UnitAttr:$transpose_rhs,
                       MXFP8Train_DefaultScaleLayout:$lhs_scale_layout,
                       MXFP8Train_DefaultScaleLayout:$rhs_scale_layout);
  let results = (outs MXFP8Train_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $lhs `[` $lhs_scales `]` `,` $rhs `[` $rhs_scales `]`
    (`bias` `(` $bias^ `)`)?
    (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    (`lhs_layout` `=` `` $lhs_scale_layout^)? (`rhs_layout` `=` `` $rhs_scale_layout^)?
    attr-dict `:` type($lhs) `[` type($lhs_scales) `]` `,`
                  type($rhs) `[` type($rhs_scales) `]`
                  (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True for Float8 operands (f32 scales), false for MX (e8m0 scales).
    bool isFloat8() {
      return getLhsScales().getType().getElementType().isF32();
    }
  }];
}

//===----------------------------------------------------------------------===//
// scaled_grouped_mm
//===----------------------------------------------------------------------===//

def MXFP8Train_ScaledGroupedMmOp : MXFP8Train_Op<"scaled_grouped_mm", [Pure]> {
  let summary = "MX block-scaled grouped GEMM over token groups given by offs (MoE)";
  let description = [{
    Grouped GEMM of torchao's MoE training (`torch._scaled_grouped_mm`,
    SPEC §7). `offs` is an `i32` 1-D tensor of E cumulative exclusive end
    offsets along the token dimension: group g covers tokens
    `[offs[g-1], offs[g])` with `offs[-1] = 0`; offsets are non-decreasing
    and torchao requires group sizes that are multiples of 32 (the
    token-group alignment, which the rewrite's padding produces). Other
    offsets run as well: malformed ones are clamped (docs/numerics.md
    "Offsets are runtime data") and a 2d-2d scale block shared by two groups
    scales both. Accumulation is fp32 over the exact products, as
    `scaled_mm`.

    **2d-3d** (`rhs` rank 3; forward and dgrad): `lhs` is `(M, K)`, `rhs` is
    logically `(E, K, N)` (`transpose_rhs`: stored `(E, N, K)`, the expert
    weights `W`). `result (M, N)`: `result[m] = lhs[m] @ rhs[g(m)]`; rows at
    or past `offs[E-1]` are zero. `lhs` is quantized along K (scales
    `(M, K/32)`), `rhs` along K (scales: its stored shape with K / 32).

    **2d-2d** (`rhs` rank 2; wgrad): `lhs` is logically `(N, M)`
    (`transpose_lhs`: stored `(M, N)`, e.g. dO), `rhs` is logically `(M, K)`
    (`transpose_rhs`: stored `(K, M)`). `result (E, N, K)`:
    `result[g] = lhs[:, group g] @ rhs[group g, :]`; an empty group gives an
    exactly zero `result[g]`. Both operands are quantized along M.

    Scale layouts: `row_major` (the stored data shape with the quantized
    dimension divided by 32) or the grouped blocked layouts of SPEC §4.2 that
    `to_blocked` produces: 2d-3d lhs `blocked_m_groups`, 2d-3d rhs
    `blocked_per_expert` (of the rhs's (E, rows, K/32) scale matrices),
    2d-2d operands `blocked_k_groups`.

    Empty shapes have exact results: zero groups (`offs` of size 0, so
    E = 0 experts in 2d-3d) give a 2d-3d result of zeros and an empty
    (0, N, K) 2d-2d result; K = 0 (2d-3d) or no tokens (2d-2d) give zeros.

    The result is `bf16` or `f32`. Errors: ranks, K/N/M mismatches, offs not
    `i32` 1-D, offs length not E, the contraction size not a multiple of 32,
    scale shapes or layouts, a tensor or blocked size that overflows int64.

    ```mlir
    %out = mxfp8train.scaled_grouped_mm %aq [%as], %wq [%ws] offs(%offs) transpose_rhs
        : tensor<512x7168xf8E4M3FN> [tensor<512x224xf8E8M0FNU>],
          tensor<8x2048x7168xf8E4M3FN> [tensor<8x2048x224xf8E8M0FNU>], tensor<8xi32>
          -> tensor<512x2048xbf16>
    ```

    **Float8** (both scale tensors `f32`, torchao `_Float8GroupedMM`,
    `torch._scaled_grouped_mm`, SPEC-float8 §3.3, §5.3): `f8E4M3FN` operands,
    rowwise scales (multipliers `s`, the GEMM uses `RN_f32(1/s)` as
    `scaled_mm` does), layouts `row_major`:

    - 2d-3d: `lhs` scales `(M, 1)` (per token), `rhs` scales the stored
      `rhs` shape with K set to 1: `(E, N, 1)` for `transpose_rhs`, else
      `(E, 1, N)`;
    - 2d-2d: per group and column over the group's tokens only, `lhs`
      scales `(E, N)`, `rhs` scales `(E, K)` (torch's flat `[g][col]`).

    Groups may have any size (no 32-token alignment). K and N must be
    multiples of 16, and in 2d-2d the token count M too.

    ```mlir
    %out = mxfp8train.scaled_grouped_mm %aq [%as], %wq [%ws] offs(%offs) transpose_rhs
        : tensor<512x7168xf8E4M3FN> [tensor<512x1xf32>],
          tensor<8x2048x7168xf8E4M3FN> [tensor<8x2048x1xf32>], tensor<8xi32>
          -> tensor<512x2048xbf16>
    ```
  }];
  let arguments = (ins MXFP8Train_ElementTensor:$lhs,
                       MXFP8Train_AnyScaleTensor:$lhs_scales,
                       MXFP8Train_ElementTensor:$rhs,
                       MXFP8Train_AnyScaleTensor:$rhs_scales,
                       RankedTensorOf<[I32]>:$offs,
                       UnitAttr:$transpose_lhs,
                       UnitAttr:$transpose_rhs,
                       MXFP8Train_DefaultScaleLayout:$lhs_scale_layout,
                       MXFP8Train_DefaultScaleLayout:$rhs_scale_layout);
  let results = (outs MXFP8Train_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $lhs `[` $lhs_scales `]` `,` $rhs `[` $rhs_scales `]` `offs` `(` $offs `)`
    (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    (`lhs_layout` `=` `` $lhs_scale_layout^)? (`rhs_layout` `=` `` $rhs_scale_layout^)?
    attr-dict `:` type($lhs) `[` type($lhs_scales) `]` `,`
                  type($rhs) `[` type($rhs_scales) `]` `,` type($offs)
                  `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True for the 2d-2d (weight-gradient) form, false for 2d-3d.
    bool isTwoDTwoD() { return getRhs().getType().getRank() == 2; }
    /// True for Float8 operands (f32 scales), false for MX (e8m0 scales).
    bool isFloat8() {
      return getLhsScales().getType().getElementType().isF32();
    }
  }];
}


//===----------------------------------------------------------------------===//
// grouped_mm
//===----------------------------------------------------------------------===//

def MXFP8Train_GroupedMmOp : MXFP8Train_Op<"grouped_mm", [Pure]> {
  let summary = "High-precision grouped GEMM over token groups (torch._grouped_mm)";
  let description = [{
    The high-precision grouped GEMM that frontends emit for MoE experts; the
    contract of `torch._grouped_mm(A, B, offs)` (SPEC §7.1). Upstream MLIR has
    no grouped matmul; `mxfp8train-rewrite-matmuls` turns this op into
    padding + `quantize` + `scaled_grouped_mm` + unpadding.

    `offs`: `i32` 1-D, E cumulative exclusive end offsets along the token
    dimension, non-decreasing, at most the token count.

    **2d-3d** (`rhs` rank 3; forward and dgrad): `lhs (M, K)`, `rhs`
    logically `(E, K, N)` (`transpose_rhs`: stored `(E, N, K)`, the expert
    weights W). `result (M, N)`, `result[m] = lhs[m] @ rhs[g(m)]`, rows at or
    past `offs[E-1]` zero.

    **2d-2d** (`rhs` rank 2; wgrad): `lhs` logically `(N, M)`
    (`transpose_lhs`: stored `(M, N)`), `rhs` logically `(M, K)`
    (`transpose_rhs`: stored `(K, M)`). `result (E, N, K)`,
    `result[g] = Σ_{m in group g} lhs[:, m] ⊗ rhs[m, :]`; an empty group
    gives zeros.

    Accumulation in f32, result bf16 or f32 (rounded to nearest-even).
    Zero groups (`offs` of size 0; 2d-3d then needs E = 0 experts) give a
    2d-3d result of zeros and an empty (0, N, K) 2d-2d result; an empty
    contraction (2d-3d K = 0, 2d-2d no tokens) gives zeros.

    Errors: ranks, K/N/M mismatches, offs not `i32` 1-D, offs length not E,
    result shape.

    ```mlir
    %out = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs
        : tensor<512x7168xbf16>, tensor<8x2048x7168xbf16>, tensor<8xi32>
          -> tensor<512x2048xbf16>
    ```
  }];
  let arguments = (ins MXFP8Train_HighPrecisionTensor:$lhs,
                       MXFP8Train_HighPrecisionTensor:$rhs,
                       RankedTensorOf<[I32]>:$offs,
                       UnitAttr:$transpose_lhs,
                       UnitAttr:$transpose_rhs);
  let results = (outs MXFP8Train_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `offs` `(` $offs `)`
    (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    attr-dict `:` type($lhs) `,` type($rhs) `,` type($offs) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True for the 2d-2d (weight-gradient) form, false for 2d-3d.
    bool isTwoDTwoD() { return getRhs().getType().getRank() == 2; }
  }];
}

//===----------------------------------------------------------------------===//
// Token-group padding
//===----------------------------------------------------------------------===//

def MXFP8Train_PadTokenGroupsOp : MXFP8Train_Op<"pad_token_groups", [Pure]> {
  let summary = "Pad every token group to a multiple of the alignment (SPEC §7.3)";
  let description = [{
    torchao `pad_token_groups`: with `n_g = offs[g] - offs[g-1]` and
    `p_g = ceil(n_g / alignment) * alignment`, group g's rows are copied to
    rows `[padded_offs[g] - p_g, padded_offs[g] - p_g + n_g)` of the result,
    where `padded_offs[g] = Σ_{i<=g} p_i` (i32, cumulative exclusive ends).
    Every other row is zero, so 32-row blocks along M never straddle two
    groups and padding rows change neither amax nor the wgrad sums.

    Shapes: `input (M, K)` → `result (R, K)` with the static upper bound
    `R = ceil((M + alignment * G) / alignment) * alignment`, `padded_offs (G)`.
    `alignment` is 32 (default) or 128, or 16 for the Float8 grouped GEMMs
    (SPEC-float8 §6.3). Offsets past M are clamped to M.

    Errors: `alignment` other than 16, 32 or 128, `input` or `result` not 2-D,
    different column counts or element types, `offs` not 1-D, a dynamic
    token or group count, `R` not the bound above, `padded_offs` not of the
    type of `offs`, constant `offs` negative, decreasing or past M.

    ```mlir
    %xp, %poffs = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32
        : tensor<200x256xbf16>, tensor<8xi32> -> tensor<480x256xbf16>, tensor<8xi32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[BF16, F32]>:$input,
                       RankedTensorOf<[I32]>:$offs,
                       DefaultValuedAttr<I64Attr, "32">:$alignment);
  let results = (outs RankedTensorOf<[BF16, F32]>:$result,
                      RankedTensorOf<[I32]>:$padded_offs);
  let assemblyFormat = [{
    $input `offs` `(` $offs `)` `alignment` `=` $alignment attr-dict
    `:` type($input) `,` type($offs) `->` type($result) `,` type($padded_offs)
  }];
  let hasVerifier = 1;
}

def MXFP8Train_UnpadTokenGroupsOp : MXFP8Train_Op<"unpad_token_groups", [Pure]> {
  let summary = "Inverse of pad_token_groups: gather each group's rows back (SPEC §7.3)";
  let description = [{
    torchao `unpad_token_groups`: row `offs[g-1] + i` of the result is row
    `padded_start[g] + i` of `input` for `i < n_g`, with the padded starts
    recomputed from `offs` and `alignment` exactly as `pad_token_groups`
    does. Rows of the result at or past `offs[G-1]` are zero.

    Shapes: `input (R, N)` with `R = ceil((M + alignment * G) / alignment) *
    alignment` → `result (M, N)`.

    Errors: as for `pad_token_groups` with the roles of `input` and
    `result` exchanged.

    ```mlir
    %y = mxfp8train.unpad_token_groups %yp offs(%offs) alignment = 32
        : tensor<480x64xbf16>, tensor<8xi32> -> tensor<200x64xbf16>
    ```
  }];
  let arguments = (ins RankedTensorOf<[BF16, F32]>:$input,
                       RankedTensorOf<[I32]>:$offs,
                       DefaultValuedAttr<I64Attr, "32">:$alignment);
  let results = (outs RankedTensorOf<[BF16, F32]>:$result);
  let assemblyFormat = [{
    $input `offs` `(` $offs `)` `alignment` `=` $alignment attr-dict
    `:` type($input) `,` type($offs) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scale layouts
//===----------------------------------------------------------------------===//

def MXFP8Train_ToBlockedOp : MXFP8Train_Op<"to_blocked", [Pure]> {
  let summary = "Re-lay row-major e8m0 scales into a blocked tcgen05 layout (SPEC §4)";
  let description = [{
    Rearranges a row-major scale matrix into one of the blocked layouts that
    block-scaled MMAs read (`layout`, see `#mxfp8train.scale_layout`), padding
    with byte 0x00 (2^-127):

    - `blocked`: `scales (R, C)` → `to_blocked` (SPEC §4.1), 1-D
      `ceil(R/128)*128 * ceil(C/4)*4` bytes.
    - `blocked_m_groups`: `scales (R, C)`, `offs (G)` token-group ends along R
      → 1-D `(R + 128*G) * ceil(C/4)*4` bytes (SPEC §4.2 a, torchao
      `torch_to_blocked_2d_M_groups`).
    - `blocked_k_groups`: `scales (R, C)` whose columns are 32-token blocks,
      `offs (G)` token-group ends (multiples of 32; column groups `offs/32`)
      → 1-D `ceil(R/128)*128 * (C + 4*G)` bytes (SPEC §4.2 b,
      `torch_to_blocked_2d_K_groups`).
    - `blocked_per_expert`: `scales (E, R, C)` → `(E, ceil(R/128)*128 *
      ceil(C/4)*4)` (SPEC §4.2 c, `torch_to_blocked_per_group_3d`).

    Group offsets are runtime data, clamped before use into [0, total] (R
    rows, or 32·C tokens) and to non-decreasing values; an empty group
    writes nothing. Every byte of the result is written: group entries, or
    0x00. The CPU and GPU lowerings (every layout; the same kernels for
    sm_90a and sm_100a) give the same bytes.

    Canonicalization: `blocked` of the row-major scales of a rank-2
    `quantize` along axis 1 (or of the rowwise scales of a rank-2
    `quantize_dual`), when it is their only use, folds into the quantization
    (`layout = blocked`, which is this op's result by definition), so the
    scales are written blocked in one pass. The 32x1 (axis 0) scales do not
    fold: their row-major matrix is (K/32, N), while the blocked layout of
    `quantize` blocks the transposed (N, K/32) matrix; this op has no way to
    say "block the transpose".

    Errors: `row_major` as target, rank, `offs` missing or present when not
    needed, result shape.

    ```mlir
    %b = mxfp8train.to_blocked %s layout = blocked
        : tensor<100x3xf8E8M0FNU> -> tensor<512xf8E8M0FNU>
    %m = mxfp8train.to_blocked %s offs(%offs) layout = blocked_m_groups
        : tensor<512x8xf8E8M0FNU>, tensor<8xi32> -> tensor<32768xf8E8M0FNU>
    ```
  }];
  let arguments = (ins MXFP8Train_ScaleTensor:$scales,
                       Optional<RankedTensorOf<[I32]>>:$offs,
                       MXFP8Train_ScaleLayoutAttr:$layout);
  let results = (outs MXFP8Train_ScaleTensor:$result);
  let assemblyFormat = [{
    $scales (`offs` `(` $offs^ `)`)? `layout` `=` `` $layout attr-dict
    `:` type($scales) (`,` type($offs)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

include "mxfp8train/Dialect/MXFP8Train/IR/MoeExchangeOps.td"

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINOPS_TD
