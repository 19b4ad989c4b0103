//===- TrapExecutionTest.cpp - SIGFPE in compiled code ----------*- C++ -*-===//
//
// An integer division by zero in a JIT-compiled function (SIGFPE on x86;
// undefined in MLIR's arith) ends that call with an error naming the
// function, not the process; the executable and the process's own SIGFPE
// handler are as before (lib/ExecutionEngine/GuardedCall.cpp).
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

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

HostTensor makeI32(int32_t first, int32_t step) {
  HostTensor t(HostElementType::I32, {16});
  for (int32_t i = 0; i < 16; ++i)
    t.data<int32_t>()[i] = first + step * i;
  return t;
}

/// The handler of SIGFPE now.
void *currentHandler() {
  struct sigaction action;
  sigaction(SIGFPE, nullptr, &action);
  return reinterpret_cast<void *>(action.sa_sigaction);
}

TEST(TrapTest, DivisionByZeroIsAnErrorAndTheExecutableStillRuns) {
  std::unique_ptr<CPUExecutable> exe = mxtest::compileOrFail(kDivide);
  ASSERT_TRUE(exe);
  void *before = currentHandler();
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
  EXPECT_EQ(currentHandler(), before);

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
  EXPECT_EQ(currentHandler(), before);
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
