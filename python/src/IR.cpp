//===- IR.cpp - Context, Module and operation walks for Python ------------===//
//
// Binds the context (every mxfp8train dialect and pass registered; the
// diagnostics it emits are collected for the Python layer, which raises
// them as mxfp8train.MLIRError), the module (parse, print, verify, clone,
// walk, pass pipelines) and the conversion of attributes to Python values.
//
//===----------------------------------------------------------------------===//

#include "PyCommon.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"
#include "mxfp8train-c/Passes.h"
#include "mxfp8train-c/Registration.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>

namespace nb = nanobind;
using namespace mxfp8train::python;

void mxfp8train::python::appendToString(MlirStringRef piece, void *userData) {
  static_cast<std::string *>(userData)->append(piece.data, piece.length);
}

std::string mxfp8train::python::printLocation(MlirLocation location) {
  std::string text;
  mlirLocationPrint(location, appendToString, &text);
  return text;
}

std::string mxfp8train::python::firstLocationName(MlirLocation location) {
  if (mlirLocationIsAName(location))
    return toString(mlirIdentifierStr(mlirLocationNameGetName(location)));
  if (mlirLocationIsAFused(location)) {
    intptr_t n = mlirLocationFusedGetNumLocations(location);
    std::vector<MlirLocation> parts(n);
    mlirLocationFusedGetLocations(location, parts.data());
    for (MlirLocation part : parts) {
      std::string name = firstLocationName(part);
      if (!name.empty())
        return name;
    }
    return "";
  }
  if (mlirLocationIsACallSite(location))
    return firstLocationName(mlirLocationCallSiteGetCallee(location));
  return "";
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

static const char *severityName(MlirDiagnosticSeverity severity) {
  switch (severity) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  case MlirDiagnosticRemark:
    return "remark";
  }
  return "error";
}

static DiagnosticRecord convertDiagnostic(MlirDiagnostic diagnostic) {
  DiagnosticRecord result;
  result.severity = severityName(mlirDiagnosticGetSeverity(diagnostic));
  result.location = printLocation(mlirDiagnosticGetLocation(diagnostic));
  mlirDiagnosticPrint(diagnostic, appendToString, &result.message);
  for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(diagnostic); i < e; ++i)
    result.notes.push_back(
        convertDiagnostic(mlirDiagnosticGetNote(diagnostic, i)));
  return result;
}

/// The context's diagnostic handler: records every diagnostic and reports it
/// handled, so that nothing is printed to stderr.
static MlirLogicalResult recordDiagnostic(MlirDiagnostic diagnostic,
                                          void *userData) {
  static_cast<ContextHandle *>(userData)->record(diagnostic);
  return mlirLogicalResultSuccess();
}

ContextHandle::ContextHandle() {
  // Register once per process: the pass registry is global.
  static const bool passesRegistered = [] {
    mxfp8trainRegisterAllPasses();
    mxfp8trainRegisterUpstreamPasses();
    return true;
  }();
  (void)passesRegistered;
  context = mlirContextCreateWithThreading(/*threadingEnabled=*/false);
  mxfp8trainContextRegisterAll(context);
  mlirContextSetAllowUnregisteredDialects(context, false);
  handlerId = mlirContextAttachDiagnosticHandler(context, recordDiagnostic,
                                                 this, /*deleteUserData=*/
                                                 nullptr);
}

ContextHandle::~ContextHandle() {
  mlirContextDetachDiagnosticHandler(context, handlerId);
  mlirContextDestroy(context);
}

void ContextHandle::record(MlirDiagnostic diagnostic) {
  diagnostics.push_back(convertDiagnostic(diagnostic));
}

std::vector<DiagnosticRecord> ContextHandle::takeDiagnostics() {
  std::vector<DiagnosticRecord> result;
  result.swap(diagnostics);
  return result;
}

ModuleHandle::~ModuleHandle() {
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
}

//===----------------------------------------------------------------------===//
// Attributes as Python values
//===----------------------------------------------------------------------===//

static std::string printAttribute(MlirAttribute attr) {
  std::string text;
  mlirAttributePrint(attr, appendToString, &text);
  return text;
}

static std::string printType(MlirType type) {
  std::string text;
  mlirTypePrint(type, appendToString, &text);
  return text;
}

