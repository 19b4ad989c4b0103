# Session 24 call 2: the promoted Float8 GEMMs as kernels (K-major
# operands) against torch._scaled_mm(use_fast_accum=False), same run,
# alternating twice: the default (.gpucheck-ov0: two sets, 128 x 128, one
# CTA) against float8-promote-unroll=6 (u6) and cuBLAS's configuration,
# one set on 128 x 160 / 128 x 192 tiles as a CTA pair sharing B by TMA
# multicast (n160c2, n192c2).
L=/tmp/c2; mkdir -p $L
ONLY=""
for n in dgrad_w1_kmajor dgrad_w2_kmajor wgrad_w1_kmajor dgrad_w1_kmajor_tw dgrad_w2_kmajor_tw wgrad_w1_kmajor_tw; do
  ONLY="$ONLY --only f8_gemm_timing_llama_$n"
done
for r in 1 2; do
  for t in ov0 u6 n160c2 n192c2; do
    echo "## .gpucheck-$t run $r"
    python3 scripts/gpu-check.py run --reps 30 $ONLY .gpucheck-$t 2>&1 | grep -E "^f8_gemm|ours / torch: .*x, fast_accum False\)$|rror|mismatch"
  done
done > $L/timing.txt
grep -E "^##|^f8_gemm|^torch" $L/timing.txt | sed -E 's/ +/ /g; s/\(MxKxN\) //; s/, fast_accum False//' | cut -c1-110
cp $L/timing.txt $OUT/
