//===- MoeExchangeOps.td - MXFP8 expert-parallel exchange -*- tablegen -*-===//
//
// moe_dispatch and moe_combine: the token exchange of an expert-parallel MoE
// layer that keeps the tokens in MXFP8 on the wire (docs/sharding.md).
// Included by MXFP8TrainOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MOEEXCHANGEOPS_TD
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MOEEXCHANGEOPS_TD

include "mlir/IR/SymbolInterfaces.td"

// The attributes both ops take: the ranks (the processes of `grid` along
// `grid_axes`, as the shard collectives name them), the expert count, the
// rows each rank can receive and the row alignment of each expert group.
defvar MXFP8Train_MoeExchangeAttrs = (ins
    FlatSymbolRefAttr:$grid,
    DefaultValuedAttr<DenseI16ArrayAttr, "{}">:$grid_axes,
    I64Attr:$num_experts,
    I64Attr:$capacity,
    DefaultValuedAttr<I64Attr, "32">:$alignment);

//===----------------------------------------------------------------------===//
// moe_dispatch
//===----------------------------------------------------------------------===//

def MXFP8Train_MoeDispatchOp : MXFP8Train_Op<"moe_dispatch",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Send MX-quantized tokens to the ranks holding their experts (fp8 data and e8m0 scales on the wire)";
  let description = [{
    The dispatch of an expert-parallel MoE layer that stays in MXFP8
    (torchao `a2a_dispatch_mxfp8_fwd_hp_bwd` + `permute_mxfp8_fwd_hp_bwd`;
    runtime `mxfp8rtMoeDispatchMx`, docs/sharding.md). A collective over
    the ranks: the processes of `grid` along `grid_axes` (as the shard
    collectives name them), in their linear order. Every rank runs it with
    the same attributes.

    Operands on each rank: `data (T, K)` fp8 and `scales (T, K/32)` e8m0,
    the row-major 1x32 blocks along K that `mxfp8train.quantize axis = 1`
    produces, and `token_experts`, the global expert ids (i32) of every
    token's `topK` slots: `(T, topK)`, or flat `(T * topK)` with token t's
    slots at `t * topK ...`. The `num_experts` experts are split evenly over
    the `P` ranks in order: rank r holds `[r * E_local, (r + 1) * E_local)`,
    `E_local = num_experts / P`. Each slot travels as one row (a token
    routed to two experts of one rank travels twice).

    Results on each rank: `rows (C, K)` and `row_scales (C, K/32)`, the rows
    every rank sent to this rank's experts, grouped by local expert, inside
    a group by source rank, inside that in the source's (token, slot)
    order; each group starts at a multiple of `alignment` rows and padding
    rows (and rows past the last group) are zero bytes. `offs (E_local)`
    i32 holds each group's end, padding included: `rows`, `row_scales` and
    `offs` are the lhs operands of `scaled_grouped_mm` 2d-3d as they are.
    `counts (P * num_experts)` i32 is every rank's row count per
    destination rank and local expert (`counts[(s * P + r) * E_local + e]`,
    the same on every rank), which `moe_combine` takes back.

    `capacity` (C > 0) is the rows a rank can receive, padding included:
    more rows for any rank fail every rank at run time (tokens are never
    dropped). `alignment` (>= 1, default 32) is the row multiple of each
    group: 32 keeps the 32-row groups that the MX `scaled_grouped_mm`
    contract and the weight-gradient GEMM need; 1 packs the groups tightly.

    Errors: data not rank 2, K not a positive multiple of 32, scales not
    `(T, K/32)`, `token_experts` not `(T, topK)` or `(T * topK)` with
    topK >= 1, results not `(C, K)` of the data's type, `(C, K/32)`,
    `(E_local)` and `(P * num_experts)`, a dynamic shape, `num_experts`,
    `capacity` or `alignment` < 1, `grid` not a `shard.grid`, `grid_axes`
    out of range, repeated or naming a grid axis of size 0, `num_experts`
    not a multiple of `P` (static grids).

    ```mlir
    shard.grid @ep(shape = 4)
    %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route
        on @ep grid_axes = [0] num_experts = 8 capacity = 128
        : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32>
          -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>,
             tensor<32xi32>
    ```
  }];
  let arguments = !con((ins MXFP8Train_ElementTensor:$data,
                            MXFP8Train_ScaleTensor:$scales,
                            RankedTensorOf<[I32]>:$token_experts),
                       MXFP8Train_MoeExchangeAttrs);
  let results = (outs MXFP8Train_ElementTensor:$rows,
                      MXFP8Train_ScaleTensor:$row_scales,
                      RankedTensorOf<[I32]>:$offs,
                      RankedTensorOf<[I32]>:$counts);
  let assemblyFormat = [{
    $data `[` $scales `]` `,` $token_experts
    `on` $grid (`grid_axes` `=` $grid_axes^)?
    `num_experts` `=` $num_experts `capacity` `=` $capacity
    (`alignment` `=` $alignment^)? attr-dict
    `:` type($data) `[` type($scales) `]` `,` type($token_experts)
    `->` type($rows) `,` type($row_scales) `,` type($offs) `,` type($counts)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The tokens' slot count per token (topK) and the token count T, as
    /// the runtime call takes them.
    std::pair<int64_t, int64_t> getTokensAndTopK();
  }];
}

