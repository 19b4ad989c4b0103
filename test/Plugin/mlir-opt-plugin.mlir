// The mlir-opt plugin (lib/Plugin): upstream mlir-opt, with
// libMXFP8TrainPlugin.so loaded as a dialect and a pass plugin, parses the
// dialect, converts a linear with mxfp8train-rewrite-matmuls and lowers it
// with mxfp8train-lower-to-cpu; upstream mlir-runner runs the result.
// Passes of a plugin are named in --pass-pipeline (mlir-opt parses its
// per-pass flags before the plugin is loaded).
// A sanitizer build's plugin needs the sanitizer runtime, which the
// upstream tools lack.
// UNSUPPORTED: asan
// REQUIRES: mlir-opt-plugin
//
// RUN: mlir-opt %s --load-dialect-plugin=%mxfp8train_lib_dir/libMXFP8TrainPlugin.so \
// RUN:   --load-pass-plugin=%mxfp8train_lib_dir/libMXFP8TrainPlugin.so \
// RUN:   --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil})" \
// RUN:   | FileCheck %s --check-prefix=REWRITE
// RUN: mlir-opt %s --load-dialect-plugin=%mxfp8train_lib_dir/libMXFP8TrainPlugin.so \
// RUN:   --load-pass-plugin=%mxfp8train_lib_dir/libMXFP8TrainPlugin.so \
// RUN:   --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil},mxfp8train-lower-to-cpu)" \
// RUN:   | mlir-runner -e main --entry-point-result=void \
// RUN:   --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s --check-prefix=RESULT
// The dialect plugin registers the ops' ShardingInterface models too:
// upstream sharding-propagation and shard-partition give what mxfp8-opt
// gives (the checks of the mxfp8-opt tests).
// RUN: mlir-opt %S/../Dialect/MXFP8Train/sharding-propagation.mlir \
// RUN:   --load-dialect-plugin=%mxfp8train_lib_dir/libMXFP8TrainPlugin.so \
// RUN:   --pass-pipeline="builtin.module(func.func(sharding-propagation))" --split-input-file \
// RUN:   | FileCheck %S/../Dialect/MXFP8Train/sharding-propagation.mlir
// RUN: mlir-opt %S/../Dialect/MXFP8Train/sharding-partition.mlir \
// RUN:   --load-dialect-plugin=%mxfp8train_lib_dir/libMXFP8TrainPlugin.so \
// RUN:   --pass-pipeline="builtin.module(func.func(sharding-propagation,shard-partition))" --split-input-file \
// RUN:   | FileCheck %S/../Dialect/MXFP8Train/sharding-partition.mlir
// Without the plugin, mlir-opt knows neither.
// RUN: not mlir-opt %s --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls)" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPLUGIN

// REWRITE: module attributes {mxfp8train.recipe = #mxfp8train.recipe<mxfp8_rceil>}
// REWRITE: mxfp8train.quantize %{{.*}} axis = 1 mode = rceil : tensor<64x128xbf16>
// REWRITE: mxfp8train.quantize %{{.*}} axis = 1 mode = rceil : tensor<256x128xbf16>
// REWRITE: mxfp8train.scaled_mm {{.*}} transpose_rhs {mxfp8train.role = "forward"}

// x = 1.5 and w = -0.25 are exact in e4m3 with their scales: every output
// is 128 x 1.5 x -0.25 = -48, their sum over 64 x 256 outputs -786432.
// RESULT: -786432

// NOPLUGIN: 'mxfp8train-rewrite-matmuls' does not refer to a registered pass or pass pipeline

func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

func.func @main() {
  %x = arith.constant dense<1.5> : tensor<64x128xbf16>
  %w = arith.constant dense<-0.25> : tensor<256x128xbf16>
  %r = func.call @linear(%x, %w) : (tensor<64x128xbf16>, tensor<256x128xbf16>) -> tensor<64x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%r : tensor<64x256xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  %v = tensor.extract %s[] : tensor<f32>
  vector.print %v : f32
  return
}
