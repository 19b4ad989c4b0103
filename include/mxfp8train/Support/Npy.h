//===- Npy.h - read and write NumPy .npy files ------------------*- C++ -*-===//
//
// A small reader and writer for the NumPy .npy format (versions 1.0 to 3.0
// read, 1.0 written): little-endian, C order, fixed-size element types. Used
// by mxfp8-run for its inputs and outputs.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_NPY_H
#define MXFP8TRAIN_SUPPORT_NPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

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
  llvm::SmallVector<int64_t> shape;
  /// The raw element bytes, `getNumElements() * getNpyItemSize(descr)`.
  std::vector<uint8_t> data;

  /// Product of the shape (1 for a 0-d array).
  int64_t getNumElements() const;
};

/// Size in bytes of one element of the canonical descriptor `descr`, or 0 if
/// the descriptor is not supported (supported: `|b1 |u1 |i1 <u2 <i2 <f2 <u4
/// <i4 <f4 <u8 <i8 <f8`).
int64_t getNpyItemSize(llvm::StringRef descr);

/// Parses the contents of a .npy file. `name` is used in error messages.
llvm::Expected<NpyArray> parseNpy(llvm::StringRef buffer, llvm::StringRef name);

/// Reads and parses the .npy file at `path`.
llvm::Expected<NpyArray> readNpy(llvm::StringRef path);

/// Serializes an array as a version 1.0 .npy file (header padded to a multiple
/// of 64 bytes). `data` must hold exactly the bytes of the elements.
llvm::Expected<std::string> serializeNpy(llvm::StringRef descr,
                                         llvm::ArrayRef<int64_t> shape,
                                         llvm::ArrayRef<uint8_t> data);

/// Serializes and writes an array to `path` (atomically replaced).
llvm::Error writeNpy(llvm::StringRef path, llvm::StringRef descr,
                     llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<uint8_t> data);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_NPY_H