//===----------------------------------------------------------------------===//
// moe_combine
//===----------------------------------------------------------------------===//

def MXFP8Train_MoeCombineOp : MXFP8Train_Op<"moe_combine",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Return expert outputs to the ranks and slots their tokens came from";
  let description = [{
    The combine of an expert-parallel MoE layer (torchao
    `unpermute` + `a2a_combine`; runtime `mxfp8rtMoeCombine`,
    docs/sharding.md): the inverse exchange of a `moe_dispatch` with the
    same `grid`, `grid_axes`, `num_experts`, `capacity` and `alignment`.

    Operands on each rank: `expert_out (C, N)` bf16 or f32, row i the
    output of dispatched row i (the `scaled_grouped_mm` of the dispatched
    rows; padding rows are not read), the `token_experts` of the dispatch,
    and the `counts` it returned. Result: `(T * topK, N)` of the
    `expert_out` element type, row `t * topK + j` the output of token t's
    slot j (weighting and summing the slots is the caller's). Routing that
    does not match the dispatch's counts fails every rank at run time.

    Errors: `expert_out` not rank 2 with C = `capacity` rows and N >= 1,
    `token_experts` not rank 1 or `(T, topK)` with topK >= 1, `counts` not
    `(P * num_experts)` (static grids), the result not `(T * topK, N)` of
    the `expert_out` type, a dynamic shape, and the attribute rules of
    `moe_dispatch`.

    ```mlir
    %out = mxfp8train.moe_combine %y, %route counts(%counts)
        on @ep grid_axes = [0] num_experts = 8 capacity = 128
        : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<32xi32>
          -> tensor<80x32xbf16>
    ```
  }];
  let arguments = !con((ins MXFP8Train_HighPrecisionTensor:$expert_out,
                            RankedTensorOf<[I32]>:$token_experts,
                            RankedTensorOf<[I32]>:$counts),
                       MXFP8Train_MoeExchangeAttrs);
  let results = (outs MXFP8Train_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $expert_out `,` $token_experts `counts` `(` $counts `)`
    `on` $grid (`grid_axes` `=` $grid_axes^)?
    `num_experts` `=` $num_experts `capacity` `=` $capacity
    (`alignment` `=` $alignment^)? attr-dict
    `:` type($expert_out) `,` type($token_experts) `,` type($counts)
    `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The token count T and slots per token (topK) the runtime call takes:
    /// `(T, topK)` routing as it is, flat routing as (T * topK, 1), which
    /// orders the slots the same way.
    std::pair<int64_t, int64_t> getTokensAndTopK();
  }];
}

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MOEEXCHANGEOPS_TD
