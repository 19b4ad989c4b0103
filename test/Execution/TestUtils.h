//===- TestUtils.h - shared switches of the execution tests -----*- C++ -*-===//
//
// Settings shared by the execution test files.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TEST_EXECUTION_TESTUTILS_H
#define MXFP8TRAIN_TEST_EXECUTION_TESTUTILS_H

#include <cstdlib>
#include <cstring>

namespace mxtest {

/// Whether modules are compiled with the vectorizing CPU pipeline (the
/// default). MXFP8TRAIN_TEST_VECTORIZE=0 selects the scalar-loop pipeline,
/// which isolates the lowering from the tiling/vectorization passes.
inline bool vectorizeTests() {
  const char *v = std::getenv("MXFP8TRAIN_TEST_VECTORIZE");
  return !(v && std::strcmp(v, "0") == 0);
}

} // namespace mxtest

#endif // MXFP8TRAIN_TEST_EXECUTION_TESTUTILS_H