/// `text` as a Python str, embedded NULs included.
static nb::str toPython(MlirStringRef text) {
  return nb::str(text.data, text.length);
}

/// The value of an integer attribute: through int64 / uint64 where it fits
/// the type, else (i128, ui128, ...) from its printed digits.
static nb::object integerToPython(MlirAttribute attr) {
  MlirType type = mlirAttributeGetType(attr);
  bool integerType = mlirTypeIsAInteger(type);
  if (integerType && mlirIntegerTypeGetWidth(type) > 64) {
    std::string text = printAttribute(attr);
    // `<digits> : <type>` (a leading '-' for negative values).
    std::string digits = text.substr(0, text.find(' '));
    return nb::steal(PyLong_FromString(digits.c_str(), nullptr, 10));
  }
  if (integerType && mlirIntegerTypeIsUnsigned(type))
    return nb::int_(mlirIntegerAttrGetValueUInt(attr));
  return nb::int_(mlirIntegerAttrGetValueInt(attr));
}

/// Booleans, integers, floats, strings, unit (True), arrays (lists) and
/// dictionaries (dicts) become Python values; types become their text;
/// every other attribute (dense elements, affine maps, our recipe, ...)
/// its printed form.
static nb::object attributeToPython(MlirAttribute attr) {
  if (mlirAttributeIsABool(attr))
    return nb::bool_(mlirBoolAttrGetValue(attr));
  if (mlirAttributeIsAInteger(attr))
    return integerToPython(attr);
  if (mlirAttributeIsAFloat(attr))
    return nb::float_(mlirFloatAttrGetValueDouble(attr));
  if (mlirAttributeIsAString(attr))
    return toPython(mlirStringAttrGetValue(attr));
  if (mlirAttributeIsAUnit(attr))
    return nb::bool_(true);
  if (mlirAttributeIsAType(attr))
    return nb::str(printType(mlirTypeAttrGetValue(attr)).c_str());
  if (mlirAttributeIsAArray(attr)) {
    nb::list list;
    for (intptr_t i = 0, e = mlirArrayAttrGetNumElements(attr); i < e; ++i)
      list.append(attributeToPython(mlirArrayAttrGetElement(attr, i)));
    return list;
  }
  if (mlirAttributeIsADictionary(attr)) {
    nb::dict dict;
    for (intptr_t i = 0, e = mlirDictionaryAttrGetNumElements(attr); i < e;
         ++i) {
      MlirNamedAttribute named = mlirDictionaryAttrGetElement(attr, i);
      dict[toPython(mlirIdentifierStr(named.name))] =
          attributeToPython(named.attribute);
    }
    return dict;
  }
  return nb::str(printAttribute(attr).c_str());
}

//===----------------------------------------------------------------------===//
// Module functions
//===----------------------------------------------------------------------===//

/// A snapshot of one operation: (name, location text, first NameLoc name,
/// attributes dict, operand types, result types).
static nb::tuple describeOperation(MlirOperation op) {
  nb::dict attributes;
  for (intptr_t i = 0, e = mlirOperationGetNumAttributes(op); i < e; ++i) {
    MlirNamedAttribute named = mlirOperationGetAttribute(op, i);
    attributes[toPython(mlirIdentifierStr(named.name))] =
        attributeToPython(named.attribute);
  }
  nb::list operandTypes, resultTypes;
  for (intptr_t i = 0, e = mlirOperationGetNumOperands(op); i < e; ++i)
    operandTypes.append(
        printType(mlirValueGetType(mlirOperationGetOperand(op, i))));
  for (intptr_t i = 0, e = mlirOperationGetNumResults(op); i < e; ++i)
    resultTypes.append(
        printType(mlirValueGetType(mlirOperationGetResult(op, i))));
  MlirLocation loc = mlirOperationGetLocation(op);
  return nb::make_tuple(toString(mlirIdentifierStr(mlirOperationGetName(op))),
                        printLocation(loc), firstLocationName(loc), attributes,
                        operandTypes, resultTypes);
}

namespace {
struct WalkState {
  MlirOperation root;
  nb::list *out;
};
} // namespace

static MlirWalkResult collectOperation(MlirOperation op, void *userData) {
  auto *state = static_cast<WalkState *>(userData);
  if (!mlirOperationEqual(op, state->root))
    state->out->append(describeOperation(op));
  return MlirWalkResultAdvance;
}

