# Session 24 call 5: final checks of the last build. (1) run-aot-checks.sh
# (the kernel checks against the CPU path, MX GEMMs included, and both
# main-job steps with their per-GEMM probes); (2) the Float8 GEMM timing
# cases of the new build (forward W1 with fast accumulation, now a CTA pair
# sharing B by default, and the six promoted ones) against
# torch._scaled_mm, the same with gemm-cluster-m=1 (c1: the forward on one
# CTA) and with float8-promote-unroll=6 (u6n, built before the pair
# default), alternating twice; (3) the SASS opcode mix of the new
# promoted tensorwise kernel (dgrad, 256 x 384 x 1024, the lit test's
# shape: the same loop body).
L=/tmp/c5; mkdir -p $L
bash bench/device/run-aot-checks.sh aot-artifacts > $L/aot-checks.log 2>&1; echo "aot-checks rc=$?"
grep -E "passed|failed|FAIL|SQNR|probe" $L/aot-checks.log | tail -6
ONLY="--only f8_gemm_timing_llama_w1"
for n in dgrad_w1_kmajor dgrad_w2_kmajor wgrad_w1_kmajor dgrad_w1_kmajor_tw dgrad_w2_kmajor_tw wgrad_w1_kmajor_tw; do
  ONLY="$ONLY --only f8_gemm_timing_llama_$n"
done
for r in 1 2; do
  for t in newt c1 u6n; do
    echo "## .gpucheck-$t run $r"
    python3 scripts/gpu-check.py run --no-cases --reps 30 $ONLY .gpucheck-$t 2>&1 | grep -E "^f8_gemm|ours / torch: .*x, fast_accum (False|True)\)$|rror"
  done
done > $L/timing.txt
grep -E "^##|^f8_gemm|^torch" $L/timing.txt | sed -E 's/ +/ /g; s/\(MxKxN\) //; s/, fast_accum (False|True)//; s/f8_gemm_timing_llama_//; s/torch._scaled_mm/  torch/' | cut -c1-100
cuobjdump -sass .sass/new_tw.cubin > $L/sass-new.txt 2>&1
echo "SASS: $(grep -cE '/\*[0-9a-f]{4}\*/' $L/sass-new.txt) instructions"
grep -oE '/\*[0-9a-f]{4}\*/ +(@!?U?P[0-9T]+ +)?[A-Z0-9]+' $L/sass-new.txt | awk '{print $NF}' | sort | uniq -c | sort -rn | head -16 | tr '\n' ' '; echo
tar czf $OUT/call5.tgz -C $L .
