//===- NcclHeaderCheck.cpp - the NCCL table against nccl.h ---- -*- C++ -*-===//
//
// Compiled only when nccl.h is found (the CUDA toolkit or the nvidia-nccl
// wheel ship it). The runtime declares the NCCL C API pieces it calls
// itself (NcclLibrary.h); this checks at compile time that they agree with
// nccl.h: the enum values and the unique id's size, and for every entry of
// MXFP8RT_NCCL_FUNCTIONS the number of parameters and the size of each
// parameter and of the return type. A mismatch fails the build of the tests.
//
//===----------------------------------------------------------------------===//

// Before nccl.h: the runtime's declarations must not see its macros.
#include "NcclLibrary.h"

#include <nccl.h>

#include <cstddef>
#include <type_traits>

namespace {

/// The sizes of a function pointer type's return and parameter types.
template <typename F> struct Shape;
template <typename R, typename... Args> struct Shape<R (*)(Args...)> {
  static constexpr size_t arity = sizeof...(Args);
  static constexpr size_t returnSize = sizeof(R);
  template <size_t I> static constexpr size_t paramSize() {
    constexpr size_t sizes[] = {sizeof(Args)..., 0};
    return sizes[I];
  }
};

template <typename Ours, typename Theirs, size_t... I>
constexpr bool sameParamSizes(std::index_sequence<I...>) {
  return ((Shape<Ours>::template paramSize<I>() ==
           Shape<Theirs>::template paramSize<I>()) &&
          ...);
}

template <typename Ours, typename Theirs> constexpr bool sameShape() {
  if constexpr (Shape<Ours>::arity != Shape<Theirs>::arity)
    return false;
  else
    return Shape<Ours>::returnSize == Shape<Theirs>::returnSize &&
           sameParamSizes<Ours, Theirs>(
               std::make_index_sequence<Shape<Ours>::arity>());
}

#define MXFP8RT_CHECK_NCCL_ENTRY(symbol, ret, params)                          \
  static_assert(sameShape<decltype(mxfp8rt::nccl::Library::symbol),            \
                          decltype(&::symbol)>(),                              \
                #symbol ": the runtime's declaration differs from nccl.h");
MXFP8RT_NCCL_FUNCTIONS(MXFP8RT_CHECK_NCCL_ENTRY)
#undef MXFP8RT_CHECK_NCCL_ENTRY

static_assert(MXFP8RT_NCCL_UNIQUE_ID_BYTES == NCCL_UNIQUE_ID_BYTES);
static_assert(sizeof(mxfp8rt::nccl::ncclUniqueId) == sizeof(::ncclUniqueId));
static_assert(int(mxfp8rt::nccl::ncclUint8) == int(::ncclUint8));
static_assert(int(mxfp8rt::nccl::ncclInt32) == int(::ncclInt32));
static_assert(int(mxfp8rt::nccl::ncclInt64) == int(::ncclInt64));
static_assert(int(mxfp8rt::nccl::ncclFloat32) == int(::ncclFloat32));
static_assert(int(mxfp8rt::nccl::ncclBfloat16) == int(::ncclBfloat16));
static_assert(int(mxfp8rt::nccl::ncclSum) == int(::ncclSum));
static_assert(int(mxfp8rt::nccl::ncclMax) == int(::ncclMax));
static_assert(sizeof(mxfp8rt::nccl::ncclResult_t) == sizeof(::ncclResult_t));

} // namespace
