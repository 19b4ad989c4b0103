//===- Float8TestUtils.h - harness of the Float8 cast tests -----*- C++ -*-===//
//
// What the dense and per-group Float8 cast tests (Float8ExecutionTest.cpp,
// Float8PerGroupExecutionTest.cpp) share: the two fp8 formats, input tensors
// rounded as the kernel sees them, and the bit-for-bit comparison of a
// quantize's data bytes and f32 scales with Float8Reference.h.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TEST_EXECUTION_FLOAT8TESTUTILS_H
#define MXFP8TRAIN_TEST_EXECUTION_FLOAT8TESTUTILS_H

#include "Float8Reference.h"
#include "TestUtils.h"

#include <string>
#include <vector>

namespace mxtest {

inline constexpr f8ref::Format kE4M3{false}, kE5M2{true};

/// The MLIR element type of `fmt`.
inline const char *elemName(f8ref::Format fmt) {
  return fmt.e5m2 ? "f8E5M2" : "f8E4M3FN";
}

/// An f32 or bf16 input tensor of `shape` holding `values`; for bf16 the
/// values are rounded to nearest even first, in `values` too, so that the
/// reference sees what the kernel sees.
inline mlir::mxfp8train::HostTensor
makeFloat8Input(llvm::ArrayRef<int64_t> shape, bool bf16,
                std::vector<float> &values) {
  using mlir::mxfp8train::HostElementType;
  mlir::mxfp8train::HostTensor t(
      bf16 ? HostElementType::BF16 : HostElementType::F32, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (bf16) {
      uint16_t b = f8ref::toBF16(values[i]);
      t.data<uint16_t>()[i] = b;
      values[i] = f8ref::floatOf(uint32_t(b) << 16);
    } else {
      t.data<float>()[i] = values[i];
    }
  }
  return t;
}

/// Where element `i` of a tensor with `cols` columns is: `(row, column)`,
/// or the flat index when `cols` is 0.
inline std::string describeIndex(size_t i, int64_t cols) {
  if (cols == 0)
    return std::to_string(i);
  return "(" + std::to_string(i / cols) + ", " + std::to_string(i % cols) + ")";
}

/// Compares the results `out` of a Float8 quantize (data, f32 scales) with
/// the reference `scales` (bits; a NaN matches any NaN) and `bytes` of the
/// input `values`; reports at most 5 scale and 10 mismatches in all, tagged
/// `tag`, with positions of `scaleCols` / `dataCols` columns
/// (describeIndex).
inline void
expectQuantizeMatches(const std::vector<mlir::mxfp8train::HostTensor> &out,
                      const std::vector<float> &scales,
                      const std::vector<uint8_t> &bytes,
                      const std::vector<float> &values, const std::string &tag,
                      int64_t scaleCols, int64_t dataCols) {
  using f8ref::bitsOf;
  int errors = 0;
  for (size_t i = 0; i < scales.size(); ++i) {
    float got = out[1].data<float>()[i];
    bool same = std::isnan(scales[i]) ? std::isnan(got)
                                      : bitsOf(got) == bitsOf(scales[i]);
    if (!same && ++errors <= 5)
      ADD_FAILURE() << tag << ": scale " << describeIndex(i, scaleCols)
                    << " is 0x" << std::hex << bitsOf(got) << ", expected 0x"
                    << bitsOf(scales[i]);
  }
  for (size_t i = 0; i < bytes.size(); ++i)
    if (out[0].bytes[i] != bytes[i] && ++errors <= 10)
      ADD_FAILURE() << tag << ": byte " << describeIndex(i, dataCols)
                    << " of value " << values[i] << " is 0x" << std::hex
                    << int(out[0].bytes[i]) << ", expected 0x" << int(bytes[i]);
}

} // namespace mxtest

#endif // MXFP8TRAIN_TEST_EXECUTION_FLOAT8TESTUTILS_H
