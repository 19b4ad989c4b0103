//===- NpyFile.h - .npy files without LLVM ----------------------*- C++ -*-===//
//
// A reader and writer for NumPy .npy files in standard C++ only, for programs
// built without LLVM or MLIR (mxfp8-launch on the GPU machine). It accepts and
// writes exactly what Npy.h does: versions 1.0 to 3.0 read, 1.0 written with
// the data aligned to 64 bytes, little-endian, C order, the same canonical
// descriptors; files written by both are byte-identical.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_NPYFILE_H
#define MXFP8TRAIN_SUPPORT_NPYFILE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::mxfp8train {

/// A dense, C-ordered, little-endian array read from a .npy file.
struct NpyData {
  /// Canonical descriptor: `<f4`, `<u2`, `|u1`, ... (`=` becomes `<`, one-byte
  /// types use `|`).
  std::string descr;
  /// The shape; empty for a 0-d array.
  std::vector<int64_t> shape;
  /// The element bytes.
  std::vector<uint8_t> bytes;
};

/// Size in bytes of one element of the canonical descriptor `descr`, or 0 if
/// it is not supported (`|b1 |u1 |i1 <u2 <i2 <f2 <u4 <i4 <f4 <u8 <i8 <f8`).
int64_t getNpyDescrItemSize(const std::string &descr);

/// Parses the contents of a .npy file into `out`. On failure returns false
/// and sets `error` to a message that starts with `name`.
bool parseNpyData(const std::string &buffer, const std::string &name,
                  NpyData &out, std::string &error);

/// Reads and parses the .npy file at `path`.
bool readNpyFile(const std::string &path, NpyData &out, std::string &error);

/// The version 1.0 header of an array (magic, version, length, dict padded
/// so that the data starts at a multiple of 64 bytes).
std::string makeNpyHeader(const std::string &descr,
                          const std::vector<int64_t> &shape);

/// Writes an array to `path` (through a temporary file renamed into place).
/// `size` must equal the element count times the item size of `descr`.
bool writeNpyFile(const std::string &path, const std::string &descr,
                  const std::vector<int64_t> &shape, const void *data,
                  size_t size, std::string &error);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_NPYFILE_H
