//===- LaunchReport.h - what mxfp8-launch prints ----------------*- C++ -*-===//
//
// The text reports of mxfp8-launch (docs/aot.md) as library functions on a
// std::ostream, for the tool and for embedders that want the same output:
// the functions of a manifest, the per-matmul probe table, and the tables
// of a comparison with a reference function (bit-exactness, SQNR, bars).
// Standard C++ only.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_LAUNCHREPORT_H
#define MXFP8TRAIN_LAUNCH_LAUNCHREPORT_H

#include "mxfp8train/Launch/AOTFunction.h"
#include "mxfp8train/Launch/CompareResults.h"
#include "mxfp8train/Support/Manifest.h"

#include <ostream>
#include <vector>

namespace mlir::mxfp8train::launch {

/// Prints each function of `manifest` with its tensor types, or why it
/// cannot be called (--list).
void printFunctions(const Manifest &manifest, std::ostream &os);

/// Prints the per-matmul table of a probe function (mxfp8-compile
/// --per-matmul, getMatmulProbes()) and its bar count; prints nothing for a
/// function without probes. `recipe`: the manifest's, which the bars are
/// torchao's of. Returns how many matmuls miss their bar.
int printMatmulProbes(const FunctionSpec &spec, const std::string &recipe,
                      const std::vector<HostBuffer> &results, std::ostream &os);

/// Prints the table of `comparison` (each result of `spec` against the
/// reference: bit-exact, differing bytes and elements, SQNR, max abs
/// error).
void printComparisonTable(const FunctionSpec &spec,
                          const ResultsComparison &comparison,
                          std::ostream &os);

/// Prints the bars table of a converted step against its high-precision
/// step: per result its SQNR next to `mxfp8run.min_sqnr` (checked), else
/// the bar the manifest records for its role under `recipe` (the
/// manifest's; torchao's bars of the recipe, MX SPEC §8 or Float8
/// SPEC-float8 §7, as mxfp8-run --compare gives them: checked, or shown in
/// parentheses for a result behind several quantized GEMMs). Prints nothing
/// when no result has a bar. Returns how many checked bars are missed.
int printBarsTable(const FunctionSpec &spec, const std::string &recipe,
                   const ResultsComparison &comparison, std::ostream &os);

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_LAUNCHREPORT_H
