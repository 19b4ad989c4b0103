# Session 24 call 3: ncu of the promoted tensorwise dgrad W2 GEMM (e5m2 x
# e4m3, 16384 x 4096 x 14336, K-major) three ways: our default kernel (two
# accumulator sets, 128 x 128), our one-set form (float8-promote-unroll=1,
# the two MMA warpgroups issuing in turn) and cuBLAS's kernel behind
# torch._scaled_mm(use_fast_accum=False): speed of light, compute and
# memory workload, warp states, scheduler, source counters (the stall
# reasons by SASS instruction), at the GPU's own clock.
L=/tmp/c3; mkdir -p $L
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats --section SourceCounters"
C=f8_gemm_timing_llama_dgrad_w2_kmajor_tw
for t in ov0 u1; do
  $ncu --clock-control none $S -k regex:scaled_mm -c 1 -f -o $L/ours-$t \
    python3 scripts/gpu-check.py run --reps 2 --only $C .gpucheck-$t > $L/run-$t.log 2>&1
  echo "ncu $t rc=$?"
  $ncu -i $L/ours-$t.ncu-rep --page details > $L/ours-$t.txt 2>&1
done
$ncu --clock-control none $S -k regex:nvjet -c 1 -f -o $L/cublas \
  python3 scripts/gpu-check.py run --reps 2 --only $C .gpucheck-ov0 > $L/run-cublas.log 2>&1
echo "ncu cublas rc=$?"
$ncu -i $L/cublas.ncu-rep --page details > $L/cublas.txt 2>&1
for f in ours-ov0 ours-u1 cublas; do
  echo "=== $f"
  grep -E "^  [a-z_0-9]+ \(|Duration|Elapsed Cycles|SM Frequency|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Issue Slots Busy|Executed Ipc Active|No Eligible|Warp Cycles Per Issued|Registers Per|Dynamic Shared" $L/$f.txt | head -20
done
for t in ov0 u1; do
  $ncu -i $L/ours-$t.ncu-rep --page source --csv --print-source sass > $L/ours-$t-sass.csv 2>/dev/null
done
$ncu -i $L/cublas.ncu-rep --page raw --csv > $L/cublas-raw.csv 2>&1
for t in ov0 u1; do $ncu -i $L/ours-$t.ncu-rep --page raw --csv > $L/ours-$t-raw.csv 2>&1; done
cd $L && tar czf $OUT/ncu.tgz *.txt *.csv *.log && cp *.ncu-rep $OUT/ 2>/dev/null; ls -la $OUT
