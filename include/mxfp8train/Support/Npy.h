//===- Npy.h - read and write NumPy .npy files ------------------*- C++ -*-===//
//
// A reader and writer for the NumPy .npy format in standard C++ (no LLVM, so
// that the MLIR-free mxfp8-launch links it as well as mxfp8-run): versions
// 1.0 to 3.0 read, 1.0 written with the data aligned to 64 bytes,
// little-endian, C order, fixed-size element types.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_NPY_H
#define MXFP8TRAIN_SUPPORT_NPY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::mxfp8train {

/// A dense, C-ordered, little-endian array as stored in a .npy file.
struct NpyArray {
  /// The NumPy type descriptor in its canonical form, e.g. `<f4`, `<u2`,
  /// `|u1`, `<i4` (byte-order `=` and, for one-byte types, `<` are mapped to
  /// the canonical spelling).
  std::string descr;
  /// The shape; empty for a 0-d array.
  std::vector<int64_t> shape;
  /// The raw element bytes, `getNumElements() * getNpyItemSize(descr)`.
  std::vector<uint8_t> data;

  /// Product of the shape (1 for a 0-d array).
  int64_t getNumElements() const;
};

/// Size in bytes of one element of the canonical descriptor `descr`, or 0 if
/// it is not supported (`|b1 |u1 |i1 <u2 <i2 <f2 <u4 <i4 <f4 <u8 <i8 <f8`).
int64_t getNpyItemSize(const std::string &descr);

/// Parses the contents of a .npy file into `out`. On failure returns false
/// and sets `error` to a message that starts with `name`.
bool parseNpy(const std::string &buffer, const std::string &name, NpyArray &out,
              std::string &error);

/// Reads and parses the .npy file at `path`.
bool readNpy(const std::string &path, NpyArray &out, std::string &error);

/// The version 1.0 header of an array (magic, version, length, dict padded
/// so that the data starts at a multiple of 64 bytes).
std::string makeNpyHeader(const std::string &descr,
                          const std::vector<int64_t> &shape);

/// Writes an array to `path` (through a temporary file renamed into place).
/// `size` must equal the element count times the item size of `descr`.
bool writeNpy(const std::string &path, const std::string &descr,
              const std::vector<int64_t> &shape, const void *data, size_t size,
              std::string &error);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_NPY_H
