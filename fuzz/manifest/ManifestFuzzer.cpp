//===- ManifestFuzzer.cpp - libFuzzer target over the AOT manifest reader -===//
//
// Each input goes through parseManifest (what mxfp8-launch reads). Besides
// crashes, sanitizer reports and allocation failures, a finding is an
// accepted manifest that does not round-trip: its printed form must parse,
// and print again to the same text.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/Manifest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir::mxfp8train;

/// Prints `what` and aborts: libFuzzer saves the input as a crash.
[[noreturn]] static void finding(const std::string &what) {
  std::fprintf(stderr, "mxfp8train-manifest-fuzzer: %s\n", what.c_str());
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Manifest manifest;
  std::string error;
  if (!parseManifest(text, "input", manifest, error)) {
    if (error.rfind("input:", 0) != 0)
      finding("an error that does not name the input: " + error);
    return 0;
  }
  for (const FunctionSpec &func : manifest.functions)
    for (const std::vector<TensorSpec> *list : {&func.args, &func.results})
      for (const TensorSpec &spec : *list)
        if (spec.getNumBytes() < 0)
          finding("an accepted tensor has a negative byte size");

  std::string printed = printManifest(manifest);
  Manifest reparsed;
  if (!parseManifest(printed, "printed", reparsed, error))
    finding("the printed manifest does not parse: " + error + "\n" + printed);
  std::string reprinted = printManifest(reparsed);
  if (reprinted != printed)
    finding("the manifest does not round-trip:\n" + printed + "---\n" +
            reprinted);
  return 0;
}
