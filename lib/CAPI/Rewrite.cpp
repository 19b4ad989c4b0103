//===- Rewrite.cpp - convert a training graph to MXFP8 from C -------------===//
//
// mxfp8trainConvertModule: what mxfp8train-rewrite-matmuls runs
// (runRewriteMatmuls of Transforms.h: the rewrite, the folded truncations and
// the recorded recipe), with one structured report entry per matmul
// recorded through rewriteMatmuls' observer rather than parsed from
// remarks.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train-c/Rewrite.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <deque>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::mxfp8train;

static_assert(MXFP8TrainMatmulRoleForward == (int)MatmulRole::Forward &&
                  MXFP8TrainMatmulRoleDgrad == (int)MatmulRole::Dgrad &&
                  MXFP8TrainMatmulRoleWgrad == (int)MatmulRole::Wgrad,
              "C matmul roles must match MatmulRole");

namespace {
/// One matmul, with the strings the C entry points to.
struct ReportEntry {
  std::string name, opName, reason;
  Location loc;
  MXFP8TrainMatmulDecision decision;
  MXFP8TrainMatmulRole role;
  int64_t batch = 0, m = 0, n = 0, k = 0;
};

/// The storage behind MXFP8TrainConversionReport.
struct ConversionReport {
  std::deque<ReportEntry> entries;
  bool failed = false;
};
} // namespace

static ConversionReport *unwrapReport(MXFP8TrainConversionReport report) {
  return static_cast<ConversionReport *>(report.ptr);
}

/// The report behind `report`, or a failed empty one for a null handle (the
/// getters then answer failure, 0 and empty entries, as the header says).
static const ConversionReport &getReport(MXFP8TrainConversionReport report) {
  static const ConversionReport nullReport = [] {
    ConversionReport failed;
    failed.failed = true;
    return failed;
  }();
  return report.ptr ? *unwrapReport(report) : nullReport;
}

static MXFP8TrainConversionReport wrapReport(ConversionReport *report) {
  return {report};
}

