//===- GroupedReference.h - reference of the grouped MoE ops ----*- C++ -*-===//
//
// Scalar C++ transcriptions of SPEC §4.1 (to_blocked, written as the literal
// pad-then-permute algorithm, not the closed-form offset used by the
// lowering's inverse), §4.2 (the three per-group layouts as "concatenate the
// per-group to_blocked results") and §7.3 (token-group padding), plus the
// offsets tensor of the grouped execution tests.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TEST_EXECUTION_GROUPEDREFERENCE_H
#define MXFP8TRAIN_TEST_EXECUTION_GROUPEDREFERENCE_H

#include "TestUtils.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace mxgroup {

/// `offs` clamped into [0, total] and to non-decreasing values, the rule the
/// lowering documents for malformed offsets (identity on valid ones).
inline std::vector<int64_t> clampOffs(const std::vector<int64_t> &offs,
                                      int64_t total) {
  std::vector<int64_t> out;
  int64_t prev = 0;
  for (int64_t o : offs) {
    prev = std::min(std::max(o, prev), total);
    out.push_back(prev);
  }
  return out;
}

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t roundUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }

/// SPEC §4.1 literally: pad S (R, C) with 0x00 to (ceil(R/128)*128,
/// ceil(C/4)*4), then split into 128x4 tiles, tile-row-major, each tile a
/// 32x16 row-major block whose row j holds tile rows j, j+32, j+64, j+96.
inline std::vector<uint8_t> toBlocked(const std::vector<uint8_t> &s,
                                      int64_t rows, int64_t cols) {
  int64_t nRB = ceilDiv(rows, 128), nCB = ceilDiv(cols, 4);
  std::vector<uint8_t> padded(nRB * 128 * nCB * 4, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      padded[r * nCB * 4 + c] = s[r * cols + c];
  std::vector<uint8_t> out;
  out.reserve(padded.size());
  for (int64_t rb = 0; rb < nRB; ++rb)
    for (int64_t cb = 0; cb < nCB; ++cb)
      for (int64_t j = 0; j < 32; ++j)      // row of the 32x16 block
        for (int64_t q = 0; q < 4; ++q)     // which 32-row quarter
          for (int64_t c = 0; c < 4; ++c) { // column inside the tile
            int64_t r = rb * 128 + q * 32 + j;
            out.push_back(padded[r * nCB * 4 + cb * 4 + c]);
          }
  return out;
}

/// SPEC §4.2 (a): per-group to_blocked of the rows of each group, placed at
/// P_g * Cp in a zero buffer of (R + 128 G) * Cp bytes.
inline std::vector<uint8_t> toBlockedMGroups(const std::vector<uint8_t> &s,
                                             int64_t rows, int64_t cols,
                                             const std::vector<int64_t> &offs) {
  int64_t cp = roundUp(cols, 4), groups = offs.size();
  std::vector<uint8_t> out((rows + 128 * groups) * cp, 0);
  int64_t start = 0, padStart = 0;
  for (int64_t end : offs) {
    int64_t n = end - start;
    std::vector<uint8_t> sub(s.begin() + start * cols, s.begin() + end * cols);
    std::vector<uint8_t> blk = toBlocked(sub, n, cols);
    std::copy(blk.begin(), blk.end(), out.begin() + padStart * cp);
    padStart += roundUp(n, 128);
    start = end;
  }
  return out;
}

/// SPEC §4.2 (b): scale column groups offs/32, each group's (R, c_g) matrix
/// to_blocked at Q_g * Rp in a zero buffer of Rp * (C + 4 G) bytes.
inline std::vector<uint8_t> toBlockedKGroups(const std::vector<uint8_t> &s,
                                             int64_t rows, int64_t cols,
                                             const std::vector<int64_t> &offs) {
  int64_t rp = roundUp(rows, 128), groups = offs.size();
  std::vector<uint8_t> out(rp * (cols + 4 * groups), 0);
  int64_t colStart = 0, q = 0;
  for (int64_t end : offs) {
    int64_t colEnd = end / 32, cg = colEnd - colStart;
    std::vector<uint8_t> sub(rows * cg);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < cg; ++j)
        sub[r * cg + j] = s[r * cols + colStart + j];
    std::vector<uint8_t> blk = toBlocked(sub, rows, cg);
    std::copy(blk.begin(), blk.end(), out.begin() + q * rp);
    q += roundUp(cg, 4);
    colStart = colEnd;
  }
  return out;
}

/// SPEC §4.2 (c): to_blocked of every expert's (R, C) matrix.
inline std::vector<uint8_t> toBlockedPerExpert(const std::vector<uint8_t> &s,
                                               int64_t experts, int64_t rows,
                                               int64_t cols) {
  std::vector<uint8_t> out;
  for (int64_t e = 0; e < experts; ++e) {
    std::vector<uint8_t> sub(s.begin() + e * rows * cols,
                             s.begin() + (e + 1) * rows * cols);
    std::vector<uint8_t> blk = toBlocked(sub, rows, cols);
    out.insert(out.end(), blk.begin(), blk.end());
  }
  return out;
}

/// An i32 host tensor holding `offs`.
inline mlir::mxfp8train::HostTensor makeOffs(const std::vector<int64_t> &offs) {
  mlir::mxfp8train::HostTensor t(mlir::mxfp8train::HostElementType::I32,
                                 {int64_t(offs.size())});
  for (size_t i = 0; i < offs.size(); ++i)
    t.data<int32_t>()[i] = int32_t(offs[i]);
  return t;
}

} // namespace mxgroup

#endif // MXFP8TRAIN_TEST_EXECUTION_GROUPEDREFERENCE_H
