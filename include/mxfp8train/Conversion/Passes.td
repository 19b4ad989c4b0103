//===- Passes.td - mxfp8train lowering passes --------------*- tablegen -*-===//
//
// Lowerings of the mxfp8train dialect.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_PASSES_TD
#define MXFP8TRAIN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMXFP8TrainToLinalgPass
    : Pass<"convert-mxfp8train-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower mxfp8train ops to linalg/arith/tensor/scf (the CPU reference path)";
  let description = [{
    Lowers every mxfp8train op to `linalg.generic`, `linalg.matmul` /
    `linalg.batch_matmul`, `tensor` slices and reshapes, `scf` loops and
    `arith` integer arithmetic, bit-exact with SPEC §2-§4 and §7 for all four
    scale modes, `f8E4M3FN` and `f8E5M2` elements, any rank and axis, and
    every scale layout (docs/numerics.md).

    - `quantize`: `expand_shape` of the axis into (n/32, 32), a reduction
      generic for the amax (`arith.maximumf` from +0.0), an elementwise
      generic for the e8m0 byte, an elementwise generic for the data,
      `collapse_shape`; blocked scales are gathered into `to_blocked` order.
      The fp32 -> fp8 cast (round to nearest even, saturating, subnormals
      kept) is integer arithmetic on the f32 bits, never `arith.truncf`.
    - `dequantize`: fp8 and e8m0 bytes decoded with integer ops, an exact
      f32 product, rounded to nearest even into bf16 with integer ops.
    - `scaled_mm`: both operands dequantized exactly into f32 in the
      canonical (M, K) x (K, N) orientation, an f32 matmul from zero, the
      bias added in f32, one rounding into the result type.
    - `to_blocked`: `blocked` and `blocked_per_expert` are one gather
      generic; `blocked_m_groups` / `blocked_k_groups` are an `scf.for` over
      the groups that gathers each group's `to_blocked` bytes into its region
      of a zero-filled result (SPEC §4.2; empty groups write nothing).
    - `pad_token_groups` / `unpad_token_groups`: a zero-filled result and one
      row-block `linalg.copy` per group; `padded_offs` in i32.
    - `grouped_mm` / `scaled_grouped_mm`: every operand converted (or
      dequantized, after un-swizzling grouped blocked scales) to f32 once,
      then an `scf.for` over the groups around statically shaped f32
      `linalg.matmul`s: 2d-3d in 32-, 8- and 1-row chunks of each group
      (each expert's weight converted once, empty groups skipped, rows past
      `offs[-1]` zero), 2d-2d in 128-, 32-, 8- and 1-token chunks accumulated
      into the expert's zero-filled (N, K) result; one rounding at the end.

    `offs` is runtime data. Every group loop clamps the offsets into
    [0, total] and to non-decreasing values (group g covers
    `[end(g-1), min(max(offs[g], end(g-1)), total))`), so malformed offsets
    never make an access leave its tensor. `blocked_k_groups` uses
    `offs / 32` (floor) as torchao does.

    Every shape must be static: an op with a dynamic size is reported and
    the pass fails, before anything is rewritten.

    ```mlir
    %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
        : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>
    // becomes
    %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 2, 32] ...
    %amax = linalg.generic {iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%e : tensor<4x2x32xbf16>) outs(%zeros : tensor<4x2xf32>) { ... arith.maximumf ... }
    %s = linalg.generic ins(%amax) outs(... tensor<4x2xf8E8M0FNU>) { ... }
    %d = linalg.generic ins(%e, %s) outs(... tensor<4x2x32xf8E4M3FN>) { ... }
    %q = tensor.collapse_shape %d [[0], [1, 2]] ...
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

//===----------------------------------------------------------------------===//
// GPU lowering (docs/gpu.md)
//===----------------------------------------------------------------------===//

def ConvertMXFP8TrainToGPUPass
    : Pass<"convert-mxfp8train-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower mxfp8train quantization and layout ops to CUDA kernel launches";
  let description = [{
    Replaces `quantize` (any axis, all scale modes, bf16/f32 input, e4m3/e5m2,
    row_major or blocked scales), `quantize_dual`, `dequantize`,
    `pad_token_groups`, `unpad_token_groups` and `to_blocked` (`blocked`,
    `blocked_per_expert`) on tensors by a launch of a kernel specialised for
    the op's static shapes and attributes, bit-exact with the CPU lowering
    (the scale byte and the blocked offsets come from the same
    QuantizeArith functions). The kernels are `gpu.func`s in
    `gpu.module @mxfp8train_kernels`; one kernel serves every op with the
    same specialisation. Memory-bound design: 16-byte coalesced accesses,
    several loads in flight per thread, a grid-stride loop over at most
    8 CTAs of 256 threads per SM of `chip` (docs/gpu.md).

    With `fuse-dual` (default), two `quantize`s of one input along its last
    two dimensions with the same mode first become one `quantize_dual`,
    which reads the input once. With `fuse-producers` (default), a
    quantize (or quantize_dual) whose input is the result of an elementwise
    `linalg.generic` (parallel loops, identity maps, a body of arith/math
    ops) whose results feed only quantizes reads the generic's operands and
    evaluates its body in registers: the intermediate tensor is never
    written and the generic's own kernel disappears, when that moves no
    more bytes than the separate kernel would (e.g. SwiGLU's
    `silu(h1) * h3` and its derivative before their quantizes). With
    `elementwise-kernels` (default), the other elementwise `linalg.generic`
    ops whose element count is a multiple of 8 become one vectorized kernel
    each (8 elements per thread, 16-byte accesses for bf16); the rest of
    linalg goes through the parallel-loop path below.

    ```mlir
    %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
        : tensor<128x4096xbf16> -> tensor<128x4096xf8E4M3FN>, tensor<128x128xf8E8M0FNU>
    // becomes
    %in = bufferization.to_buffer %x read_only : tensor<128x4096xbf16> to memref<128x4096xbf16>
    %d = memref.alloc() : memref<128x4096xf8E4M3FN>
    %s = memref.alloc() : memref<128x128xf8E8M0FNU>
    gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_128x4096
        blocks in (%c64, %c1, %c1) threads in (%c256, %c1, %c1) args(%in : ..., %d : ..., %s : ...)
    %q = bufferization.to_tensor %d restrict writable : memref<128x4096xf8E4M3FN> to tensor<...>
    ```

    With `fuse-dequant` (default; sm_90a), a `quantize` (or one cast of a
    `quantize_dual`) whose data and scales are an operand of a `scaled_mm` /
    `scaled_grouped_mm` in the same block that runs the pre-dequantized
    GEMM also writes that operand's padded bf16 form (when its K needs no
    padding) and its own guard flag: the GEMM launches no dequantization
    pre-pass for it (Gemm/DequantFusion.h). The results are bit-identical.
    With `defer-fp8` (default), where nothing but those GEMMs reads the
    quantize's fp8 data, the kernel stores only the fp8 bytes of the blocks
    the bf16 form cannot hold exactly (scale bytes outside the exact range,
    2d-2d blocks outside an aligned token group): the fp8 data is read only
    by the guarded fallback kernel, and before that kernel's launch a
    restore kernel (which also returns at once unless the flag is raised)
    writes the other blocks back from the bf16 form, exactly.

    With `fuse-transposes` (default; sm_90a), a Float8 `quantize` whose
    data a Float8 GEMM in the same block reads MN-major (a column cast along
    K, a per-group cast with the GEMM's `offs`, or a tensorwise cast) also
    writes the K-major copy that the GEMM's fp8 wgmma reads, and the GEMM
    launches no transpose pre-pass for it (Gemm/Float8TransposeFusion.h).
    The results are bit-identical.

    With `fuse-sibling-casts` (default) and `fuse-producers`, tensorwise
    Float8 quantizes of different results of one fused elementwise producer
    (the SwiGLU backward's two gradients, e.g.) with the same input and fp8
    types, `pow2` and K-major copy (or none) are lowered together at the
    first of them: one amax kernel with a word per quantize and one cast
    kernel writing each quantize's data, K-major copy and scale, so the
    producer's operands are read twice in all rather than twice per
    quantize. The results are bit-identical.

    With `fuse-gemm-sums` (default; sm_90a), an elementwise `linalg.generic`
    `truncf(extf(a) + extf(b))` over bf16 tensors (the input gradient of a
    SwiGLU MLP, dh1 W1 + dh3 W3), where one term is the bf16 result of a
    Float8 `scaled_grouped_mm` used only there and the other is
    defined before that GEMM, is written by the GEMM's epilogue: after its
    own rounding it adds the other term in f32 and rounds again, and no
    elementwise kernel runs (Gemm/GemmSumFusion.h). The results are
    bit-identical.

    With `fuse-gemm-amax` (off by default; sm_90a) and `fuse-producers`,
    the tensorwise Float8 quantizes of an elementwise `linalg.generic`
    (every result quantized once, the quantizes one sibling group) that
    reads the bf16 result of a dense Float8 `scaled_mm` (the last such
    GEMM) and otherwise bf16 tensors of its shape defined before that GEMM
    (SwiGLU's `silu(h1) * h3` in the forward W3 GEMM, its derivative's two
    results in the dgrad W2 GEMM) take their amaxes in the GEMM's
    epilogue: it loads the other operands at the chunk it stores,
    evaluates the generic's body and `atomicMax`es each result's |x| into
    words its launch zeroed; the quantizes launch only their cast kernel
    (Gemm/GemmAmaxFusion.h). With `gemm-amax-warps` (1 to 3), warps of the
    GEMM's TMA producer warpgroup take the amaxes from each tile the MMA
    warps stored instead. The results are bit-identical.

    Linalg contractions (`linalg.matmul` in any operand orientation,
    `linalg.batch_matmul`) and `grouped_mm` with bf16 / f16 operands become
    the bf16 wgmma GEMM of the MX path on sm_90a (Gemm/HighPrecisionGemm.cpp;
    not for small GEMMs), the others launches of simple tiled GEMM kernels
    (Gemm/SimpleGemm.cpp), which also serve `scaled_mm` and
    `scaled_grouped_mm` with row-major scales where no specialised kernel
    matches (or every GEMM, with `simple-gemm`).

    Linalg reductions no other kernel takes become reduction kernels
    with `reduction-kernels` (default; ReductionKernels.cpp): a thread per
    point of the parallel loops, the reduction loops in order with the
    accumulator in a register, the loads of up to 8 iterations issued
    together, a `linalg.fill` init's constant folded in (the same bits as
    the loop path); an elementwise generic read only by such a reduction
    (not a contraction) is fused into it first. Ops with a `linalg.index`
    body, several results, or an init map a thread would not own its
    elements under keep the loop path.

    The linalg ops left to the loop path (one GPU thread per point of
    their parallel loops, the reduction loops inside it) are prepared
    (RemainingOps.cpp). Before the reduction kernels and the loop path,
    with `split-reductions` (default), a reduction with
    fewer parallel points than the GPU's threads and a reduction of at
    least 1024 iterations (a loss summed to a scalar, a norm, a bias
    gradient's column sums) becomes parallel partial results, each summing
    every S-th element (S the largest divisor of the reduction extent up to
    2^18 / parallel points, each partial at least 16 elements), and their
    combination, split again while it qualifies
    (Conversion/Utils/SplitReductions.h, upstream `linalg::splitReduction`;
    the CPU pipeline splits with the same schedule, so both add the same
    elements in the same order). Without it such a reduction to a scalar
    runs on one thread. Every such op's parallel loops are then moved
    outside its reduction loops (`linalg::interchangeGenericOp`; the same
    sums): the loop path nests loops in order, and a reduction outside a
    parallel loop ran as a host loop of launches or inside a thread.

    Ops with dynamic shapes, `to_blocked` with a grouped layout, and the
    GEMM forms without a kernel are not lowered: the pass reports each and
    fails.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "GPU the kernels are sized for (sm_90a, sm_100a)">,
    Option<"fuseDual", "fuse-dual", "bool", /*default=*/"true",
           "Fuse a 1x32 and a 32x1 quantize of one tensor into quantize_dual">,
    Option<"fuseProducers", "fuse-producers", "bool", /*default=*/"true",
           "Evaluate an elementwise linalg.generic that only feeds quantizes "
           "inside the quantize kernels instead of its own kernel">,
    Option<"elementwiseKernels", "elementwise-kernels", "bool",
           /*default=*/"true",
           "Lower elementwise linalg.generic ops (identity maps, arith/math "
           "bodies, a multiple of 8 elements) to vectorized kernels instead "
           "of the parallel-loop path">,
    Option<"fuseDequant", "fuse-dequant", "bool", /*default=*/"true",
           "sm_90a: a quantize whose data and scales feed a pre-dequantized "
           "GEMM operand in the same block also writes that operand's bf16 "
           "form, and the GEMM launches no dequantization pre-pass for it">,
    Option<"deferFp8", "defer-fp8", "bool", /*default=*/"true",
           "sm_90a, with fuse-dequant: a quantize whose data only those "
           "GEMMs read stores the fp8 bytes of the blocks its bf16 form "
           "cannot hold; the rest is restored from the bf16 form before a "
           "fallback kernel that runs">,
    Option<"fuseTransposes", "fuse-transposes", "bool", /*default=*/"true",
           "sm_90a: a Float8 quantize whose data a Float8 GEMM in the same "
           "block reads MN-major also writes the K-major copy that GEMM "
           "reads, and the GEMM launches no fp8 transpose pre-pass for it">,
    Option<"fuseGemmSums", "fuse-gemm-sums", "bool", /*default=*/"true",
           "sm_90a: an elementwise bf16 sum truncf(extf(a) + extf(b)) of a "
           "Float8 grouped GEMM's result (its only use) and a tensor defined before "
           "the GEMM is written by the GEMM's epilogue (the same bits)">,
    Option<"fuseGemmAmax", "fuse-gemm-amax", "bool", /*default=*/"false",
           "sm_90a, with fuse-producers: the tensorwise amaxes of the "
           "Float8 casts of an elementwise producer that reads a dense "
           "Float8 scaled_mm's bf16 result (and bf16 tensors defined "
           "before it) are taken in that GEMM's epilogue, and the casts "
           "launch no amax kernel (the same bits; not yet measured on the "
           "H200, so off by default)">,
    Option<"gemmAmaxWarps", "gemm-amax-warps", "int64_t", /*default=*/"0",
           "sm_90a, with fuse-gemm-amax: 0 for the amaxes taken in the "
           "GEMM's epilogue by the MMA warps; 1 to 3 for that many warps of "
           "the TMA producer warpgroup (otherwise idle) that read each "
           "finished tile back (its output from L2) and take them while the "
           "MMA warps go on with the next tiles (a tuning knob, the results "
           "are the same bits)">,
    Option<"fuseSiblingCasts", "fuse-sibling-casts", "bool",
           /*default=*/"true",
           "With fuse-producers: tensorwise Float8 quantizes of different "
           "results of one fused elementwise producer (same input and fp8 "
           "types, pow2 and K-major form) share one amax kernel and one cast "
           "kernel, launched at the first (the same bits)">,
    Option<"fusePadding", "fuse-padding", "bool", /*default=*/"true",
           "A 32x1 MX quantize of a pad_token_groups result (alignment a "
           "multiple of 32, only such quantizes reading it) reads the pad's "
           "input through its offsets; the padded data is never written and "
           "the pad launches only its padded offsets' kernel (the same bits)">,
    Option<"splitReductions", "split-reductions", "bool", /*default=*/"true",
           "A linalg reduction left to the loop path with few parallel "
           "points and a long reduction (a loss summed to a scalar) is split "
           "into parallel partial results and their combination "
           "(linalg::splitReduction; floating-point sums add in another "
           "order)">,
    Option<"reductionKernels", "reduction-kernels", "bool",
           /*default=*/"true",
           "A linalg op with reduction loops left by the other kernels (maps "
           "of loop dimensions and constants, an arith/math body, no "
           "linalg.index) runs as a reduction kernel (a thread per parallel "
           "point, the accumulator in a register, loads of 8 iterations "
           "issued together) instead of the parallel-loop path (the same "
           "bits)">,
    Option<"columnCastLanes", "column-cast-lanes", "int64_t", /*default=*/"0",
           "Lanes that share a 32-row column tile of the 32x1 quantize and "
           "quantize_dual kernels (1, 2 or 4, at most the columns of a "
           "lane: 2 for an f32 dual; 0: 4 with a fused producer or a "
           "written colwise bf16 form, else 1; a tuning knob, the results "
           "are the same bits)">,
    Option<"stageRowScales", "stage-row-scales", "bool", /*default=*/"true",
           "quantize_dual kernels with row-major rowwise scales gather a "
           "CTA's rowwise scale bytes (32 rows x 32 blocks for bf16 with "
           "one lane per column tile) in workgroup memory and store them "
           "as whole words, not one byte per lane and row (a tuning knob, "
           "the results are the same bits)">,
    Option<"simpleGemm", "simple-gemm", "bool", /*default=*/"false",
           "Lower every GEMM (MX scaled_mm / scaled_grouped_mm, linalg "
           "contractions, grouped_mm) with the simple tiled kernels even "
           "where a specialised (wgmma) kernel exists; Float8 GEMMs keep "
           "their fp8 kernels (a warning says so)">,
    Option<"float8PromoteInterval", "float8-promote-interval", "int64_t",
           /*default=*/"128",
           "sm_90a Float8 GEMMs of the gradient roles (and without a role): "
           "add the fp8 wgmma accumulators into a separate f32 sum every "
           "this many contraction elements (a multiple of 128), as "
           "torch._scaled_mm(use_fast_accum=False); 0: fast accumulation. "
           "Forward GEMMs always accumulate fast, as torchao's">,
    Option<"gemmClusterM", "gemm-cluster-m", "int64_t", /*default=*/"0",
           "sm_90a TMA-fed wgmma GEMMs (MX dequant_bf16, high-precision, "
           "Float8): CTAs of the cluster along M, which load their shared B "
           "tile once by TMA multicast (1 or 2; 0: the form's default, 2 for "
           "grouped GEMMs (Float8: 128 x 256 tiles, fast accumulation), "
           "else 1; 2 also pairs the promoted Float8 kernels, which run "
           "2-14 % slower so); an op's gemm_config cluster_m takes "
           "precedence; a tuning knob, the results are the same bits">,
    Option<"float8PromoteUnroll", "float8-promote-unroll", "int64_t",
           /*default=*/"0",
           "sm_90a Float8 GEMMs promoted every contraction tile: 1 for one "
           "accumulator set, added into the f32 sum after each tile's "
           "wgmma completed; else tiles per iteration of the pipelined "
           "promotion loop over two sets, which ends with a wgmma drain (2, "
           "4 or 6; 0: the form's default, 4 for dense GEMMs with bf16 "
           "results, else 2, one set with a float8-promote-tile-n above "
           "128; a tuning knob, the results are the same bits)">,
    Option<"float8PromoteTileN", "float8-promote-tile-n", "int64_t",
           /*default=*/"0",
           "sm_90a promoted Float8 GEMMs: output columns per 128-row tile "
           "(128, 160 or 192; 0: 128); above 128 the kernel keeps one "
           "accumulator set next to the f32 sum (two sets of more than "
           "m64n128 do not fit the MMA warpgroups' registers); a tuning "
           "knob, the results are the same bits">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def MXFP8TrainGPUDeviceBuffersPass
    : Pass<"mxfp8train-gpu-device-buffers", "::mlir::ModuleOp"> {
  let summary = "Place the buffers of bufferized host functions in device memory";
  let description = [{
    Runs after bufferization of a module lowered by
    `convert-mxfp8train-to-gpu`, whose host functions only pass buffers to
    kernels. Every `memref.alloc`/`alloca` of a host function becomes a
    `gpu.alloc` freed by a `gpu.dealloc` at the end of its block,
    `memref.dealloc` becomes `gpu.dealloc` and `memref.copy` becomes
    `gpu.memcpy`. Any other host op that reads or writes a buffer is
    reported (it would touch device memory from the CPU) and the pass fails.
    A buffer that escapes its block (returned or yielded) is reported too;
    run `buffer-results-to-out-params` first. A `memref.copy` of a
    non-contiguous view is reported (run `mxfp8train-strided-copies`
    before the linalg ops become kernels).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
}

def MXFP8TrainGPUJoinStreamsPass
    : Pass<"mxfp8train-gpu-join-streams", "::mlir::func::FuncOp"> {
  let summary = "Run the async regions of a host function on one stream, without host waits between them";
  let description = [{
    Runs after `gpu-async-region`, which ends a region (a host
    `gpu.wait [%token]`: stream synchronization) before every host op with
    side effects and starts the next one on a new stream
    (`gpu.wait async`). Between two regions of a block this pass removes
    that wait and continues the next region on the previous region's
    stream when the host code in between touches no memory the device may
    access: memory-effect-free ops, stack arrays (`llvm.alloca` and
    `llvm.store` into them) and the runtime's tensor-map encoding
    (`llvm.call @mgpuTensorMapEncodeTiledMemref`, which reads such arrays
    only). A tensor map's `mgpuMemFree` in between moves after the block's
    final wait (before its terminator). Any other op (a call, a loop, a
    load) keeps the wait. So the launches of a converted training step go
    out back to back on one stream and the host synchronizes once, at the
    end of the call.

    Example (a join):
    ```mlir
    gpu.wait [%t0]                  // removed
    %map = llvm.call @mgpuTensorMapEncodeTiledMemref(...)
    %t1 = gpu.wait async            // removed; its users take %t0
    %t2 = gpu.launch_func async [%t1] ...
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect"];
}


def MXFP8TrainGPUTileParallelLoopsPass
    : Pass<"mxfp8train-gpu-tile-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Tile outermost scf.parallel loops into CTAs of 256 threads";
  let description = [{
    Prepares the loops of bufferized linalg ops (after
    `convert-linalg-to-parallel-loops`) for `gpu-map-parallel-loops
    {mapping-policy=innermost-first}` and `convert-parallel-loops-to-gpu`:
    every outermost `scf.parallel` is tiled (upstream `tileParallelLoop`,
    fixed inner bounds with an in-bounds check) so that its inner loop has
    256 iterations, spread over the innermost dimensions (the innermost one
    first, up to the next power of two of its extent; the others 1). The
    outer loop becomes the grid, the inner one the CTA; loops nested inside
    (reductions) stay sequential in each thread.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def MXFP8TrainGPULaunchViewArgsPass
    : Pass<"mxfp8train-gpu-launch-view-args", "::mlir::func::FuncOp"> {
  let summary = "Pass views with a dynamic offset or strides into gpu.launch "
                "bodies as their base buffer and metadata";
  let description = [{
    The GPU pipeline's kernels take memrefs as bare pointers
    (`use-bare-ptr-memref-call-conv`), which carry no offset or strides: a
    kernel argument whose layout has a dynamic offset or stride (a
    `tensor.extract_slice` at a loop index, e.g. one micro-batch of a
    gradient-accumulation loop, read by a copy or elementwise kernel)
    failed to legalize its `gpu.func`. Before `gpu-kernel-outlining`, each
    such memref a `gpu.launch` body uses is split at the launch
    (`memref.extract_strided_metadata`: the rank-0 base buffer, the offset,
    sizes and strides) and rebuilt at the start of the body
    (`memref.reinterpret_cast` to the same type), so that the kernel
    receives the base pointer and the index values.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def ConvertShardToRuntimeCollectivesPass
    : Pass<"convert-shard-to-runtime-collectives", "::mlir::ModuleOp"> {
  let summary = "Lower the shard dialect's collectives to calls of the runtime's collectives (NCCL or in-process)";
  let description = [{
    Lowers a module partitioned by `shard-partition` so that every process
    runs it against the communicator bound to its thread
    (`mxfp8rtCommBind`, runtime/include/mxfp8train/runtime/Collectives.h):

    - `shard.all_reduce` (sum, max), `shard.all_gather`,
      `shard.reduce_scatter` (sum, max) and `shard.all_to_all` become a copy
      of the input into a fresh buffer, a call of
      `mxfp8rtShardAllReduce` / `AllGather` / `ReduceScatter` / `AllToAll`
      with the buffers' addresses, the element count, the runtime element
      type and the grid's process count, a `cf.assert` of the returned
      status, and `bufferization.to_tensor` of the result buffer. Axes other
      than 0 are moved outermost and back with `linalg.transpose` and
      `tensor.expand_shape` / `collapse_shape`.
    - `shard.process_linear_index` becomes `mxfp8rtShardProcessIndex`
      (the bound communicator's rank, checked against the grid size),
      `shard.process_multi_index` and `shard.all_slice` go through
      upstream's lowerings onto it, and `shard.grid_shape` becomes
      constants. Grids nothing refers to any more are erased.
    - `mxfp8train.moe_dispatch` and `mxfp8train.moe_combine` (the MXFP8
      expert-parallel token exchange) become calls of
      `mxfp8rtShardMoeDispatchMx` / `mxfp8rtShardMoeCombine`
      (runtime/include/mxfp8train/runtime/ExpertParallel.h) on fresh copies
      of their inputs and fresh result buffers, with the token count, K or
      N, topK, the expert count, capacity, alignment and the grid's process
      count, and a `cf.assert` of the status. The CPU and GPU pipelines run
      this pass (on the GPU the buffers are device memory and the calls
      NCCL's).

    Supported: collectives over the whole grid in rank order (every grid
    axis of size > 1, ascending), static grids and shapes, element types
    bf16, f32, i32, i64 and the 8-bit types (f8E4M3FN, f8E5M2, f8E8M0FNU,
    i8; moved, never reduced), result element type equal to the input's.
    Anything else, and the shard ops without a lowering (broadcast, gather,
    scatter, send, recv, shift, reduce, update_halo), is an error at the op
    and the pass fails without changing the module.

    ```mlir
    %r = shard.all_reduce %x on @grid reduction = sum
        : tensor<4x8xf32> -> tensor<4x8xf32>
    // becomes
    %c = bufferization.alloc_tensor() copy(%x) : tensor<4x8xf32>
    %in = bufferization.to_buffer %c read_only : tensor<4x8xf32> to memref<4x8xf32>
    %send = memref.extract_aligned_pointer_as_index %in
    %out = memref.alloc() : memref<4x8xf32>
    %recv = memref.extract_aligned_pointer_as_index %out
    %status = call @mxfp8rtShardAllReduce(%send, %recv, %c32, %c2_i32, %c0_i32, %c2)
        : (index, index, index, i32, i32, index) -> i32
    cf.assert ...
    %r = bufferization.to_tensor %out restrict writable
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"];
}

#endif // MXFP8TRAIN_CONVERSION_PASSES_TD
