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
  let summary = "Replace eligible linalg matmuls and grouped_mm ops with "
                "quantize + scaled_mm / scaled_grouped_mm";
  let description = [{
    Rewrites bf16/f32 `linalg.matmul` and `linalg.batch_matmul` (default
    maps, transposes through `indexing_maps`, or operands produced by a
    `linalg.transpose` or by a `linalg.generic` that only permutes, which is
    looked through: its input is quantized along the matching axis and the
    transpose is erased when dead) into
    `mxfp8train.quantize` of each stored operand along its contraction
    dimension followed by `mxfp8train.scaled_mm` with the matmul's result
    type, following the recipe (torchao `MXFP8TrainingOpConfig`, SPEC §5-§6).
    Each tensor is quantized at most once per axis. A zero `outs` init is
    dropped, a `linalg.broadcast` of a 1-D tensor becomes the `bias`, any
    other init is added after the product in f32 and rounded once. A
    `scaled_mm` whose f32 result is only truncated to bf16 (an elementwise
    `linalg.generic` of a lone `arith.truncf`, or `arith.truncf` of the
    tensor) returns bf16 itself: the same bits, without the f32 tensor.
    With `kernel_preference = emulated` each operand is quantized and
    dequantized back to its type and the matmul stays in high precision
    (torchao EMULATED, SPEC §3.1).

    Training role (recorded as `mxfp8train.role` on each `scaled_mm`):
    a matmul whose lhs is contracted over its stored dim 0 (read transposed)
    and whose rhs is contracted over its stored dim 0 (not transposed)
    contracts over the token dimension of both operands: it is the
    weight-gradient matmul `dOᵀ @ x` (`wgrad`). Otherwise a rhs contracted
    over its last stored dim (stored `(N, K)`) makes it `forward`
    (`x @ Wᵀ`), else `dgrad` (`dO @ W`). "Stored" is after looking through
    the views producing the operand (transposes, batch broadcasts,
    reshapes that keep the contraction dimension, `tensor.cast`). A `mxfp8train.role = "forward" | "dgrad" | "wgrad"` attribute
    on the matmul overrides the rule. With `wgrad_with_hp = true`, wgrad
    matmuls stay in high precision. grad_output (e5m2 under
    `float8_tensorwise`) is a backward GEMM's lhs, as in torchao's operand
    order, unless `mxfp8train.grad_output = "rhs"` says otherwise or, for a
    wgrad, the GEMMs that read its operands show it (`dW = xᵀ @ dO` next
    to a `forward` `x @ W`); the `scaled_mm` then records
    `mxfp8train.grad_output = "rhs"` (docs/rewrite.md).

    `mxfp8train.grouped_mm` (MoE experts, SPEC §7) is converted by the same
    recipe: each operand is quantized along its contraction dimension (2d-3d
    with weights stored `(E, N, K)` is `forward`, `(E, K, N)` is `dgrad`,
    2d-2d is `wgrad`, quantized along the tokens) into
    `mxfp8train.scaled_grouped_mm`, with the result type kept (a narrower
    recipe `out_dtype` is rounded to first). Token-major operands are padded
    with `pad_token_groups` (alignment `token_group_alignment`) and 2d-3d
    results unpadded when the recipe has `pad_token_groups = true`, and
    always for 2d-2d unless its offs are known multiples of 32 (a constant,
    a `pad_token_groups` result, or `mxfp8train.offs_alignment` on the op):
    32-token blocks must not straddle two experts. A tensor is padded once.

    A Float8 recipe (`#mxfp8train.float8_recipe`, torchao
    `Float8TrainingOpConfig`, SPEC-float8 §4) converts the same matmuls into
    Float8 `quantize` (f32 tensorwise or axiswise scales) + `scaled_mm` /
    `scaled_grouped_mm`, each operand cast as SPEC-float8 §4.2 says for its
    role (e5m2 grad_output for tensorwise; the tensorwise weight of
    rowwise_with_gw_hp's dgrad, whose wgrad stays in high precision;
    grouped GEMMs e4m3 rowwise power-of-2, token groups padded to 16 with
    `pad_token_groups = true`). K and N must be multiples of 16. The 2d-2d
    grouped wgrad quantizes both operands per token group (`quantize
    offs(...)`, one scale per group and column, docs/float8.md).

    The module records the recipe as `mxfp8train.recipe` (the recipe
    attribute, ConvertedRecipe.h): `mxfp8-compile` takes the SQNR bars of
    its manifest from it (Runner/Bars.h, MX SPEC §8, Float8 SPEC-float8 §7),
    and `mxfp8-run --compare` its bars and per-matmul probes. A module that
    already records another recipe (a second run with another recipe, or
    the attribute written by hand) is an error at the module when this run
    converts a matmul: one recorded recipe could not describe both sets of
    GEMMs (until session 34 the second recipe replaced the first, and
    compare mode held the first set to the second recipe's bars).

    Skipped (with the reason in a remark): other element types, broadcast
    operands, transposed results, dynamic shapes, K not a multiple of 32,
    M, N or K below `min-size`, and locations holding a NameLoc whose name
    contains an `exclude` string. With `remarks=true`, every matmul converted
    or skipped gets a remark at its own location saying what was done and
    why (`mxfp8-run --compare` prints them; off by default, as upstream
    passes keep their remarks to themselves unless asked).

    ```mlir
    // Before:
    %0 = linalg.matmul
        indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                         affine_map<(m, n, k) -> (n, k)>,
                         affine_map<(m, n, k) -> (m, n)>]
        ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
        outs(%zero : tensor<64x256xbf16>) -> tensor<64x256xbf16>
    // After:
    %xq, %xs = mxfp8train.quantize %x axis = 1 mode = rceil
        : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
    %wq, %ws = mxfp8train.quantize %w axis = 1 mode = rceil
        : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<256x4xf8E8M0FNU>
    %0 = mxfp8train.scaled_mm %xq [%xs], %wq [%ws] transpose_rhs
        {mxfp8train.role = "forward"}
        : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>],
          tensor<256x128xf8E4M3FN> [tensor<256x4xf8E8M0FNU>]
          -> tensor<64x256xbf16>
    ```

    See docs/rewrite.md.
  }];
  let options = [
    Option<"recipe", "recipe", "std::string", "\"mxfp8_rceil\"",
           "Recipe: a torchao recipe name (mxfp8_rceil, "
           "mxfp8_rceil_wgrad_with_hp, mxfp8_emulated_rceil, "
           "float8_tensorwise, float8_rowwise, float8_rowwise_with_gw_hp, "
           "fp8_rowwise) or the body of a #mxfp8train.recipe<...> or "
           "#mxfp8train.float8_recipe<...> attribute">,
    Option<"minSize", "min-size", "int64_t", "0",
           "Skip matmuls with M, N or K smaller than this">,
    ListOption<"exclude", "exclude", "std::string",
               "Skip matmuls whose location name contains one of these "
               "strings (torchao filters by module FQN)">,
    Option<"emitRemarks", "remarks", "bool", "false",
           "Emit a remark at every matmul converted or skipped, with the "
           "reason">
  ];
  let statistics = [
    Statistic<"numConverted", "num-converted",
              "Number of matmuls converted to MXFP8">,
    Statistic<"numSkipped", "num-skipped",
              "Number of matmuls left as they were (including wgrad kept in "
              "high precision)">,
    Statistic<"numKeptHighPrecision", "num-wgrad-hp",
              "Number of wgrad matmuls kept in high precision by "
              "wgrad_with_hp">
  ];
  let dependentDialects = [
    "::mlir::mxfp8train::MXFP8TrainDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::arith::ArithDialect"
  ];
}

