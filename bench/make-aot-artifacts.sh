#!/usr/bin/env bash
#===- bench/make-aot-artifacts.sh - AOT objects for the GPU machine --------===#
#
# Usage: bench/make-aot-artifacts.sh [OUT_DIR]
#
# Runs here, where MLIR is; prepares everything the one device harness,
# bench/device/run-aot-checks.sh, runs on the GPU machine, as one artifact
# set per chip: the primary set (CHIP, default sm_90a) in OUT_DIR, and one
# set per EXTRA_CHIPS entry (default sm_100a) in OUT_DIR/<chip>/. A set holds:
#  - kernel checks: every check function compiled with mxfp8-compile for
#    the CPU and for CUDA (NAME.cpu.o, NAME.cpu.manifest, NAME.cuda.o,
#    NAME.cuda.manifest); `compare` lines of SET/checks.txt run
#    NAME.cuda on the GPU and NAME.cpu on the host on the same generated
#    inputs and compare them (bit-exact, or an SQNR bar for whole training
#    steps, whose GEMMs accumulate in another order on the GPU); an extra
#    set holds CUDA objects only and names the primary set's CPU objects
#    (`cpu-objects ..`), whose hash lines it repeats;
#  - the main job at full size: each training step (Llama-3-8B MLP and
#    DeepSeek-V3 MoE at $TOKENS tokens, scripts/resize-tokens.py) compiled
#    for CUDA as written (NAME.hp) and after the MXFP8 rewrite (NAME.mx);
#    `step` lines run NAME.mx against NAME.hp on the GPU: the SQNR of every
#    result with its bar and the timing of the two steps;
#  - scripts/gpu-check.py's cases (SET/gpucheck: the quantization
#    kernels bit for bit against the CPU path on special values, and their
#    bandwidth against a device-to-device copy);
#  - for the chips in GEMMCHECK_CHIPS (default sm_100a): bench/gemm_bench.py's
#    cases and timing kernels (SET/gemmcheck: the GEMMs against float64, and
#    timed against cuBLAS MXFP8 and bf16 in the same run);
#  - SET/gemm-variants.txt: scripts/gemm-variants.py's ptxas table of every
#    GEMM kernel the lowering emits for the chip (registers, spills, shared
#    memory), which bench/device/cutlass-side-by-side.sh shows.
# Each set's checks.txt starts with `chip CHIP`: the device harness runs a
# set only on a GPU of that architecture and prints skip rows elsewhere.
# A function the GPU pipeline cannot compile becomes a `skip` line with the
# compiler's first error. When mxfp8-launch and a C++ compiler are here too,
# each CPU object is also run here and the SHA-256 of its generated inputs
# and of its results are recorded: the GPU machine checks that it generates
# the same inputs and that the CPU objects give the same bytes on its CPU.
#
# OUT_DIR defaults to aot-artifacts/ in the repository root. The device
# tool copies the working tree: an untracked folder travels as it is; one
# ignored through .git/info/exclude must be named in `carry`.
#
# Environment: BUILD_DIR (a build with bin/mxfp8-compile; default build/,
# then build-aot/), CHIP (the primary set, default sm_90a), EXTRA_CHIPS
# (further sets, default sm_100a; empty: none), MCPU (host CPU of the
# objects, default x86-64-v3), CUDA_HOME (ptxas and libdevice for the
# kernels), TOKENS (token count of the main-job steps, default 16384; 0:
# none), RECIPE (default mxfp8_rceil), GPUCHECK (1: also prepare
# gpu-check.py's cases, the default when the build has mxfp8-run; 0: not),
# GEMMCHECK_CHIPS (sets that get gemm_bench.py's cases, default sm_100a),
# ONLY (an extended regular expression: only the checks and steps whose
# NAME matches, and no gemm-variants.txt; e.g. ONLY='^loops_' TOKENS=0 GPUCHECK=0 EXTRA_CHIPS= for a
# small set of one device call).
#
#===------------------------------------------------------------------------===#
set -euo pipefail
export LC_ALL=C

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/aot-artifacts}"
primary_chip="${CHIP:-sm_90a}"
extra_chips="${EXTRA_CHIPS-sm_100a}"
gemmcheck_chips="${GEMMCHECK_CHIPS-sm_100a}"
mcpu="${MCPU:-x86-64-v3}"
tokens="${TOKENS:-16384}"
recipe="${RECIPE:-mxfp8_rceil}"
# A Float8 recipe (a name or a #mxfp8train.float8_recipe): its steps do not
# compile for the GPU until the Float8 cast kernels exist (docs/float8.md).
case "$recipe" in
  float8_*|fp8_*|*float8_recipe*) float8=1 ;;
  *) float8=0 ;;
