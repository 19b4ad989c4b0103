//===- NameLocDiagnostics.h - diagnostics at named locations ----*- C++ -*-===//
//
// Upstream's SourceMgrDiagnosticHandler prints a diagnostic whose location
// holds no file position, such as the bare NameLoc of a matmul built by a
// framework (`loc("mlp.w1.fwd")`), as
//   <unknown>:0: remark: loc("mlp.w1.fwd"): mxfp8train: converted (...)
// This handler, registered after it, prints those the way a user reads
// them, at the name:
//   mlp.w1.fwd: remark: mxfp8train: converted (...)
// Locations with a file position (a NameLoc around a FileLineColLoc
// included) and unknown locations are left to the handlers registered
// before it. The tools (mxfp8-opt, mxfp8-run, mxfp8-compile) register it.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TOOLS_NAMELOCDIAGNOSTICS_H
#define MXFP8TRAIN_TOOLS_NAMELOCDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::mxfp8train {

/// The names in `loc` as a user wrote them, or "" when it holds a file
/// position or no name: `a` for loc("a"), `a(b)` for loc("a"("b")),
/// `a, b` for loc(fused["a", "b"]), the callee's names for a call site.
std::string getNameLocText(Location loc);

/// Registers on `context` a handler that prints every diagnostic whose
/// location has a getNameLocText() as `<names>: <severity>: <message>` on
/// `os`, followed by its notes the same way (a note at a file position
/// prints it, one at an unknown location prints none), and lets others
/// through. It lives as long as the context (or until unregistered).
DiagnosticEngine::HandlerID
registerNameLocDiagnosticHandler(MLIRContext *context,
                                 llvm::raw_ostream &os = llvm::errs());

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_TOOLS_NAMELOCDIAGNOSTICS_H
