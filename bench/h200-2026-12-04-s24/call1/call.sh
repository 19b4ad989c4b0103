# Session 24 call 1: the promoted Float8 GEMMs with the epilogue
# overlapped (float8-overlap-epilogue=1: a tile issues its first stage's
# wgmma, then stores the previous tile's packed bf16 words) against the
# default (=0), as kernels on K-major operands against
# torch._scaled_mm(use_fast_accum=False) in the same run (gpu-check timing
# cases, alternating, three times); and every Float8 GEMM case lowered with
# the overlap (new: 2d-3d with promotion) against float64.
L=/tmp/c1; mkdir -p $L
python3 scripts/gpu-check.py run --no-timing .gpucheck-ov1 > $L/cases.log 2>&1; echo "cases rc=$?"
grep -E "^f8_.* (ok|MISMATCH|FAIL)|cases" $L/cases.log | grep -v " ok$" ; grep -c " ok$" $L/cases.log
ONLY=""
for n in dgrad_w1_kmajor dgrad_w2_kmajor wgrad_w1_kmajor dgrad_w1_kmajor_tw dgrad_w2_kmajor_tw wgrad_w1_kmajor_tw; do
  ONLY="$ONLY --only f8_gemm_timing_llama_$n"
done
for r in 1 2 3; do
  for t in ov0 ov1; do
    echo "## .gpucheck-$t run $r"
    python3 scripts/gpu-check.py run --reps 30 $ONLY .gpucheck-$t 2>&1 | grep -E "^f8_gemm|ours / torch: .*x, fast_accum False\)$|rror|mismatch"
  done
done > $L/timing.txt
grep -E "^##|^f8_gemm|^torch" $L/timing.txt | sed -E 's/ +/ /g' | cut -c1-120
cp $L/*.log $L/timing.txt $OUT/
