# Session 22 call 7: float8_tensorwise's gradient GEMMs alone (e5m2 x e4m3,
# tensorwise scales, K-major operands: new `_kmajor_tw` gpu-check timing
# cases) against torch._scaled_mm of the same types and scaling, next to
# the rowwise e4m3 `_kmajor` cases, twice.
L=/tmp/c7; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
ONLY=""
for n in dgrad_w1_kmajor dgrad_w2_kmajor wgrad_w1_kmajor dgrad_w1_kmajor_tw dgrad_w2_kmajor_tw wgrad_w1_kmajor_tw; do
  ONLY="$ONLY --only f8_gemm_timing_llama_$n"
done
for r in 1 2; do
  echo "## run $r"
  python3 scripts/gpu-check.py run --no-cases --reps 30 $ONLY .gpucheck-f8tw 2>&1 | grep -E "^f8_gemm|^torch|rror"
done > $L/gemm-timing.txt
sed -E 's/ +/ /g' $L/gemm-timing.txt | cut -c1-130
tar czf $OUT/call7.tgz -C $L .
