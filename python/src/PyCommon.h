//===- PyCommon.h - shared handles of the Python extension ------*- C++ -*-===//
//
// The objects the nanobind extension `mxfp8train._mxfp8train` hands to
// Python: a context (every dialect and pass of mxfp8train registered, and a
// diagnostic handler that collects what MLIR emits so the Python layer can
// raise it as an exception) and a module that keeps its context alive. The
// extension uses only the C API of libMXFP8Train-C.so.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_PYTHON_PYCOMMON_H
#define MXFP8TRAIN_PYTHON_PYCOMMON_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mxfp8train-c/ExecutionEngine.h"

#include <nanobind/nanobind.h>

#include <string>
#include <vector>

namespace mxfp8train::python {

/// The string of a C API string reference.
inline std::string toString(MlirStringRef ref) {
  return std::string(ref.data, ref.length);
}

/// An MlirStringRef over `s` (which must outlive it).
inline MlirStringRef toStringRef(const std::string &s) {
  return mlirStringRefCreate(s.data(), s.size());
}

/// The compile options of run() and compare(): `device` an
/// MXFP8TrainDevice, `chip` (which must outlive them) the GPU architecture.
inline MXFP8TrainCompileOptions makeCompileOptions(int device, int gpu,
                                                   const std::string &chip,
                                                   bool vectorize,
                                                   bool simpleGemm) {
  MXFP8TrainCompileOptions options = mxfp8trainCompileOptionsGetDefault();
  options.device = static_cast<MXFP8TrainDevice>(device);
  options.gpu = gpu;
  options.chip = toStringRef(chip);
  options.vectorize = vectorize;
  options.simpleGemm = simpleGemm;
  return options;
}

/// Appends the pieces printed by an MLIR print callback to a std::string
/// (the `userData` of the callback).
void appendToString(MlirStringRef piece, void *userData);

/// The printed form of `location` (`loc("mlp.w1.fwd")`, ...).
std::string printLocation(MlirLocation location);

/// The name of the first NameLoc found in `location` (looking through
/// fused and call-site locations), or "".
std::string firstLocationName(MlirLocation location);

/// One diagnostic MLIR emitted, with its notes.
struct DiagnosticRecord {
  /// "error", "warning", "note" or "remark".
  std::string severity;
  std::string location;
  std::string message;
  std::vector<DiagnosticRecord> notes;
};

/// An MLIR context with mxfp8train's dialects and passes registered. Every
/// diagnostic is collected (not printed) until takeDiagnostics().
class ContextHandle {
public:
  ContextHandle();
  ~ContextHandle();
  ContextHandle(const ContextHandle &) = delete;
  ContextHandle &operator=(const ContextHandle &) = delete;

  MlirContext get() const { return context; }

  /// The diagnostics collected since the last call, oldest first.
  std::vector<DiagnosticRecord> takeDiagnostics();

  /// Records `diagnostic` (the handler attached to the context).
  void record(MlirDiagnostic diagnostic);

private:
  MlirContext context;
  MlirDiagnosticHandlerID handlerId;
  std::vector<DiagnosticRecord> diagnostics;
};

/// A module that owns its MlirModule and keeps its context alive.
class ModuleHandle {
public:
  ModuleHandle(nanobind::object contextObject, MlirModule module)
      : contextObject(std::move(contextObject)), module(module) {}
  ~ModuleHandle();
  ModuleHandle(const ModuleHandle &) = delete;
  ModuleHandle &operator=(const ModuleHandle &) = delete;

  MlirModule get() const { return module; }
  ContextHandle &getContext() const {
    return nanobind::cast<ContextHandle &>(contextObject);
  }
  nanobind::object getContextObject() const { return contextObject; }

private:
  nanobind::object contextObject;
  MlirModule module;
};

/// Binds Context, Module and the walk/print/verify/pipeline functions.
void initIR(nanobind::module_ &m);
/// Binds the conversion (mxfp8trainConvertModule) and its report.
void initRewrite(nanobind::module_ &m);
/// Binds compile-and-run (mxfp8trainRunFunction) and the CUDA probe.
void initExecution(nanobind::module_ &m);
/// Binds mxfp8trainCompareFunction when the C API has it (Compare.h).
void initCompare(nanobind::module_ &m);

} // namespace mxfp8train::python

#endif // MXFP8TRAIN_PYTHON_PYCOMMON_H