static std::optional<nb::object> parseModule(nb::object contextObject,
                                             const std::string &text) {
  ContextHandle &context = nb::cast<ContextHandle &>(contextObject);
  MlirModule module = mlirModuleCreateParse(context.get(), toStringRef(text));
  if (mlirModuleIsNull(module))
    return std::nullopt;
  return nb::cast(new ModuleHandle(contextObject, module),
                  nb::rv_policy::take_ownership);
}

static std::string printModule(ModuleHandle &module, bool generic,
                               bool debugInfo) {
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  if (generic)
    mlirOpPrintingFlagsPrintGenericOpForm(flags);
  if (debugInfo)
    mlirOpPrintingFlagsEnableDebugInfo(flags, /*enable=*/true,
                                       /*prettyForm=*/false);
  std::string text;
  mlirOperationPrintWithFlags(mlirModuleGetOperation(module.get()), flags,
                              appendToString, &text);
  mlirOpPrintingFlagsDestroy(flags);
  return text;
}

static nb::object cloneModule(ModuleHandle &module) {
  MlirOperation copy = mlirOperationClone(mlirModuleGetOperation(module.get()));
  return nb::cast(new ModuleHandle(module.getContextObject(),
                                   mlirModuleFromOperation(copy)),
                  nb::rv_policy::take_ownership);
}

/// Runs `pipeline` (`builtin.module(...)` text) on the module in place.
/// Returns "" on success, else the pipeline parser's message, or "failed"
/// when a pass failed (its diagnostics are on the context).
static std::string runPipeline(ModuleHandle &module,
                               const std::string &pipeline) {
  MlirContext ctx = mlirModuleGetContext(module.get());
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  std::string parseError;
  MlirLogicalResult parsed =
      mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                            toStringRef(pipeline), appendToString, &parseError);
  std::string result;
  if (mlirLogicalResultIsFailure(parsed)) {
    result = parseError.empty() ? "invalid pass pipeline" : parseError;
  } else if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(
                 pm, mlirModuleGetOperation(module.get())))) {
    result = "failed";
  }
  mlirPassManagerDestroy(pm);
  return result;
}

static nb::tuple diagnosticToPython(const DiagnosticRecord &d) {
  nb::list notes;
  for (const DiagnosticRecord &note : d.notes)
    notes.append(diagnosticToPython(note));
  return nb::make_tuple(d.severity, d.location, d.message, notes);
}

void mxfp8train::python::initIR(nb::module_ &m) {
  nb::class_<ContextHandle>(
      m, "Context",
      "An MLIR context with the mxfp8train dialect, every "
      "upstream dialect and every pass registered.")
      .def(nb::init<>())
      .def(
          "take_diagnostics",
          [](ContextHandle &self) {
            nb::list out;
            for (const DiagnosticRecord &d : self.takeDiagnostics())
              out.append(diagnosticToPython(d));
            return out;
          },
          "The diagnostics emitted since the last call, as (severity, "
          "location, message, notes) tuples, oldest first.");

  nb::class_<ModuleHandle>(m, "Module", "A builtin.module owned by Python.")
      .def_static("parse", &parseModule, nb::arg("context"), nb::arg("text"),
                  "Parses `text`; None on failure (the errors are on the "
                  "context).")
      .def("print", &printModule, nb::arg("generic") = false,
           nb::arg("debug_info") = false, "The module's text.")
      .def(
          "verify",
          [](ModuleHandle &self) {
            return mlirOperationVerify(mlirModuleGetOperation(self.get()));
          },
          "True when the module verifies (errors go to the context).")
      .def("clone", &cloneModule, "A deep copy in the same context.")
      .def(
          "walk",
          [](ModuleHandle &self) {
            nb::list out;
            MlirOperation root = mlirModuleGetOperation(self.get());
            WalkState state{root, &out};
            mlirOperationWalk(root, collectOperation, &state, MlirWalkPreOrder);
            return out;
          },
          "Snapshots of every nested operation in pre-order: (name, "
          "location, location name, attributes, operand types, result "
          "types).")
      .def("run_pipeline", &runPipeline, nb::arg("pipeline"),
           "Runs a `builtin.module(...)` pipeline in place; returns \"\" on "
           "success, else why not.")
      .def_prop_ro("context", &ModuleHandle::getContextObject,
                   "The Context the module lives in.");
}
