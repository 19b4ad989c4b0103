# Session 23 call 5: after the review fixes (commit 25807d8): gpu-check's
# sibling cases (reference now without fused transposes: plain casts and
# the transpose pre-pass), the fused-producer K-major casts of a column
# cast and of the per-group 2d-2d cast (new), and the empty Float8 inputs
# (new: tensorwise through its kernels, rowwise / columnwise scales
# filled) against the CPU path; then the same cases under
# compute-sanitizer memcheck (the raw loads' clamped addresses).
L=/tmp/c5; mkdir -p $L
python3 scripts/gpu-check.py run --no-timing .gpucheck-s23b > $L/gpucheck.log 2>&1; echo "gpucheck rc=$?"
grep -E "cases|^fuse_|^f8q_" $L/gpucheck.log
timeout 300 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 20 python3 scripts/gpu-check.py run --no-timing .gpucheck-s23b > $L/memcheck.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|Invalid|cases" $L/memcheck.log | head
cp $L/*.log $OUT/
