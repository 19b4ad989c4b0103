# Session 22 call 4: ncu of the Llama f8tw step's largest casts: the
# tensorwise K-major casts of the 16384 x 14336 hidden-layer tensors with
# a fused elementwise producer (`float8_cast_kmajor_tensor_..._k16384_r14336
# _rm_ew*`, 0.65-0.75 ms each in the step) and their amax passes.
L=/tmp/c4; mkdir -p $L
export NCU_SECTIONS="ComputeWorkloadAnalysis MemoryWorkloadAnalysis_Tables"
bash bench/device/step-kernel-ncu.sh step-artifacts llama3_8b_mlp_16384.f8tw 'float8_cast_kmajor_tensor_bf16_e5m2_b1_k16384_r14336' 1 > $L/cast-ncu.log 2>&1
bash bench/device/step-kernel-ncu.sh step-artifacts llama3_8b_mlp_16384.f8tw 'float8_amax_tensor_bf16_234881024' 1 > $L/amax-ncu.log 2>&1
tar czf $OUT/call4.tgz -C $L .
for f in $L/*.log; do echo "#### $f"; grep -E "^[a-z_0-9]+.*\(|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache|Compute \(SM\)|Registers Per|Achieved Occ|Theoretical Occ|Issue Slots Busy|Warp Cycles Per Issued|Block Size|Grid Size|Dynamic Shared|Static Shared|Stall|Memory Throughput|One or More|Mem Busy|Max Bandwidth|L1/TEX Hit|L2 Hit|Bank" $f | head -50; done
