//===- NpyFuzzer.cpp - libFuzzer target over the two .npy readers ---------===//
//
// The project has two .npy readers that must agree byte for byte: Npy.h
// (LLVM, used by mxfp8-run) and NpyFile.h (standard C++, used by
// mxfp8-launch). Each input goes through both. Findings, besides crashes
// and sanitizer reports (every trap below aborts):
//  - the readers disagree: one accepts what the other rejects, the error
//    messages differ, or the parsed descriptor, shape or bytes differ;
//  - an accepted array does not round-trip: the writers' bytes of it
//    (serializeNpy and makeNpyHeader + data, which must be identical) do
//    not parse back to the same array.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/Npy.h"
#include "mxfp8train/Support/NpyFile.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir::mxfp8train;

/// Prints `what` and aborts: libFuzzer saves the input as a crash.
[[noreturn]] static void finding(const std::string &what) {
  llvm::errs() << "mxfp8train-npy-fuzzer: " << what << "\n";
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string buffer(reinterpret_cast<const char *>(data), size);

  llvm::Expected<NpyArray> llvmArray = parseNpy(buffer, "input");
  NpyData plain;
  std::string plainError;
  bool plainOk = parseNpyData(buffer, "input", plain, plainError);

  if (!llvmArray) {
    std::string llvmError = llvm::toString(llvmArray.takeError());
    if (plainOk)
      finding("Npy.h rejects (" + llvmError + ") what NpyFile.h accepts");
    if (llvmError != plainError)
      finding("the readers reject with different messages: '" + llvmError +
              "' and '" + plainError + "'");
    return 0;
  }
  if (!plainOk)
    finding("NpyFile.h rejects (" + plainError + ") what Npy.h accepts");
  if (llvmArray->descr != plain.descr ||
      llvmArray->shape.size() != plain.shape.size() ||
      !std::equal(plain.shape.begin(), plain.shape.end(),
                  llvmArray->shape.begin()) ||
      llvmArray->data != plain.bytes)
    finding("the readers parse the input differently");
  if (llvmArray->getNumElements() * getNpyItemSize(llvmArray->descr) !=
      int64_t(llvmArray->data.size()))
    finding("the element count does not match the data size");

  // Write it back with both writers and read it again.
  llvm::Expected<std::string> written =
      serializeNpy(llvmArray->descr, llvmArray->shape, llvmArray->data);
  if (!written)
    finding("serializeNpy rejects an array parseNpy accepted: " +
            llvm::toString(written.takeError()));
  std::string plainWritten = makeNpyHeader(plain.descr, plain.shape);
  plainWritten.append(plain.bytes.begin(), plain.bytes.end());
  if (*written != plainWritten)
    finding("the two writers produce different bytes");
  llvm::Expected<NpyArray> reread = parseNpy(*written, "written");
  if (!reread)
    finding("the written array does not parse: " +
            llvm::toString(reread.takeError()));
  if (reread->descr != llvmArray->descr || reread->shape != llvmArray->shape ||
      reread->data != llvmArray->data)
    finding("the written array parses to a different array");
  return 0;
}
