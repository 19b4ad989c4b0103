// Kernels that break the limits on purpose, for the negative runs of
// test/Target/PTX/gemm-variants-sm100a.test: @spill_kernel keeps 32 f32
// values live across a loop under a cap of 24 registers (.maxnreg 24, the
// lowest ptxas takes for sm_100a), @big_smem_kernel is launched with 233472
// bytes of dynamic shared memory (one KiB over the 232448 a CTA may have).
module attributes {gpu.container_module} {
  gpu.module @mxfp8train_kernels {
    gpu.func @spill_kernel(%x: memref<4096xf32>, %n: memref<1xindex>) kernel
        attributes {nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.maxnreg = 24 : i32} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %base = arith.muli %tid, %c32 : index
      %trip = memref.load %n[%c0] : memref<1xindex>
      %v = vector.load %x[%base] : memref<4096xf32>, vector<32xf32>
      %r = scf.for %k = %c0 to %trip step %c1 iter_args(%a = %v) -> (vector<32xf32>) {
        %b = vector.shuffle %a, %a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 0]
            : vector<32xf32>, vector<32xf32>
        %c = math.fma %a, %b, %a : vector<32xf32>
        scf.yield %c : vector<32xf32>
      }
      vector.store %r, %x[%base] : memref<4096xf32>, vector<32xf32>
      gpu.return
    }
    gpu.func @big_smem_kernel(%x: memref<128xf32>) kernel
        attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<128xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%tid] : memref<128xf32>
      gpu.return
    }
  }
  func.func @spills(%x: memref<4096xf32>, %n: memref<1xindex>) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @mxfp8train_kernels::@spill_kernel blocks in (%c1, %c1, %c1)
        threads in (%c128, %c1, %c1) args(%x : memref<4096xf32>, %n : memref<1xindex>)
    return
  }
  func.func @big_smem(%x: memref<128xf32>) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %smem = arith.constant 233472 : i32
    gpu.launch_func @mxfp8train_kernels::@big_smem_kernel blocks in (%c1, %c1, %c1)
        threads in (%c128, %c1, %c1) dynamic_shared_memory_size %smem
        args(%x : memref<128xf32>)
    return
  }
}