def MXFP8TrainQuantizeBeforeAllGatherPass
    : Pass<"mxfp8train-quantize-before-all-gather"> {
  let summary = "Quantize a gathered weight's shards before the all-gather "
                "(FSDP fp8 all-gather: fp8 data and e8m0 scales travel)";
  let description = [{
    After `shard-partition`, a weight split along its rows (FSDP) that an op
    needs whole is `shard.all_gather`ed in high precision and then quantized
    on every process. This pass moves a `quantize` or `quantize_dual` of the
    gathered tensor before the gather when that gives the same bytes: each
    process quantizes its own shard, then the fp8 data and the scales of
    every cast are all-gathered along the same axis (scales of a `blocked`
    layout as their 1-D byte sequence). A bf16 weight then moves
    1 + 1/32 bytes per element instead of 2 (per cast).

    Exact, and moved, when every block or amax group of each cast lies
    inside one shard (`g`: the gather axis, `L`: the shard's size along it):
    - MX 1x32 / 32x1 blocks along `axis != g`: always;
    - MX blocks along `axis == g`: when `L % 32 == 0`;
    - MX `blocked` scales: `axis != g` and `L % 128 == 0` (whole 128-row
      tiles are contiguous bytes, SPEC §4.1);
    - Float8 axiswise (rowwise) with `axis != g`: the amax runs along a
      dimension each shard holds whole.
    Left in place, with the reason in a remark (`remarks=true`): a split
    32-element block, partial 128-row tiles, `blocked` scales along the
    gather axis, a Float8 tensorwise cast (one amax of the whole tensor) or
    an axiswise one along the gather axis, per-group Float8 scales (`offs`),
    dynamic shapes, and a gathered tensor that has users other than movable
    quantizes (the high-precision gather would stay as well).

    ```mlir
    // Before (one process of a 2-process grid):
    %w = shard.all_gather %ws on @grid grid_axes = [0] gather_axis = 0
        : tensor<64x128xbf16> -> tensor<128x128xbf16>
    %q, %s = mxfp8train.quantize %w axis = 1 mode = rceil
        : tensor<128x128xbf16> -> tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
    // After:
    %lq, %ls = mxfp8train.quantize %ws axis = 1 mode = rceil
        : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
    %q = shard.all_gather %lq on @grid grid_axes = [0] gather_axis = 0
        : tensor<64x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %s = shard.all_gather %ls on @grid grid_axes = [0] gather_axis = 0
        : tensor<64x4xf8E8M0FNU> -> tensor<128x4xf8E8M0FNU>
    ```

    Run it after `shard-partition` and before
    `convert-shard-to-runtime-collectives` (docs/sharding.md).
  }];
  let options = [
    Option<"emitRemarks", "remarks", "bool", "false",
           "Emit a remark at every quantize of a gathered tensor that is "
           "left in place, with the reason">
  ];
  let statistics = [
    Statistic<"numMoved", "num-moved",
              "Number of quantize / quantize_dual ops moved before their "
              "all-gather">
  ];
  let dependentDialects = [
    "::mlir::mxfp8train::MXFP8TrainDialect",
    "::mlir::shard::ShardDialect"
  ];
}

def MXFP8TrainQuantizeBeforeAllToAllPass
    : Pass<"mxfp8train-quantize-before-all-to-all"> {
  let summary = "Quantize tokens before the all-to-all that moves them "
                "(expert-parallel dispatch in MXFP8: fp8 data and scales "
                "travel)";
  let description = [{
    After `shard-partition`, a tensor resharded between two split axes (the
    tokens of an expert-parallel layer moving to the processes of their
    experts) is exchanged by `shard.all_to_all` in high precision and then
    quantized on every process. This pass moves a `quantize` or
    `quantize_dual` of the exchanged tensor before the exchange when that
    gives the same bytes: each process quantizes its local tensor, then the
    fp8 data and the scales of every cast are exchanged with the same split
    and concat axes (torchao's "quantize once before the all-to-all, stay in
    MXFP8", docs/sharding.md). A bf16 token moves 1 + 1/32 bytes per element
    instead of 2 (per cast).

    An all-to-all over `P` processes cuts its local input along
    `split_axis` into `P` pieces of `S / P` elements (`S`: the input's size
    along it) and concatenates the received pieces along `concat_axis`, each
    `C` elements (the input's size along it). Exact, and moved, when every
    block or amax group of each cast lies inside one piece on both sides:
    - MX 1x32 / 32x1 blocks along `axis` other than both axes: always;
    - MX blocks along `axis == split_axis`: when `(S / P) % 32 == 0`; along
      `axis == concat_axis`: when `C % 32 == 0`;
    - Float8 axiswise (rowwise) along neither axis.
    Left in place, with the reason in a remark (`remarks=true`): a split
    block, `blocked` scales (their 1-D bytes interleave 128-row tiles), a
    Float8 axiswise cast along either axis, a tensorwise cast, per-group
    Float8 scales, dynamic shapes, and an exchanged tensor that has users
    other than movable quantizes (the high-precision exchange would stay).

    ```mlir
    // Before (one process of a 2-process grid): rows move to a split of K.
    %t = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 1
        concat_axis = 0 : tensor<8x64xbf16> -> tensor<16x32xbf16>
    %q, %s = mxfp8train.quantize %t axis = 1 mode = rceil
        : tensor<16x32xbf16> -> tensor<16x32xf8E4M3FN>, tensor<16x1xf8E8M0FNU>
    // After:
    %lq, %ls = mxfp8train.quantize %x axis = 1 mode = rceil
        : tensor<8x64xbf16> -> tensor<8x64xf8E4M3FN>, tensor<8x2xf8E8M0FNU>
    %q = shard.all_to_all %lq on @grid grid_axes = [0] split_axis = 1
        concat_axis = 0 : tensor<8x64xf8E4M3FN> -> tensor<16x32xf8E4M3FN>
    %s = shard.all_to_all %ls on @grid grid_axes = [0] split_axis = 1
        concat_axis = 0 : tensor<8x2xf8E8M0FNU> -> tensor<16x1xf8E8M0FNU>
    ```

    Run it after `shard-partition` and before
    `convert-shard-to-runtime-collectives` (docs/sharding.md).
  }];
  let options = [
    Option<"emitRemarks", "remarks", "bool", "false",
           "Emit a remark at every quantize of an exchanged tensor that is "
           "left in place, with the reason">
  ];
  let statistics = [
    Statistic<"numMoved", "num-moved",
              "Number of quantize / quantize_dual ops moved before their "
              "all-to-all">
  ];
  let dependentDialects = [
    "::mlir::mxfp8train::MXFP8TrainDialect",
    "::mlir::shard::ShardDialect"
  ];
}

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_PASSES_TD
