//===- mxfp8-launch.cpp - run AOT-compiled functions ------------*- C++ -*-===//
//
// Runs one function of a shared library linked from mxfp8-compile objects,
// on the CPU or on a CUDA GPU, without MLIR or LLVM: the manifest gives the
// tensor-level signature, inputs are generated exactly as mxfp8-run
// generates them (or read from .npy), and the launch library
// (mxfp8train/Launch: AOTFunction.h) calls `_mlir_ciface_<name>` with
// them. Results are written as .npy, timed, and optionally compared with a
// second function run on the same inputs (bit-exact, SQNR, max abs error;
// CompareResults.h). With --profile, one more call runs with the runtime's
// profiler on and its per-kernel report is printed grouped by kernel family
// (ProfileReport.h). This file parses the command line and prints.
//
// See docs/aot.md for the user documentation.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/AOTFunction.h"
#include "mxfp8train/Launch/CompareResults.h"
#include "mxfp8train/Launch/CudaDevice.h"
#include "mxfp8train/Launch/LaunchComm.h"
#include "mxfp8train/Launch/LaunchInputs.h"
#include "mxfp8train/Launch/LaunchOptions.h"
#include "mxfp8train/Launch/LaunchReport.h"
#include "mxfp8train/Launch/ProfileReport.h"
#include "mxfp8train/Launch/SelectFunction.h"
#include "mxfp8train/Support/InputGenerator.h"
#include "mxfp8train/Support/Manifest.h"
#include "mxfp8train/Support/Report.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::launch;
namespace fs = std::filesystem;

