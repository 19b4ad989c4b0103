//===- TrapGuard.cpp - calls of compiled code that may trap -----*- C++ -*-===//
//
// While a thread is in callCatchingSigfpe, a SIGFPE on it jumps back there
// (sigsetjmp / siglongjmp); the handler is installed while any such call
// is in flight and the previous one (LLVM's stack dump, or the default)
// restored after the last.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/TrapGuard.h"

#include <csetjmp>
#include <csignal>
#include <mutex>

using namespace mlir::mxfp8train;

namespace {
/// The jump back into callCatchingSigfpe of this thread while it runs the
/// compiled code, and the si_code of the trap that took it.
thread_local sigjmp_buf *activeJump = nullptr;
thread_local int trapCode = 0;

/// Calls in flight (all threads) and the handler before the first of them.
std::mutex handlerMutex;
int callsInFlight = 0;
struct sigaction previousHandler;

void onSigfpe(int, siginfo_t *info, void *) {
  if (sigjmp_buf *jump = activeJump) {
    activeJump = nullptr;
    trapCode = info ? info->si_code : 0;
    siglongjmp(*jump, 1);
  }
  // Not a guarded call: put the previous handler back; returning re-runs
  // the trapping instruction, which raises SIGFPE to it.
  sigaction(SIGFPE, &previousHandler, nullptr);
}

void installHandler() {
  std::lock_guard<std::mutex> lock(handlerMutex);
  if (callsInFlight++ > 0)
    return;
  struct sigaction action = {};
  action.sa_sigaction = onSigfpe;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGFPE, &action, &previousHandler);
}

void restoreHandler() {
  std::lock_guard<std::mutex> lock(handlerMutex);
  if (--callsInFlight == 0)
    sigaction(SIGFPE, &previousHandler, nullptr);
}

/// Calls `function(argument)`; false when a SIGFPE ended it. No object with
/// a destructor lives in this frame across the call.
bool callWithJump(void (*function)(void *), void *argument) {
  sigjmp_buf jump;
  if (sigsetjmp(jump, /*savemask=*/1) != 0)
    return false;
  activeJump = &jump;
  function(argument);
  activeJump = nullptr;
  return true;
}
} // namespace

int mlir::mxfp8train::callCatchingSigfpe(void (*function)(void *),
                                         void *argument) {
  installHandler();
  bool returned = callWithJump(function, argument);
  restoreHandler();
  if (returned)
    return 0;
  return trapCode ? trapCode : -1;
}

std::string mlir::mxfp8train::describeSigfpe(int code) {
  std::string cause =
      code == FPE_INTOVF   ? "a signed integer division overflow (INT_MIN / -1)"
      : code == FPE_INTDIV ? "an integer division by zero or a signed "
                             "division overflow (INT_MIN / -1)"
                           : "an arithmetic trap";
  return cause + " in arith.divsi, divui, remsi, remui, ceildivsi or "
                 "floordivsi (undefined behaviour in MLIR's arith)";
}
