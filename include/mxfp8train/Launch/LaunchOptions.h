//===- LaunchOptions.h - the command line of mxfp8-launch -------*- C++ -*-===//
//
// The options of mxfp8-launch (docs/aot.md) as a struct and their parser,
// for the tool and for embedders that take the same command line (a test
// driver, a benchmark harness). Standard C++ only.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_LAUNCHOPTIONS_H
#define MXFP8TRAIN_LAUNCH_LAUNCHOPTIONS_H

#include "mxfp8train/Launch/LaunchError.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::mxfp8train::launch {

/// What the command line of mxfp8-launch asks for.
struct LaunchOptions {
  /// --help: print kUsage and exit with status 0 (nothing else is checked).
  bool help = false;
  std::string library, manifest, entry, device, outputDir;
  std::string compareWith, compareManifest;
  std::vector<std::string> inputs;
  uint64_t seed = 0;
  double inputStd = 1.0;
  bool saveInputs = false, bf16AsFloat32 = false, expectExact = false;
  bool list = false;
  int repeat = 1, warmup = 0, gpu = 0;
  /// --comm=single: bind a one-rank communicator to the thread for each
  /// function's calls; --comm=ranks:N: run the function on N ranks, one
  /// thread each (LaunchComm.h). 0: neither.
  bool singleRankComm = false;
  int commRanks = 0;
  /// Timed calls of the --compare-with function (no warmup).
  int referenceRepeat = 1;
  /// Byte the result buffers are filled with before the first call.
  int fillResults = 0;
  /// One profiled call after the timed ones (--profile, --profile-json or
  /// MXFP8RT_PROFILE), its JSON report, and how many kernels the table
  /// shows (0: all).
  bool profile = false, profileFromEnvironment = false;
  std::string profileJson;
  int profileTop = 0;
};

/// The usage text of mxfp8-launch (--help).
extern const char *const kUsage;

/// A BadInput failure saying `message` (a bad command line or input).
inline LaunchError makeUsageError(std::string message) {
  return makeLaunchError(LaunchErrorKind::BadInput, std::move(message));
}

/// Parses `argv[1..argc)` into `options` (defaults kept for what is not
/// given). Stops at `-h`/`--help` with `options.help` set. A bad option, a
/// missing value or positional argument, or an inconsistent combination is
/// a BadInput failure whose message says which.
LaunchError parseLaunchOptions(int argc, const char *const *argv,
                               LaunchOptions &options);

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_LAUNCHOPTIONS_H
