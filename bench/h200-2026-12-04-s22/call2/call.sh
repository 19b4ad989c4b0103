# Session 22 call 2: the promoted Float8 GEMMs with one accumulator set
# (float8-promote-unroll=1), now issuing the two warpgroups' wgmma in turn, and wider tiles (float8-promote-tile-n=160 /
# 192, and 192 as a CTA pair) against the float64 reference (gpu-check
# cases lowered with those options) and timed against torch._scaled_mm
# in the same run, the variants alternating, twice.
L=/tmp/c2; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
for t in u1 n160 n192 n192c2; do
  python3 scripts/gpu-check.py run --no-timing .gpucheck-f8$t > $L/cases-$t.log 2>&1
  echo "$t cases rc=$? $(tail -1 $L/cases-$t.log)"
done
ONLY=""
for n in w1 dgrad_w1 dgrad_w2 wgrad_w1 wgrad_w2; do ONLY="$ONLY --only f8_gemm_timing_llama_$n"; done
for r in 1 2; do
  for t in base u1 n160 n192 n192c2; do
    echo "## .gpucheck-f8$t run $r"
    python3 scripts/gpu-check.py run --no-cases --reps 30 $ONLY .gpucheck-f8$t 2>&1 | grep -E "^f8_gemm|^torch|rror"
  done
done > $L/gemm-timing.txt
cat $L/gemm-timing.txt
tar czf $OUT/call2.tgz -C $L .
