//===- Execution.cpp - compile and run a module from Python ---------------===//
//
// Binds mxfp8trainRunFunction (lower a clone of the module for the CPU or a
// CUDA GPU, JIT-compile it, call one public function on host buffers) and
// mxfp8trainCUDAIsAvailable. Buffers cross as raw bytes with their element
// kind and shape; the Python layer (mxfp8train/execution.py) maps them to
// numpy and ml_dtypes arrays.
//
//===----------------------------------------------------------------------===//

#include "PyCommon.h"

#include "mxfp8train-c/ExecutionEngine.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace mxfp8train::python;

using ByteArray =
    nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// Calls `function` of `module` on `inputs`, each (kind, shape, bytes).
/// Returns (error, results): error is "" on success, and each result is
/// (kind, shape, bytes).
static nb::tuple runFunction(ModuleHandle &module, const std::string &function,
                             const std::vector<nb::tuple> &inputs, int device,
                             int gpu, const std::string &chip, bool vectorize,
                             bool simpleGemm) {
  std::vector<std::vector<int64_t>> shapes;
  std::vector<ByteArray> datas;
  std::vector<MXFP8TrainHostBuffer> buffers;
  shapes.reserve(inputs.size());
  datas.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const nb::tuple &input = inputs[i];
    int kind = nb::cast<int>(input[0]);
    shapes.push_back(nb::cast<std::vector<int64_t>>(input[1]));
    datas.push_back(nb::cast<ByteArray>(input[2]));
    int64_t count = 1;
    for (int64_t size : shapes.back())
      count *= size;
    int64_t bytes =
        count * mxfp8trainElementKindGetSize(MXFP8TrainElementKind(kind));
    if (bytes != static_cast<int64_t>(datas.back().nbytes()))
      return nb::make_tuple("input " + std::to_string(i) + ": " +
                                std::to_string(datas.back().nbytes()) +
                                " bytes given, " + std::to_string(bytes) +
                                " expected",
                            nb::list());
    buffers.push_back(
        MXFP8TrainHostBuffer{static_cast<MXFP8TrainElementKind>(kind),
                             static_cast<intptr_t>(shapes.back().size()),
                             shapes.back().data(), datas.back().data()});
  }

  MXFP8TrainCompileOptions options =
      makeCompileOptions(device, gpu, chip, vectorize, simpleGemm);

  std::string error;
  MXFP8TrainResults results;
  {
    nb::gil_scoped_release release;
    results = mxfp8trainRunFunction(
        module.get(), &options, toStringRef(function), buffers.data(),
        static_cast<intptr_t>(buffers.size()), appendToString, &error);
  }
  nb::list out;
  if (mxfp8trainResultsIsNull(results))
    return nb::make_tuple(error.empty() ? "run failed" : error, out);
  for (intptr_t i = 0, e = mxfp8trainResultsGetNumResults(results); i < e;
       ++i) {
    MXFP8TrainHostBuffer r = mxfp8trainResultsGetResult(results, i);
    nb::list shape;
    int64_t count = 1;
    for (intptr_t d = 0; d < r.rank; ++d) {
      shape.append(r.shape[d]);
      count *= r.shape[d];
    }
    size_t bytes = count * mxfp8trainElementKindGetSize(r.kind);
    out.append(nb::make_tuple(static_cast<int>(r.kind), shape,
                              nb::bytes(r.data, bytes)));
  }
  mxfp8trainResultsDestroy(results);
  return nb::make_tuple(std::string(), out);
}

void mxfp8train::python::initExecution(nb::module_ &m) {
  m.def("run_function", &runFunction, nb::arg("module"), nb::arg("function"),
        nb::arg("inputs"), nb::arg("device"), nb::arg("gpu"), nb::arg("chip"),
        nb::arg("vectorize"), nb::arg("simple_gemm"),
        "Lowers, JIT-compiles and calls `function`; inputs and results are "
        "(kind, shape, bytes). Returns (error, results).");
  m.def(
      "cuda_available",
      [](int gpu) {
        std::string reason;
        bool ok = mxfp8trainCUDAIsAvailable(gpu, appendToString, &reason);
        return nb::make_tuple(ok, reason);
      },
      nb::arg("gpu") = 0,
      "(True, \"\") when the CUDA driver opens and GPU `gpu` exists, else "
      "(False, why).");
}
