//===- TrapExecutionTest.cpp - SIGFPE in compiled code ----------*- C++ -*-===//
//
// An integer division by zero in a JIT-compiled function (SIGFPE on x86;
// undefined in MLIR's arith) ends that call with an error naming the
// function, not the process; the executable still runs, and a SIGFPE
// outside a call reaches the handler the process had, also one installed
// after the first call, and what the trapped call allocated is freed
// (lib/Support/TrapGuard.cpp).
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "mxfp8train/Support/TrapGuard.h"

#include <csignal>
#include <thread>

using namespace mlir::mxfp8train;

namespace {
const char *kDivide = R"mlir(
func.func @divide(%a: tensor<16xi32>, %b: tensor<16xi32>) -> tensor<16xi32> {
  %r = arith.divsi %a, %b : tensor<16xi32>
  return %r : tensor<16xi32>
}
)mlir";

// Two intermediates on the heap (the transposes' buffers, 1 MiB each)
// before the division that traps.
const char *kDivideTransposed = R"mlir(
func.func @divide_transposed(%a: tensor<512x512xi32>, %b: tensor<512x512xi32>) -> tensor<512x512xi32> {
  %e = tensor.empty() : tensor<512x512xi32>
  %at = linalg.transpose ins(%a : tensor<512x512xi32>) outs(%e : tensor<512x512xi32>) permutation = [1, 0]
  %bt = linalg.transpose ins(%b : tensor<512x512xi32>) outs(%e : tensor<512x512xi32>) permutation = [1, 0]
  %s = arith.addi %at, %at : tensor<512x512xi32>
  %r = arith.divsi %s, %bt : tensor<512x512xi32>
  return %r : tensor<512x512xi32>
}
)mlir";

// A cf.assert on the first element.
const char *kAssertPositive = R"mlir(
func.func @assert_positive(%a: tensor<16xi32>) -> tensor<16xi32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %x = tensor.extract %a[%c0] : tensor<16xi32>
  %ok = arith.cmpi sgt, %x, %zero : i32
  cf.assert %ok, "the first element must be positive"
  %r = arith.addi %a, %a : tensor<16xi32>
  return %r : tensor<16xi32>
}
)mlir";

HostTensor makeI32(int32_t first, int32_t step) {
  HostTensor t(HostElementType::I32, {16});
  for (int32_t i = 0; i < 16; ++i)
    t.data<int32_t>()[i] = first + step * i;
  return t;
}

/// SIGFPEs the test's own handler received.
volatile sig_atomic_t ownHandlerCalls = 0;
void ownHandler(int, siginfo_t *, void *) {
  ownHandlerCalls = ownHandlerCalls + 1;
}

/// Installs ownHandler as the process's SIGFPE handler.
void installOwnHandler() {
  struct sigaction action = {};
  action.sa_sigaction = ownHandler;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGFPE, &action, nullptr);
}

