// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg | FileCheck %s
// RUN: mxfp8-run %s --entry=dual --output-dir=%t/dual > /dev/null
// RUN: mxfp8-run %s --entry=separate --output-dir=%t/separate > /dev/null
// RUN: cmp %t/dual/rq.npy %t/separate/rq.npy
// RUN: cmp %t/dual/rs.npy %t/separate/rs.npy
// RUN: cmp %t/dual/cq.npy %t/separate/cq.npy
// RUN: cmp %t/dual/cs.npy %t/separate/cs.npy

// The CPU lowering of quantize_dual is the two quantizes it stands for:
// the same bytes (the generated inputs of both functions are equal), and
// two amax reductions, one along each of the last two dimensions.

// CHECK-LABEL: func.func @dual(
// CHECK-NOT:     mxfp8train.
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
func.func @dual(%x: tensor<64x96xbf16>)
    -> (tensor<64x96xf8E4M3FN> {mxfp8run.name = "rq"}, tensor<64x3xf8E8M0FNU> {mxfp8run.name = "rs"},
        tensor<64x96xf8E5M2> {mxfp8run.name = "cq"}, tensor<512xf8E8M0FNU> {mxfp8run.name = "cs"}) {
  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %x mode = rceil colwise_layout = blocked
      : tensor<64x96xbf16> -> tensor<64x96xf8E4M3FN>, tensor<64x3xf8E8M0FNU>,
                              tensor<64x96xf8E5M2>, tensor<512xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<64x96xf8E4M3FN>, tensor<64x3xf8E8M0FNU>,
                              tensor<64x96xf8E5M2>, tensor<512xf8E8M0FNU>
}

func.func @separate(%x: tensor<64x96xbf16>)
    -> (tensor<64x96xf8E4M3FN> {mxfp8run.name = "rq"}, tensor<64x3xf8E8M0FNU> {mxfp8run.name = "rs"},
        tensor<64x96xf8E5M2> {mxfp8run.name = "cq"}, tensor<512xf8E8M0FNU> {mxfp8run.name = "cs"}) {
  %rq, %rs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<64x96xbf16> -> tensor<64x96xf8E4M3FN>, tensor<64x3xf8E8M0FNU>
  %cq, %cs = mxfp8train.quantize %x axis = 0 mode = rceil layout = blocked
      : tensor<64x96xbf16> -> tensor<64x96xf8E5M2>, tensor<512xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<64x96xf8E4M3FN>, tensor<64x3xf8E8M0FNU>,
                              tensor<64x96xf8E5M2>, tensor<512xf8E8M0FNU>
}
