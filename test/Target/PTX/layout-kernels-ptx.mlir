// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.sm90a.ptx
// RUN: FileCheck %s --input-file=%t.sm90a.ptx
// RUN: FileCheck %s --input-file=%t.sm90a.ptx --check-prefix=EXACT
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" | %extract_ptx > %t.sm100a.ptx
// RUN: FileCheck %s --input-file=%t.sm100a.ptx
// RUN: FileCheck %s --input-file=%t.sm100a.ptx --check-prefix=EXACT

// The PTX of the to_blocked kernels, the same code for Hopper and Blackwell
// (memory-bound; no CUDA toolkit needed: LLVM's NVPTX back end writes it;
// ptxas.mlir assembles them). Nothing goes to local memory.
// EXACT-NOT: .local

// No groups: only zero stores, no table and no barrier.
// CHECK-LABEL: .entry to_blocked_m_groups_64x4_g0(
// CHECK-NOT:     bar.sync
// CHECK-NOT:     ld.global
// CHECK:         st.global.b32 {{.*}}, 0;
// CHECK-NOT:     ld.global
// CHECK:         ret;

// Grouped layouts: thread 0 reads the offsets (read-only loads), fills the
// group table in shared memory, a CTA barrier; then per output word the
// bisection over the table's padded ends, four read-only scale-byte loads
// and one 4-byte store.
// CHECK-LABEL: .entry to_blocked_k_groups_100x10_g4(
// CHECK:         ld.global.nc.b32
// CHECK:         st.shared
// CHECK:         bar.sync 0;
// CHECK:         ld.shared.b32
// CHECK-COUNT-4: ld.global.nc.b8
// CHECK:         st.global.b32
// CHECK:         ret;

// CHECK-LABEL: .entry to_blocked_m_groups_300x9_g4(
// CHECK:         ld.global.nc.b32
// CHECK:         st.shared
// CHECK:         bar.sync 0;
// CHECK:         ld.shared.b32
// CHECK-COUNT-4: ld.global.nc.b8
// CHECK:         st.global.b32
// CHECK:         ret;

func.func @layouts(%s: tensor<300x9xf8E8M0FNU>, %offs: tensor<4xi32>,
                   %k: tensor<100x10xf8E8M0FNU>, %e: tensor<64x4xf8E8M0FNU>,
                   %none: tensor<0xi32>)
    -> (tensor<9744xf8E8M0FNU>, tensor<3328xf8E8M0FNU>, tensor<256xf8E8M0FNU>) {
  %m = mxfp8train.to_blocked %s offs(%offs) layout = blocked_m_groups
      : tensor<300x9xf8E8M0FNU>, tensor<4xi32> -> tensor<9744xf8E8M0FNU>
  %kk = mxfp8train.to_blocked %k offs(%offs) layout = blocked_k_groups
      : tensor<100x10xf8E8M0FNU>, tensor<4xi32> -> tensor<3328xf8E8M0FNU>
  %z = mxfp8train.to_blocked %e offs(%none) layout = blocked_m_groups
      : tensor<64x4xf8E8M0FNU>, tensor<0xi32> -> tensor<256xf8E8M0FNU>
  return %m, %kk, %z : tensor<9744xf8E8M0FNU>, tensor<3328xf8E8M0FNU>, tensor<256xf8E8M0FNU>
}
