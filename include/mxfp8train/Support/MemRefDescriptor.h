//===- MemRefDescriptor.h - memref descriptors of host buffers --*- C++ -*-===//
//
// The words of a ranked memref descriptor (the `_mlir_ciface_*` calling
// convention) for a dense row-major buffer. Standard C++ only: the JIT
// runners and mxfp8-launch (built without MLIR or LLVM) share it.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_MEMREFDESCRIPTOR_H
#define MXFP8TRAIN_SUPPORT_MEMREFDESCRIPTOR_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mlir::mxfp8train {

/// {allocated, aligned, offset, sizes[rank], strides[rank]} of the dense
/// row-major buffer at `data` of shape `shape[0..rank)`: both pointers
/// `data`, offset 0, unit stride innermost.
inline std::vector<int64_t>
makeMemRefDescriptor(void *data, const int64_t *shape, size_t rank) {
  static_assert(sizeof(void *) == sizeof(int64_t), "64-bit hosts only");
  std::vector<int64_t> words(3 + 2 * rank);
  words[0] = reinterpret_cast<int64_t>(data);
  words[1] = reinterpret_cast<int64_t>(data);
  words[2] = 0;
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    words[3 + i] = shape[i];
    words[3 + rank + i] = stride;
    stride *= shape[i];
  }
  return words;
}

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_MEMREFDESCRIPTOR_H
