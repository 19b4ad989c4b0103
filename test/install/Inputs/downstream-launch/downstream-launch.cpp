//===- downstream-launch.cpp - call an AOT function without MLIR ----------===//
//
// downstream-launch LIB.so MANIFEST NAME: calls NAME with every input
// element 1 and prints the first result's first elements.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/AOTFunction.h"
#include "mxfp8train/Launch/SelectFunction.h"

#include <cstdio>
#include <vector>

using namespace mlir::mxfp8train;

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  Manifest manifest;
  std::string error;
  if (!readManifestFile(argv[2], manifest, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  const FunctionSpec *spec = nullptr;
  if (launch::LaunchError e =
          launch::selectFunction(manifest, argv[2], argv[3], spec)) {
    std::fprintf(stderr, "%s\n", e.message.c_str());
    return 2;
  }
  launch::AOTFunction function(argv[1], *spec, /*cuda=*/false,
                               /*fillByte=*/0);
  std::vector<std::vector<uint8_t>> inputs;
  for (const TensorSpec &arg : spec->args) {
    // f32 ones.
    std::vector<float> ones(arg.getNumElements(), 1.0f);
    inputs.emplace_back(reinterpret_cast<uint8_t *>(ones.data()),
                        reinterpret_cast<uint8_t *>(ones.data()) +
                            arg.getNumBytes());
  }
  std::vector<launch::HostBuffer> results;
  launch::LaunchError e = function.load(nullptr);
  if (!e)
    e = function.prepare(inputs);
  if (!e)
    e = function.run(/*warmup=*/0, /*repeat=*/1);
  if (!e)
    e = function.fetchResults(results);
  if (e) {
    std::fprintf(stderr, "%s\n", e.message.c_str());
    return 2;
  }
  const auto *y = reinterpret_cast<const float *>(results[0].data());
  std::printf("%s: %g %g %g\n", spec->name.c_str(), y[0], y[1], y[2]);
  return 0;
}
