// RUN: rm -rf %t && mkdir -p %t/auto %t/pad %t/emu
// RUN: mxfp8-run %s --compare --recipe=mxfp8_rceil --output-dir=%t/auto --save-inputs | FileCheck %s --check-prefix=TABLE
// RUN: %PYTHON %S/Inputs/grouped_golden.py %t/auto 37 37 69 100 | FileCheck %s
// RUN: mxfp8-run %s --compare --recipe='pad_token_groups = true' --output-dir=%t/pad --save-inputs | FileCheck %s --check-prefix=TABLE
// RUN: %PYTHON %S/Inputs/grouped_golden.py %t/pad 37 37 69 100 | FileCheck %s
// RUN: mxfp8-run %s --compare --recipe=mxfp8_emulated_rceil --output-dir=%t/emu --save-inputs | FileCheck %s --check-prefix=TABLE
// RUN: %PYTHON %S/Inputs/grouped_golden.py %t/emu 37 37 69 100 | FileCheck %s

// End-to-end numerics of the grouped rewrite against an independent golden
// model (Inputs/grouped_golden.py: RCEIL quantization in numpy, exact
// dequantization, float64 grouped GEMMs). The three grouped GEMMs of an MoE
// layer on 100 tokens in groups of 37, 0, 32 and 31 (an empty expert and
// groups that are not multiples of 32), run by mxfp8-run on the CPU before
// and after mxfp8train-rewrite-matmuls with the default recipe, with
// `pad_token_groups = true` and EMULATED: each converted result must match
// the model bit for bit up to fp32 accumulation order (>= 99% bit-equal,
// never more than one bf16 ulp). An operand quantized along the wrong axis,
// or 32-token wgrad blocks straddling two experts, changes many elements;
// the control line shows the unpadded wgrad model is told apart (the last
// expert's gradients are scaled down so that sharing a block loses them).
// The empty expert's weight gradient is exactly zero.

// TABLE: matmuls: 3 before
// TABLE: experts.fwd    forward  100x96xbf16   {{2[89]\.[0-9]+}}
// TABLE: experts.dgrad  dgrad    100x64xbf16   {{2[89]\.[0-9]+}}
// TABLE: experts.wgrad  wgrad    4x96x64xbf16  {{2[89]\.[0-9]+}}
// TABLE: bars: 3 passed, 0 failed

// CHECK: fwd original: {{.*}} OK
// CHECK: dgrad original: {{.*}} OK
// CHECK: wgrad original: {{.*}} OK
// CHECK: fwd converted: {{.*}} OK
// CHECK: dgrad converted: {{.*}} OK
// CHECK: wgrad converted: {{.*}} OK
// CHECK: control: unpadded wgrad model differs in {{[1-9][0-9]*}} elements: OK
// CHECK: empty expert 1: wgrad zero

func.func @grouped_gemms(%x: tensor<100x64xbf16>, %w: tensor<4x96x64xbf16>, %dO_in: tensor<100x96xbf16>)
    -> (tensor<100x96xbf16> {mxfp8run.name = "fwd"},
        tensor<100x64xbf16> {mxfp8run.name = "dgrad"},
        tensor<4x96x64xbf16> {mxfp8run.name = "wgrad"}) {
  %offs = arith.constant dense<[37, 37, 69, 100]> : tensor<4xi32>
  // The last expert's gradient rows are 2^-16 times smaller (exactly), as
  // when experts see gradients of very different magnitudes: a 32-token
  // block shared with the previous expert would flush them to e4m3
  // subnormals, so the padding is visible in the numbers.
  %e = tensor.empty() : tensor<100x96xbf16>
  %dO = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%dO_in : tensor<100x96xbf16>) outs(%e : tensor<100x96xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %m = linalg.index 0 : index
    %c69 = arith.constant 69 : index
    %one = arith.constant 1.0 : bf16
    %tiny = arith.constant 1.52587890625e-05 : bf16
    %last = arith.cmpi uge, %m, %c69 : index
    %f = arith.select %last, %tiny, %one : bf16
    %r = arith.mulf %v, %f : bf16
    linalg.yield %r : bf16
  } -> tensor<100x96xbf16>
  %fwd = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<100x64xbf16>, tensor<4x96x64xbf16>, tensor<4xi32> -> tensor<100x96xbf16> loc("experts.fwd")
  %dgrad = mxfp8train.grouped_mm %dO, %w offs(%offs)
      : tensor<100x96xbf16>, tensor<4x96x64xbf16>, tensor<4xi32> -> tensor<100x64xbf16> loc("experts.dgrad")
  %wgrad = mxfp8train.grouped_mm %dO, %x offs(%offs) transpose_lhs
      : tensor<100x96xbf16>, tensor<100x64xbf16>, tensor<4xi32> -> tensor<4x96x64xbf16> loc("experts.wgrad")
  return %fwd, %dgrad, %wgrad : tensor<100x96xbf16>, tensor<100x64xbf16>, tensor<4x96x64xbf16>
}
