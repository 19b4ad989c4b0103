//===- Pipelines.h - mxfp8train named pass pipelines ------------*- C++ -*-===//
//
// The named pipelines: the training rewrite and the CPU lowering to LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_PIPELINES_PIPELINES_H
#define MXFP8TRAIN_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace mxfp8train {

/// Options of the `mxfp8train-lower-to-cpu` pipeline.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize matmuls and elementwise ops with "
                     "upstream linalg transforms (off: scalar loops)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> splitReductions{
      *this, "split-reductions",
      llvm::cl::desc("Long reductions with few outputs (a loss summed to a "
                     "scalar) add partial results and combine them, with "
                     "the GPU pipeline's schedule (same sums on both); off: "
                     "sequential sums"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> maxBufferBytes{
      *this, "max-buffer-bytes",
      llvm::cl::desc("Largest statically sized buffer in bytes "
                     "(mxfp8train-check-buffer-sizes after bufferization); "
                     "0: no limit. The CPU JIT gives the machine's memory "
                     "or the process's memory limit when lower"),
      llvm::cl::init(0)};
};

/// Builds the CPU lowering pipeline: mxfp8train -> linalg on tensors ->
/// tiled and vectorized linalg -> bufferization (memref results become out
/// parameters) -> LLVM dialect. Every public function gets
/// `llvm.emit_c_interface`. The result can be JIT-compiled with
/// mlir::ExecutionEngine.
void buildMXFP8TrainCPUPipeline(OpPassManager &pm,
                                const CPUPipelineOptions &options);

/// Options of the `mxfp8train-lower-to-gpu` pipeline (docs/gpu.md).
/// The formats of gpu-module-to-binary the GPU pipeline offers.
enum class GPUBinaryFormat { Bin, Isa, Fatbin, Llvm };

/// The gpu-module-to-binary spelling of `format`.
llvm::StringRef stringifyGPUBinaryFormat(GPUBinaryFormat format);

struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target GPU: sm_90a or sm_100a"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX ISA version of the NVVM target: one +ptxNN that "
                     "LLVM knows, at least the default (+ptx86 for sm_90a, "
                     "+ptx88 for sm_100a)"),
      llvm::cl::init("")};
  PassOptions::Option<int> optLevel{*this, "opt-level",
                                    llvm::cl::desc("NVPTX optimization level"),
                                    llvm::cl::init(3)};
  /// gpu-module-to-binary's output format; an unknown name is rejected
  /// when the option is parsed.
  PassOptions::Option<GPUBinaryFormat> format{
      *this, "format", llvm::cl::desc("gpu-module-to-binary format"),
      llvm::cl::init(GPUBinaryFormat::Bin),
      llvm::cl::values(
          clEnumValN(GPUBinaryFormat::Bin, "bin", "cubin"),
          clEnumValN(GPUBinaryFormat::Isa, "isa", "PTX"),
          clEnumValN(GPUBinaryFormat::Fatbin, "fatbin", "fat binary"),
          clEnumValN(GPUBinaryFormat::Llvm, "llvm", "LLVM bitcode"))};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit", llvm::cl::desc("CUDA toolkit with ptxas"),
      llvm::cl::init("/usr/local/cuda")};
  PassOptions::Option<bool> fuseDual{
      *this, "fuse-dual",
      llvm::cl::desc("Fuse 1x32 + 32x1 quantizes of one tensor"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseProducers{
      *this, "fuse-producers",
      llvm::cl::desc("Evaluate elementwise producers of quantizes inside the "
                     "quantize kernels"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> elementwiseKernels{
      *this, "elementwise-kernels",
      llvm::cl::desc("Lower elementwise linalg.generic ops to vectorized "
                     "kernels"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseDequant{
      *this, "fuse-dequant",
      llvm::cl::desc("sm_90a: quantize kernels write the bf16 operands of "
                     "the GEMMs they feed (no dequantization pre-pass)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> deferFp8{
      *this, "defer-fp8",
      llvm::cl::desc("sm_90a, with fuse-dequant: the quantize kernels store "
                     "fp8 data only where the bf16 form cannot hold it; the "
                     "guarded fallback restores the rest first"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseTransposes{
      *this, "fuse-transposes",
      llvm::cl::desc("sm_90a: Float8 quantize kernels write the K-major "
                     "copies the Float8 GEMMs they feed read (no fp8 "
                     "transpose pre-pass)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseGemmSums{
      *this, "fuse-gemm-sums",
      llvm::cl::desc("sm_90a: a Float8 grouped GEMM's epilogue writes the "
                     "bf16 sum its result feeds (no elementwise kernel for "
                     "it)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> joinStreams{
      *this, "join-streams",
      llvm::cl::desc("Run a call's kernels on one stream, without host "
                     "waits where only host-local code (tensor-map "
                     "encoding) separates them"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseGemmAmax{
      *this, "fuse-gemm-amax",
      llvm::cl::desc("sm_90a: the tensorwise amaxes of Float8 casts of an "
                     "elementwise producer of a dense Float8 GEMM's result "
                     "are taken in that GEMM's epilogue (no amax kernel; "
                     "off by default until measured)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> fuseSiblingCasts{
      *this, "fuse-sibling-casts",
      llvm::cl::desc("Tensorwise Float8 casts of different results of one "
                     "fused elementwise producer share one amax and one cast "
                     "kernel (the producer's operands read once per pass)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fusePadding{
      *this, "fuse-padding",
      llvm::cl::desc("32x1 MX quantize kernels read a pad_token_groups' "
                     "input through its offsets instead of the padded data"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> splitReductions{
      *this, "split-reductions",
      llvm::cl::desc("Reductions left to the loop path with few parallel "
                     "points and a long reduction (a loss summed to a "
                     "scalar) run as parallel partial results and their "
                     "combination instead of on a few threads"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> reductionKernels{
      *this, "reduction-kernels",
      llvm::cl::desc("Linalg reductions left by the other kernels run as "
                     "reduction kernels (a thread per parallel point, the "
                     "accumulator in a register) instead of the parallel-loop "
                     "path (the same bits)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> columnCastLanes{
      *this, "column-cast-lanes",
      llvm::cl::desc("Lanes per 32-row column tile of the 32x1 quantize "
                     "and quantize_dual kernels (1, 2, 4; 0: the measured "
                     "default)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> stageRowScales{
      *this, "stage-row-scales",
      llvm::cl::desc("quantize_dual kernels store a CTA's rowwise scale "
                     "bytes through workgroup memory as whole words"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> simpleGemm{
      *this, "simple-gemm",
      llvm::cl::desc("Lower every GEMM (MX scaled_mm / scaled_grouped_mm, "
                     "linalg contractions, grouped_mm) with the simple tiled "
                     "kernels even where a wgmma kernel exists; Float8 GEMMs "
                     "keep their fp8 kernels (a warning says so)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> float8PromoteInterval{
      *this, "float8-promote-interval",
      llvm::cl::desc("sm_90a Float8 gradient GEMMs: promote the fp8 wgmma "
                     "accumulators into an f32 sum every this many "
                     "contraction elements (a multiple of 128; 0: fast "
                     "accumulation)"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> gemmClusterM{
      *this, "gemm-cluster-m",
      llvm::cl::desc("sm_90a TMA-fed wgmma GEMMs: CTAs of the cluster along "
                     "M sharing the B tile by TMA multicast (1 or 2; 0: per "
                     "form; same bits)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> float8PromoteUnroll{
      *this, "float8-promote-unroll",
      llvm::cl::desc("sm_90a Float8 GEMMs promoted every contraction tile: "
                     "1 for one accumulator set, else tiles per pipelined "
                     "iteration over two sets (2, 4 or 6; 0: per form; same "
                     "bits)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> gemmAmaxWarps{
      *this, "gemm-amax-warps",
      llvm::cl::desc("sm_90a, with fuse-gemm-amax: 0 for the amaxes in the "
                     "GEMM's epilogue, else producer-warpgroup warps (1 to 3) "
                     "that take them from each finished tile while the MMA "
                     "warps go on (same bits)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> float8PromoteTileN{
      *this, "float8-promote-tile-n",
      llvm::cl::desc("sm_90a promoted Float8 GEMMs: output columns per tile "
                     "(128, 160 or 192, one accumulator set above 128; 0: "
                     "per form; same bits)"),
      llvm::cl::init(0)};
};

/// Builds the GPU lowering pipeline: mxfp8train quantization and layout
/// ops -> kernel launches -> bufferization (memref results become out
/// parameters, all buffers in device memory) -> NVVM and embedded cubins ->
/// LLVM-dialect host code calling the mgpu* runtime ABI. Every public
/// function gets `llvm.emit_c_interface`.
void buildMXFP8TrainGPUPipeline(OpPassManager &pm,
                                const GPUPipelineOptions &options);

/// Adds one-shot-bufferize as both pipelines run it: function boundaries
/// bufferized with identity layouts, and loops allowed to yield new
/// allocations (a later pass says what it does not support).
void addOneShotBufferizePass(OpPassManager &pm);

/// Adds the common tail of the CPU and GPU pipelines (host code): memref,
/// arith, index, control flow, func and ub to the LLVM dialect, then
/// reconcile-unrealized-casts.
void addHostToLLVMPasses(OpPassManager &pm);

/// Registers `mxfp8train-lower-to-gpu` with the global pass registry.
void registerMXFP8TrainGPUPipeline();

/// Registers `mxfp8train-lower-to-cpu` (and `mxfp8train-lower-to-gpu`) with
/// the global pass registry.
void registerMXFP8TrainPipelines();

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_PIPELINES_PIPELINES_H
