//===- ExpertParallel.h - MXFP8 token dispatch and combine, C ABI -*- C -*-===//
//
// Expert parallelism that stays in MXFP8 (torchao's MXFP8 expert-parallel
// design, `torchao.prototype.moe_training.ep`: quantize the tokens once,
// exchange fp8 data and e8m0 scales, feed the grouped GEMM without a
// dequantize, and send the high-precision expert outputs back):
//
//   x (T, K) bf16 --mxfp8train.quantize axis = 1--> data (T, K) fp8,
//                                                   scales (T, K/32) e8m0
//   mxfp8rtMoeDispatchMx:  each (token, slot) row goes to the rank that holds
//       its expert; the receiver gets its rows grouped by local expert, with
//       the offsets `mxfp8train.scaled_grouped_mm` (2d-3d) takes
//   mxfp8train.scaled_grouped_mm data', scales', W_local -> (capacity, N)
//   mxfp8rtMoeCombine:     each output row goes back to its token's rank,
//       in the original (token, slot) order
//
// Routing: `tokenExperts` holds numTokens * topK global expert ids, row
// major (token t's slots at t * topK ...). `numExperts` experts are split
// evenly over the ranks in order: rank r holds experts
// [r * E_local, (r + 1) * E_local), E_local = numExperts / size. Every slot
// is one row: a token routed to two experts of one rank is sent twice.
//
// Layout of a rank's received rows (the "dispatched" buffers): grouped by
// local expert; inside a group, by source rank; inside that, in the
// source's (token, slot) order. Each group starts at a multiple of
// `alignment` rows (torchao's permute pads every group to a multiple of 32:
// the 32-token blocks of the grouped weight-gradient GEMM, quantized along
// the tokens, must not straddle two experts; 1 packs the groups tightly).
// recvOffs[e] is the end of local expert e's group, padding included
// (int32, E_local entries, as scaled_grouped_mm's offs). Padding rows and
// rows [recvOffs[E_local - 1], capacity) are zero bytes (data +0, scale
// byte 0): their GEMM outputs are rows the combine does not read.
//
// Both calls are collective: every rank of the communicator makes them in
// the same order with the same numExperts, k (n), capacity, alignment and
// type (checked: a mismatch fails every rank); topK may differ (the slots
// are rows either way).
// Errors are agreed on before any payload moves, so they fail every rank
// with the same status and no rank waits forever: an expert id out of
// range on any rank, or more rows for a rank than `capacity` (tokens are
// never dropped; the caller raises the capacity), is
// MXFP8RT_INVALID_ARGUMENT on every rank.
//
// Backends: the in-process backend takes host buffers; NCCL takes device
// buffers of the communicator's GPU (every pointer argument, `counts` and
// `recvOffs` included), with the copies, the row-gather kernels and the
// NCCL calls ordered on `stream` (use a stream of your own: with the null
// stream every scratch allocation and free synchronizes). On NCCL each call
// reads the routing (and the combine its counts) back to the host and
// synchronizes `stream` two or three times (the routing, the counts, the
// agreement): the all-to-allv's byte counts are host values, as for
// torch's all_to_all_single. Each rank packs its rows and reserves its
// scratch before the agreement, so a local failure there (out of memory)
// is agreed on like bad arguments, and so are ranks that pass different
// numExperts, k (n), element type, capacity or alignment (each call first
// all-gathers a fixed-size header of them); a CUDA failure after the
// agreement is not (NCCL's own error handling applies).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_EXPERTPARALLEL_H
#define MXFP8TRAIN_RUNTIME_EXPERTPARALLEL_H

#include "mxfp8train/runtime/Collectives.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Dispatches MX-quantized tokens to the ranks holding their experts.
///
/// In (this rank): `data` numTokens x k fp8 bytes and `scales`
/// numTokens x k/32 e8m0 bytes (row-major, the results of
/// `mxfp8train.quantize axis = 1` of the (numTokens, k) tokens; k a positive
/// multiple of 32), `tokenExperts` numTokens * topK int32 expert ids.
/// Out: `recvData` capacity x k bytes, `recvScales` capacity x k/32 bytes,
/// `recvOffs` E_local int32 group ends (layout above; `alignment` >= 1),
/// and `counts`
/// size * size * E_local int32: counts[(s * size + r) * E_local + e] is the
/// number of rows rank s sends to local expert e of rank r (the same on
/// every rank; mxfp8rtMoeCombine takes it back).
///
/// The exchange: an all-gather of the counts (with an error flag per rank),
/// then one all-to-allv of bytes in which each row travels as its k data
/// bytes followed by its k/32 scale bytes, packed per destination: data
/// and scales of one token move together, in one NCCL group, with one count
/// per peer.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMoeDispatchMx(
    mxfp8rtComm comm, const void *data, const void *scales, intptr_t numTokens,
    intptr_t k, intptr_t topK, const int32_t *tokenExperts, intptr_t numExperts,
    intptr_t capacity, intptr_t alignment, void *recvData, void *recvScales,
    int32_t *recvOffs, int32_t *counts, mxfp8rtStream stream);

/// Returns expert outputs to the ranks and slots their tokens came from.
///
/// In: `expertOut` capacity x n elements of `type` (MXFP8RT_DATA_BF16 or
/// MXFP8RT_DATA_F32), row i the output of dispatched row i of the last
/// mxfp8rtMoeDispatchMx (padding rows are not read), and the
/// `tokenExperts`, `numExperts`, `counts`, `capacity` and `alignment` of
/// that dispatch. Out: `out`
/// numTokens * topK x n elements, row t * topK + j the output of token t's
/// slot j (the caller weights and sums the slots). One all-to-allv of
/// `type`.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMoeCombine(
    mxfp8rtComm comm, const void *expertOut, intptr_t n, mxfp8rtDataType type,
    intptr_t numTokens, intptr_t topK, const int32_t *tokenExperts,
    intptr_t numExperts, const int32_t *counts, intptr_t capacity,
    intptr_t alignment, void *out, mxfp8rtStream stream);

/// mxfp8rtMoeDispatchMx and mxfp8rtMoeCombine on the calling thread's bound
/// communicator (mxfp8rtCommBind), for compiled code: buffers are addresses
/// as MLIR `index`, `type` an mxfp8rtDataType, and `groupSize` the number of
/// processes the program was written for, checked against the
/// communicator's size as the mxfp8rtShard* collectives do. Each returns
/// an mxfp8rtStatus.
MXFP8RT_EXPORT int32_t mxfp8rtShardMoeDispatchMx(
    intptr_t data, intptr_t scales, intptr_t numTokens, intptr_t k,
    intptr_t topK, intptr_t tokenExperts, intptr_t numExperts,
    intptr_t capacity, intptr_t alignment, intptr_t recvData,
    intptr_t recvScales, intptr_t recvOffs, intptr_t counts,
    intptr_t groupSize);
MXFP8RT_EXPORT int32_t mxfp8rtShardMoeCombine(
    intptr_t expertOut, intptr_t n, int32_t type, intptr_t numTokens,
    intptr_t topK, intptr_t tokenExperts, intptr_t numExperts, intptr_t counts,
    intptr_t capacity, intptr_t alignment, intptr_t out, intptr_t groupSize);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // MXFP8TRAIN_RUNTIME_EXPERTPARALLEL_H
