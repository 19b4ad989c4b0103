// Source of tcgen05-loops.sass, the fixture of test/Scripts/sass-check.test
// (not a kernel of the project; the descriptors are meaningless, the SASS
// shape is what matters). Regenerate with
//   nvcc -gencode=arch=compute_100a,code=sm_100a -cubin -o t.cubin
//   tcgen05-loops.cu
//   cuobjdump -sass t.cubin | grep -v '^ */\* 0x' \
//     | sed -E 's@[[:space:]]*/\* 0x[0-9a-f]+ \*/[[:space:]]*$@@;
//     s@[[:space:]]+$@@' \ > tcgen05-loops.sass
// (nvcc 13.0, cuobjdump 13.5; the encoding comments are dropped).
// mma_loop: per K-stage two tcgen05.cp and four block-scaled tcgen05.mma
// issued by an elected lane, one tcgen05.commit; the loop unrolled twice
// (a loop of 8 MMAs and a remainder of 4). mma_loop_lane0: the same stage
// issued under `lane == 0`, which ptxas wraps in one elect loop per
// instruction. ffma_loop: no tensor-core instruction at all.
#include <cstdint>

__device__ __forceinline__ void stage(uint32_t tmem, uint64_t a, uint64_t b,
                                      uint32_t bar, int s) {
  asm volatile(
      "tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(tmem + 256),
      "l"(a));
  asm volatile(
      "tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(tmem + 260),
      "l"(b));
#pragma unroll
  for (int j = 0; j < 4; ++j)
    asm volatile("{\n .reg .pred p; setp.ne.b32 p, %5, 0;\n"
                 " tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32"
                 " [%0], %1, %2, %3, [%4], [%6], p;\n}" ::"r"(tmem),
                 "l"(a + 2 * j), "l"(b + 2 * j),
                 "r"(0x08C00000u | (j << 4) | (j << 29)), "r"(tmem + 256),
                 "r"(s | j), "r"(tmem + 260));
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::"
               "cluster.b64 [%0];" ::"r"(bar));
}

__global__ void mma_loop(const uint64_t *d, int n, uint32_t tmem,
                         uint32_t bar) {
#pragma unroll 2
  for (int s = 0; s < n; ++s) {
    uint32_t elected;
    asm volatile(
        "{\n .reg .pred p; elect.sync _|p, 0xffffffff; selp.u32 %0, 1, 0, p;\n}"
        : "=r"(elected));
    if (elected)
      stage(tmem, d[2 * s], d[2 * s + 1], bar, s);
    __syncwarp();
  }
}

__global__ void mma_loop_lane0(const uint64_t *d, int n, uint32_t tmem,
                               uint32_t bar) {
#pragma unroll 1
  for (int s = 0; s < n; ++s)
    if ((threadIdx.x & 31) == 0)
      stage(tmem, d[2 * s], d[2 * s + 1], bar, s);
}

__global__ void ffma_loop(float *x, int n) {
  float acc = x[threadIdx.x];
  for (int s = 0; s < n; ++s)
    acc = fmaf(acc, x[s], 1.0f);
  x[threadIdx.x] = acc;
}