TEST(TrapTest, DivisionByZeroIsAnErrorAndTheExecutableStillRuns) {
  std::unique_ptr<CPUExecutable> exe = mxtest::compileOrFail(kDivide);
  ASSERT_TRUE(exe);
  HostTensor a = makeI32(-40, 7);
  // Every other divisor is zero.
  HostTensor zeros = makeI32(0, 0);
  for (int32_t i = 1; i < 16; i += 2)
    zeros.data<int32_t>()[i] = 3;
  auto trapped = exe->run("divide", {a, zeros});
  ASSERT_FALSE(trapped);
  std::string message = llvm::toString(trapped.takeError());
  EXPECT_NE(message.find("'divide' trapped on the CPU (SIGFPE)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("division by zero"), std::string::npos) << message;

  // The same executable, then on another thread, with divisors 1..16.
  HostTensor b = makeI32(1, 1);
  auto check = [&](const std::vector<HostTensor> &results) {
    ASSERT_EQ(results.size(), 1u);
    for (int32_t i = 0; i < 16; ++i)
      EXPECT_EQ(results[0].data<int32_t>()[i], (-40 + 7 * i) / (1 + i)) << i;
  };
  check(mxtest::runOrFail(*exe, "divide", {a, b}));
  std::thread other([&] { check(mxtest::runOrFail(*exe, "divide", {a, b})); });
  other.join();
}

TEST(TrapTest, WhatATrappedCallAllocatedIsFreed) {
  std::unique_ptr<CPUExecutable> exe = mxtest::compileOrFail(kDivideTransposed);
  ASSERT_TRUE(exe);
  HostTensor a(HostElementType::I32, {512, 512});
  HostTensor b(HostElementType::I32, {512, 512});
  for (int64_t i = 0; i < 512 * 512; ++i) {
    a.data<int32_t>()[i] = int32_t(i % 1000) - 500;
    b.data<int32_t>()[i] = int32_t(i % 7) + 1;
  }
  // A call that returns leaves nothing to free.
  size_t before = getTrapFreedAllocations();
  std::vector<HostTensor> results =
      mxtest::runOrFail(*exe, "divide_transposed", {a, b});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].data<int32_t>()[1],
            2 * a.data<int32_t>()[512] / b.data<int32_t>()[512]);
  EXPECT_EQ(getTrapFreedAllocations(), before);
  // One zero divisor: each trapped call's heap intermediates are freed
  // (until session 34 they stayed allocated, 1 MiB or more per call).
  b.data<int32_t>()[512 * 300 + 17] = 0;
  for (int call = 1; call <= 3; ++call) {
    auto trapped = exe->run("divide_transposed", {a, b});
    ASSERT_FALSE(trapped);
    llvm::consumeError(trapped.takeError());
    EXPECT_GE(getTrapFreedAllocations(), before + call) << call;
  }
  size_t afterTraps = getTrapFreedAllocations();
  EXPECT_LE(afterTraps, before + 3 * 4);
  // The executable still runs, and frees nothing more.
  b.data<int32_t>()[512 * 300 + 17] = 1;
  mxtest::runOrFail(*exe, "divide_transposed", {a, b});
  EXPECT_EQ(getTrapFreedAllocations(), afterTraps);
}

TEST(TrapTest, AFailedAssertionIsAnErrorOfTheCall) {
  std::unique_ptr<CPUExecutable> exe = mxtest::compileOrFail(kAssertPositive);
  ASSERT_TRUE(exe);
  // Until session 34 the failed cf.assert's abort() ended the process.
  auto failed = exe->run("assert_positive", {makeI32(-3, 1)});
  ASSERT_FALSE(failed);
  std::string message = llvm::toString(failed.takeError());
  EXPECT_NE(message.find("'assert_positive' failed an assertion on the CPU"),
            std::string::npos)
      << message;
  std::vector<HostTensor> results =
      mxtest::runOrFail(*exe, "assert_positive", {makeI32(5, 2)});
  ASSERT_EQ(results.size(), 1u);
  for (int32_t i = 0; i < 16; ++i)
    EXPECT_EQ(results[0].data<int32_t>()[i], 2 * (5 + 2 * i)) << i;
}

TEST(TrapTest, OtherSigfpesReachTheProcessHandler) {
  std::unique_ptr<CPUExecutable> exe = mxtest::compileOrFail(kDivide);
  ASSERT_TRUE(exe);
  struct sigaction saved;
  sigaction(SIGFPE, nullptr, &saved);
  // A handler installed before a call, and one installed between calls
  // (Python's faulthandler.enable() after the first run): each gets the
  // SIGFPE raised outside a call; the calls still turn theirs into errors.
  HostTensor a = makeI32(1, 1);
  HostTensor zeros = makeI32(0, 0);
  for (int round = 0; round < 2; ++round) {
    installOwnHandler();
    ownHandlerCalls = 0;
    EXPECT_EQ(mxtest::runOrFail(*exe, "divide", {a, a}).size(), 1u);
    auto trapped = exe->run("divide", {a, zeros});
    ASSERT_FALSE(trapped);
    llvm::consumeError(trapped.takeError());
    EXPECT_EQ(ownHandlerCalls, 0) << round;
    raise(SIGFPE);
    EXPECT_EQ(ownHandlerCalls, 1) << round;
  }
  sigaction(SIGFPE, &saved, nullptr);
}

TEST(TrapTest, SignedDivisionOverflowIsAnError) {
  std::unique_ptr<CPUExecutable> exe = mxtest::compileOrFail(kDivide);
  ASSERT_TRUE(exe);
  HostTensor a = makeI32(INT32_MIN, 0);
  HostTensor b = makeI32(-1, 0);
  auto trapped = exe->run("divide", {a, b});
  ASSERT_FALSE(trapped);
  std::string message = llvm::toString(trapped.takeError());
  EXPECT_NE(message.find("SIGFPE"), std::string::npos) << message;
}
} // namespace
