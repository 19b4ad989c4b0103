//===- TrapGuard.cpp - calls of compiled code that may trap -----*- C++ -*-===//
//
// While a thread is in callCatchingSigfpe, a SIGFPE on it jumps back there
// (sigsetjmp / siglongjmp). The handler is installed by the first call and
// stays; any other SIGFPE goes on to the handler it replaced (LLVM's stack
// dump, Python's faulthandler, or the default action). The blocks the call
// allocated through guardedMalloc and did not free are recorded per thread
// and freed after a trap.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/TrapGuard.h"

#include <csetjmp>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <unordered_set>

using namespace mlir::mxfp8train;

namespace {
/// The jump back into callCatchingSigfpe of this thread while it runs the
/// compiled code, and the si_code of the trap that took it.
thread_local sigjmp_buf *activeJump = nullptr;
thread_local int trapCode = 0;

/// The blocks the guarded call running on this thread allocated and has
/// not freed (null outside such a call), and how many trapped calls left.
thread_local std::unordered_set<void *> *liveAllocations = nullptr;
thread_local size_t trapFreedAllocations = 0;

/// The handler installed before ours, which a SIGFPE outside a guarded
/// call goes to.
std::mutex handlerMutex;
struct sigaction previousHandler;

void onSigfpe(int signal, siginfo_t *info, void *context);

/// Passes a SIGFPE that no guarded call raised to the previous handler:
/// its function, or the default action (the process ends as without us),
/// or nothing where it was ignored.
void forwardSigfpe(int signal, siginfo_t *info, void *context) {
  struct sigaction previous = previousHandler;
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction && previous.sa_sigaction != onSigfpe)
      return previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler == SIG_IGN) {
    return;
  } else if (previous.sa_handler != SIG_DFL) {
    return previous.sa_handler(signal);
  }
  struct sigaction fallback = {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(SIGFPE, &fallback, nullptr);
  raise(SIGFPE);
}

void onSigfpe(int signal, siginfo_t *info, void *context) {
  if (sigjmp_buf *jump = activeJump) {
    activeJump = nullptr;
    trapCode = info ? info->si_code : 0;
    siglongjmp(*jump, 1);
  }
  forwardSigfpe(signal, info, context);
}

/// Puts our handler in place unless it is; the one it replaces (LLVM's,
/// the default, one an embedder set since our last call) becomes the one
/// SIGFPEs outside guarded calls go to. Ours stays installed after the
/// call: restoring a saved handler could undo one installed meanwhile.
void installHandler() {
  std::lock_guard<std::mutex> lock(handlerMutex);
  struct sigaction current;
  sigaction(SIGFPE, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == onSigfpe)
    return;
  struct sigaction action = {};
  action.sa_sigaction = onSigfpe;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGFPE, &action, &previousHandler);
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
  std::unordered_set<void *> live;
  std::unordered_set<void *> *outer = liveAllocations;
  liveAllocations = &live;
  bool returned = callWithJump(function, argument);
  liveAllocations = outer;
  if (returned)
    return 0;
  // The trapped frames' intermediates: nothing can reach them any more.
  for (void *pointer : live)
    std::free(pointer);
  trapFreedAllocations += live.size();
  return trapCode ? trapCode : -1;
}

void mlir::mxfp8train::guardedAbort() {
  if (sigjmp_buf *jump = activeJump) {
    activeJump = nullptr;
    trapCode = kAbortedCall;
    siglongjmp(*jump, 1);
  }
  std::abort();
}

void *mlir::mxfp8train::guardedMalloc(size_t size) {
  void *pointer = std::malloc(size);
  if (pointer && liveAllocations)
    liveAllocations->insert(pointer);
  return pointer;
}

void *mlir::mxfp8train::guardedAlignedAlloc(size_t alignment, size_t size) {
  void *pointer = std::aligned_alloc(alignment, size);
  if (pointer && liveAllocations)
    liveAllocations->insert(pointer);
  return pointer;
}

void mlir::mxfp8train::guardedFree(void *pointer) {
  if (pointer && liveAllocations)
    liveAllocations->erase(pointer);
  std::free(pointer);
}

size_t mlir::mxfp8train::getTrapFreedAllocations() {
  return trapFreedAllocations;
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
