//===- Signature.cpp - the runnable signature of a function ---------------===//
//
// getSignature(): the entry function, its host types, names, roles and bars,
// with the checks that keep a run from failing late (unsupported types,
// dynamic shapes, buffers that cannot be allocated).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Runner/Signature.h"
#include "mxfp8train/Tools/ModuleSource.h"

#include "mlir/AsmParser/AsmParserState.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace mlir;
using namespace mlir::mxfp8train;

std::string mlir::mxfp8train::formatTensorType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    for (int64_t d : tensor.getShape()) {
      if (ShapedType::isDynamic(d))
        os << "?x";
      else
        os << d << "x";
    }
    os << tensor.getElementType();
  } else {
    os << type;
  }
  return text;
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

/// Checks one argument or result type and appends it to `types`.
static llvm::Error checkType(func::FuncOp func, Type t, StringRef what,
                             unsigned i, StringRef name,
                             SmallVectorImpl<RankedTensorType> &types,
                             SmallVectorImpl<HostElementType> &hostTypes) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor)
    return makeError(what + " #" + llvm::Twine(i) + " (" + name + ") of @" +
                     func.getSymName() + " has type " + formatTensorType(t) +
                     "; mxfp8-run supports ranked tensors only");
  if (!tensor.hasStaticShape())
    return makeError(what + " #" + llvm::Twine(i) + " (" + name + ") of @" +
                     func.getSymName() + " has a dynamic shape (" +
                     formatTensorType(t) + "); mxfp8-run needs static shapes");
  llvm::Expected<HostElementType> host =
      getHostElementType(tensor.getElementType());
  if (!host)
    return makeError(what + " #" + llvm::Twine(i) + " (" + name + ") of @" +
                     func.getSymName() + ": " +
                     llvm::toString(host.takeError()));
  // Check the size before anything is allocated: a host buffer that cannot
  // exist is an error, not an abort in the allocator.
  std::optional<int64_t> bytes = getHostElementSize(*host);
  if (llvm::is_contained(tensor.getShape(), 0))
    bytes = 0;
  for (int64_t size : tensor.getShape())
    if (bytes)
      bytes = llvm::checkedMul(*bytes, size);
  if (!bytes || !canAllocateHostBytes(*bytes))
    return makeError(
        "cannot allocate " +
        (bytes ? std::to_string(*bytes) : std::string("2^63 or more")) +
        " bytes for " + what + " #" + llvm::Twine(i) + " (" + name + ") of @" +
        func.getSymName() + " (" + formatTensorType(t) + ")");
  types.push_back(tensor);
  hostTypes.push_back(*host);
  return llvm::Error::success();
}

llvm::Expected<Signature>
mlir::mxfp8train::getSignature(ModuleOp module, StringRef entry,
                               const AsmParserState *asmState,
                               StringRef sourceName) {
  Signature sig;
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      candidates.push_back(func);
  std::string candidateNames;
  for (func::FuncOp func : candidates)
    candidateNames +=
        (candidateNames.empty() ? "@" : ", @") + func.getSymName().str();
  if (candidateNames.empty())
    candidateNames = "none";

  if (entry.empty()) {
    if (candidates.empty())
      return makeError("the module has no public function with a body to run");
    if (candidates.size() != 1)
      return makeError("--entry=NAME is needed: the module has " +
                       llvm::Twine(candidates.size()) + " public functions (" +
                       candidateNames + ")");
    sig.func = candidates.front();
  } else {
    sig.func = module.lookupSymbol<func::FuncOp>(entry);
    if (!sig.func || sig.func.isExternal())
      return makeError("no function @" + entry + " with a body in '" +
                       sourceName + "' (public functions: " + candidateNames +
                       ")");
  }
  func::FuncOp func = sig.func;
  FunctionType type = func.getFunctionType();

  AsmParserState noState;
  getSignatureNames(func, asmState ? *asmState : noState, sig.argNames,
                    sig.resultNames);

  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i)
    if (llvm::Error err =
            checkType(func, type.getInput(i), "argument", i, sig.argNames[i],
                      sig.argTypes, sig.argHostTypes))
      return std::move(err);
  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i)
    if (llvm::Error err =
            checkType(func, type.getResult(i), "result", i, sig.resultNames[i],
                      sig.resultTypes, sig.resultHostTypes))
      return std::move(err);

  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i) {
    std::string role;
    if (Attribute attr = func.getResultAttr(i, "mxfp8train.role")) {
      auto str = dyn_cast<StringAttr>(attr);
      if (!str ||
          (str.getValue() != "output" && str.getValue() != "input_grad" &&
           str.getValue() != "weight_grad"))
        return makeError("result #" + llvm::Twine(i) + " (" +
                         sig.resultNames[i] + ") of @" + func.getSymName() +
                         ": mxfp8train.role must be \"output\", "
                         "\"input_grad\" or \"weight_grad\"");
      role = str.str();
    }
    sig.resultRoles.push_back(role);
    std::optional<double> minSqnr;
    if (Attribute attr = func.getResultAttr(i, "mxfp8run.min_sqnr")) {
      if (auto f = dyn_cast<FloatAttr>(attr))
        minSqnr = f.getValueAsDouble();
      else if (auto n = dyn_cast<IntegerAttr>(attr))
        minSqnr = double(n.getInt());
      if (!minSqnr || std::isnan(*minSqnr))
        return makeError(
            "result #" + llvm::Twine(i) + " (" + sig.resultNames[i] + ") of @" +
            func.getSymName() +
            ": mxfp8run.min_sqnr must be a number of dB (not NaN)");
    }
    sig.resultMinSqnr.push_back(minSqnr);
  }
  return sig;
}
