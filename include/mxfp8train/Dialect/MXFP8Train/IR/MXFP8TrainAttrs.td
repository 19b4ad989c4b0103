//===- MXFP8TrainAttrs.td - mxfp8train enums and attributes -*- tablegen -*-===//
//
// Scale calculation modes, Float8 granularities, kernel preference, scale
// layouts, the training recipe attributes (torchao `MXFP8TrainingOpConfig`,
// SPEC §5.1; `Float8TrainingOpConfig`, SPEC-float8 §4) and the GPU GEMM kernel
// configuration.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINATTRS_TD
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINATTRS_TD

include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainBase.td"
include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainRecipeInterface.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def MXFP8Train_ScaleModeEnum : I32EnumAttr<"ScaleMode",
    "How the e8m0 block scale is computed from the block amax (torchao ScaleCalculationMode)", [
      I32EnumAttrCase<"Floor", 0, "floor">,
      I32EnumAttrCase<"Rceil", 1, "rceil">,
      I32EnumAttrCase<"Ceil", 2, "ceil">,
      I32EnumAttrCase<"Even", 3, "even">]> {
  let cppNamespace = "::mlir::mxfp8train";
  let genSpecializedAttr = 0;
}

def MXFP8Train_ScaleModeAttr
    : EnumAttr<MXFP8Train_Dialect, MXFP8Train_ScaleModeEnum, "scale_mode"> {
  let summary = "Scale calculation mode: floor, rceil, ceil or even (SPEC §2.2-2.5)";
  let description = [{
    `floor`: OCP MX, `byte = max(e(amax) - 8, 0)` (SPEC §2.3).
    `rceil`: training default, `byte = ceil_e8m0(fl32(amax * fl32(1/448)))`
    computed in fp32 (SPEC §2.2), equal to PTX `cvt.rp.satfinite.ue8m0x2.f32`.
    `ceil`: `ceil(log2 amax) - 8` (SPEC §2.4). `even`: amax rounded half-up to
    3 mantissa bits, then floor (SPEC §2.5). Any NaN or Inf in a block gives
    byte 255 in every mode.
  }];
}

def MXFP8Train_Float8GranularityEnum : I32EnumAttr<"Float8Granularity",
    "Float8 scaling granularity (torchao ScalingGranularity, SPEC-float8 §3)", [
      I32EnumAttrCase<"Tensorwise", 0, "tensorwise">,
      I32EnumAttrCase<"Axiswise", 1, "axiswise">]> {
  let cppNamespace = "::mlir::mxfp8train";
  let genSpecializedAttr = 0;
}

def MXFP8Train_Float8GranularityAttr
    : EnumAttr<MXFP8Train_Dialect, MXFP8Train_Float8GranularityEnum,
               "float8_granularity"> {
  let summary = "Float8 scaling granularity: tensorwise or axiswise";
  let description = [{
    Marks a `quantize` / `dequantize` as Float8 (one `f32` scale per scaling
    group, the multiplier `s` with `fp8 = x * s`, SPEC-float8 §2). Without it
    the op is MX (e8m0 scales per 32 elements).

    `tensorwise`: one scale for the whole tensor, a rank-0 `tensor<f32>`.
    `axiswise`: one scale per slice along `axis` (amax over `axis`); the
    scale tensor is the data shape with dimension `axis` set to 1.
  }];
}

def MXFP8Train_KernelPreferenceEnum : I32EnumAttr<"KernelPreference",
    "Which kernels a recipe asks for (torchao KernelPreference)", [
      I32EnumAttrCase<"Auto", 0, "auto">,
      I32EnumAttrCase<"Emulated", 1, "emulated">]> {
  let cppNamespace = "::mlir::mxfp8train";
  let genSpecializedAttr = 0;
}

def MXFP8Train_KernelPreferenceAttr
    : EnumAttr<MXFP8Train_Dialect, MXFP8Train_KernelPreferenceEnum,
               "kernel_preference"> {
  let summary = "Kernel preference: auto (best native kernels) or emulated";
  let description = [{
    `auto`: the fastest exact kernels of the target (torchao AUTO).
    `emulated`: dequantize to the high-precision type and run a
    high-precision GEMM (torchao EMULATED, SPEC §3.1).
  }];
}

def MXFP8Train_ScaleLayoutEnum : I32EnumAttr<"ScaleLayout",
    "Memory layout of an e8m0 scale tensor", [
      I32EnumAttrCase<"RowMajor", 0, "row_major">,
      I32EnumAttrCase<"Blocked", 1, "blocked">,
      I32EnumAttrCase<"BlockedMGroups", 2, "blocked_m_groups">,
      I32EnumAttrCase<"BlockedKGroups", 3, "blocked_k_groups">,
      I32EnumAttrCase<"BlockedPerExpert", 4, "blocked_per_expert">]> {
  let cppNamespace = "::mlir::mxfp8train";
  let genSpecializedAttr = 0;
}

