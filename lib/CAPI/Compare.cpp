//===- Compare.cpp - the converted function against the original from C ---===//
//
// The C face of compareFunction() (Runner/Compare.h).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train-c/Compare.h"

#include "mxfp8train/ExecutionEngine/CUDARunner.h"
#include "mxfp8train/Runner/Compare.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

#include <limits>

using namespace mlir;
using namespace mlir::mxfp8train;

/// The report behind `report`, or an empty one for a null handle (the
/// getters then answer 0, "", NaN or false, as the header says).
static const CompareReport &unwrapReport(MXFP8TrainCompareReport report) {
  static const CompareReport nullReport;
  return report.ptr ? *static_cast<CompareReport *>(report.ptr) : nullReport;
}

MXFP8TrainCompareReport
mxfp8trainCompareFunction(MlirModule module, MlirStringRef function,
                          MlirStringRef recipe,
                          MXFP8TrainCompileOptions options, uint64_t seed,
                          MlirStringCallback onError, void *userData) {
  auto report = [&](llvm::StringRef message) {
    if (onError)
      onError(wrap(message), userData);
    return MXFP8TrainCompareReport{nullptr};
  };
  if (mlirModuleIsNull(module))
    return report("null module");
  CompareOptions compareOptions;
  ExecutableOptions &exe = compareOptions.executable;
  exe.vectorize = options.vectorize;
  switch (options.device) {
  case MXFP8TrainDeviceCPU:
    exe.device = ExecutionDevice::CPU;
    break;
  case MXFP8TrainDeviceCUDA: {
    exe.device = ExecutionDevice::CUDA;
    CUDADeviceInfo info = queryCUDADevice(options.gpu);
    if (!info.available)
      return report("no CUDA GPU: " + info.reason);
    exe.gpu = options.gpu;
    exe.simpleGemm = options.simpleGemm;
    exe.chip = options.chip.length ? unwrap(options.chip).str() : info.chip;
    if (exe.chip.empty())
      return report("the GPU " + info.name + " (compute capability " +
                    std::to_string(info.major) + "." +
                    std::to_string(info.minor) +
                    ") has no mxfp8train target; give a chip");
    break;
  }
  default:
    return report("unknown device " + std::to_string((int)options.device));
  }
  InputOptions inputs;
  inputs.seed = seed;
  llvm::Expected<CompareReport> result = compareFunction(
      unwrap(module), unwrap(function), unwrap(recipe), compareOptions, inputs);
  if (!result)
    return report(llvm::toString(result.takeError()));
  // The tensors are not reachable from C.
  result->originalResults.clear();
  result->convertedResults.clear();
  return {new CompareReport(std::move(*result))};
}

/// Row `pos` of `rows`, or null when out of range (the getters then give
/// "", NaN or false, as the header says).
template <typename Row>
static const Row *getRow(const std::vector<Row> &rows, intptr_t pos) {
  return pos >= 0 && static_cast<size_t>(pos) < rows.size() ? &rows[pos]
                                                            : nullptr;
}

void mxfp8trainCompareReportDestroy(MXFP8TrainCompareReport report) {
  delete static_cast<CompareReport *>(report.ptr);
}

bool mxfp8trainCompareReportPassed(MXFP8TrainCompareReport report) {
  return report.ptr && unwrapReport(report).passed();
}

intptr_t mxfp8trainCompareReportGetNumPassed(MXFP8TrainCompareReport report) {
  return unwrapReport(report).numPassed;
}

intptr_t mxfp8trainCompareReportGetNumFailed(MXFP8TrainCompareReport report) {
  return unwrapReport(report).numFailed;
}

intptr_t mxfp8trainCompareReportGetNumResults(MXFP8TrainCompareReport report) {
  return unwrapReport(report).results.size();
}

MlirStringRef
mxfp8trainCompareReportGetResultName(MXFP8TrainCompareReport report,
                                     intptr_t pos) {
  const ResultComparison *row = getRow(unwrapReport(report).results, pos);
  return wrap(row ? llvm::StringRef(row->name) : llvm::StringRef());
}

double mxfp8trainCompareReportGetResultSqnr(MXFP8TrainCompareReport report,
                                            intptr_t pos) {
  const ResultComparison *row = getRow(unwrapReport(report).results, pos);
  return row ? row->sqnrDb : std::numeric_limits<double>::quiet_NaN();
}

double mxfp8trainCompareReportGetResultBar(MXFP8TrainCompareReport report,
                                           intptr_t pos) {
  const ResultComparison *row = getRow(unwrapReport(report).results, pos);
  if (!row || !row->bar || row->barIsReference)
    return std::numeric_limits<double>::quiet_NaN();
  return *row->bar;
}

bool mxfp8trainCompareReportGetResultPassed(MXFP8TrainCompareReport report,
                                            intptr_t pos) {
  const ResultComparison *row = getRow(unwrapReport(report).results, pos);
  return row && row->passed;
}

intptr_t mxfp8trainCompareReportGetNumMatmuls(MXFP8TrainCompareReport report) {
  return unwrapReport(report).matmuls.size();
}

MlirStringRef
mxfp8trainCompareReportGetMatmulName(MXFP8TrainCompareReport report,
                                     intptr_t pos) {
  const MatmulComparison *row = getRow(unwrapReport(report).matmuls, pos);
  return wrap(row ? llvm::StringRef(row->name) : llvm::StringRef());
}

double mxfp8trainCompareReportGetMatmulSqnr(MXFP8TrainCompareReport report,
                                            intptr_t pos) {
  const MatmulComparison *row = getRow(unwrapReport(report).matmuls, pos);
  return row && row->compared ? row->sqnrDb
                              : std::numeric_limits<double>::quiet_NaN();
}

double mxfp8trainCompareReportGetMatmulBar(MXFP8TrainCompareReport report,
                                           intptr_t pos) {
  const MatmulComparison *row = getRow(unwrapReport(report).matmuls, pos);
  return row && row->compared ? row->bar
                              : std::numeric_limits<double>::quiet_NaN();
}

bool mxfp8trainCompareReportGetMatmulPassed(MXFP8TrainCompareReport report,
                                            intptr_t pos) {
  const MatmulComparison *row = getRow(unwrapReport(report).matmuls, pos);
  return row && row->passed;
}