namespace {

//===----------------------------------------------------------------------===//
// Exit codes and messages
//===----------------------------------------------------------------------===//

/// Exit statuses (docs/aot.md).
enum ExitCode {
  kExitOk = 0,
  /// --expect-exact and the compared results differ.
  kExitDifferent = 1,
  /// Bad command line, manifest, library, function or input file.
  kExitUsage = 2,
  /// The call failed: a CUDA error, an mgpu* failure inside the function.
  kExitRunFailed = 3,
  /// --device=cuda on a machine without a usable CUDA driver or GPU.
  kExitNoDevice = 77,
};

using Failure = LaunchError;

/// A usage error: a bad command line or input.
Failure usageError(std::string message) {
  return makeUsageError(std::move(message));
}

/// The exit status of `failure`.
int getExitCode(const Failure &failure) {
  switch (failure.kind) {
  case LaunchErrorKind::None:
    return kExitOk;
  case LaunchErrorKind::BadInput:
    return kExitUsage;
  case LaunchErrorKind::RunFailed:
    return kExitRunFailed;
  case LaunchErrorKind::NoDevice:
    return kExitNoDevice;
  }
  return kExitRunFailed;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

/// Prints rows as aligned columns, indented by two spaces.
void printTable(const std::vector<std::vector<std::string>> &rows) {
  std::fputs(formatTable(rows).c_str(), stdout);
}

int fail(const Failure &failure) {
  std::fflush(stdout);
  std::fprintf(stderr, "mxfp8-launch: error: %s\n", failure.message.c_str());
  return getExitCode(failure);
}

/// Prints the profiled call's family and kernel tables and writes
/// --profile-json.
Failure printProfile(const ProfileReport &report, const LaunchOptions &options,
                     const std::string &entry, double medianMs) {
  std::printf("profile: one more call with CUDA events around every launch, "
              "fill and copy (docs/runtime.md \"Profiling\"): %.4g ms "
              "(events around the call; host %.4g ms), %.4g ms of it timed\n",
              report.stepMs, report.hostMs, report.getTimedMs());
  std::printf("profile by family:\n");
  printTable(getFamilyTable(report));
  std::printf(
      "profile by kernel%s:\n",
      options.profileTop
          ? (" (the " + std::to_string(options.profileTop) + " largest)")
                .c_str()
          : "");
  printTable(getKernelTable(report, size_t(options.profileTop)));
  std::printf("profile counters: %s\n", describeCounters(report).c_str());
  if (options.profileJson.empty())
    return {};
  std::FILE *file = std::fopen(options.profileJson.c_str(), "w");
  if (!file)
    return usageError("cannot write '" + options.profileJson +
                      "': " + std::strerror(errno));
  std::string json = toJson(report, entry, options.library, medianMs);
  bool ok = std::fprintf(file, "%s\n", json.c_str()) >= 0;
  ok &= std::fclose(file) == 0;
  if (!ok)
    return usageError("cannot write '" + options.profileJson + "'");
  std::printf("profile: written to %s\n", options.profileJson.c_str());
  return {};
}

/// --comm=ranks:N: the function on N ranks (runOnRanks), each rank's
/// results (and inputs) in DIR/rank<r>/, a table of every rank's results.
int runRanks(const LaunchOptions &options, const FunctionSpec &spec,
             const std::string &device) {
  std::vector<RankOutcome> outcomes;
  // A failed rank ends the run at once: the others may be waiting for it in
  // a collective.
  auto exitOnFailure = [](const LaunchError &error) {
    std::_Exit(fail(error));
  };
  if (Failure f = runOnRanks(options.library, spec, device == "cuda", options,
                             options.commRanks, outcomes, exitOnFailure))
    return fail(f);
  std::vector<std::string> names;
  for (const TensorSpec &result : spec.results)
    names.push_back(result.name);
  std::vector<std::string> stems = getUniqueFileStems(names);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"rank", "#", "name", "type", "L2 norm", "max abs", "file"});
  double slowest = 0.0;
  for (size_t r = 0; r < outcomes.size(); ++r) {
    LaunchOptions own = options;
    if (!options.outputDir.empty())
      own.outputDir =
          (fs::path(options.outputDir) / ("rank" + std::to_string(r))).string();
    if (Failure f = prepareLaunchOutputDir(spec, own, outcomes[r].inputs))
      return fail(f);
    for (size_t i = 0; i < spec.results.size(); ++i) {
      const TensorSpec &result = spec.results[i];
      std::string file = "-";
      if (!own.outputDir.empty()) {
        file = (fs::path(own.outputDir) / (stems[i] + ".npy")).string();
        if (Failure f =
                writeTensorNpy(file, result, outcomes[r].results[i].data(),
                               options.bf16AsFloat32))
          return fail(f);
      }
      ValueSummary values =
          summarizeValues(result, outcomes[r].results[i].data());
      rows.push_back({std::to_string(r), std::to_string(i), result.name,
                      result.formatType(), formatDouble("%.6g", values.l2Norm),
                      formatDouble("%.6g", values.maxAbs), file});
    }
    slowest = std::max(slowest, outcomes[r].medianMs);
  }
  std::printf("outputs (%d ranks, inputs seeded %llu + rank):\n",
              options.commRanks, static_cast<unsigned long long>(options.seed));
  printTable(rows);
  for (size_t r = 0; r < outcomes.size(); ++r)
    std::printf("time: rank %zu: run %s over %d run(s) after %d warmup\n", r,
                outcomes[r].times.c_str(), options.repeat, options.warmup);
  std::printf("summary: entry=%s device=%s ranks=%d results=%zu time_ms=%.6g\n",
              spec.name.c_str(), device.c_str(), options.commRanks,
              spec.results.size(), slowest);
  return kExitOk;
}

