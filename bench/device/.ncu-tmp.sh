set -u
o=/tmp/o2; mkdir -p $o
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
$ncu --set full --import-source no -k 'regex:scaled_mm_k_k|cutlass|nvjet|sm90|xmma' -c 8 -f -o $o/gemm \
  python3 scripts/gpu-check.py run .gpucheck --no-cases --reps 1 --only f8_gemm_timing_llama_dgrad_w1 > $o/run-gemm.log 2>&1
echo "ncu gemm exit $?"; grep -c "Profiling" $o/run-gemm.log; grep "ours / torch" $o/run-gemm.log
$ncu --set full --import-source no -k 'regex:float8_' -c 6 -f -o $o/cast \
  python3 scripts/gpu-check.py run .gpucheck --no-cases --reps 1 --only float8_quantize_colwise_bf16_16384x8192 --only float8_quantize_tensorwise_bf16_16384x8192 > $o/run-cast.log 2>&1
echo "ncu cast exit $?"; grep "Profiling" $o/run-cast.log | head
for r in gemm cast; do
  $ncu -i $o/$r.ncu-rep --csv --page raw --print-units base > $o/$r-raw.csv 2>&1
  $ncu -i $o/$r.ncu-rep --page details --print-units base > $o/$r-details.txt 2>&1
  $ncu -i $o/$r.ncu-rep --page source --csv --print-source=sass > $o/$r-source.csv 2> $o/$r-source.err
done
ls -la $o; cd $o && tar czf $OUT/ncu.tgz *.csv *.txt *.err *.log
