//===- ModuleSource.cpp - reading modules for the tools ----------*- C++
//-*-===//
//
// Module parsing, SSA names and pipeline anchors shared by mxfp8-run and
// mxfp8-compile.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Tools/ModuleSource.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Block.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

OwningOpRef<ModuleOp> mxfp8train::parseModuleFile(StringRef filename,
                                                  llvm::SourceMgr &sourceMgr,
                                                  MLIRContext *context,
                                                  AsmParserState &asmState,
                                                  std::string &error) {
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(filename, &error);
  if (!file)
    return nullptr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  Block block;
  ParserConfig config(context);
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &asmState)))
    return nullptr;
  if (llvm::hasSingleElement(block))
    if (auto module = dyn_cast<ModuleOp>(&block.front())) {
      module->remove();
      return module;
    }
  auto fileLoc = FileLineColLoc::get(
      context, sourceMgr.getMemoryBuffer(1)->getBufferIdentifier(), 0, 0);
  OwningOpRef<ModuleOp> module(ModuleOp::create(fileLoc));
  module->getBody()->getOperations().splice(module->getBody()->begin(),
                                            block.getOperations());
  return module;
}

std::string mxfp8train::getSSAName(llvm::SMRange range) {
  const char *p = range.Start.getPointer();
  if (!p || *p != '%')
    return "";
  ++p;
  std::string name;
  while (llvm::isAlnum(*p) || *p == '_' || *p == '$' || *p == '.' || *p == '-')
    name.push_back(*p++);
  return name;
}

StringRef mxfp8train::stripModuleAnchor(StringRef text) {
  StringRef trimmed = text.trim();
  if (trimmed.consume_front("builtin.module(") && trimmed.consume_back(")"))
    return trimmed;
  return text;
}
