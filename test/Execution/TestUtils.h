//===- TestUtils.h - harness shared by the execution tests ------*- C++ -*-===//
//
// What every execution test file needs: the pipeline switch, one parsing
// context, compiling and running a module with the failures reported to
// GoogleTest, tensor type spelling, and a fixture for suites that share one
// compiled module.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TEST_EXECUTION_TESTUTILS_H
#define MXFP8TRAIN_TEST_EXECUTION_TESTUTILS_H

#include "mxfp8train/ExecutionEngine/CPURunner.h"
#include "mxfp8train/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mxtest {

/// Whether modules are compiled with the vectorizing CPU pipeline (the
/// default). MXFP8TRAIN_TEST_VECTORIZE=0 selects the scalar-loop pipeline,
/// which isolates the lowering from the tiling/vectorization passes.
inline bool vectorizeTests() {
  const char *v = std::getenv("MXFP8TRAIN_TEST_VECTORIZE");
  return !(v && std::strcmp(v, "0") == 0);
}

/// The parsing context shared by all tests (the executables have their own).
inline mlir::MLIRContext &getContext() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::mxfp8train::registerAllDialects(registry);
    auto *ctx = new mlir::MLIRContext(registry);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  return *context;
}

/// Parses `source` and compiles it for the CPU; fails the test (and returns
/// null) on error.
inline std::unique_ptr<mlir::mxfp8train::CPUExecutable>
compileOrFail(const std::string &source) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &getContext());
  if (!module) {
    ADD_FAILURE() << "could not parse the test module:\n" << source;
    return nullptr;
  }
  auto exe =
      mlir::mxfp8train::CPUExecutable::compile(*module, vectorizeTests());
  if (!exe) {
    ADD_FAILURE() << "compile failed: " << llvm::toString(exe.takeError());
    return nullptr;
  }
  return std::move(*exe);
}

/// Runs `name`; fails the test (and returns empty) on error.
inline std::vector<mlir::mxfp8train::HostTensor>
runOrFail(const mlir::mxfp8train::CPUExecutable &exe, const std::string &name,
          llvm::ArrayRef<mlir::mxfp8train::HostTensor> inputs) {
  auto results = exe.run(name, inputs);
  if (!results) {
    ADD_FAILURE() << "run of @" << name
                  << " failed: " << llvm::toString(results.takeError());
    return {};
  }
  return std::move(*results);
}

/// Random bf16 of `shape`, seeded: the top half (truncation) of normal
/// N(0, 1) f32 samples.
inline mlir::mxfp8train::HostTensor randomBF16(llvm::ArrayRef<int64_t> shape,
                                               unsigned seed) {
  mlir::mxfp8train::HostTensor t(mlir::mxfp8train::HostElementType::BF16,
                                 shape);
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (int64_t i = 0; i < t.getNumElements(); ++i) {
    float value = dist(gen);
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    t.data<uint16_t>()[i] = static_cast<uint16_t>(bits >> 16);
  }
  return t;
}

/// `tensor<AxBx...xelem>`.
inline std::string tensorType(llvm::ArrayRef<int64_t> shape,
                              const std::string &elem) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elem + ">";
}

/// A suite whose tests share one executable `exe`, compiled once before the
/// first test from `Derived::getModuleSource()` (null when that failed).
template <typename Derived> class CompiledSuite : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    exe = compileOrFail(Derived::getModuleSource()).release();
  }
  static void TearDownTestSuite() {
    delete exe;
    exe = nullptr;
  }
  static inline mlir::mxfp8train::CPUExecutable *exe = nullptr;
};

} // namespace mxtest

#endif // MXFP8TRAIN_TEST_EXECUTION_TESTUTILS_H
