//===- ModuleSource.cpp - reading modules for the tools ---------*- C++ -*-===//
//
// Module parsing, SSA and signature names, pipeline anchors and entry-point
// pruning shared by mxfp8-run and mxfp8-compile.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Tools/ModuleSource.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/SymbolTable.h"
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

void mxfp8train::getSignatureNames(func::FuncOp func,
                                   const AsmParserState &asmState,
                                   SmallVectorImpl<std::string> &argNames,
                                   SmallVectorImpl<std::string> &resultNames) {
  FunctionType type = func.getFunctionType();
  const AsmParserState::BlockDefinition *entryDef =
      asmState.getBlockDef(&func.front());
  auto returnOp = dyn_cast<func::ReturnOp>(func.front().getTerminator());
  argNames.clear();
  resultNames.clear();
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i) {
    std::string name;
    if (auto attr = func.getArgAttrOfType<StringAttr>(i, "mxfp8run.name"))
      name = attr.str();
    else if (entryDef && i < entryDef->arguments.size())
      name = getSSAName(entryDef->arguments[i].loc);
    argNames.push_back(name.empty() ? "arg" + std::to_string(i) : name);
  }
  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i) {
    std::string name;
    if (auto attr = func.getResultAttrOfType<StringAttr>(i, "mxfp8run.name")) {
      name = attr.str();
    } else if (returnOp && i < returnOp.getNumOperands()) {
      Value value = returnOp.getOperand(i);
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        if (arg.getOwner() == &func.front())
          name = argNames[arg.getArgNumber()];
      } else if (Operation *def = value.getDefiningOp()) {
        unsigned resultNumber = cast<OpResult>(value).getResultNumber();
        if (const auto *opDef = asmState.getOpDef(def)) {
          // Result groups are `%a, %b = ...` (one result each) or `%c:2`.
          auto groups = opDef->resultGroups;
          for (auto [g, group] : llvm::enumerate(groups)) {
            unsigned end = g + 1 < groups.size() ? groups[g + 1].startIndex
                                                 : def->getNumResults();
            if (resultNumber < group.startIndex || resultNumber >= end)
              continue;
            name = getSSAName(group.definition.loc);
            if (!name.empty() && end - group.startIndex > 1)
              name += "#" + std::to_string(resultNumber - group.startIndex);
          }
        }
      }
    }
    resultNames.push_back(name.empty() ? "result" + std::to_string(i) : name);
  }
}

std::string mxfp8train::keepReachableFunctions(ModuleOp module,
                                               ArrayRef<std::string> roots) {
  llvm::SmallPtrSet<Operation *, 8> reachable;
  SmallVector<Operation *> worklist;
  for (const std::string &name : roots) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal())
      return name;
    if (reachable.insert(func).second)
      worklist.push_back(func);
  }
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(op);
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses) {
      Operation *callee =
          SymbolTable::lookupNearestSymbolFrom(module, use.getSymbolRef());
      if (callee && reachable.insert(callee).second)
        worklist.push_back(callee);
    }
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reachable.contains(func))
      func.erase();
  return "";
}
