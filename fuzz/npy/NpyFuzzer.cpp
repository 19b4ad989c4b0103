//===- NpyFuzzer.cpp - libFuzzer target over the .npy reader --------------===//
//
// Each input goes through the .npy reader (Npy.h, shared by mxfp8-run and
// mxfp8-launch). Findings, besides crashes and sanitizer reports (every trap
// below aborts):
//  - an accepted array whose element count does not match its data;
//  - an accepted array that does not round-trip: the writer's bytes of it
//    (makeNpyHeader + data) do not parse back to the same array, or a second
//    round writes different bytes.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/Npy.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir::mxfp8train;

/// Prints `what` and aborts: libFuzzer saves the input as a crash.
[[noreturn]] static void finding(const std::string &what) {
  std::fprintf(stderr, "mxfp8train-npy-fuzzer: %s\n", what.c_str());
  std::abort();
}

/// The bytes the writer produces for `array`.
static std::string serialize(const NpyArray &array) {
  std::string bytes = makeNpyHeader(array.descr, array.shape);
  bytes.append(array.data.begin(), array.data.end());
  return bytes;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string buffer(reinterpret_cast<const char *>(data), size);
  NpyArray array;
  std::string error;
  if (!parseNpy(buffer, "input", array, error)) {
    if (error.rfind("input: ", 0) != 0)
      finding("the error does not start with the name: " + error);
    return 0;
  }
  if (array.getNumElements() * getNpyItemSize(array.descr) !=
      int64_t(array.data.size()))
    finding("the element count does not match the data size");

  // Write it back and read it again.
  std::string written = serialize(array);
  NpyArray reread;
  if (!parseNpy(written, "written", reread, error))
    finding("the written array does not parse: " + error);
  if (reread.descr != array.descr || reread.shape != array.shape ||
      reread.data != array.data)
    finding("the written array parses to a different array");
  if (serialize(reread) != written)
    finding("a second round writes different bytes");
  return 0;
}
