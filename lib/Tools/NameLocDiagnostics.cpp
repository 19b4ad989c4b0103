//===- NameLocDiagnostics.cpp - diagnostics at named locations ------------===//
//
// Implements NameLocDiagnostics.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Tools/NameLocDiagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

/// The names of `loc` (no file position anywhere inside it), or "".
static std::string formatNames(Location loc) {
  return llvm::TypeSwitch<LocationAttr, std::string>(loc)
      .Case([](NameLoc name) {
        std::string text = name.getName().str();
        std::string child = formatNames(name.getChildLoc());
        return child.empty() ? text : text + "(" + child + ")";
      })
      .Case([](FusedLoc fused) {
        std::string text;
        for (Location part : fused.getLocations()) {
          std::string names = formatNames(part);
          if (!names.empty())
            text += (text.empty() ? "" : ", ") + names;
        }
        return text;
      })
      .Case([](CallSiteLoc call) { return formatNames(call.getCallee()); })
      .Case([](OpaqueLoc opaque) {
        return formatNames(opaque.getFallbackLocation());
      })
      .Default([](LocationAttr) { return std::string(); });
}

std::string mxfp8train::getNameLocText(Location loc) {
  if (loc->findInstanceOf<FileLineColLoc>())
    return "";
  return formatNames(loc);
}

/// "error", "warning", "note" or "remark".
static StringRef getSeverityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

/// Prints the `file:line:col: ` or `<names>: ` prefix of a note at `loc`.
static void printNotePrefix(llvm::raw_ostream &os, Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>()) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn() << ": ";
    return;
  }
  std::string names = formatNames(loc);
  if (!names.empty())
    os << names << ": ";
}

DiagnosticEngine::HandlerID
mxfp8train::registerNameLocDiagnosticHandler(MLIRContext *context,
                                             llvm::raw_ostream &os) {
  return context->getDiagEngine().registerHandler(
      [&os](Diagnostic &diag) -> LogicalResult {
        std::string names = getNameLocText(diag.getLocation());
        if (names.empty())
          return failure();
        os << names << ": " << getSeverityName(diag.getSeverity()) << ": "
           << diag << "\n";
        for (Diagnostic &note : diag.getNotes()) {
          printNotePrefix(os, note.getLocation());
          os << "note: " << note << "\n";
        }
        os.flush();
        return success();
      });
}
