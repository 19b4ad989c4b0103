//===- Report.h - what mxfp8-run prints -------------------------*- C++ -*-===//
//
// The text reports of mxfp8-run (docs/mxfp8-run.md) as library functions,
// for the tool and for embedders that want the same output: the inputs, the
// outputs with their norms, what the conversion did, and the compare mode's
// result and per-matmul tables with its times.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_REPORT_H
#define MXFP8TRAIN_RUNNER_REPORT_H

#include "mxfp8train/Runner/Compare.h"
#include "mxfp8train/Runner/Conversion.h"
#include "mxfp8train/Runner/Inputs.h"
#include "mxfp8train/Runner/Signature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::mxfp8train {

/// Prints one line per input of `sig` (`#i name : type  description`) and
/// where they came from (generated with `options.seed`, or read), with the
/// time taken.
void printInputs(llvm::raw_ostream &os, const Signature &sig,
                 const PreparedInputs &inputs, const InputOptions &options);

/// Prints the `outputs:` table: per result of `sig`, its role, type, L2
/// norm, max abs value and `files[i]` (where it was written, or "-").
void printOutputs(llvm::raw_ostream &os, const Signature &sig,
                  llvm::ArrayRef<HostTensor> outputs,
                  llvm::ArrayRef<std::string> files);

/// Prints what the conversion did: its pipeline, the matmuls before and
/// after by role, and (with `showRemarks`) the rewrite's remarks.
void printConversionSummary(llvm::raw_ostream &os,
                            const ConversionSummary &summary, bool showRemarks);

/// Prints the compare mode's result table (with its note on reference
/// bars), the per-matmul table (per-matmul mode) and the compile and run
/// times, without a final newline (the caller appends the total).
void printCompareReport(llvm::raw_ostream &os, const CompareReport &report);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_RUNNER_REPORT_H