def MXFP8Train_GemmKernelEnum : I32EnumAttr<"GemmKernel",
    "Which GPU kernel multiplies an MX GEMM (docs/gpu.md)", [
      I32EnumAttrCase<"DequantBF16", 0, "dequant_bf16">,
      I32EnumAttrCase<"FusedUpcastWS", 1, "fused_upcast_ws">,
      I32EnumAttrCase<"FusedUpcast", 2, "fused_upcast">]> {
  let cppNamespace = "::mlir::mxfp8train";
  let genSpecializedAttr = 0;
}

def MXFP8Train_ScaleLayoutAttr
    : EnumAttr<MXFP8Train_Dialect, MXFP8Train_ScaleLayoutEnum, "scale_layout"> {
  let summary = "Scale layout: row_major, or the blocked tcgen05 layout (SPEC §4.1)";
  let description = [{
    `row_major`: the scale tensor has the data's shape with the blocked axis
    divided by 32, stored row-major (torchao `to_mx` output).

    `blocked`: the 2-D scale matrix `S (R, C)` (R = rows of the operand, C =
    K/32) padded with byte 0x00 to `(ceil(R/128)*128, ceil(C/4)*4)` and
    swizzled by torchao `to_blocked` (cuBLAS "32_4_4"): a 1-D tensor of
    `ceil(R/128)*ceil(C/4)*512` bytes where
    `off(r,c) = ((r/128)*ceil(C/4) + c/4)*512 + (r%32)*16 + ((r%128)/32)*4 + c%4`.
    Rank-2 operands only; the scale matrix is (non-blocked dim, blocked
    dim / 32) whichever axis is blocked.

    The grouped layouts of `torch._scaled_grouped_mm` (SPEC §4.2), each a
    concatenation of per-group `to_blocked` results at a computable offset,
    with byte 0x00 everywhere else:

    `blocked_m_groups` (2d-3d lhs, groups along rows): 1-D,
    `(R + 128*G) * ceil(C/4)*4` bytes; group g starts at row
    `Σ_{i<g} ceil(n_i/128)*128` of a `(R + 128*G, ceil(C/4)*4)` matrix.

    `blocked_k_groups` (2d-2d operands, groups along the scale columns
    `offs/32`): 1-D, `ceil(R/128)*128 * (C + 4*G)` bytes; group g starts at
    flat offset `Σ_{i<g} ceil(c_i/4)*4 * ceil(R/128)*128`.

    `blocked_per_expert` (2d-3d rhs, 3-D `(E, R, C)` scales): 2-D
    `(E, ceil(R/128)*128 * ceil(C/4)*4)`, one `to_blocked` per expert.
  }];
}

//===----------------------------------------------------------------------===//
// Recipe
//===----------------------------------------------------------------------===//