esac

compile=""
launch=""
for dir in "${BUILD_DIR:-}" "$root/build" "$root/build-aot"; do
  if [ -n "$dir" ] && [ -x "$dir/bin/mxfp8-compile" ]; then
    compile="$dir/bin/mxfp8-compile"
    if [ -x "$dir/bin/mxfp8-launch" ] && command -v "${CXX:-g++}" > /dev/null; then
      launch="$dir/bin/mxfp8-launch"
    fi
    break
  fi
done
if [ -z "$compile" ]; then
  echo "make-aot-artifacts: no bin/mxfp8-compile in BUILD_DIR, build/ or build-aot/" >&2
  echo "  (ninja -C build mxfp8-compile)" >&2
  exit 2
fi

build_dir="$(dirname "$(dirname "$compile")")"
rm -rf "$out"
mkdir -p "$out"

# The globals of the set being written: `set_dir` (its folder), `chip`,
# `checks` (its checks.txt) and `primary` (empty for the primary set, else
# the primary set's folder, which holds the CPU objects).

# skip_compile SKIP LABEL: a compile failure whose messages are in $log, as
# the line `skip SKIP <first error>` of checks.txt and `  LABEL compile
# failed` here.
skip_compile() {
  echo "skip $1 $(grep -m1 'error' "$log" || head -n1 "$log")" >> "$checks"
  echo "  $2 compile failed (see $log)"
}

# hash_lines NAME ENTRY [launcher options]: runs NAME.cpu.o here
# (mxfp8-launch, generated inputs; of the options only --comm) and prints the
# `inputs` and `outputs` hash lines of checks.txt; fails when the object does
# not run.
hash_lines() {
  local name="$1" entry="$2" tmp="$set_dir/.tmp-$1" status=0 option comm=()
  shift 2
  for option in "$@"; do
    case "$option" in --comm=*) comm+=("$option") ;; esac
  done
  mkdir -p "$tmp"
  if "${CXX:-g++}" -shared -o "$tmp/cpu.so" "$set_dir/$name.cpu.o" &&
     "$launch" "$tmp/cpu.so" "$set_dir/$name.cpu.manifest" --entry="$entry" \
       "${comm[@]}" --save-inputs --output-dir="$tmp/run" > "$tmp/run.log" 2>&1; then
    echo "inputs $name $(cat "$tmp"/run/inputs/*.npy | sha256sum | cut -d' ' -f1)"
    echo "outputs $name $(cat "$tmp"/run/*.npy | sha256sum | cut -d' ' -f1)"
  else
    status=1
  fi
  rm -rf "$tmp"
  return $status
}

# selected NAME: whether $ONLY (empty: everything) selects the check NAME.
selected() {
  [ -z "${ONLY:-}" ] || [[ "$1" =~ $ONLY ]]
}

