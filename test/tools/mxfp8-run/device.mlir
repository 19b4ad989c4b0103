// mxfp8-run --device: the first line says where the function runs and why.
// Without a CUDA driver the default is the CPU and --device=cuda fails; with
// the runtime's fake driver (runtime/test/FakeCuda.cpp) the default is CUDA
// (device-jit.mlir runs through it).
//
// RUN: env MXFP8RT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
// RUN:   mxfp8-run %S/../mxfp8-launch/Inputs/add-cpu.mlir --entry=add | FileCheck %s --check-prefix=NODRIVER
// RUN: env MXFP8RT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
// RUN:   not mxfp8-run %S/../mxfp8-launch/Inputs/add-cpu.mlir --entry=add --device=cuda 2>&1 | FileCheck %s --check-prefix=NOCUDA
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so FAKE_CUDA_NO_DEVICE=1 \
// RUN:   mxfp8-run %S/../mxfp8-launch/Inputs/add-cpu.mlir --entry=add | FileCheck %s --check-prefix=NODEVICE
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mxfp8-run %S/../mxfp8-launch/Inputs/add-cpu.mlir --entry=add --device=cpu | FileCheck %s --check-prefix=CPU
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mxfp8-run --print-device | FileCheck %s --check-prefix=PRINT --implicit-check-not=mxfp8-run
// RUN: env MXFP8RT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
// RUN:   mxfp8-run --print-device | FileCheck %s --check-prefix=NODRIVER-PRINT

// NODRIVER:      device: cpu (no CUDA driver (/nonexistent/libcuda.so.1) on this machine: {{.*}})
// NODRIVER-NEXT: mxfp8-run: @add from {{.*}}add-cpu.mlir
// NOCUDA:        mxfp8-run: error: --device=cuda: no usable GPU: no CUDA driver (/nonexistent/libcuda.so.1) on this machine
// NODEVICE:      device: cpu ({{.*}}CUDA_ERROR_NO_DEVICE{{.*}})
// CPU:           device: cpu (--device=cpu)
// PRINT:         device: cuda (Fake CUDA Device 0, sm_100, code for sm_100a)
// NODRIVER-PRINT: device: cpu (no CUDA driver (/nonexistent/libcuda.so.1) on this machine: {{.*}})