def MXFP8Train_RecipeAttr : MXFP8Train_Attr<"Recipe", "recipe",
    [MXFP8Train_RecipeAttrInterface]> {
  let summary = "MXFP8 training recipe (torchao MXFP8TrainingOpConfig, SPEC §5.1)";
  let description = [{
    How the matmuls of a training graph are converted to MXFP8. The fields
    mirror torchao's `MXFP8TrainingOpConfig` (named `MXFP8TrainingConfig` in the
    seeds), which configures both `linear` and `grouped_mm`:

    | field | default | meaning |
    |---|---|---|
    | `elem_type` | `f8E4M3FN` | element type of every quantized operand (`f8E4M3FN` or `f8E5M2`) |
    | `scale_calculation_mode` | `rceil` | `floor`, `rceil`, `ceil`, `even` (SPEC §2) |
    | `wgrad_with_hp` | `false` | keep the weight-gradient GEMM in high precision |
    | `out_dtype` | `bf16` | result type of grouped GEMMs (`bf16` or `f32`) |
    | `pad_token_groups` | `false` | pad token groups so 32-row blocks never straddle two experts (SPEC §7.3) |
    | `token_group_alignment` | `32` | alignment of padded token groups, 32 or 128 |
    | `kernel_preference` | `auto` | `auto` or `emulated` |

    The named recipes of torchao's `MXFP8TrainingRecipe` are accepted as a
    single keyword and printed that way when the fields match exactly:
    `mxfp8_rceil` (the defaults), `mxfp8_rceil_wgrad_with_hp`
    (`wgrad_with_hp = true`) and `mxfp8_emulated_rceil`
    (`kernel_preference = emulated`).

    Errors: `elem_type` other than `f8E4M3FN` / `f8E5M2`, `out_dtype` other
    than `bf16` / `f32`, `token_group_alignment` other than 32 / 128, an
    unknown field or recipe name, a field given twice, a value of the wrong
    kind (`true` / `false` for the flags, the enum spellings above).

    ```mlir
    #mxfp8train.recipe<mxfp8_rceil>
    #mxfp8train.recipe<scale_calculation_mode = floor, wgrad_with_hp = true>
    ```
  }];
  let parameters = (ins
    "::mlir::Type":$elemType,
    "::mlir::mxfp8train::ScaleMode":$scaleMode,
    "bool":$wgradWithHp,
    "::mlir::Type":$outDtype,
    "bool":$padTokenGroups,
    "int64_t":$tokenGroupAlignment,
    "::mlir::mxfp8train::KernelPreference":$kernelPreference);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The recipe with every field at torchao's default (`mxfp8_rceil`).
    static RecipeAttr getDefault(::mlir::MLIRContext *context);
    /// The named torchao recipe `name` (`mxfp8_rceil`,
    /// `mxfp8_rceil_wgrad_with_hp`, `mxfp8_emulated_rceil`), or null.
    static RecipeAttr getNamed(::mlir::MLIRContext *context,
                               ::llvm::StringRef name);
    /// The name of the torchao recipe equal to this one, or "".
    ::llvm::StringRef getRecipeName() const;

    // RecipeAttrInterface.
    bool isFloat8() const { return false; }
    ::mlir::Type getForwardElemType() const { return getElemType(); }
    ::mlir::Type getGroupedOutDtype() const { return getOutDtype(); }
    bool hasHighPrecisionWgrad() const { return getWgradWithHp(); }
    int64_t getTokenGroupPadding() const {
      return getPadTokenGroups() ? getTokenGroupAlignment() : 0;
    }
    bool isHighPrecisionGemm(MatmulRole role, bool grouped) const {
      return role == MatmulRole::Wgrad && getWgradWithHp();
    }
    RecipeOperandCast getOperandCast(MatmulRole role, bool grouped,
                                     unsigned operand) const {
      return {getElemType(), std::nullopt, getScaleMode(), /*pow2=*/false};
    }
    bool usesFastAccum(MatmulRole role, bool grouped) const { return false; }
    bool isEmulated() const {
      return getKernelPreference() == KernelPreference::Emulated;
    }
  }];
}

def MXFP8Train_Float8LinearRecipeEnum : I32EnumAttr<"Float8LinearRecipe",
    "torchao Float8LinearRecipeName (SPEC-float8 §4.2)", [
      I32EnumAttrCase<"Tensorwise", 0, "float8_tensorwise">,
      I32EnumAttrCase<"Rowwise", 1, "float8_rowwise">,
      I32EnumAttrCase<"RowwiseWithGwHp", 2, "float8_rowwise_with_gw_hp">]> {
  let cppNamespace = "::mlir::mxfp8train";
  let genSpecializedAttr = 0;
}