# artifact NAME ENTRY CPU_SOURCE CUDA_SOURCE EXPECT LOWERING [launcher options]
# (LOWERING "-" is the device's default pipeline). In an extra set only the
# CUDA object is compiled; the CPU object and its hashes are the primary
# set's.
artifact() {
  local name="$1" entry="$2" cpu_src="$3" cuda_src="$4" expect="$5" lowering="$6"
  shift 6
  selected "$name" || return 0
  local log="$set_dir/$name.log"
  : > "$log"
  if [ -n "$primary" ]; then
    if [ ! -f "$primary/$name.cpu.o" ]; then
      echo "skip $name no CPU object in the primary set" >> "$checks"
      rm -f "$log"
      return
    fi
  elif ! "$compile" "$cpu_src" --entry="$entry" --mcpu="$mcpu" "${compile_extra[@]}" \
      -o "$set_dir/$name.cpu.o" --manifest="$set_dir/$name.cpu.manifest" 2> "$log"; then
    skip_compile "$name cpu:" "$name: cpu"
    return
  fi
  local cuda_args=(--device=cuda --chip="$chip" "${compile_extra[@]}")
  if [ "$lowering" != "-" ]; then
    cuda_args+=(--lowering="$lowering")
  fi
  if ! "$compile" "$cuda_src" --entry="$entry" --mcpu="$mcpu" "${cuda_args[@]}" \
      -o "$set_dir/$name.cuda.o" --manifest="$set_dir/$name.cuda.manifest" 2>> "$log"; then
    skip_compile "$name cuda:" "$name: cuda"
    [ -z "$primary" ] && rm -f "$set_dir/$name.cpu.o" "$set_dir/$name.cpu.manifest"
    return
  fi
  [ -s "$log" ] || rm -f "$log"
  echo "compare $name $entry $expect $*" >> "$checks"
  if [ -n "$primary" ]; then
    awk -v n="$name" '($1 == "inputs" || $1 == "outputs") && $2 == n' \
      "$primary/checks.txt" >> "$checks"
  elif [ -n "$launch" ]; then
    local hashes
    if hashes="$(hash_lines "$name" "$entry" "$@")"; then
      echo "$hashes" >> "$checks"
    else
      echo "  $name: could not run the CPU object here (no input hashes)"
    fi
  fi
  echo "  $name"
}

# cpu_artifact NAME ENTRY SOURCE [mxfp8-compile options]: a CPU-only check
# (the object must give the same bytes on the GPU machine's CPU); primary
# set only.
cpu_artifact() {
  local name="$1" entry="$2" src="$3"
  shift 3
  local log="$set_dir/$name.log"
  [ -n "$primary" ] && return
  selected "$name" || return 0
  if [ -z "$launch" ]; then
    echo "skip $name no mxfp8-launch here to record the expected hashes" >> "$checks"
    return
  fi
  if ! "$compile" "$src" --entry="$entry" --mcpu="$mcpu" "$@" \
      -o "$set_dir/$name.cpu.o" --manifest="$set_dir/$name.cpu.manifest" 2> "$log"; then
    skip_compile "$name cpu:" "$name: cpu"
    return
  fi
  rm -f "$log"
  local hashes
  if hashes="$(hash_lines "$name" "$entry")"; then
    echo "run $name $entry" >> "$checks"
    echo "$hashes" >> "$checks"
    echo "  $name (cpu only)"
  else
    echo "skip $name could not run the CPU object here" >> "$checks"
    echo "  $name: could not run the CPU object here"
  fi
}

