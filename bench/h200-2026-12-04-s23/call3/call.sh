# Session 23 call 3: the final kernels (commit 9c14c29: sibling tensorwise
# casts, fused K-major casts loading the producer's operands raw).
# (1) gpu-check: the fusion cases (each against the same module lowered
# without its fusion, bit for bit; new: fuse_sibling_casts_kmajor /
# _rowmajor against fuse-sibling-casts=false) and the Float8 cast cases
# against the CPU path (the small ones); (2) step-bench of both steps, all
# recipes, nosib variants (fuse-sibling-casts=false) bit-compared, not
# timed; torchao peers from .whl.
L=/tmp/c3; mkdir -p $L/steps
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
python3 scripts/gpu-check.py run --no-timing .gpucheck-s23 > $L/gpucheck.log 2>&1; echo "gpucheck rc=$?"
grep -iE "mismatch|FAIL|passed|failed" $L/gpucheck.log | tail -8
grep -E "^fuse_sibling" $L/gpucheck.log
TIME_VARIANTS="none" OUT=$L/steps bash bench/device/step-bench.sh step-artifacts > /dev/null 2>&1; echo "step-bench rc=$?"
tar czf $OUT/call3.tgz -C $L .
grep -E "computes the same bits|differ" $L/steps/step-bench.log
grep -A40 "== steps" $L/steps/step-bench.log | grep -E "ours|torch|what"
grep -B2 -A14 "f8tw" $L/steps/step-profile.txt | grep -A16 "llama3_8b_mlp_16384.f8tw" | head -20