def MXFP8Train_Float8RecipeAttr
    : MXFP8Train_Attr<"Float8Recipe", "float8_recipe",
                      [MXFP8Train_RecipeAttrInterface]> {
  let summary = "Float8 training recipe (torchao Float8TrainingOpConfig, "
                "SPEC-float8 §4)";
  let description = [{
    How the matmuls of a training graph are converted to Float8 (f32
    tensorwise or rowwise scales). The first entry is the linear recipe, by
    torchao's name; the grouped recipe `fp8_rowwise` (torchao
    `Float8TrainingRecipe.FP8_ROWWISE`, the default `Float8TrainingOpConfig`)
    is accepted as a synonym of `float8_rowwise` and printed that way. The
    fields that change numerics follow, each optional:

    | field | default | meaning |
    |---|---|---|
    | `float8_dtype` | `f8E4M3FN` | grouped GEMM operands (`f8E4M3FN`; `f8E5M2` is accepted but torch rejects it on CUDA, F10) |
    | `out_dtype` | `bf16` | result type of grouped GEMMs (`bf16` or `f32`) |
    | `pad_token_groups` | `false` | pad token groups to multiples of 16 rows (SPEC-float8 §6.3) |
    | `round_scales_to_power_of_2` | `false` for `float8_tensorwise`, else `true` | torchao `round_scales_to_power_of_2` (SPEC-float8 §2.4) |

    The per-GEMM element types and granularities follow from the recipe
    (SPEC-float8 §4.2): tensorwise uses `f8E5M2` for grad_output;
    `float8_rowwise_with_gw_hp` keeps the weight gradient in high precision.

    Errors: an unknown recipe name or field, a field given twice, the recipe
    name missing or not first, `float8_dtype` other than `f8E4M3FN` /
    `f8E5M2`, `out_dtype` other than `bf16` / `f32`.

    ```mlir
    #mxfp8train.float8_recipe<float8_rowwise>
    #mxfp8train.float8_recipe<float8_tensorwise, round_scales_to_power_of_2 = true>
    #mxfp8train.float8_recipe<fp8_rowwise, pad_token_groups = true>
    ```
  }];
  let parameters = (ins
    EnumParameter<MXFP8Train_Float8LinearRecipeEnum>:$linearRecipe,
    "::mlir::Type":$float8Dtype,
    "::mlir::Type":$outDtype,
    "bool":$padTokenGroups,
    "bool":$roundScalesToPowerOf2);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The recipe `linearRecipe` with every other field at torchao's default.
    static Float8RecipeAttr getDefault(::mlir::MLIRContext *context,
                                       Float8LinearRecipe linearRecipe);

    // RecipeAttrInterface.
    /// The linear recipe's name when every other field is at its default,
    /// else "".
    ::llvm::StringRef getRecipeName() const;
    bool isFloat8() const { return true; }
    ::mlir::Type getForwardElemType() const { return getFloat8Dtype(); }
    ::mlir::Type getGroupedOutDtype() const { return getOutDtype(); }
    bool hasHighPrecisionWgrad() const {
      return getLinearRecipe() == Float8LinearRecipe::RowwiseWithGwHp;
    }
    int64_t getTokenGroupPadding() const {
      return getPadTokenGroups() ? 16 : 0;
    }
    /// rowwise_with_gw_hp's dense weight gradient (SPEC-float8 §4.2); the
    /// grouped recipe has no high-precision option (§4.4).
    bool isHighPrecisionGemm(MatmulRole role, bool grouped) const {
      return !grouped && role == MatmulRole::Wgrad &&
             getLinearRecipe() == Float8LinearRecipe::RowwiseWithGwHp;
    }
    /// SPEC-float8 §4.2 (dense) and §4.4 (grouped).
    RecipeOperandCast getOperandCast(MatmulRole role, bool grouped,
                                     unsigned operand) const;
    /// torchao's `use_fast_accum`: the dense output GEMM only
    /// (Float8LinearConfig `gemm_config_output`, SPEC-float8 §4.1); every
    /// grouped GEMM (`fp8_grouped_mm.py`, SPEC-float8 §4.4).
    bool usesFastAccum(MatmulRole role, bool grouped) const {
      return grouped || role == MatmulRole::Forward;
    }
    bool isEmulated() const { return false; }
  }];
}

//===----------------------------------------------------------------------===//
// GPU GEMM configuration
//===----------------------------------------------------------------------===//

/// A `true`/`false` parameter.
class MXFP8Train_BoolParameter<string default>
    : DefaultValuedParameter<"bool", default> {
  let parser = [{ ::mlir::mxfp8train::parseBoolParameter($_parser) }];
  let printer = [{ $_printer << ($_self ? "true" : "false") }];
}

/// An enum parameter with a default.
class MXFP8Train_DefaultValuedEnumParameter<EnumAttrInfo info, string default>
    : EnumParameter<info> {
  let defaultValue = default;
}

