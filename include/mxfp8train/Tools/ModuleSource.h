//===- ModuleSource.h - reading modules for the tools ------------*- C++
//-*-===//
//
// What mxfp8-run and mxfp8-compile both need to read a module from a file:
// parsing with the parser state kept (SSA names of arguments and results),
// and pass-pipeline text without its `builtin.module(...)` anchor.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TOOLS_MODULESOURCE_H
#define MXFP8TRAIN_TOOLS_MODULESOURCE_H

#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

namespace mlir::mxfp8train {

/// Parses `filename` ("-" for stdin) into a module, recording the parser
/// state in `asmState`. A single top-level `builtin.module` is the module;
/// anything else is wrapped into one (as mlir::parseSourceFile<ModuleOp>).
/// Returns null on failure: when the file cannot be opened `error` holds
/// the reason; parse errors go to the context's diagnostic handler.
OwningOpRef<ModuleOp> parseModuleFile(llvm::StringRef filename,
                                      llvm::SourceMgr &sourceMgr,
                                      MLIRContext *context,
                                      AsmParserState &asmState,
                                      std::string &error);

/// The identifier of the SSA definition starting at `range` (`%x` -> `x`),
/// or "" when `range` is not an SSA name.
std::string getSSAName(llvm::SMRange range);

/// `text` without an explicit `builtin.module(...)` anchor around it.
llvm::StringRef stripModuleAnchor(llvm::StringRef text);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_TOOLS_MODULESOURCE_H
