//===- GroupTable.h - token-group tables of the kernels ---------*- C++ -*-===//
//
// The table of clamped token-group bounds that the kernels reading `offs`
// build in shared memory (GroupTable.cpp): the padding and grouped
// to_blocked kernels (LayoutKernels.cpp) and the per-group Float8 casts
// (Float8GroupCastKernels.cpp). Offsets are clamped exactly as the CPU
// lowering clamps them (buildClampedEnds), so every group bound is in
// [0, tokens] and non-decreasing whatever `offs` holds.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GROUPTABLE_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GROUPTABLE_H

#include "KernelBuilder.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// Rows of the group table in shared memory.
enum GroupTableRow : int64_t { kStart = 0, kEnd, kPadStart, kPadEnd, kRows };

/// How a group table is made from `offs` (buildGroupTable).
struct GroupTableSpec {
  int64_t groups;
  /// Tokens that `offs` counts; offsets are clamped into [0, tokens].
  int64_t tokens;
  /// Tokens per table unit: 1 (rows), or 32 (the scale columns of
  /// blocked_k_groups, one per 32-token block; offs / 32 as torchao).
  int64_t unit;
  /// Each group's units are padded to a multiple of this.
  int64_t alignment;
};

/// One group's clamped bounds (i32), from its raw offset `raw` and the
/// previous group's clamped end `start` and padded end `padStart`: tokens
/// [start, end) with end = min(max(raw, start), tokens), in units
/// [first, last) (start / unit, end / unit), padded units [padStart,
/// padEnd) with padEnd = padStart + roundUp(last - first, alignment). The
/// CPU lowering's clamping; buildGroupTable and the quantize kernels that
/// read a pad_token_groups' input (FusedProducer.h) share it.
struct GroupBounds {
  Value end, first, last, padEnd;
};
GroupBounds emitGroupBounds(KernelBuilder &kb, const GroupTableSpec &spec,
                            Value raw, Value start, Value padStart);

/// Thread 0 fills `table` (kRows x G, i32, shared memory) from `offs`:
/// group g covers tokens [start, end) with end = min(max(offs[g], start),
/// tokens) and start the previous end (the CPU lowering's clamping), stored
/// in units of `spec.unit` tokens (start / unit, end / unit), and padded
/// units [padStart, padEnd) with padEnd = padStart + roundUp(end / unit -
/// start / unit, alignment). With `paddedOffs`, CTA 0 also writes the padded
/// ends there. Ends with a CTA barrier.
void buildGroupTable(KernelBuilder &kb, const GroupTableSpec &spec, Value offs,
                     Value table, Value paddedOffs);

/// The workgroup-memory type of the group table of `groups` groups.
MemRefType getGroupTableType(MLIRContext *ctx, int64_t groups);

/// The first group g with `key < table[field][g]` (the table row is
/// non-decreasing), or G: a fixed number of branch-free bisection steps.
Value findGroup(KernelBuilder &kb, Value table, GroupTableRow field, Value key,
                int64_t groups);

/// Whether the token group offsets `a` and `b` (tensors) hold the same
/// values: one SSA value, or the padded offsets of two pad_token_groups with
/// the same offsets, alignment and token count. Fusions that let one kernel
/// lay out groups for another op's `offs` ask it.
bool haveSameOffsets(Value a, Value b);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GROUPTABLE_H
