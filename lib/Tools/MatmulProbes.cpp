//===- MatmulProbes.cpp - per-matmul checks of a training step --*- C++ -*-===//
//
// Implements MatmulProbes.h on top of the matmul rewrite (Transforms.h).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Tools/MatmulProbes.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Path.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::mxfp8train;

std::string mxfp8train::describeLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            llvm::Twine(file.getLine()) + ":" + llvm::Twine(file.getColumn()))
        .str();
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations()) {
      std::string text = describeLocation(part);
      if (!text.empty())
        return text;
    }
  }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return describeLocation(callSite.getCallee());
  return "";
}

/// analyzeMatmul for any candidate. It takes the op as an Operation * (dense
/// and grouped GEMMs) or, in the older Transforms.h, as a linalg::LinalgOp;
/// the template makes the unused branch a discarded statement.
template <typename OpT>
static MatmulAnalysis analyzeCandidate(OpT op,
                                       const RewriteMatmulsOptions &options) {
  if constexpr (std::is_invocable_v<decltype(&analyzeMatmul), OpT,
                                    const RewriteMatmulsOptions &>)
    return analyzeMatmul(op, options);
  else
    return analyzeMatmul(cast<linalg::LinalgOp>(op), options);
}

FailureOr<OwningOpRef<ModuleOp>> mxfp8train::buildProbeModule(
    ModuleOp module, StringRef entry, RecipeAttrInterface recipe,
    SmallVectorImpl<MatmulProbe> &probes, std::string &error) {
  OwningOpRef<ModuleOp> probe(module.clone());
  auto func = probe->lookupSymbol<func::FuncOp>(entry);
  if (!func || !llvm::hasSingleElement(func.getBody())) {
    error = ("--per-matmul needs @" + entry +
             " to have a single block (use --per-matmul=false)")
                .str();
    return failure();
  }
  // The probe gets more results; callers of the entry in the module (a
  // test driver's @main) keep calling the original, renamed and private.
  if (!SymbolTable::symbolKnownUseEmpty(func, *probe)) {
    SymbolTable symbols(*probe);
    auto probeFunc = func.clone();
    symbols.remove(func);
    func.setName((entry + "__mxfp8run_original").str());
    symbols.insert(func); // renamed in place, uniqued on a clash
    func.setPrivate();
    StringAttr entryName = StringAttr::get(probe->getContext(), entry);
    if (failed(SymbolTable::replaceAllSymbolUses(entryName, func.getNameAttr(),
                                                 *probe)) ||
        failed(SymbolTable::replaceAllSymbolUses(entryName, func.getNameAttr(),
                                                 probeFunc))) {
      error = "internal: cannot rename the callers' uses of @" + entry.str();
      return failure();
    }
    // In the original's place: the functions keep their order (manifests).
    symbols.insert(probeFunc, func->getIterator());
    func = probeFunc;
  }
  auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
  MLIRContext *ctx = probe->getContext();
  unsigned numResults = func.getNumResults();
  SmallVector<Attribute> resultAttrs;
  for (unsigned i = 0; i < numResults; ++i)
    resultAttrs.push_back(func.getResultAttrDict(i)
                              ? Attribute(func.getResultAttrDict(i))
                              : Attribute(DictionaryAttr::get(ctx)));
  RewriteMatmulsOptions options;
  options.recipe = recipe;
  SmallVector<Operation *> candidates;
  func.walk([&](Operation *op) {
    if (isCandidateMatmul(op))
      candidates.push_back(op);
  });
  IRRewriter rewriter(ctx);
  int64_t numExtra = 0;
  auto extraAttrs = [&](StringRef name, StringRef role) {
    Builder b(ctx);
    return b.getDictionaryAttr(
        {b.getNamedAttr("mxfp8run.name", b.getStringAttr(name)),
         b.getNamedAttr("mxfp8train.role", b.getStringAttr(role))});
  };
  for (auto [i, op] : llvm::enumerate(candidates)) {
    MatmulProbe row;
    row.name = describeLocation(op->getLoc());
    if (row.name.empty())
      row.name = "matmul#" + std::to_string(i);
    row.type = op->getResult(0).getType();
    row.grouped = isa<GroupedMmOp>(op);
    MatmulAnalysis analysis = analyzeCandidate(op, options);
    if (analysis.decision != MatmulDecision::Convert) {
      row.decision = analysis.decision == MatmulDecision::KeepHighPrecision
                         ? "kept in high precision"
                         : "skipped: " + analysis.reason;
      probes.push_back(row);
      continue;
    }
    // Only a matmul of the function's own block can return its result and
    // its converted copy's; one inside a loop or branch is converted with
    // the module but not compared alone.
    if (op->getBlock() != &func.front()) {
      row.role = stringifyMatmulRole(analysis.plan.role).str();
      row.decision = ("converted; not compared alone (inside " +
                      op->getParentOp()->getName().getStringRef() + ")")
                         .str();
      probes.push_back(row);
      continue;
    }
    rewriter.setInsertionPointAfter(op);
    Operation *copy = rewriter.clone(*op);
    // Return both results; the rewrite below replaces the copy's use.
    returnOp->insertOperands(returnOp->getNumOperands(),
                             {op->getResult(0), copy->getResult(0)});
    MatmulAnalysis copyAnalysis = analyzeCandidate(copy, options);
    if (copyAnalysis.decision != MatmulDecision::Convert) {
      error = "internal: the copy of matmul " + row.name +
              " is not convertible (" + copyAnalysis.reason + ")";
      return failure();
    }
    rewriteMatmul(rewriter, copyAnalysis.plan, recipe);
    row.role = stringifyMatmulRole(copyAnalysis.plan.role).str();
    row.decision = "converted";
    row.extraIndex = numExtra;
    numExtra += 2;
    resultAttrs.push_back(extraAttrs(row.name, kProbeHighPrecisionRole));
    resultAttrs.push_back(
        extraAttrs(row.name, (kProbeConvertedRolePrefix + row.role).str()));
    probes.push_back(row);
  }
  func.setType(FunctionType::get(ctx, func.getArgumentTypes(),
                                 returnOp.getOperandTypes()));
  func.setAllResultAttrs(resultAttrs);
  if (failed(verify(*probe))) {
    error = "internal: the per-matmul probe module does not verify";
    return failure();
  }
  return probe;
}
