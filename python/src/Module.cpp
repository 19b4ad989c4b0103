//===- Module.cpp - the mxfp8train._mxfp8train extension --------*- C++ -*-===//
//
// The nanobind module: one init function per concept (IR.cpp, Rewrite.cpp,
// Execution.cpp, Compare.cpp). The public API is the pure-Python package
// mxfp8train/.
//
//===----------------------------------------------------------------------===//

#include "PyCommon.h"

namespace nb = nanobind;

NB_MODULE(_mxfp8train, m) {
  m.doc() = "Private extension of mxfp8train over libMXFP8Train-C.so; use "
            "the mxfp8train package instead.";
  mxfp8train::python::initIR(m);
  mxfp8train::python::initRewrite(m);
  mxfp8train::python::initExecution(m);
  mxfp8train::python::initCompare(m);
}
