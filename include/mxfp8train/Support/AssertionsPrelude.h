//===- AssertionsPrelude.h - assertions against a release LLVM --*- C++ -*-===//
//
// Force-included (`-include`) before every C++ source when
// MXFP8TRAIN_ENABLE_ASSERTIONS builds our code without NDEBUG against the
// installed release LLVM and MLIR. One LLVM 22 header picks a class layout
// from NDEBUG: llvm/ADT/Statistic.h makes `llvm::Statistic` a
// TrackingStatistic without NDEBUG and a NoopStatistic with it, and
// `mlir::Pass::Statistic` (a member of every pass with statistics) derives
// from it and is constructed inside libMLIR. Seen without NDEBUG, our pass
// objects would carry fields the library never initializes (UBSan: "load of
// value 190, which is not a valid value for type bool" in
// RewriteMatmulsPass). So Statistic.h is included here once with NDEBUG, as
// the library was built, and its include guard keeps that definition for
// the rest of the translation unit; everything else sees assertions on.
// docs/robustness.md lists how the other NDEBUG blocks of the headers were
// checked.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_ASSERTIONSPRELUDE_H
#define MXFP8TRAIN_SUPPORT_ASSERTIONSPRELUDE_H

#ifdef NDEBUG
#error "AssertionsPrelude.h is for builds without NDEBUG"
#endif

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

#define NDEBUG
#include "llvm/ADT/Statistic.h"
#undef NDEBUG

// <cassert> follows NDEBUG at each inclusion: assert is on again.
#include <cassert>

static_assert(!LLVM_ENABLE_STATS || LLVM_FORCE_ENABLE_STATS,
              "llvm::Statistic must have the release library's layout");

#endif // MXFP8TRAIN_SUPPORT_ASSERTIONSPRELUDE_H