def MXFP8Train_GemmConfigAttr : MXFP8Train_Attr<"GemmConfig", "gemm_config"> {
  let summary = "Kernel and tuning of the GPU lowering of one MX GEMM";
  let description = [{
    Attached to `scaled_mm` or `scaled_grouped_mm` as the discardable
    attribute `mxfp8train.gemm_config`, it selects the kernel
    `convert-mxfp8train-to-gpu` emits for the op and its tuning
    (docs/gpu.md, "GEMM kernels"). The attribute is chip-neutral: each
    chip's lowering reads the fields that apply to it and ignores the
    others (sm_90a reads all but `cta_group`; sm_100a only `cta_group`).
    Every field is optional; an absent field keeps the default, which is
    the measured best (on sm_100a: the 1-CTA kernel, until a B200
    measures the 2-CTA one). The op's results do not depend on it: every
    kernel is exact.

    | field | values | default | meaning |
    |---|---|---|---|
    | `kernel` | `dequant_bf16`, `fused_upcast_ws`, `fused_upcast` | `dequant_bf16` | `dequant_bf16` (v8): dequantization pre-passes into bf16, a warp-specialised bf16 wgmma GEMM, and a guarded fallback (the fused upcast) for scale bytes bf16 cannot hold exactly; `fused_upcast_ws` (v7): warp-specialised upcast in the GEMM, for K-major operands with row-major scales (others get `fused_upcast`); `fused_upcast` (v5): every warp loads, upcasts and multiplies |
    | `stages` | 2-6 (`dequant_bf16` with `tile_n = 256`: 2-4) | 4 (`fused_upcast`: always 3) | shared-memory stages of the ring; also the fallback's |
    | `tile_n` | 128, 256 | 256 | `dequant_bf16` only: CTA tile columns |
    | `dequant_ctas` | >= 0 | 64 | `dequant_bf16` only: CTAs per SM of a pre-pass at most (0: no cap) |
    | `prefetch` | 1-4 | 2 (`fused_upcast`: 1) | fused upcast: contraction tiles loaded ahead |
    | `ctas_per_sm` | 1, 2 | 2 for K-major operands with row-major scales, else 1 | `fused_upcast` only: resident CTAs per SM (`.minnctapersm`) |
    | `rebalance` | `true`, `false` | `true` | fused upcast: the per-block scale rebalancing that keeps extreme scale pairs exact (`false` is inexact for them; for measurements) |
    | `converters` | 1, 2 | 2 | `fused_upcast_ws`: converter warpgroups |
    | `cta_group` | 1, 2 | 1 | sm_100a only: 1 for the 1-CTA tcgen05 kernel (128 x 256 tiles per CTA), 2 for the 2-CTA kernel (`cta_group::2`: a cluster of two CTAs per 256 x 256 tile) |
    | `cluster_m` | 1, 2 | the lowering's `gemm-cluster-m` if not 0, else per form: 2 for grouped GEMMs (Float8: with 128 x 256 tiles and fast accumulation), 1 for dense | sm_90a `dequant_bf16` and Float8 kernels: 2 runs them as clusters of two CTAs on M-adjacent tiles that load their shared B tile once (TMA multicast); the results are the same bits |

    The fused-upcast fields also configure `dequant_bf16`'s fallback.

    Errors: a value outside its range above; `tile_n` or `dequant_ctas`
    with a kernel other than `dequant_bf16`; `stages` or `converters` with
    `kernel = fused_upcast`; `stages` above 4 with `dequant_bf16` and
    `tile_n = 256` (five 48 KiB stages do not fit in shared memory);
    `cluster_m` with a kernel other than `dequant_bf16`.

    ```mlir
    %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
        {mxfp8train.gemm_config = #mxfp8train.gemm_config<tile_n = 128, stages = 6>}
        : ...
    #mxfp8train.gemm_config<kernel = fused_upcast_ws, prefetch = 1, rebalance = false>
    #mxfp8train.gemm_config<cta_group = 2>
    #mxfp8train.gemm_config<cluster_m = 2>
    ```
  }];
  let parameters = (ins
    MXFP8Train_DefaultValuedEnumParameter<MXFP8Train_GemmKernelEnum,
        "::mlir::mxfp8train::GemmKernel::DequantBF16">:$kernel,
    OptionalParameter<"std::optional<int64_t>",
        "shared-memory stages of the ring (2-6)">:$stages,
    OptionalParameter<"std::optional<int64_t>",
        "dequant_bf16: CTA tile columns (128, 256)">:$tile_n,
    OptionalParameter<"std::optional<int64_t>",
        "dequant_bf16: CTAs per SM of a pre-pass at most (0: no cap)">:$dequant_ctas,
    OptionalParameter<"std::optional<int64_t>",
        "fused upcast: contraction tiles loaded ahead (1-4)">:$prefetch,
    OptionalParameter<"std::optional<int64_t>",
        "fused_upcast: resident CTAs per SM (1, 2)">:$ctas_per_sm,
    MXFP8Train_BoolParameter<"true">:$rebalance,
    OptionalParameter<"std::optional<int64_t>",
        "fused_upcast_ws: converter warpgroups (1, 2)">:$converters,
    OptionalParameter<"std::optional<int64_t>",
        "sm_100a: CTAs per tcgen05 MMA (1, 2)">:$cta_group,
    OptionalParameter<"std::optional<int64_t>",
        "sm_90a: CTAs of the cluster along M (1, 2)">:$cluster_m);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The name of the discardable attribute that carries it.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return ::llvm::StringLiteral("mxfp8train.gemm_config");
    }
  }];
}

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINATTRS_TD
