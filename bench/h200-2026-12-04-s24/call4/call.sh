# Session 24 call 4: the GEMM mainloop's index arithmetic cut (the ring
# slot and parity advanced beside the counter instead of divided out of it
# per stage and role, six stages not being a power of two; the wgmma
# descriptors' address field in 32 bits from a warp-uniform warpgroup
# index). (1) gpu-check: the 14 Float8 GEMM cases against float64 (new:
# 2d-3d with promotion); (2) the promoted Float8 GEMM timing cases, the
# previous build's (.gpucheck-ov0) against the new (.gpucheck-new),
# alternating three times, torch._scaled_mm in the same runs; (3) SASS
# opcode counts of both dgrad W2 tensorwise kernels; (4) step-bench of both
# steps and all recipes with the `old` variants (MXFP8_OLD_RING=1: the
# previous arithmetic) compared bit for bit and timed, torchao peers.
L=/tmp/c4; mkdir -p $L/steps
python3 scripts/gpu-check.py run --no-timing .gpucheck-new > $L/cases.log 2>&1; echo "cases rc=$?"
grep -E "cases|MISMATCH|FAIL" $L/cases.log | tail -3
ONLY=""
for n in dgrad_w1_kmajor dgrad_w2_kmajor wgrad_w1_kmajor dgrad_w1_kmajor_tw dgrad_w2_kmajor_tw wgrad_w1_kmajor_tw; do
  ONLY="$ONLY --only f8_gemm_timing_llama_$n"
done
for r in 1 2 3; do
  for t in ov0 new; do
    echo "## .gpucheck-$t run $r"
    python3 scripts/gpu-check.py run --no-cases --reps 30 $ONLY .gpucheck-$t 2>&1 | grep -E "^f8_gemm|ours / torch: .*x, fast_accum False\)$|rror"
  done
done > $L/timing.txt
grep -E "^##|^f8_gemm|^torch" $L/timing.txt | sed -E 's/ +/ /g; s/\(MxKxN\) //; s/, fast_accum False//; s/f8_gemm_timing_llama_//; s/torch._scaled_mm/  torch/' | cut -c1-100
for t in ov0 new; do
  cuobjdump -sass .gpucheck-$t/f8_gemm_timing_llama_dgrad_w2_kmajor_tw/libcase.so > $L/sass-$t.txt 2>&1
  echo "== $t SASS: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $L/sass-$t.txt) instructions"
  grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T]+\s+)?[A-Z0-9]+' $L/sass-$t.txt | awk '{print $NF}' | sort | uniq -c | sort -rn | head -12 | tr '\n' ' '; echo
done
TIME_VARIANTS="old" OUT=$L/steps bash bench/device/step-bench.sh step-artifacts > /dev/null 2>&1; echo "step-bench rc=$?"
grep -E "computes the same bits|differ" $L/steps/step-bench.log
grep -A40 "== steps" $L/steps/step-bench.log | grep -E "ours|torch|what|old"
tar czf $OUT/call4.tgz -C $L .
