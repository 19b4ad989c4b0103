//===- FunctionSpec.cpp - manifest entries of MLIR functions --------------===//

#include "mxfp8train/Runner/FunctionSpec.h"
#include "mxfp8train/Runner/Bars.h"
#include "mxfp8train/Runner/Signature.h"
#include "mxfp8train/Tools/MatmulProbes.h"
#include "mxfp8train/Tools/ModuleSource.h"

#include "mlir/AsmParser/AsmParserState.h"

using namespace mlir;
using namespace mlir::mxfp8train;

/// Reads a number attribute (FloatAttr or IntegerAttr).
static std::optional<double> getNumber(Attribute attr) {
  if (auto f = dyn_cast_or_null<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return double(i.getInt());
  return std::nullopt;
}

/// Describes a tensor type into `spec`; returns the reason it is not
/// supported, or "".
static std::string describeTensor(Type type, TensorSpec &spec) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return "has type " + formatTensorType(type) +
           "; only ranked tensors are "
           "supported";
  if (!tensor.hasStaticShape())
    return "has a dynamic shape (" + formatTensorType(type) +
           "); static shapes are needed";
  llvm::Expected<ElementKind> kind =
      getHostElementType(tensor.getElementType());
  if (!kind) {
    llvm::consumeError(kind.takeError());
    return "has type " + formatTensorType(type) +
           ", whose element type is not supported on the host side";
  }
  spec.kind = *kind;
  spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return "";
}

std::string mlir::mxfp8train::describeArgument(func::FuncOp func, unsigned i,
                                               TensorSpec &arg) {
  Type type = func.getFunctionType().getInput(i);
  std::string why = describeTensor(type, arg);
  if (!why.empty())
    return why;
  if (Attribute attr = func.getArgAttr(i, "mxfp8run.std")) {
    std::optional<double> value = getNumber(attr);
    if (!value)
      return "has a non-numeric mxfp8run.std";
    arg.hasStd = true;
    arg.std = *value;
  }
  if (Attribute attr = func.getArgAttr(i, "mxfp8run.values")) {
    auto dense = dyn_cast<DenseElementsAttr>(attr);
    ArrayRef<char> raw = dense ? dense.getRawData() : ArrayRef<char>();
    int64_t itemSize = getElementKindSize(arg.kind);
    bool splat = dense && dense.isSplat();
    bool bits = arg.kind == ElementKind::I1;
    if (!dense || dense.getType() != type ||
        (!bits &&
         int64_t(raw.size()) != (splat ? itemSize : arg.getNumBytes())))
      return "has an mxfp8run.values attribute that is not a dense elements "
             "attribute of its exact type";
    arg.hasValues = true;
    arg.valuesSplat = splat;
    if (arg.kind == ElementKind::I1) {
      // Dense i1 data is stored one bit per element: one byte each here.
      for (bool value : dense.getValues<bool>()) {
        arg.values.push_back(value ? 1 : 0);
        if (splat)
          break;
      }
    } else {
      arg.values.assign(raw.begin(), raw.end());
    }
  }
  return "";
}

/// The manifest entry of `func`: mxfp8-run's names (SSA names from the
/// parser state, `mxfp8run.name`, `arg<i>` / `result<i>`), types, and the
/// input-generation and role attributes.
FunctionSpec
mlir::mxfp8train::describeFunction(func::FuncOp func,
                                   const AsmParserState &asmState) {
  FunctionSpec spec;
  spec.name = func.getSymName().str();
  FunctionType type = func.getFunctionType();
  SmallVector<std::string> argNames, resultNames;
  getSignatureNames(func, asmState, argNames, resultNames);
  for (std::string &name : argNames) {
    TensorSpec arg;
    arg.name = std::move(name);
    spec.args.push_back(std::move(arg));
  }
  for (std::string &name : resultNames) {
    TensorSpec result;
    result.name = std::move(name);
    spec.results.push_back(std::move(result));
  }

  auto unsupported = [&](StringRef what, unsigned i, StringRef name,
                         StringRef why) {
    spec.unsupported =
        (what + " #" + llvm::Twine(i) + " (" + name + ") " + why).str();
  };
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i) {
    TensorSpec &arg = spec.args[i];
    std::string why = describeArgument(func, i, arg);
    if (!why.empty()) {
      unsupported("argument", i, arg.name, why);
      return spec;
    }
  }
  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i) {
    TensorSpec &result = spec.results[i];
    std::string why = describeTensor(type.getResult(i), result);
    if (!why.empty()) {
      unsupported("result", i, result.name, why);
      return spec;
    }
    if (auto role = func.getResultAttrOfType<StringAttr>(i, "mxfp8train.role"))
      result.role = role.str();
    if (std::optional<double> bar =
            getNumber(func.getResultAttr(i, "mxfp8run.min_sqnr"))) {
      result.hasMinSqnr = true;
      result.minSqnr = *bar;
    }
  }
  return spec;
}

void mlir::mxfp8train::describeResultBars(func::FuncOp func,
                                          RecipeAttrInterface recipe,
                                          FunctionSpec &spec) {
  SmallVector<ResultGemms> gemms = getQuantizedGemmsPerResult(func);
  for (auto [result, resultGemms] : llvm::zip(spec.results, gemms)) {
    std::optional<RoleBar> bar = getRoleBar(recipe, result.role, resultGemms);
    if (!bar)
      continue;
    result.hasBar = true;
    result.bar = bar->db;
    result.barIsReference = bar->reference;
  }
}

void mlir::mxfp8train::describeProbeBars(ArrayRef<MatmulProbe> probes,
                                         RecipeAttrInterface recipe,
                                         FunctionSpec &spec) {
  size_t numExtra = 0;
  for (const MatmulProbe &probe : probes)
    if (probe.extraIndex >= 0)
      numExtra += 2;
  if (numExtra > spec.results.size())
    return;
  size_t firstExtra = spec.results.size() - numExtra;
  for (const MatmulProbe &probe : probes) {
    if (probe.extraIndex < 0)
      continue;
    // The converted result follows the high-precision one.
    TensorSpec &converted = spec.results[firstExtra + probe.extraIndex + 1];
    converted.hasBar = true;
    converted.bar = getMatmulBar(recipe, probe.role, probe.grouped);
  }
}
