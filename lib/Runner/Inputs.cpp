//===- Inputs.cpp - the inputs of a run, generated or read ----------------===//
//
// The arguments of an MLIR function described as the manifest describes
// them (Runner/FunctionSpec.h), then generated or read by the generator
// mxfp8-launch shares (Support/InputGenerator.h): one implementation, so
// the AOT launcher's inputs are the same bytes as mxfp8-run's.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Runner/Inputs.h"
#include "mxfp8train/Runner/FunctionSpec.h"
#include "mxfp8train/Support/InputGenerator.h"

#include <chrono>

using namespace mlir;
using namespace mlir::mxfp8train;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

/// Argument `index` of `sig` as the launcher's generator sees it.
static llvm::Expected<TensorSpec> describeInput(const Signature &sig,
                                                unsigned index) {
  TensorSpec spec;
  spec.name = sig.argNames[index];
  std::string why = describeArgument(sig.func, index, spec);
  if (!why.empty())
    return makeError("argument #" + llvm::Twine(index) + " (" + spec.name +
                     ") " + why);
  return spec;
}

/// A host tensor of `spec` holding `bytes`.
static HostTensor makeTensor(const TensorSpec &spec,
                             std::vector<uint8_t> bytes) {
  HostTensor tensor;
  tensor.type = spec.kind;
  tensor.shape.assign(spec.shape.begin(), spec.shape.end());
  tensor.bytes = std::move(bytes);
  return tensor;
}

llvm::Expected<HostTensor>
mlir::mxfp8train::generateInput(const Signature &sig, unsigned index,
                                uint64_t seed, double defaultStd,
                                std::string &description) {
  llvm::Expected<TensorSpec> spec = describeInput(sig, index);
  if (!spec)
    return spec.takeError();
  std::vector<uint8_t> bytes;
  std::string error;
  if (!generateInput(*spec, index, seed, defaultStd, bytes, description, error))
    return makeError(error);
  return makeTensor(*spec, std::move(bytes));
}

llvm::Expected<HostTensor> mlir::mxfp8train::readInput(const Signature &sig,
                                                       unsigned index,
                                                       StringRef path) {
  llvm::Expected<TensorSpec> spec = describeInput(sig, index);
  if (!spec)
    return spec.takeError();
  std::vector<uint8_t> bytes;
  std::string error;
  if (!readInput(*spec, index, path.str(), bytes, error))
    return makeError(error);
  return makeTensor(*spec, std::move(bytes));
}

llvm::Expected<PreparedInputs>
mlir::mxfp8train::prepareInputs(const Signature &sig,
                                const InputOptions &options) {
  size_t numArgs = sig.argTypes.size();
  if (!options.files.empty() && options.files.size() != numArgs)
    return makeError("got " + llvm::Twine(options.files.size()) +
                     " --input files but @" + sig.func.getSymName() + " has " +
                     llvm::Twine(numArgs) + " arguments");
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  PreparedInputs inputs;
  for (unsigned i = 0; i < numArgs; ++i) {
    std::string description;
    llvm::Expected<HostTensor> tensor = HostTensor();
    if (!options.files.empty()) {
      tensor = readInput(sig, i, options.files[i]);
      description = options.files[i];
    } else {
      tensor =
          generateInput(sig, i, options.seed, options.defaultStd, description);
    }
    if (!tensor)
      return tensor.takeError();
    inputs.tensors.push_back(std::move(*tensor));
    inputs.descriptions.push_back(std::move(description));
  }
  inputs.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return inputs;
}
