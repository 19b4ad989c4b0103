// RUN: mxfp8-opt %s -split-input-file -verify-diagnostics \
// RUN:   --convert-shard-to-runtime-collectives

shard.grid @grid(shape = 2x2)
func.func @subset_of_grid_axes(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'shard.all_reduce' op over grid axes [1] of @grid (shape 2, 2) is not supported: the runtime collectives run over the whole grid in rank order (grid_axes = [0, 1]), one communicator per program}}
  %r = shard.all_reduce %x on @grid grid_axes = [1] reduction = sum : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2x2)
func.func @grid_axes_out_of_rank_order(%x: tensor<4xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'shard.all_gather' op over grid axes [1, 0] of @grid (shape 2, 2) is not supported}}
  %r = shard.all_gather %x on @grid grid_axes = [1, 0] gather_axis = 0 : tensor<4xf32> -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @f16_payload(%x: tensor<4xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{'shard.all_gather' op element type 'f16' is not supported by the runtime collectives (bf16, f32, i32, i64 and 8-bit types: f8E4M3FN, f8E5M2, f8E8M0FNU, i8)}}
  %r = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 0 : tensor<4xf16> -> tensor<8xf16>
  return %r : tensor<8xf16>
}

// -----

shard.grid @grid(shape = 2)
func.func @min_reduction(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'shard.all_reduce' op reduction min is not supported by the runtime collectives (sum, max)}}
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = min : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @reduce_fp8_bytes(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'shard.all_reduce' op reduces 'f8E4M3FN' elements: 8-bit payloads (fp8 data, e8m0 scales) are moved, never reduced; reduce in f32 or bf16}}
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = sum : tensor<4xf8E4M3FN> -> tensor<4xf8E4M3FN>
  return %r : tensor<4xf8E4M3FN>
}

// -----

shard.grid @grid(shape = 2)
func.func @widening_all_reduce(%x: tensor<4xbf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'shard.all_reduce' op converts 'bf16' to 'f32': the runtime collectives keep the element type (convert before or after the collective)}}
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = sum : tensor<4xbf16> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @memref_all_reduce(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-error @+1 {{'shard.all_reduce' op on memrefs is not supported: lower it before bufferization}}
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = sum : memref<4xf32> -> memref<4xf32>
  return %r : memref<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @broadcast(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'shard.broadcast' op is not lowered to the runtime collectives (all_reduce, all_gather, reduce_scatter, all_to_all, all_slice and the process index ops are)}}
  %r = shard.broadcast %x on @grid grid_axes = [0] root = [0] : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func private @mxfp8rtShardAllReduce(index) -> i32
shard.grid @grid(shape = 2)
func.func @clashing_declaration(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = sum : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// expected-error @-6 {{'func.func' op declares the runtime function @mxfp8rtShardAllReduce with type '(index) -> i32', expected '(index, index, index, i32, i32, index) -> i32'}}

// -----

// The MoE exchange runs over the bound communicator too: the whole grid.
shard.grid @grid(shape = 2x2)
func.func @moe_dispatch_over_subset_of_grid(%q: tensor<8x32xf8E4M3FN>, %s: tensor<8x1xf8E8M0FNU>, %route: tensor<8xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{'mxfp8train.moe_dispatch' op over grid axes [1] of @grid (shape 2, 2) is not supported: the runtime collectives run over the whole grid in rank order (grid_axes = [0, 1]), one communicator per program}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @grid grid_axes = [1] num_experts = 4 capacity = 32
      : tensor<8x32xf8E4M3FN> [tensor<8x1xf8E8M0FNU>], tensor<8xi32> -> tensor<32x32xf8E4M3FN>, tensor<32x1xf8E8M0FNU>, tensor<2xi32>, tensor<8xi32>
  return %offs : tensor<2xi32>
}

// -----

shard.grid @grid(shape = ?)
func.func @moe_combine_on_dynamic_grid(%y: tensor<32x16xbf16>, %route: tensor<8xi32>, %counts: tensor<8xi32>) -> tensor<8x16xbf16> {
  // expected-error @+1 {{'mxfp8train.moe_combine' op needs a static grid shape: @grid has a dynamic size}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @grid grid_axes = [0] num_experts = 4 capacity = 32
      : tensor<32x16xbf16>, tensor<8xi32>, tensor<8xi32> -> tensor<8x16xbf16>
  return %out : tensor<8x16xbf16>
}