int runMain(const LaunchOptions &options) {
  Manifest manifest;
  std::string error;
  if (!readManifestFile(options.manifest, manifest, error))
    return fail(usageError(error));
  if (options.list) {
    printFunctions(manifest, std::cout);
    return kExitOk;
  }

  const FunctionSpec *spec = nullptr;
  if (Failure f =
          selectFunction(manifest, options.manifest, options.entry, spec))
    return fail(f);
  std::string device =
      options.device.empty() ? manifest.device : options.device;
  if (device != manifest.device)
    return fail(usageError("'" + options.manifest +
                           "' describes code compiled for " +
                           (manifest.device.empty() ? "?" : manifest.device) +
                           ", not for --device=" + device));
  if (options.profile && device != "cuda" && !options.profileFromEnvironment)
    return fail(usageError("--profile times GPU kernels: '" + options.manifest +
                           "' is " + device + " code"));

  // The function to compare with, and its manifest.
  Manifest compareManifest;
  const FunctionSpec *compareSpec = nullptr;
  std::string compareLibrary;
  if (!options.compareWith.empty()) {
    size_t colon = options.compareWith.rfind(':');
    if (colon == std::string::npos || colon + 1 == options.compareWith.size())
      return fail(usageError("--compare-with needs [LIB2.so]:NAME2, got '" +
                             options.compareWith + "'"));
    compareLibrary = options.compareWith.substr(0, colon);
    if (compareLibrary.empty())
      compareLibrary = options.library;
    std::string name = options.compareWith.substr(colon + 1);
    if (options.compareManifest.empty()) {
      compareManifest = manifest;
    } else if (!readManifestFile(options.compareManifest, compareManifest,
                                 error)) {
      return fail(usageError(error));
    }
    const std::string &path = options.compareManifest.empty()
                                  ? options.manifest
                                  : options.compareManifest;
    if (Failure f = selectFunction(compareManifest, path, name, compareSpec))
      return fail(f);
    if (Failure f = checkSameSignature(*spec, *compareSpec))
      return fail(f);
  }

  std::printf("mxfp8-launch: @%s from %s\n", spec->name.c_str(),
              options.library.c_str());
  std::printf("device: %s\n", device.c_str());
  bool anyCuda =
      device == "cuda" || (compareSpec && compareManifest.device == "cuda");
  if (anyCuda) {
    CudaDeviceInfo gpu;
    if (Failure f = initializeCudaDevice(options.gpu, gpu))
      return fail(f);
    std::printf("gpu: %d %s (sm_%d%d)\n", gpu.index, gpu.name.c_str(),
                gpu.major, gpu.minor);
    if (device == "cuda")
      if (Failure f = checkChipRuns(manifest.chip, gpu.major, gpu.minor,
                                    options.library))
        return fail(f);
    if (compareSpec && compareManifest.device == "cuda")
      if (Failure f = checkChipRuns(compareManifest.chip, gpu.major, gpu.minor,
                                    compareLibrary))
        return fail(f);
  }

  // A program with shard collectives or the MoE exchange calls the
  // runtime's shard ABI on the thread's bound communicator; without one
  // its cf.assert aborts the call.
  if (!options.commRanks && !options.singleRankComm)
    for (const Manifest *m :
         {&manifest, compareSpec ? &compareManifest : nullptr})
      if (m)
        for (const std::string &symbol : m->externs)
          if (symbol.rfind("mxfp8rtShard", 0) == 0)
            return fail(usageError(
                "the library calls the runtime's collectives (" + symbol +
                "): give --comm=single (a grid of one process) or "
                "--comm=ranks:N"));

  // The communicator a --comm binds must have the size of the program's
  // grids: the collectives' cf.assert would abort the call otherwise.
  if (options.commRanks || options.singleRankComm) {
    int64_t bound = options.commRanks ? int64_t(options.commRanks) : 1;
    bool collectives = std::any_of(
        manifest.externs.begin(), manifest.externs.end(),
        [](const std::string &s) { return s.rfind("mxfp8rtShard", 0) == 0; });
    for (const GridSpec &grid : spec->grids)
      if (collectives && grid.size != bound)
        return fail(usageError(
            "the program's grid @" + grid.name + " has " +
            std::to_string(grid.size) +
            (grid.size == 1 ? " process" : " processes") + ", but --comm=" +
            (options.commRanks ? "ranks:" + std::to_string(bound)
                               : std::string("single")) +
            " binds a communicator of " + std::to_string(bound) + ": give " +
            (grid.size == 1 ? std::string("--comm=single")
                            : "--comm=ranks:" + std::to_string(grid.size))));
  }

  if (options.commRanks)
    return runRanks(options, *spec, device);

  // Inputs and the output directory.
  std::vector<std::vector<uint8_t>> inputs;
  if (Failure f = prepareLaunchInputs(*spec, options, inputs, std::cout))
    return fail(f);
  if (Failure f = prepareLaunchOutputDir(*spec, options, inputs))
    return fail(f);

  // Load, run, fetch.
  SingleRankComm comm;
  if (options.singleRankComm)
    if (Failure f = comm.bind(device == "cuda"))
      return fail(f);
  AOTFunction runner(options.library, *spec, device == "cuda",
                     options.fillResults);
  if (Failure f = runner.load(nullptr))
    return fail(f);
  if (Failure f = runner.prepare(inputs))
    return fail(f);
  if (Failure f = runner.run(options.warmup, options.repeat))
    return fail(f);
  ProfileReport profile;
  bool profiling = options.profile && device == "cuda";
  if (profiling)
    if (Failure f = runner.runProfiled(profile))
      return fail(f);
  std::vector<HostBuffer> results;
  if (Failure f = runner.fetchResults(results))
    return fail(f);

  std::vector<std::string> names;
  for (const TensorSpec &result : spec->results)
    names.push_back(result.name);
  std::vector<std::string> stems = getUniqueFileStems(names);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"#", "name", "role", "type", "L2 norm", "max abs", "file"});
  for (size_t i = 0; i < spec->results.size(); ++i) {
    const TensorSpec &result = spec->results[i];
    std::string file = "-";
    if (!options.outputDir.empty()) {
      file = (fs::path(options.outputDir) / (stems[i] + ".npy")).string();
      if (Failure f = writeTensorNpy(file, result, results[i].data(),
                                     options.bf16AsFloat32))
        return fail(f);
    }
    ValueSummary values = summarizeValues(result, results[i].data());
    rows.push_back({std::to_string(i), result.name,
                    result.role.empty() ? "-" : result.role,
                    result.formatType(), formatDouble("%.6g", values.l2Norm),
                    formatDouble("%.6g", values.maxAbs), file});
  }
  std::printf("outputs:\n");
  printTable(rows);
  std::printf("time: load %.3f s; run %s over %d run(s) after %d warmup\n",
              runner.getLoadSeconds(), runner.describeTimes().c_str(),
              options.repeat, options.warmup);
  if (profiling)
    if (Failure f =
            printProfile(profile, options, spec->name, runner.getMedianMs()))
      return fail(f);
  int matmulsFailed =
      printMatmulProbes(*spec, manifest.recipe, results, std::cout);

  if (!compareSpec && matmulsFailed) {
    std::fflush(stdout);
    std::fprintf(stderr, "mxfp8-launch: %d matmul(s) below their SQNR bar\n",
                 matmulsFailed);
    return kExitDifferent;
  }
  if (!compareSpec) {
    std::printf("summary: entry=%s device=%s results=%zu time_ms=%.6g\n",
                spec->name.c_str(), device.c_str(), spec->results.size(),
                runner.getMedianMs());
    return kExitOk;
  }

  // The reference: the same inputs through the other function.
  bool compareCuda = compareManifest.device == "cuda";
  if (options.singleRankComm)
    if (Failure f = comm.bind(compareCuda))
      return fail(f);
  AOTFunction reference(compareLibrary, *compareSpec, compareCuda,
                        options.fillResults);
  bool sameLibrary = compareLibrary == options.library;
  if (Failure f = reference.load(sameLibrary ? runner.getHandle() : nullptr))
    return fail(f);
  if (Failure f = reference.prepare(inputs))
    return fail(f);
  if (Failure f = reference.run(/*warmup=*/0, options.referenceRepeat))
    return fail(f);
  std::vector<HostBuffer> referenceResults;
  if (Failure f = reference.fetchResults(referenceResults))
    return fail(f);

  std::printf("compare with @%s from %s (%s) as the reference:\n",
              compareSpec->name.c_str(), compareLibrary.c_str(),
              compareCuda ? "cuda" : "cpu");
  for (size_t i = 0; i < spec->results.size() && !options.outputDir.empty();
       ++i) {
    std::string file =
        (fs::path(options.outputDir) / (stems[i] + ".compare.npy")).string();
    if (Failure f =
            writeTensorNpy(file, spec->results[i], referenceResults[i].data(),
                           options.bf16AsFloat32))
      return fail(f);
  }
  ResultsComparison comparison =
      compareResults(*spec, referenceResults, results);
  size_t numDifferent = comparison.numDifferent;
  printComparisonTable(*spec, comparison, std::cout);
  std::printf("time (reference): load %.3f s; run %s\n",
              reference.getLoadSeconds(), reference.describeTimes().c_str());
  std::printf("bit-exact: %zu of %zu results\n",
              spec->results.size() - numDifferent, spec->results.size());
  // One line for scripts (bench/device/run-aot-checks.sh).
  std::printf("summary: entry=%s device=%s results=%zu exact=%zu "
              "min_sqnr_db=%s max_abs_err=%.3e time_ms=%.6g "
              "reference_device=%s reference_time_ms=%.6g\n",
              spec->name.c_str(), device.c_str(), spec->results.size(),
              spec->results.size() - numDifferent,
              formatDb(comparison.minSqnrDb).c_str(), comparison.maxAbsError,
              runner.getMedianMs(), compareCuda ? "cuda" : "cpu",
              reference.getMedianMs());
  // A converted training step against its high-precision step: the SQNR
  // of each result next to its bar (the manifest's, of its recipe).
  int barsFailed =
      printBarsTable(*spec, manifest.recipe, comparison, std::cout);
  double referenceMs = reference.getMedianMs();
  std::printf("timing: @%s (%s) %.6g ms, reference @%s (%s) %.6g ms, "
              "ratio %.3f (medians of %d and %d calls)\n",
              spec->name.c_str(), device.c_str(), runner.getMedianMs(),
              compareSpec->name.c_str(), compareCuda ? "cuda" : "cpu",
              referenceMs,
              referenceMs > 0 ? runner.getMedianMs() / referenceMs : 0.0,
              options.repeat, options.referenceRepeat);
  std::fflush(stdout);
  if (barsFailed) {
    std::fprintf(stderr, "mxfp8-launch: %d result(s) below their SQNR bar\n",
                 barsFailed);
    return kExitDifferent;
  }
  if (numDifferent && options.expectExact) {
    std::fprintf(stderr,
                 "mxfp8-launch: %zu result(s) differ from the reference\n",
                 numDifferent);
    return kExitDifferent;
  }
  return kExitOk;
}

} // namespace

int main(int argc, char **argv) {
  // Keep stdout and the runtime's stderr messages in order in logs.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  LaunchOptions options;
  if (Failure f = parseLaunchOptions(argc, argv, options))
    return fail(f);
  if (options.help) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  // MXFP8RT_PROFILE asks for the profiled call; taken out of the
  // environment before the runtime reads it, so that the timed calls are
  // not profiled and the runtime prints no second report at exit.
  const char *profileEnv = std::getenv("MXFP8RT_PROFILE");
  if (profileEnv && *profileEnv && std::string(profileEnv) != "0") {
    options.profileFromEnvironment = !options.profile;
    options.profile = true;
    unsetenv("MXFP8RT_PROFILE");
  }
  int code = runMain(options);
  std::fflush(stdout);
  return code;
}
