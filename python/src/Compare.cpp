//===- Compare.cpp - the converted function against the original ----------===//
//
// Binds mxfp8trainCompareFunction (mxfp8-run --compare from C: SQNR per
// result and per matmul against the bars of SPEC §8). No compare logic lives
// in Python.
//
//===----------------------------------------------------------------------===//

#include "PyCommon.h"

#include "mxfp8train-c/Compare.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;
using namespace mxfp8train::python;

/// Compares `function` of `module` with its conversion by `recipe`. Returns
/// (error, passed, results, matmuls); each row is (name, sqnr, bar, passed)
/// with NaN for a missing SQNR or bar. error is "" on success.
static nb::tuple compareFunction(ModuleHandle &module,
                                 const std::string &function,
                                 const std::string &recipe, int device, int gpu,
                                 const std::string &chip, bool vectorize,
                                 bool simpleGemm, uint64_t seed) {
  MXFP8TrainCompileOptions options =
      makeCompileOptions(device, gpu, chip, vectorize, simpleGemm);
  std::string error;
  MXFP8TrainCompareReport report;
  {
    nb::gil_scoped_release release;
    report = mxfp8trainCompareFunction(module.get(), toStringRef(function),
                                       toStringRef(recipe), options, seed,
                                       appendToString, &error);
  }
  nb::list results, matmuls;
  if (mxfp8trainCompareReportIsNull(report))
    return nb::make_tuple(error.empty() ? "compare failed" : error, false,
                          results, matmuls);
  for (intptr_t i = 0, e = mxfp8trainCompareReportGetNumResults(report); i < e;
       ++i)
    results.append(nb::make_tuple(
        toString(mxfp8trainCompareReportGetResultName(report, i)),
        mxfp8trainCompareReportGetResultSqnr(report, i),
        mxfp8trainCompareReportGetResultBar(report, i),
        mxfp8trainCompareReportGetResultPassed(report, i)));
  for (intptr_t i = 0, e = mxfp8trainCompareReportGetNumMatmuls(report); i < e;
       ++i)
    matmuls.append(nb::make_tuple(
        toString(mxfp8trainCompareReportGetMatmulName(report, i)),
        mxfp8trainCompareReportGetMatmulSqnr(report, i),
        mxfp8trainCompareReportGetMatmulBar(report, i),
        mxfp8trainCompareReportGetMatmulPassed(report, i)));
  bool passed = mxfp8trainCompareReportPassed(report);
  mxfp8trainCompareReportDestroy(report);
  return nb::make_tuple(std::string(), passed, results, matmuls);
}

void mxfp8train::python::initCompare(nb::module_ &m) {
  m.def("compare_function", &compareFunction, nb::arg("module"),
        nb::arg("function"), nb::arg("recipe"), nb::arg("device"),
        nb::arg("gpu"), nb::arg("chip"), nb::arg("vectorize"),
        nb::arg("simple_gemm"), nb::arg("seed"),
        "mxfp8trainCompareFunction; returns (error, passed, results, "
        "matmuls) with rows (name, sqnr, bar, passed).");
}
