L=/tmp/c4; mkdir -p $L
export NCU_SECTIONS="ComputeWorkloadAnalysis InstructionStats"
bash bench/device/step-kernel-ncu.sh step-artifacts llama3_8b_mlp_16384.f8tw 'float8_cast_kmajor_tensor_bf16_e5m2' 1 > $L/f8tw-casts-ncu.log 2>&1
cat > $L/peer.py <<'PY'
import torch
M, K, N = 16384, 14336, 4096
a = torch.randn(M, K, device="cuda").to(torch.float8_e5m2)
b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn).t()
sa = torch.ones((), device="cuda"); sb = torch.ones((), device="cuda")
for _ in range(3):
    torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=False)
torch.cuda.synchronize()
PY
ncu --clock-control none --cache-control none --launch-skip 2 --launch-count 1 --kernel-name 'regex:gemm|sm90|cutlass|xmma|nvjet' \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats \
  --section Occupancy --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats \
  python3 $L/peer.py 2>&1 | grep -v "^==PROF==" | sed -e "s/^ *//" | grep -v "^-*$" > $L/peer-gemm-ncu.log
tar czf $OUT/call4.tgz -C $L .
for f in $L/*.log; do echo "#### $f"; grep -E "^== |^[a-z_0-9]+.*\(|Duration|DRAM Throughput|L2 Cache Throughput|Compute \(SM\)|Registers Per|Achieved Occ|Issue Slots Busy|Warp Cycles Per Issued|Executed Ipc|Block Size|Grid Size|Dynamic Shared|Stall|One or More" $f | head -40; done
