// RUN: mxfp8-opt %s --mxfp8train-lower-to-cpu --verify-diagnostics -o /dev/null
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" --verify-diagnostics -o /dev/null

// Sharding annotations that no partition consumed: both pipelines say so
// at the annotation (they used to fail in bufferization with "op was not
// bufferized").
shard.grid @grid(shape = 2)
func.func @annotated(%x: tensor<64x128xbf16>) -> (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) {
  // expected-error @below {{'shard.sharding': the module is annotated for sharding but not partitioned; run sharding-propagation and shard-partition first (docs/sharding.md), or remove the annotations}}
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @below {{'shard.shard': the module is annotated for sharding but not partitioned}}
  %x1 = shard.shard %x to %s : tensor<64x128xbf16>
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return %q, %qs : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
}
