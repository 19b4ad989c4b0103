//===- LaunchInputs.cpp - the inputs of an AOT call -------------*- C++ -*-===//
//
// Generates or reads the arguments of an AOT call and prepares the output
// directory (LaunchInputs.h).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/LaunchInputs.h"
#include "mxfp8train/Launch/CompareResults.h"
#include "mxfp8train/Support/InputGenerator.h"
#include "mxfp8train/Support/Report.h"

#include <chrono>
#include <filesystem>
#include <string>

using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::launch;

namespace fs = std::filesystem;

LaunchError mlir::mxfp8train::launch::prepareLaunchInputs(
    const FunctionSpec &spec, const LaunchOptions &options,
    std::vector<std::vector<uint8_t>> &inputs, std::ostream &os) {
  if (!options.inputs.empty() && options.inputs.size() != spec.args.size())
    return makeUsageError("got " + std::to_string(options.inputs.size()) +
                          " --input files but @" + spec.name + " has " +
                          std::to_string(spec.args.size()) + " arguments");
  inputs.assign(spec.args.size(), {});
  auto start = std::chrono::steady_clock::now();
  os << "inputs:\n";
  std::string error;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    const TensorSpec &arg = spec.args[i];
    std::string description;
    bool ok;
    if (!options.inputs.empty()) {
      ok = readInput(arg, unsigned(i), options.inputs[i], inputs[i], error);
      description = options.inputs[i];
    } else {
      ok = generateInput(arg, unsigned(i), options.seed, options.inputStd,
                         inputs[i], description, error);
    }
    if (!ok)
      return makeUsageError(error);
    os << "  #" << i << " " << arg.name << " : " << arg.formatType() << "  "
       << description << "\n";
  }
  std::string seconds = formatDouble(
      "%.2f",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
  if (options.inputs.empty())
    os << "  (generated with seed " << options.seed << " in " << seconds
       << " s)\n";
  else
    os << "  (read in " << seconds << " s)\n";
  return {};
}

LaunchError mlir::mxfp8train::launch::prepareLaunchOutputDir(
    const FunctionSpec &spec, const LaunchOptions &options,
    const std::vector<std::vector<uint8_t>> &inputs) {
  if (options.outputDir.empty()) {
    if (options.saveInputs)
      return makeUsageError("--save-inputs needs --output-dir");
    return {};
  }
  std::error_code ec;
  fs::create_directories(options.outputDir, ec);
  if (ec || !fs::is_directory(options.outputDir))
    return makeUsageError("cannot create '" + options.outputDir +
                          "': " + (ec ? ec.message() : "not a directory"));
  if (!options.saveInputs)
    return {};
  fs::path dir = fs::path(options.outputDir) / "inputs";
  fs::create_directories(dir, ec);
  if (ec)
    return makeUsageError("cannot create '" + dir.string() +
                          "': " + ec.message());
  for (size_t i = 0; i < spec.args.size(); ++i) {
    fs::path path = dir / (std::to_string(i) + "_" +
                           sanitizeFileName(spec.args[i].name) + ".npy");
    if (LaunchError f = writeTensorNpy(path.string(), spec.args[i],
                                       inputs[i].data(), options.bf16AsFloat32))
      return f;
  }
  return {};
}
