// RUN: mxfp8-opt %s --pass-pipeline='builtin.module(func.func(shard-partition))' --split-input-file --verify-diagnostics

// shard-partition checks the (fully annotated) shardings it is given, not
// only those that sharding-propagation chose: scales must split like their
// data, blocks stay whole, and only even splits are accepted.

shard.grid @grid(shape = 2)
func.func @scales_do_not_follow_data(%a: tensor<64x128xf8E4M3FN>, %as: tensor<64x4xf8E8M0FNU>,
    %b: tensor<64x128xf8E4M3FN>, %bs: tensor<64x4xf8E8M0FNU>) -> tensor<64x64xbf16> {
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %a1 = shard.shard %a to %rows annotate_for_users : tensor<64x128xf8E4M3FN>
  %as1 = shard.shard %as to %cols annotate_for_users : tensor<64x4xf8E8M0FNU>
  %b1 = shard.shard %b to %rep annotate_for_users : tensor<64x128xf8E4M3FN>
  %bs1 = shard.shard %bs to %rep annotate_for_users : tensor<64x4xf8E8M0FNU>
  // expected-error @below {{'mxfp8train.scaled_mm' op inconsistent split of M: dimension 0 of operand #1 does not split like the other tensors that follow it (scales must shard with their data)}}
  %y = mxfp8train.scaled_mm %a1 [%as1], %b1 [%bs1] transpose_rhs
      : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>],
        tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>] -> tensor<64x64xbf16>
  %y1 = shard.shard %y to %rows : tensor<64x64xbf16>
  return %y1 : tensor<64x64xbf16>
}

// -----

shard.grid @grid(shape = 2)
func.func @quantize_cuts_block(%x: tensor<64x96xbf16>) -> tensor<64x96xf8E4M3FN> {
  %cols = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x1 = shard.shard %x to %cols annotate_for_users : tensor<64x96xbf16>
  // expected-error @below {{'mxfp8train.quantize' op cannot split dimension 1 (the quantized axis) (size 96) over 2 shards: 48 per shard is not a multiple of 32 (the 32-element scaling block)}}
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil
      : tensor<64x96xbf16> -> tensor<64x96xf8E4M3FN>, tensor<64x3xf8E8M0FNU>
  %q1 = shard.shard %q to %cols : tensor<64x96xf8E4M3FN>
  %qs1 = shard.shard %qs to %cols : tensor<64x3xf8E8M0FNU>
  return %q1 : tensor<64x96xf8E4M3FN>
}

// -----

shard.grid @grid(shape = 2)
func.func @explicit_shard_sizes(%x: tensor<256x64xbf16>) -> tensor<256x64xf8E4M3FN> {
  %s = shard.sharding @grid split_axes = [[0]] sharded_dims_offsets = [0, 128, 256] : !shard.sharding
  %x1 = shard.shard %x to %s annotate_for_users : tensor<256x64xbf16>
  // expected-error @below {{'mxfp8train.quantize' op cannot shard operand #0 with halos or explicit shard sizes: only even splits keep whole scaling blocks}}
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil
      : tensor<256x64xbf16> -> tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>
  %q1 = shard.shard %q to %s : tensor<256x64xf8E4M3FN>
  %qs1 = shard.shard %qs to %s : tensor<256x2xf8E8M0FNU>
  return %q1 : tensor<256x64xf8E4M3FN>
}

// -----

shard.grid @grid(shape = 2)
func.func @replicated_op_split(%x: tensor<256x64xbf16>, %offs: tensor<4xi32>) -> tensor<384x64xbf16> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %x1 = shard.shard %x to %s annotate_for_users : tensor<256x64xbf16>
  %o1 = shard.shard %offs to %rep annotate_for_users : tensor<4xi32>
  // expected-error @below {{'mxfp8train.pad_token_groups' op cannot split dimension 0 of operand #0: it follows no loop of the op (runtime-offset layouts and offsets are replicated)}}
  %p, %po = mxfp8train.pad_token_groups %x1 offs(%o1) alignment = 32
      : tensor<256x64xbf16>, tensor<4xi32> -> tensor<384x64xbf16>, tensor<4xi32>
  %p1 = shard.shard %p to %rep : tensor<384x64xbf16>
  %po1 = shard.shard %po to %rep : tensor<4xi32>
  return %p1 : tensor<384x64xbf16>
}

// -----

// On a 2x2 grid, a replicated tensor asked for split along both dimensions
// at once: upstream's resharding moves one dimension at a time and stops
// half way; the op says so instead of building a local quantize of the
// wrong shape (which failed its verifier).
shard.grid @grid(shape = 2x2)
func.func @reshard_half_way(%x: tensor<64x128xbf16>) -> tensor<64x128xf8E4M3FN> {
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %sx = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %x0 = shard.shard %x to %r : tensor<64x128xbf16>
  %x1 = shard.shard %x0 to %sx annotate_for_users : tensor<64x128xbf16>
  // expected-error @below {{cannot partition: operand #0 is 'tensor<32x128xbf16>' after upstream's resharding, not the 'tensor<32x64xbf16>' its sharding gives (upstream resharding moves one dimension at a time); annotate the operand with that sharding where it is produced}}
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  %q1 = shard.shard %q to %sx : tensor<64x128xf8E4M3FN>
  %qs1 = shard.shard %qs to %sx : tensor<64x4xf8E8M0FNU>
  %q2 = shard.shard %q1 to %r annotate_for_users : tensor<64x128xf8E4M3FN>
  return %q2 : tensor<64x128xf8E4M3FN>
}
