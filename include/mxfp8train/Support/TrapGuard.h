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

#include <cstddef>
#include <string>

namespace mlir::mxfp8train {

/// Calls `function(argument)`. Returns 0 when it returns, or the `si_code`
/// of a SIGFPE raised on this thread that ended it (FPE_INTDIV, ...): the
/// call's frames are left by siglongjmp (compiled MLIR code has no
/// destructors to run), and what the call allocated through guardedMalloc
/// / guardedAlignedAlloc and did not free is freed. Our SIGFPE handler
/// is installed by the first call and stays; a SIGFPE on another thread or
/// outside such a call goes on to the handler it replaced (re-checked at
/// each call, so one an embedder installs later is honoured). Safe to call
/// from several threads at once.
int callCatchingSigfpe(void (*function)(void *), void *argument);

/// What callCatchingSigfpe returns when the call ended in guardedAbort.
inline constexpr int kAbortedCall = -2;

/// abort() for compiled code (the JIT runners bind the module's `abort`,
/// which a failed `cf.assert` calls after printing its message, to it):
/// inside a callCatchingSigfpe on this thread it ends that call, which
/// returns kAbortedCall; elsewhere std::abort().
[[noreturn]] void guardedAbort();

/// malloc / aligned_alloc / free for compiled code (the JIT runners bind the
/// module's `malloc`, `aligned_alloc` and `free` to these): during a
/// callCatchingSigfpe on this thread the blocks are recorded until freed,
/// so that a trapped call's intermediates are released; otherwise plain
/// std::malloc / std::aligned_alloc / std::free.
void *guardedMalloc(size_t size);
void *guardedAlignedAlloc(size_t alignment, size_t size);
void guardedFree(void *pointer);

/// Blocks that trapped calls on this thread left allocated and
/// callCatchingSigfpe freed, since the thread started.
size_t getTrapFreedAllocations();

/// What a SIGFPE of `code` in compiled MLIR code means: "an integer
/// division by zero or ..." naming the arith ops whose undefined behaviour
/// it is.
std::string describeSigfpe(int code);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_TRAPGUARD_H