# step_artifact NAME ENTRY SOURCE [launcher options]: the training step
# SOURCE for CUDA as written (NAME.hp) and after the MXFP8 rewrite with
# $recipe: NAME.mx with the default lowering (the specialised GEMM kernels
# where they exist) and NAME.mxsimple with simple-gemm (the simple tiled
# GEMM kernels only); one `step` line per MXFP8 variant that compiled; and
# NAME.probe (mxfp8-compile --per-matmul: the high-precision step that also
# returns every matmul in high precision and converted alone on the same
# inputs), a `probe` line: the per-matmul table of torchao's bars.
step_artifact() {
  local name="$1" entry="$2" src="$3"
  shift 3
  local log="$set_dir/$name.log"
  local rewrite_pipe="mxfp8train-rewrite-matmuls{recipe=$recipe},canonicalize,cse"
  selected "$name" || return 0
  if ! "$compile" "$src" --entry="$entry" --mcpu="$mcpu" --device=cuda \
      --chip="$chip" -o "$set_dir/$name.hp.cuda.o" \
      --manifest="$set_dir/$name.hp.cuda.manifest" 2>> "$log"; then
    skip_compile "$name hp:" "$name: hp"
    return
  fi
  local variant
  for variant in mx mxsimple; do
    local lowering=()
    [ "$variant" = mxsimple ] &&
      lowering=(--lowering="mxfp8train-lower-to-gpu{chip=$chip simple-gemm=true}")
    if "$compile" "$src" --entry="$entry" --mcpu="$mcpu" --device=cuda \
        --chip="$chip" --pipeline="$rewrite_pipe" "${lowering[@]}" \
        -o "$set_dir/$name.$variant.cuda.o" \
        --manifest="$set_dir/$name.$variant.cuda.manifest" 2>> "$log"; then
      echo "step $name $entry $variant $*" >> "$checks"
      echo "  $name.$variant (step: $recipe vs high precision, both on the GPU)"
    else
      skip_compile "$name.$variant" "$name.$variant:"
      rm -f "$set_dir/$name.$variant".cuda.*
      if [ "$float8" = 1 ]; then
        echo "  ($recipe: the GPU lowering has no kernel for Float8 casts yet;" \
          "the step runs on the CPU: RECIPE=$recipe bash scripts/main-job.sh --device=cpu)"
      fi
    fi
  done
  if "$compile" "$src" --entry="$entry" --mcpu="$mcpu" --device=cuda \
      --chip="$chip" --per-matmul="$recipe" -o "$set_dir/$name.probe.cuda.o" \
      --manifest="$set_dir/$name.probe.cuda.manifest" 2>> "$log"; then
    echo "probe $name $entry -" >> "$checks"
    echo "  $name.probe (per-matmul table)"
  else
    skip_compile "$name.probe" "$name.probe:"
    rm -f "$set_dir/$name.probe".cuda.*
  fi
  [ -s "$log" ] || rm -f "$log"
}

# The main job's sources at $TOKENS tokens, shared by every set.
if [ "$tokens" != 0 ]; then
  mkdir -p "$out/src"
  python3 "$root/scripts/resize-tokens.py" "$root/examples/llama3_8b_mlp_train_step.mlir" \
    "$out/src/llama3_8b_mlp_$tokens.mlir" --tokens="$tokens" > /dev/null
  python3 "$root/scripts/resize-tokens.py" "$root/examples/deepseek_v3_moe_train_step.mlir" \
    "$out/src/deepseek_v3_moe_$tokens.mlir" --tokens="$tokens" > /dev/null
fi

