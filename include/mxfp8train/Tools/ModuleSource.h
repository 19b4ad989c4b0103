//===- ModuleSource.h - reading modules for the tools -----------*- C++ -*-===//
//
// What mxfp8-run and mxfp8-compile both need to read a module from a file:
// parsing with the parser state kept, the names of arguments and results
// (SSA names), pass-pipeline text without its `builtin.module(...)` anchor,
// and keeping only the functions an entry point reaches.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TOOLS_MODULESOURCE_H
#define MXFP8TRAIN_TOOLS_MODULESOURCE_H

#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
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

/// The names the tools give the arguments and results of `func`: an
/// `mxfp8run.name` attribute, else the SSA name in the source (`%p:2` gives
/// `p#0`, `p#1`; a returned argument takes the argument's name), else
/// `arg<i>` / `result<i>` (docs/mxfp8-run.md).
void getSignatureNames(func::FuncOp func, const AsmParserState &asmState,
                       llvm::SmallVectorImpl<std::string> &argNames,
                       llvm::SmallVectorImpl<std::string> &resultNames);

/// Erases the functions of `module` that none of `roots` reaches through
/// symbol references (other entry points may not be compilable). Returns
/// the first root without a body, or "" when all have one.
std::string keepReachableFunctions(ModuleOp module,
                                   llvm::ArrayRef<std::string> roots);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_TOOLS_MODULESOURCE_H
