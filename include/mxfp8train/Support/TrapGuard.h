//===- TrapGuard.h - calls of compiled code that may trap -------*- C++ -*-===//
//
// A compiled function that divides an integer by zero (or INT_MIN by -1)
// raises SIGFPE on x86, which would end the whole process (a tool, or an
// embedder's Python). The runners (mxfp8-run, the C API, Python) and
// mxfp8-launch call compiled code through callCatchingSigfpe, which turns
// such a trap into an error of that call. Standard C++ and POSIX only.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_TRAPGUARD_H
#define MXFP8TRAIN_SUPPORT_TRAPGUARD_H

#include <string>

namespace mlir::mxfp8train {

/// Calls `function(argument)`. Returns 0 when it returns, or the `si_code`
/// of a SIGFPE raised on this thread that ended it (FPE_INTDIV, ...): the
/// call's frames are left by siglongjmp (compiled MLIR code has no
/// destructors to run; what it allocated is not freed). Our SIGFPE handler
/// is installed by the first call and stays; a SIGFPE on another thread or
/// outside such a call goes on to the handler it replaced (re-checked at
/// each call, so one an embedder installs later is honoured). Safe to call
/// from several threads at once.
int callCatchingSigfpe(void (*function)(void *), void *argument);

/// What a SIGFPE of `code` in compiled MLIR code means: "an integer
/// division by zero or ..." naming the arith ops whose undefined behaviour
/// it is.
std::string describeSigfpe(int code);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_TRAPGUARD_H