# make_set DIR CHIP PRIMARY: one artifact set (PRIMARY empty: the primary
# set, with the CPU objects).
make_set() {
  set_dir="$1"
  chip="$2"
  primary="$3"
  checks="$set_dir/checks.txt"
  mkdir -p "$set_dir"
  {
    echo "# AOT checks for bench/device/run-aot-checks.sh, written by"
    echo "# bench/make-aot-artifacts.sh from $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "# chip=$chip mcpu=$mcpu compiler=$compile"
    echo "# chip CHIP: the GPU architecture of the set's kernels"
    echo "# cpu-objects DIR: the CPU objects are DIR/NAME.cpu.o (an extra set)"
    echo "# compare NAME ENTRY EXPECT [mxfp8-launch options]: NAME.cuda vs NAME.cpu"
    echo "#   EXPECT: exact, or sqnr>=DB"
    echo "# step NAME ENTRY VARIANT [mxfp8-launch options]: NAME.VARIANT.cuda (the"
    echo "#   MXFP8 step: mx, default lowering; mxsimple, simple GEMM kernels) vs"
    echo "#   NAME.hp.cuda (the high-precision step), both on the GPU"
    echo "# probe NAME ENTRY - [mxfp8-launch options]: NAME.probe.cuda alone, its"
    echo "#   per-matmul table (each matmul converted alone on the step's inputs)"
    echo "# run NAME ENTRY [mxfp8-launch options]: NAME.cpu alone on the GPU"
    echo "#   machine's CPU, checked against the hashes below"
    echo "# skip NAME REASON"
    echo "# inputs NAME SHA256 / outputs NAME SHA256: of the concatenated .npy"
    echo "#   files of the generated inputs / of the CPU results, made here"
    echo "chip $chip"
    [ -n "$primary" ] && echo "cpu-objects .."
  } > "$checks"

  # An upstream lowering for hand-written gpu.module kernels (no mxfp8train
  # ops): results as out-parameters, kernels embedded as cubins.
  local upstream_lowering="one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},canonicalize,func.func(llvm-request-c-wrappers),nvvm-attach-target{chip=$chip O=3},gpu.module(convert-gpu-to-nvvm),gpu-to-llvm,gpu-module-to-binary{format=bin},finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts"

  compile_extra=()
  local timing=(--repeat=20 --warmup=3 --fill-results=255)
  echo "make-aot-artifacts: compiling into $set_dir (chip $chip, host cpu $mcpu)"

  # The launcher's CUDA path on its own: an upstream-lowered kernel, c = a + b.
  artifact add add "$root/test/tools/mxfp8-launch/Inputs/add-cpu.mlir" \
    "$root/test/tools/mxfp8-launch/cuda-fake-driver.mlir" exact \
    "$upstream_lowering" "${timing[@]}"

  # mxfp8train-lower-to-gpu against mxfp8train-lower-to-cpu, bit for bit.
  local quantize="$root/bench/aot/quantize.mlir" entry
  for entry in quantize_rows_rceil quantize_cols_floor quantize_f32_rows_even \
      quantize_e5m2_ceil quantize_blocked quantize_to_blocked roundtrip; do
    artifact "$entry" "$entry" "$quantize" "$quantize" exact - "${timing[@]}"
  done

  # The grouped to_blocked layouts (uneven, empty, misaligned and malformed
  # groups), bit for bit.
  local layouts="$root/bench/aot/layouts.mlir"
  for entry in m_groups_uneven m_groups_short_malformed m_groups_dsv3 \
      k_groups_uneven k_groups_misaligned k_groups_malformed k_groups_dsv3; do
    artifact "to_blocked_$entry" "$entry" "$layouts" "$layouts" exact - "${timing[@]}"
  done

  # A whole MXFP8 training step on the CPU: the same bytes on the GPU
  # machine's CPU and libm.
  cpu_artifact mlp_train_step mlp_train_step "$root/examples/mlp_train_step_small.mlir" \
    --pipeline='mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil},canonicalize,cse'

  # The GEMM kernels against the CPU path (f32 results: only the order of the
  # f32 accumulation differs), the MXFP8 GEMMs with the default lowering and
  # with the simple kernels only.
  local gemm="$root/bench/aot/gemm.mlir"
  for entry in mm_nt mm_tn_init bmm gmm_2d3d gmm_2d2d smm smm_dgrad sgmm_2d3d sgmm_2d2d \
      smm_cta2 sgmm_2d3d_cta2; do
    artifact "gemm_$entry" "$entry" "$gemm" "$gemm" "sqnr>=100" - --repeat=3
  done
  for entry in smm smm_dgrad sgmm_2d3d sgmm_2d2d; do
    artifact "gemm_${entry}_simple" "$entry" "$gemm" "$gemm" "sqnr>=100" \
      "mxfp8train-lower-to-gpu{chip=$chip simple-gemm=true}" --repeat=3
  done
  # The same GEMMs with their dequantization pre-passes (sm_90a's default
  # build writes the bf16 operands in the quantize kernels, fuse-dequant):
  # the same SQNR as the default build, both paths' bits against the CPU.
  for entry in smm smm_dgrad sgmm_2d3d; do
    artifact "gemm_${entry}_nodeq" "$entry" "$gemm" "$gemm" "sqnr>=100" \
      "mxfp8train-lower-to-gpu{chip=$chip fuse-dequant=false}" --repeat=3
  done
  # The high-precision GEMMs on the tuned kernel (sm_90a; the simple ones on
  # sm_100a): every operand orientation, odd sizes, init, batches, groups.
  for entry in hp_mm_nt hp_mm_nn hp_mm_tn hp_mm_tt hp_mm_odd_nt hp_mm_odd_init \
      hp_mm_out_nm hp_bmm_nt hp_bmm_nn hp_gmm_2d3d hp_gmm_2d3d_nn hp_gmm_2d2d; do
    artifact "gemm_$entry" "$entry" "$gemm" "$gemm" "sqnr>=100" - --repeat=3
  done
  artifact gemm_hp_mm_nt_bf16 hp_mm_nt_bf16 "$gemm" "$gemm" "sqnr>=40" - --repeat=3
  # A contraction body with more than out + x * y: a reduction kernel, not
  # a GEMM (_loop: on the loop path, the same bits).
  artifact gemm_generic_abs_mm generic_abs_mm "$gemm" "$gemm" "sqnr>=100" - --repeat=3
  artifact gemm_generic_abs_mm_loop generic_abs_mm "$gemm" "$gemm" "sqnr>=100" \
    "mxfp8train-lower-to-gpu{chip=$chip reduction-kernels=false}" --repeat=3

  # What the kernels leave to upstream's loop path (RemainingOps.cpp):
  # rank-0 ops (scalar arithmetic exact; a loss reduced in one thread, f32
  # in another order than the CPU's vectorized sum) and a GEMM result an
  # scf.for carries, in high precision and after the MXFP8 rewrite.
  local loops="$root/bench/aot/loops_scalars.mlir"
  artifact loops_scalar_ops scalar_ops "$loops" "$loops" exact - --repeat=3
  artifact loops_mse_loss mse_loss "$loops" "$loops" "sqnr>=100" - --repeat=3
  artifact loops_grad_accum grad_accum "$loops" "$loops" "sqnr>=100" - --repeat=3
  artifact loops_sgd_steps sgd_steps "$loops" "$loops" "sqnr>=100" - --repeat=3
  artifact loops_square_and_product square_and_product "$loops" "$loops" "sqnr>=100" - --repeat=3
  artifact loops_concat_rows concat_rows "$loops" "$loops" exact - --repeat=3
  artifact loops_insert_rows insert_rows "$loops" "$loops" exact - --repeat=3
  artifact loops_clip_by_norm clip_by_norm "$loops" "$loops" exact - --repeat=3
  artifact loops_branch_on_element branch_on_element "$loops" "$loops" exact - --repeat=3
  artifact loops_host_writes host_writes "$loops" "$loops" exact - --repeat=3
  artifact loops_while_double while_double "$loops" "$loops" exact - --repeat=3
  compile_extra=(--pipeline="mxfp8train-rewrite-matmuls{recipe=$recipe},canonicalize,cse")
  artifact loops_grad_accum_mx grad_accum "$loops" "$loops" "sqnr>=100" - --repeat=3
  compile_extra=()

  # Math ops mxfp8train-legalize-math rewrites: integer powers, bit counts,
  # classifications, clampf, trunc exact; the C library's (CPU) and
  # libdevice's (GPU) functions within ulps.
  local math="$root/bench/aot/math_ops.mlir"
  artifact math_exact math_exact "$math" "$math" exact - --repeat=3
  artifact math_libm math_libm "$math" "$math" "sqnr>=100" - --repeat=3

  # Tensor-level ops first lowered for the GPU in session 33: softmax, pack,
  # unpack, tensor.bitcast (mxfp8train-decompose-linalg), complex
  # arithmetic, kernel results of an scf.index_switch; host tensors of f16,
  # i1, i8 and i16 (session 34).
  local tensor_ops="$root/bench/aot/tensor_ops.mlir"
  for entry in pack_unpack bitcast index_switch narrow_kinds; do
    artifact "tensor_$entry" "$entry" "$tensor_ops" "$tensor_ops" exact - --repeat=3
  done
  for entry in softmax complex_ops; do
    artifact "tensor_$entry" "$entry" "$tensor_ops" "$tensor_ops" "sqnr>=100" - --repeat=3
  done

  # Reductions with few outputs (a loss, a squared norm, column sums, row
  # maxima): split into parallel partial results with the CPU's schedule
  # (default: the same sums, exact; the squared norm's multiply-add fuses
  # into fma on the GPU), each level a reduction kernel; to time them
  # against it, the same split on the loop path (_loop: reduction-kernels
  # off, the same bits) and on the loop path's threads alone (_serial:
  # sequential sums, 30.8 dB from float64 for the 2^24-term ones, hence
  # their bar).
  local reductions="$root/bench/aot/reductions.mlir"
  local serial="mxfp8train-lower-to-gpu{chip=$chip split-reductions=false reduction-kernels=false}"
  local loop_path="mxfp8train-lower-to-gpu{chip=$chip reduction-kernels=false}"
  artifact reduce_mse_loss_loop mse_loss "$reductions" "$reductions" exact "$loop_path" --repeat=5
  artifact reduce_norm_sq_loop norm_sq "$reductions" "$reductions" "sqnr>=100" "$loop_path" --repeat=5
  artifact reduce_column_sums_loop column_sums "$reductions" "$reductions" exact "$loop_path" --repeat=5
  artifact reduce_row_max_loop row_max "$reductions" "$reductions" exact "$loop_path" --repeat=5
  artifact reduce_mse_loss mse_loss "$reductions" "$reductions" exact - --repeat=5
  artifact reduce_mse_loss_serial mse_loss "$reductions" "$reductions" "sqnr>=25" "$serial" --repeat=2
  artifact reduce_norm_sq norm_sq "$reductions" "$reductions" "sqnr>=100" - --repeat=5
  artifact reduce_norm_sq_serial norm_sq "$reductions" "$reductions" "sqnr>=25" "$serial" --repeat=2
  artifact reduce_column_sums column_sums "$reductions" "$reductions" exact - --repeat=5
  artifact reduce_column_sums_serial column_sums "$reductions" "$reductions" "sqnr>=80" "$serial" --repeat=5
  artifact reduce_row_max row_max "$reductions" "$reductions" exact - --repeat=5
  artifact reduce_row_max_serial row_max "$reductions" "$reductions" exact "$serial" --repeat=5

  # The MoE exchange and an all-reduce on a grid of one process, compiled as
  # they are: on the GPU the runtime's NCCL path on device buffers, on the
  # CPU the in-process backend (mxfp8-launch --comm=single binds both).
  artifact moe_exchange ep_one_rank "$root/bench/aot/moe_exchange.mlir" \
    "$root/bench/aot/moe_exchange.mlir" "sqnr>=100" - --comm=single --repeat=3

  # Whole training steps on the GPU against the CPU path (the small examples):
  # as written (bf16, GEMMs in f32 in another order, expf from libdevice)
  # and converted (the quantize kernels are bit-exact, the GEMMs are not, so
  # later quantizations may round a few elements differently).
  local rewrite="mxfp8train-rewrite-matmuls{recipe=$recipe},canonicalize,cse"
  artifact mlp_small_hp mlp_train_step "$root/examples/mlp_train_step_small.mlir" \
    "$root/examples/mlp_train_step_small.mlir" "sqnr>=40" - --repeat=3
  artifact moe_small_hp moe_train_step "$root/examples/moe_train_step_small.mlir" \
    "$root/examples/moe_train_step_small.mlir" "sqnr>=40" - --repeat=3
  compile_extra=(--pipeline="$rewrite")
  artifact mlp_small_mx mlp_train_step "$root/examples/mlp_train_step_small.mlir" \
    "$root/examples/mlp_train_step_small.mlir" "sqnr>=30" - --repeat=3
  artifact moe_small_mx moe_train_step "$root/examples/moe_train_step_small.mlir" \
    "$root/examples/moe_train_step_small.mlir" "sqnr>=30" - --repeat=3
  compile_extra=()

  # The main job at full size: the MXFP8 step against the high-precision step,
  # both on the GPU (scripts/main-job.sh --device=cuda documents it).
  if [ "$tokens" != 0 ]; then
    step_artifact "llama3_8b_mlp_$tokens" mlp_train_step "$out/src/llama3_8b_mlp_$tokens.mlir" \
      --repeat=3 --warmup=1 --reference-repeat=3
    step_artifact "deepseek_v3_moe_$tokens" moe_train_step "$out/src/deepseek_v3_moe_$tokens.mlir" \
      --repeat=3 --warmup=1 --reference-repeat=3
  fi

  # scripts/gpu-check.py's cases (bit-exact special values, bandwidth).
  if [ "${GPUCHECK:-1}" = 1 ] && [ -x "$(dirname "$compile")/mxfp8-run" ]; then
    if python3 "$root/scripts/gpu-check.py" prepare --build "$build_dir" \
        --out "$set_dir/gpucheck" --chip "$chip" > "$set_dir/gpucheck.log" 2>&1; then
      echo "  gpucheck (scripts/gpu-check.py cases)"
      rm -f "$set_dir/gpucheck.log"
    else
      echo "  gpucheck: prepare failed (see $set_dir/gpucheck.log)"
      rm -rf "$set_dir/gpucheck"
    fi
  fi

  # bench/gemm_bench.py's cases and timing kernels (GEMMs against float64,
  # timed against cuBLAS MXFP8 and bf16).
  if [[ " $gemmcheck_chips " == *" $chip "* ]]; then
    if python3 "$root/bench/gemm_bench.py" prepare --build "$build_dir" \
        --out "$set_dir/gemmcheck" --chip "$chip" > "$set_dir/gemmcheck.log" 2>&1; then
      echo "  gemmcheck (bench/gemm_bench.py: $(tail -n1 "$set_dir/gemmcheck.log"))"
      rm -f "$set_dir/gemmcheck.log"
    else
      echo "  gemmcheck: prepare failed (see $set_dir/gemmcheck.log)"
      rm -rf "$set_dir/gemmcheck"
    fi
  fi

  # ptxas resources of every GEMM kernel the lowering emits for the chip
  # (registers, spills, static + dynamic shared memory), which
  # bench/device/cutlass-side-by-side.sh prints next to CUTLASS's.
  if [ -x "$build_dir/bin/mxfp8-opt" ] && [ -z "${ONLY:-}" ]; then
    # A kernel over the limits (a spill, too much shared memory) makes the
    # script exit non-zero; the table is still written and the set is
    # still useful, so it is reported, not fatal (the CI test
    # gemm-variants-sm100a.test is where it fails).
    python3 "$root/scripts/gemm-variants.py" --chip "$chip" --build "$build_dir" \
      > "$set_dir/gemm-variants.txt" 2>&1 || true
    echo "  gemm-variants.txt ($(tail -n1 "$set_dir/gemm-variants.txt"))"
  fi

  echo "make-aot-artifacts: $chip: $(grep -c -e '^compare' -e '^run' -e '^step' -e '^probe' "$checks") checks, $(grep -c '^skip' "$checks") skipped -> $checks"
}

make_set "$out" "$primary_chip" ""
for extra in $extra_chips; do
  [ "$extra" = "$primary_chip" ] && continue
  make_set "$out/$extra" "$extra" "$out"
done
du -sh "$out" | sed 's/^/make-aot-artifacts: size /'