/// The name of the first NameLoc nested in `loc`, or "".
static std::string getLocationName(Location loc) {
  std::string name;
  loc->walk([&](Location nested) {
    if (auto named = dyn_cast<NameLoc>(nested)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

/// Converts the candidate matmuls of `module` as the pass does
/// (runRewriteMatmuls) and records each one.
static void convert(ModuleOp module, const RewriteMatmulsOptions &options,
                    bool emitRemarks, ConversionReport &report) {
  auto record = [&](Operation *op, const MatmulAnalysis &analysis) {
    ReportEntry entry{getLocationName(op->getLoc()),
                      op->getName().getStringRef().str(),
                      analysis.reason,
                      op->getLoc(),
                      MXFP8TrainMatmulSkipped,
                      MXFP8TrainMatmulRoleNone};
    const MatmulPlan &plan = analysis.plan;
    switch (analysis.decision) {
    case MatmulDecision::Invalid:
      entry.decision = MXFP8TrainMatmulInvalid;
      break;
    case MatmulDecision::Skip:
      break;
    case MatmulDecision::KeepHighPrecision:
      // A kept matmul's plan has its role; a converted one's is complete.
      entry.decision = MXFP8TrainMatmulKeptHighPrecision;
      entry.role = (MXFP8TrainMatmulRole)plan.role;
      break;
    case MatmulDecision::Convert:
      entry.decision = MXFP8TrainMatmulConverted;
      entry.role = (MXFP8TrainMatmulRole)plan.role;
      entry.reason = describeConversion(plan, options.recipe);
      entry.batch = plan.batch;
      entry.m = plan.m;
      entry.n = plan.n;
      entry.k = plan.k;
      break;
    }
    report.entries.push_back(std::move(entry));
  };
  RewriteMatmulsStats stats;
  if (failed(runRewriteMatmuls(module, options, emitRemarks, stats, record)))
    report.failed = true;
}

MXFP8TrainConvertOptions mxfp8trainConvertOptionsGetDefault(void) {
  MXFP8TrainConvertOptions options;
  options.recipe = {nullptr};
  options.minSize = 0;
  options.exclude = nullptr;
  options.numExclude = 0;
  options.emitRemarks = false;
  return options;
}

MXFP8TrainConversionReport
mxfp8trainConvertModule(MlirModule module,
                        const MXFP8TrainConvertOptions *options) {
  auto *report = new ConversionReport();
  if (mlirModuleIsNull(module)) {
    report->failed = true;
    return wrapReport(report);
  }
  ModuleOp moduleOp = unwrap(module);
  MLIRContext *context = moduleOp.getContext();
  context->getOrLoadDialect<MXFP8TrainDialect>();
  MXFP8TrainConvertOptions given =
      options ? *options : mxfp8trainConvertOptionsGetDefault();
  RewriteMatmulsOptions rewriteOptions;
  if (!mlirAttributeIsNull(given.recipe)) {
    rewriteOptions.recipe = dyn_cast<RecipeAttrInterface>(unwrap(given.recipe));
    if (!rewriteOptions.recipe) {
      emitError(moduleOp.getLoc())
          << "mxfp8train: expected a #mxfp8train.recipe or "
             "#mxfp8train.float8_recipe attribute, found "
          << unwrap(given.recipe);
      report->failed = true;
      return wrapReport(report);
    }
  }
  rewriteOptions.minSize = given.minSize;
  if (given.numExclude < 0 || (given.numExclude > 0 && !given.exclude)) {
    emitError(moduleOp.getLoc())
        << "mxfp8train: invalid exclude list (numExclude = " << given.numExclude
        << ", exclude = " << (given.exclude ? "non-null" : "null") << ")";
    report->failed = true;
    return wrapReport(report);
  }
  for (intptr_t i = 0; i < given.numExclude; ++i)
    rewriteOptions.exclude.push_back(unwrap(given.exclude[i]).str());
  convert(moduleOp, rewriteOptions, given.emitRemarks, *report);
  return wrapReport(report);
}

MXFP8TrainConversionReport
mxfp8trainConvertModuleWithRecipe(MlirModule module, MlirStringRef recipe) {
  if (mlirModuleIsNull(module))
    return mxfp8trainConvertModule(module, nullptr);
  ModuleOp moduleOp = unwrap(module);
  std::string error;
  RecipeAttrInterface parsed =
      parseTrainingRecipeOption(moduleOp.getContext(), unwrap(recipe), error);
  if (!parsed) {
    emitError(moduleOp.getLoc())
        << "mxfp8train: invalid recipe '" << unwrap(recipe) << "': " << error;
    auto *report = new ConversionReport();
    report->failed = true;
    return wrapReport(report);
  }
  MXFP8TrainConvertOptions options = mxfp8trainConvertOptionsGetDefault();
  options.recipe = wrap(Attribute(parsed));
  return mxfp8trainConvertModule(module, &options);
}

MlirLogicalResult
mxfp8trainConversionReportGetStatus(MXFP8TrainConversionReport report) {
  return getReport(report).failed ? mlirLogicalResultFailure()
                                  : mlirLogicalResultSuccess();
}

intptr_t
mxfp8trainConversionReportGetNumEntries(MXFP8TrainConversionReport report) {
  return getReport(report).entries.size();
}

MXFP8TrainMatmulReport
mxfp8trainConversionReportGetEntry(MXFP8TrainConversionReport report,
                                   intptr_t pos) {
  const std::deque<ReportEntry> &entries = getReport(report).entries;
  MXFP8TrainMatmulReport result = {};
  if (pos < 0 || static_cast<size_t>(pos) >= entries.size())
    return result;
  const ReportEntry &entry = entries[pos];
  result.name = wrap(StringRef(entry.name));
  result.location = wrap(entry.loc);
  result.opName = wrap(StringRef(entry.opName));
  result.decision = entry.decision;
  result.role = entry.role;
  result.reason = wrap(StringRef(entry.reason));
  result.batch = entry.batch;
  result.m = entry.m;
  result.n = entry.n;
  result.k = entry.k;
  return result;
}

intptr_t mxfp8trainConversionReportCount(MXFP8TrainConversionReport report,
                                         MXFP8TrainMatmulDecision decision) {
  intptr_t count = 0;
  for (const ReportEntry &entry : getReport(report).entries)
    count += entry.decision == decision;
  return count;
}

void mxfp8trainConversionReportDestroy(MXFP8TrainConversionReport report) {
  delete unwrapReport(report);
}

MlirStringRef mxfp8trainMatmulRoleGetName(MXFP8TrainMatmulRole role) {
  switch (role) {
  case MXFP8TrainMatmulRoleForward:
  case MXFP8TrainMatmulRoleDgrad:
  case MXFP8TrainMatmulRoleWgrad:
    return wrap(stringifyMatmulRole((MatmulRole)role));
  default:
    return wrap(StringRef());
  }
}
