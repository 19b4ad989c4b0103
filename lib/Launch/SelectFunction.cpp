//===- SelectFunction.cpp - pick an AOT function from a manifest ----------===//
//
// Implements SelectFunction.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/SelectFunction.h"

#include "mxfp8train/Launch/AOTFunction.h"

using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::launch;

LaunchError mlir::mxfp8train::launch::selectFunction(const Manifest &manifest,
                                                     const std::string &path,
                                                     const std::string &entry,
                                                     const FunctionSpec *&out) {
  std::string names;
  int callable = 0;
  const FunctionSpec *only = nullptr;
  for (const FunctionSpec &func : manifest.functions) {
    names += (names.empty() ? "@" : ", @") + func.name;
    if (func.unsupported.empty()) {
      ++callable;
      only = &func;
    }
  }
  if (names.empty())
    names = "none";
  if (entry.empty()) {
    if (callable != 1)
      return makeLaunchError(LaunchErrorKind::BadInput,
                             "--entry=NAME is needed: '" + path + "' lists " +
                                 std::to_string(callable) +
                                 " callable functions (" + names + ")");
    out = only;
    return {};
  }
  out = manifest.lookup(entry);
  if (!out)
    return makeLaunchError(LaunchErrorKind::BadInput,
                           "no function @" + entry + " in '" + path +
                               "' (functions: " + names + ")");
  if (!out->unsupported.empty())
    return makeLaunchError(LaunchErrorKind::BadInput,
                           "@" + entry +
                               " cannot be called: " + out->unsupported);
  size_t count = out->args.size() + out->results.size();
  if (count > kMaxDescriptors)
    return makeLaunchError(LaunchErrorKind::BadInput,
                           "@" + entry + " takes " + std::to_string(count) +
                               " descriptors; mxfp8-launch calls at most " +
                               std::to_string(kMaxDescriptors));
  return {};
}

std::string
mlir::mxfp8train::launch::describeSignature(const FunctionSpec &func) {
  std::string text = "(";
  for (size_t i = 0; i < func.args.size(); ++i)
    text += (i ? ", " : "") + func.args[i].formatType();
  text += ") -> (";
  for (size_t i = 0; i < func.results.size(); ++i)
    text += (i ? ", " : "") + func.results[i].formatType();
  return text + ")";
}

LaunchError
mlir::mxfp8train::launch::checkSameSignature(const FunctionSpec &a,
                                             const FunctionSpec &b) {
  std::string typesA = describeSignature(a), typesB = describeSignature(b);
  if (typesA != typesB)
    return makeLaunchError(LaunchErrorKind::BadInput,
                           "cannot compare @" + a.name + " " + typesA +
                               " with @" + b.name + " " + typesB);
  return {};
}
