//===- MemRef.cpp - memref descriptors seen by the mgpu* ABI -- -*- C++ -*-===//
//
// Dense extents and TMA descriptor arguments from ranked memref descriptors.
//
//===----------------------------------------------------------------------===//

#include "MemRef.h"

namespace mxfp8rt {

namespace {
/// View of a ranked memref descriptor.
struct DescriptorView {
  char *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};
} // namespace

static DescriptorView viewDescriptor(const void *descriptor, int64_t rank) {
  const auto *pointers = static_cast<void *const *>(descriptor);
  const auto *words = reinterpret_cast<const int64_t *>(pointers + 2);
  return {static_cast<char *>(pointers[1]), words[0], words + 1,
          words + 1 + rank};
}

mxfp8rtStatus getDenseMemRefExtent(int64_t rank, const void *descriptor,
                                   int64_t elementSize, void *&data,
                                   size_t &sizeBytes, std::string &message) {
  if (!descriptor || rank < 0 || elementSize <= 0) {
    message = "memref descriptor is null, or rank " + std::to_string(rank) +
              " or element size " + std::to_string(elementSize) + " is invalid";
    return MXFP8RT_INVALID_ARGUMENT;
  }
  DescriptorView view = viewDescriptor(descriptor, rank);
  int64_t expectedStride = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (view.sizes[i] < 0) {
      message = "memref size " + std::to_string(view.sizes[i]) +
                " of dimension " + std::to_string(i) + " is negative";
      return MXFP8RT_INVALID_ARGUMENT;
    }
    if (view.sizes[i] != 1 && view.strides[i] != expectedStride) {
      message = "memref is not dense: stride " +
                std::to_string(view.strides[i]) + " of dimension " +
                std::to_string(i) + ", expected " +
                std::to_string(expectedStride);
      return MXFP8RT_INVALID_ARGUMENT;
    }
    expectedStride *= view.sizes[i];
  }
  data = view.aligned + view.offset * elementSize;
  sizeBytes = static_cast<size_t>(expectedStride * elementSize);
  return MXFP8RT_SUCCESS;
}

int64_t getTensorMapElementSize(int64_t dataType) {
  // CU_TENSOR_MAP_DATA_TYPE_UINT8 .. _TFLOAT32_FTZ.
  static const int64_t sizes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (dataType < 0 ||
      dataType >= static_cast<int64_t>(sizeof(sizes) / sizeof(sizes[0])))
    return 0;
  return sizes[dataType];
}

mxfp8rtStatus computeTiledTensorMapArgs(int64_t rank, const void *descriptor,
                                        int64_t dataType,
                                        const int64_t *boxDims,
                                        TiledTensorMapArgs &args,
                                        std::string &message) {
  args = TiledTensorMapArgs();
  if (rank < 1 || rank > 5) {
    message = "TMA descriptors need rank 1 to 5, got " + std::to_string(rank);
    return MXFP8RT_INVALID_ARGUMENT;
  }
  if (!descriptor || !boxDims) {
    message = "memref descriptor or box sizes are null";
    return MXFP8RT_INVALID_ARGUMENT;
  }
  int64_t elementSize = getTensorMapElementSize(dataType);
  if (elementSize == 0) {
    message = "unsupported CUtensorMapDataType " + std::to_string(dataType);
    return MXFP8RT_INVALID_ARGUMENT;
  }
  DescriptorView view = viewDescriptor(descriptor, rank);
  if (view.strides[rank - 1] != 1) {
    message = "the innermost memref stride must be 1 for TMA, got " +
              std::to_string(view.strides[rank - 1]);
    return MXFP8RT_INVALID_ARGUMENT;
  }
  args.rank = static_cast<uint32_t>(rank);
  args.globalAddress = view.aligned + view.offset * elementSize;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = rank - 1 - i;
    if (view.sizes[dim] <= 0) {
      message = "memref size " + std::to_string(view.sizes[dim]) +
                " of dimension " + std::to_string(dim) +
                " must be positive for TMA";
      return MXFP8RT_INVALID_ARGUMENT;
    }
    if (boxDims[dim] < 1 || boxDims[dim] > 256) {
      message = "TMA box size " + std::to_string(boxDims[dim]) +
                " of dimension " + std::to_string(dim) + " is outside [1, 256]";
      return MXFP8RT_INVALID_ARGUMENT;
    }
    args.globalDim[i] = static_cast<uint64_t>(view.sizes[dim]);
    args.boxDim[i] = static_cast<uint32_t>(boxDims[dim]);
    if (i > 0)
      args.globalStrides[i - 1] =
          static_cast<uint64_t>(view.strides[dim] * elementSize);
  }
  return MXFP8RT_SUCCESS;
}

} // namespace mxfp8rt
