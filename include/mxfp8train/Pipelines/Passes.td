//===- Passes.td - passes of the lowering pipelines --------*- tablegen -*-===//
//
// Passes used by the CPU and GPU lowering pipelines: CPU code generation
// (mxfp8train-cpu-*), the host interface of public functions (distinct
// result buffers, C interfaces), input checks and narrow-float arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_PIPELINES_PASSES_TD
#define MXFP8TRAIN_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

def MXFP8TrainCPUPrepareMatmulsPass
    : Pass<"mxfp8train-cpu-prepare-matmuls", "::mlir::ModuleOp"> {
  let summary = "Rewrite linalg matmuls into f32 (M,K)x(K,N) form for CPU codegen";
  let description = [{
    A `linalg.matmul` / `linalg.batch_matmul` (or another contraction the
    GPU GEMM kernels take: a `linalg.generic` whose body is exactly
    `out + x * y`, Conversion/Utils/Contraction.h) whose operands are bf16,
    or whose `indexing_maps` transpose an operand, reads its operands through an
    elementwise `linalg.generic` that writes them as f32 in the canonical
    orientation (lhs (M,K), rhs (K,N)) and accumulates into an f32 buffer;
    the result is then converted back to the original accumulator type.
    bf16 -> f32 is exact and the accumulation was already in the accumulator
    type, so values do not change for f32 accumulators; an f64 accumulator
    computes in f64. A bf16 or f16 accumulator (`outs`) sums in f32 and is
    rounded to its type once at the end, as torch's bf16 matmul and the GPU
    kernels of the same op (`mxfp8train-lower-to-gpu`) compute it, not at
    every multiply and add as linalg.matmul's body reads: the CPU and GPU
    agree, and a converted GEMM (f32 accumulation, one rounding) is compared
    against a reference of the same accumulation.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def MXFP8TrainCPUSplitReductionsPass
    : Pass<"mxfp8train-cpu-split-reductions", "::mlir::ModuleOp"> {
  let summary = "Split long reductions with few outputs into partial results (CPU)";
  let description = [{
    The schedule of Conversion/Utils/SplitReductions.h, the same as
    `convert-mxfp8train-to-gpu`'s `split-reductions` on the GPU: a linalg
    reduction on tensors with P parallel points and R >= 1024 reduction
    iterations (a loss or a norm summed to a scalar, column sums, a row
    max) becomes S partial results, partial s adding elements s, s + S, ...
    in order, and their combination into the original init, split again
    while it qualifies (S the largest divisor of R with S <= 2^18 / P and
    R / S >= 16). The CPU and the GPU then add the same elements in the
    same order, and a sum of millions of terms keeps its accuracy: a
    sequential f32 sum of 2^24 positive values (the MSE of a (4096, 4096)
    output) was 30.8 dB from float64, as both devices compute it now within
    a few ulps. `linalg.matmul` and `linalg.batch_matmul` (the CPU's GEMMs,
    after mxfp8train-cpu-prepare-matmuls) are left alone, as the GPU's GEMM
    kernels take them before its split.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def MXFP8TrainCPUTileAndVectorizePass
    : Pass<"mxfp8train-cpu-tile-and-vectorize", "::mlir::ModuleOp"> {
  let summary = "Tile and vectorize linalg ops with upstream transforms (CPU)";
  let description = [{
    Tiles f32 `linalg.matmul` for cache and registers (loop order N, K, M so
    that a B tile is reused by every M tile) and vectorizes the register tile
    into `vector.contract`, lowered to outer products (FMAs). Elementwise and
    reduction `linalg.generic` ops are tiled and vectorized too. Ops that
    cannot be vectorized stay as they are and become scalar loops.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def MXFP8TrainCPULowerVectorsPass
    : Pass<"mxfp8train-cpu-lower-vectors", "::mlir::ModuleOp"> {
  let summary = "Lower n-D vector ops to 1-D ones before LLVM conversion (CPU)";
  let description = [{
    Applies upstream vector lowering patterns: `vector.contract` to outer
    products (FMAs), multi-reductions, broadcasts, shape casts, transposes
    (1-D shuffles), masks, gathers and n-D transfers, so that
    `convert-vector-to-llvm` only sees 1-D vectors.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

//===----------------------------------------------------------------------===//
// The host interface of public functions (HostInterface.cpp)
//===----------------------------------------------------------------------===//

def MXFP8TrainDistinctResultsPass
    : Pass<"mxfp8train-distinct-results", "::mlir::ModuleOp"> {
  let summary = "Give every returned tensor of a public function its own buffer";
  let description = [{
    Public functions return their tensors through caller-allocated
    out-parameters after bufferization. A result that is a function argument
    or the same value as an earlier result would alias another buffer, so it
    is returned as a copy (`bufferization.alloc_tensor() copy(%v)`), and
    tensor arguments are marked `bufferization.writable = false` so that no
    result is computed in place in an input. This keeps the function's
    signature, which hosts rely on, intact.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def MXFP8TrainEmitCInterfacePass
    : Pass<"mxfp8train-emit-c-interface", "::mlir::ModuleOp"> {
  let summary = "Mark every public function with llvm.emit_c_interface";
  let description = [{
    Adds the `llvm.emit_c_interface` unit attribute to every public
    `func.func` with a body, so that `convert-func-to-llvm` emits the
    `_mlir_ciface_<name>` wrapper taking memref descriptors by pointer, the
    entry point that mlir::ExecutionEngine hosts, mxfp8-launch and the
    launch library call. The CPU and GPU pipelines run it before the
    conversion to LLVM.
  }];
}

//===----------------------------------------------------------------------===//
// Input checks and arithmetic (VerifyLoweringInput.cpp, NarrowFloatArith.cpp)
//===----------------------------------------------------------------------===//

def MXFP8TrainStridedCopiesPass
    : Pass<"mxfp8train-strided-copies", "::mlir::func::FuncOp"> {
  let summary = "Turn memref.copy of non-contiguous views into linalg.copy";
  let description = [{
    Bufferization copies a strided view (a `tensor.extract_slice` with
    strides, a transposed view) into a contiguous buffer with `memref.copy`.
    Neither pipeline can take such a copy as it is: `gpu.memcpy` copies
    contiguous bytes only, and on the CPU `memref.copy` of a non-identity
    layout lowers to a call of the `memrefCopy` runtime function, which
    neither the JIT nor `mxfp8-compile`'s objects link (a `JIT session error:
    Symbols not found: [ memrefCopy ]`). This pass rewrites every
    `memref.copy` whose source or target is not a static, contiguous
    row-major buffer into `linalg.copy`, which both pipelines lower like
    their other linalg ops (GPU: a kernel; CPU: loops). Contiguous copies
    stay `memref.copy` (a `memcpy`, or `gpu.memcpy`). With `gpu-memcpy`
    (the GPU pipeline), a copy whose source or target is contiguous but has
    another layout than the identity (a view at an offset: one micro-batch
    `tensor.extract_slice` of a loop, the destination of a
    `tensor.insert_slice` or a `tensor.concat`) becomes `linalg.copy` too:
    upstream's `gpu.memcpy` lowering takes identity-layout sources only and
    writes to a target's aligned pointer without its offset (such a copy
    landed at the start of the buffer).
  }];
  let options = [
    Option<"gpuMemcpy", "gpu-memcpy", "bool", /*default=*/"false",
           "Keep as memref.copy only the copies gpu.memcpy can lower "
           "(between identity-layout buffers)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def MXFP8TrainStripAttributesPass
    : Pass<"mxfp8train-strip-attributes", "::mlir::ModuleOp"> {
  let summary = "Remove the mxfp8train.* attributes from a lowered module";
  let description = [{
    Removes every discardable attribute named `mxfp8train.<name>` or whose
    value is an attribute of the mxfp8train dialect from every operation of
    the module (the module's `mxfp8train.recipe`, an op's
    `mxfp8train.role`, `my.recipe = #mxfp8train.recipe<...>`), and every
    such argument and result attribute of every function (`func.func`,
    `llvm.func`). Their values may be
    attributes of the mxfp8train dialect (`#mxfp8train.recipe<...>`), which
    a tool without the dialect cannot parse: the last pass of both lowering
    pipelines (`mxfp8train-lower-to-cpu`, `mxfp8train-lower-to-gpu`), so
    that their LLVM-dialect output reads in upstream `mlir-translate`,
    `mlir-runner` and `mlir-opt`. The tools read what they need of these
    attributes before lowering.
  }];
}

def MXFP8TrainCheckBufferSizesPass
    : Pass<"mxfp8train-check-buffer-sizes", "::mlir::ModuleOp"> {
  let summary = "Reject a statically sized buffer larger than a byte limit";
  let description = [{
    After bufferization, every `memref.alloc` / `memref.alloca` with a static
    shape whose byte size (elements times the element's bytes, rounded up)
    is above `max-bytes` is an error at the op (whose location is that of
    the tensor it bufferizes), and the pass fails. The CPU JIT sets the limit
    to the machine's physical memory, or the process's `RLIMIT_AS` /
    `RLIMIT_DATA` when lower (`mxfp8train-lower-to-cpu`
    `max-buffer-bytes`): an intermediate that cannot exist is a diagnostic
    instead of a crash of the JIT-compiled code on the null pointer of a
    failed `malloc`. Buffers of dynamic size are not checked. `max-bytes = 0`
    (the default) checks nothing.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", "0",
           "Largest buffer in bytes; 0: no limit">,
  ];
}

def MXFP8TrainVerifyLoweringInputPass
    : Pass<"mxfp8train-verify-lowering-input", "::mlir::ModuleOp"> {
  let summary = "Reject input the CPU and GPU pipelines cannot lower, at the op";
  let description = [{
    The first pass of `mxfp8train-lower-to-cpu` and `mxfp8train-lower-to-gpu`:
    an op of an unregistered dialect (parsed with
    `--allow-unregistered-dialect`) has no semantics any pass could lower,
    so it is an error at its location rather than a failure deep inside
    bufferization. So are sharding annotations (`shard.sharding`,
    `shard.shard`) left in a module that was not partitioned. With
    `static-shapes` (the GPU pipeline runs it so once more after its
    canonicalization, just before convert-mxfp8train-to-gpu), so is an op
    with a dynamically shaped or unranked tensor or memref operand or
    result (outside a `gpu.module` the input brings): the GPU lowering
    launches kernels of static shapes only (it failed with "failed to
    legalize operation 'gpu.func'"). Shapes that canonicalization makes
    static pass. (Host element reads and writes of tensors,
    `tensor.extract` / `tensor.insert` / `tensor.from_elements` outside a
    linalg body, are no errors: the GPU pipeline copies a read element to
    the host and writes elements with one-element device fills; the
    `device-tensors` option that rejected them is gone.)
  }];
  let options = [
    Option<"staticShapes", "static-shapes", "bool", "false",
           "Reject dynamically shaped tensors and memrefs (the GPU pipeline)">,
  ];
}

def MXFP8TrainLowerNarrowFloatArithPass
    : Pass<"mxfp8train-lower-narrow-float-arith", "::mlir::ModuleOp"> {
  let summary = "Lower scalar arith ops on fp8 and e8m0 values to exact integer code";
  let description = [{
    Neither LLVM nor upstream's arith lowering has fp8 or e8m0 arithmetic,
    and upstream's constant folder turns the e8m0 NaN byte `0xFF` into
    +Inf. The CPU and GPU pipelines therefore run this pass first, before
    any canonicalization. On scalars of `f8E4M3FN`, `f8E5M2` and
    `f8E8M0FNU`:
    - `arith.extf` decodes the byte exactly (SPEC §1, §3: e8m0 `0xFF` is NaN,
      `0x00` is 2^-127) into f32, then converts to the result type;
    - `arith.cmpf` compares the exact f32 values;
    - `arith.maximumf`, `minimumf`, `maxnumf`, `minnumf` pick one of the two
      operand bytes with the f32 result's semantics (no rounding);
    - `arith.negf` / `arith.absf` flip / clear the sign bit (fp8 only).
    Every other arith or math op on these types (`truncf`, `addf`, ...;
    their rounding would not match the MX conversion of SPEC §2), and these
    ops on vectors or tensors, are errors at the op's location.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MXFP8TrainLegalizeMathPass
    : Pass<"mxfp8train-legalize-math", "::mlir::ModuleOp"> {
  let summary = "Rewrite the math ops that the CPU or NVVM lowering lacks";
  let description = [{
    Upstream's `convert-math-to-llvm` (CPU) and `convert-gpu-to-nvvm`
    (libdevice calls, GPU) leave some math ops unconverted, and the
    translation to LLVM IR then fails with a module dump. The CPU and GPU
    pipelines run this pass just before those lowerings (the CPU: on the
    whole module before `convert-vector-to-llvm`; the GPU: on kernels and
    host code before the `gpu.module` pipeline):
    - `math.ipowi` (signless integers of any width and `index`, as 64
      bits; scalars and vectors): square and multiply over the exponent's
      bits without branches, in the op's own width (wrapping products, as
      upstream's `convert-math-to-funcs` defines the op); a negative
      exponent gives `1 / b` for `b` = 1 or -1 (-1 for an odd exponent of
      -1) and 0 for `|b| > 1`; `b` = 0 with a negative exponent is that
      definition's division by zero (undefined behaviour; the value is
      unspecified);
    - `math.clampf`: upstream's expansion (`arith.minimumf`,
      `arith.maximumf`), the formula MathOps.td defines the op by,
      `maxf(minf(value, min), max)`: `clampf 0 to [1, 3]` is 3, not the
      1 a clamp to an interval would give;
    - `math.isinf`: `|x| == +inf`; `math.isnormal`: `smallest normal <=
      |x| < +inf` (false for NaN, zero, subnormals);
    - `math.sincos`: `math.sin` and `math.cos` (libdevice has both but no
      sincos; upstream's LLVM lowering of it on the CPU takes scalars and
      1-D vectors only, and the CPU vectorizes bodies into n-D vectors);
    - with `libm-calls` (both pipelines; host code only, outside
      `gpu.module`, whose kernels call libdevice): `math.acosh`, `asinh`,
      `atanh`, `cbrt`, `erf`, `erfc` (no LLVM intrinsic), `expm1` and
      `log1p` (which upstream's LLVM lowering computes as `exp(x) - 1` and
      `log(1 + x)`, losing small x) become calls of the C library's float
      and double functions (upstream's `convert-math-to-libm` patterns;
      vectors are unrolled; bf16 and f16 compute in f32 and round once).
      A module symbol of such a function's name other than its declaration
      (a user's `@erf`) is an error at the op: the call would reach it.
      Other element types are an error at the op.
    Tensor-typed ops are left alone (the pipelines make elementwise linalg
    ops of them first). `math.ctlz`, `cttz`, `ctpop` and `math.trunc` in
    kernels are left to upstream's `convert-math-to-llvm`, which the GPU
    pipeline runs after `convert-gpu-to-nvvm`.
  }];
  let options = [
    Option<"libmCalls", "libm-calls", "bool", "false",
           "Lower acosh, asinh, atanh, cbrt, erf, erfc, expm1 and log1p of host code to C library calls">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def MXFP8TrainExpandArithPass : Pass<"mxfp8train-expand-arith"> {
  let summary = "arith-expand without its maximumf / minimumf expansion (CPU)";
  let description = [{
    Upstream's `arith-expand{include-bf16=true}` (ceil and floor divisions,
    `maxnumf` / `minnumf`, the scaling casts, bf16 <-> f32 conversions as
    bit operations), except that `arith.maximumf` and `arith.minimumf` are
    left to `convert-arith-to-llvm`: its `llvm.maximum` / `llvm.minimum`
    order -0.0 below +0.0 as the ops define (and as the GPU's `max.NaN` /
    `min.NaN` do), where arith-expand's compare-and-select returns the
    second operand of equal ones (`maximumf(+0.0, -0.0)` was -0.0 on the
    CPU until session 34, and so was `math.clampf` through them). NaN
    operands give NaN either way. The CPU pipeline runs it after
    `convert-vector-to-llvm`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def MXFP8TrainCheckKernelTypesPass
    : Pass<"mxfp8train-check-kernel-types", "::mlir::ModuleOp"> {
  let summary = "Reject float types NVPTX cannot handle in kernels, at the input op";
  let description = [{
    In the module's `gpu.module`s: an op with an `f80` or `tf32` operand or
    result (scalar, vector or memref element: NVPTX cannot even load,
    store or pass such values), and an `arith` / `math` op computing on
    `f128` (other than `arith.constant`, `select` and `bitcast`: f128
    values can be moved), is an error. It is reported at the op's location,
    or its closest ancestor's that points at an input op (the bodies of
    linalg's named ops are built at unknown locations), or, for kernels
    built at the module's location (shared elementwise kernels), at the
    first host launch of the kernel; once per location. Until session 34
    the NVVM lowering aborted the process on them ("LLVM ERROR: unsupported
    library call operation", "Cannot select", a segfault) or failed at an
    unknown location ("failed to legalize operation 'gpu.func'", tf32).
    The GPU pipeline runs it after outlining, before the NVVM lowering.
  }];
}

def MXFP8TrainCheckConstantDivisorsPass
    : Pass<"mxfp8train-check-constant-divisors", "::mlir::ModuleOp"> {
  let summary = "Reject integer divisions by a constant zero, at the op (CPU)";
  let description = [{
    An integer division or remainder (`arith.divsi`, `divui`, `remsi`,
    `remui`, `ceildivsi`, `ceildivui`, `floordivsi`; `llvm.sdiv`, `udiv`,
    `srem`, `urem`) whose divisor is a constant with a zero element (a
    scalar, a vector or tensor constant, or the constant tensor input of a
    linalg body's divisor argument) is an error at its location (or its
    closest located ancestor's). The CPU pipeline runs it on tensors after
    the conversions to linalg and again on the LLVM dialect it ends with. Such a division is undefined in MLIR's `arith`
    (`divsi`, `divui`, `remsi`, `remui`, `ceildivsi`, `floordivsi`) and in
    LLVM, which folds it at compile time into a silent value (zeros, until
    session 34), while a divisor that is zero only at run time traps on x86
    and ends the call with an error (Support/TrapGuard.h). The check is at
    compile time, so it also rejects such a division on a path the run
    would not take.
  }];
}

def MXFP8TrainDecomposeLinalgPass
    : Pass<"mxfp8train-decompose-linalg", "::mlir::ModuleOp"> {
  let summary = "Decompose linalg and tensor ops that neither pipeline lowers directly";
  let description = [{
    Some linalg ops have no bufferization or loop lowering of their own:
    upstream decomposes them on request. The CPU and GPU pipelines run this
    pass before their conversions, on tensors:
    - ops of `AggregatedOpInterface` (`linalg.softmax`: max, subtract, exp,
      sum, divide; the Winograd ops) by their own `decomposeOperation`;
    - `linalg.pack` by upstream's `linalg::lowerPack` (`tensor.pad`,
      `tensor.expand_shape`, `linalg.transpose`) and `linalg.unpack` by
      `linalg::lowerUnPack` (`linalg.transpose`, `tensor.collapse_shape`,
      `tensor.extract_slice`);
    - `tensor.bitcast` (static shapes) by an elementwise `linalg.generic` of
      `arith.bitcast` (it has no bufferization).
    Before session 33 `linalg.softmax` failed in the CPU's translation to
    LLVM IR and was an error at the op on the GPU; `linalg.pack` and
    `linalg.unpack` and `tensor.bitcast` were "op was not bufferized". An
    op whose decomposition fails is an error at its location.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif // MXFP8TRAIN_PIPELINES_PASSES_TD
