# Session 24 call 6: step-bench of the Llama step (all recipes; the
# DeepSeek step left out: the call before lost the machine) on the last
# build, with the dense Float8 forward GEMMs (fast accumulation, 128 x 256)
# as a CTA pair sharing B by default, and the `c1` variant of every step
# (gemm-cluster-m=1: every TMA-fed GEMM on one CTA; for the Llama step that
# is the previous default) compared bit for bit and timed; torchao peers.
L=/tmp/c6; mkdir -p $L/steps
TIME_VARIANTS="c1" OUT=$L/steps bash bench/device/step-bench.sh step-llama > /dev/null 2>&1; echo "step-bench rc=$?"
grep -E "computes the same bits|differ" $L/steps/step-bench.log
grep -A40 "== steps" $L/steps/step-bench.log | grep -E "ours|torch|what"
for v in f8tw f8tw-c1 f8row f8row-c1; do
  grep -A20 "profile of llama3_8b_mlp_16384.$v " $L/steps/step-profile.txt | grep -E "^gemm|^other|scaled_mm" | head -8
done
tar czf $OUT/call6.tgz -C $L .
