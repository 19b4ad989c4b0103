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
#include "mxfp8train/Launch/ProfileReport.h"
#include "mxfp8train/Launch/SelectFunction.h"
#include "mxfp8train/Support/InputGenerator.h"
#include "mxfp8train/Support/Manifest.h"
#include "mxfp8train/Support/Report.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::launch;

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
  return makeLaunchError(LaunchErrorKind::BadInput, std::move(message));
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
// Command line
//===----------------------------------------------------------------------===//

struct Options {
  std::string library, manifest, entry, device, outputDir;
  std::string compareWith, compareManifest;
  std::vector<std::string> inputs;
  uint64_t seed = 0;
  double inputStd = 1.0;
  bool saveInputs = false, bf16AsFloat32 = false, expectExact = false;
  bool list = false;
  int repeat = 1, warmup = 0, gpu = 0;
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

const char *const kUsage =
    "usage: mxfp8-launch LIB.so MANIFEST [--entry=NAME] [--device=cpu|cuda]\n"
    "         [--gpu=N] [--seed=N] [--input-std=S] [--input=x.npy ...]\n"
    "         [--output-dir=DIR] [--save-inputs] [--bf16-as=uint16|float32]\n"
    "         [--repeat=N] [--warmup=N] [--fill-results=BYTE]\n"
    "         [--compare-with=[LIB2.so]:NAME2] [--compare-manifest=M2]\n"
    "         [--reference-repeat=N]\n"
    "         [--profile] [--profile-json=FILE] [--profile-top=N]\n"
    "         [--expect-exact] [--list]\n"
    "Runs _mlir_ciface_NAME of LIB.so (linked from mxfp8-compile objects)\n"
    "on inputs generated as mxfp8-run generates them; see docs/aot.md.\n"
    "--profile (or MXFP8RT_PROFILE=1) adds one call timed kernel by kernel\n"
    "(docs/runtime.md \"Profiling\"); --profile-json writes it as JSON.\n"
    "Exit status: 0 ok, 1 results differ (--expect-exact), 2 usage or\n"
    "input error, 3 the call failed, 77 no usable CUDA GPU.\n";

bool parseUnsigned(const std::string &text, uint64_t &value) {
  if (text.empty() || text[0] == '-')
    return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno || *end)
    return false;
  value = v;
  return true;
}

Failure parseOptions(int argc, char **argv, Options &options) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(kExitOk);
    }
    if (arg.rfind("--", 0) != 0) {
      positional.push_back(arg);
      continue;
    }
    size_t eq = arg.find('=');
    std::string key = arg.substr(0, eq);
    bool hasValue = eq != std::string::npos;
    std::string value = hasValue ? arg.substr(eq + 1) : "";
    auto needValue = [&]() -> Failure {
      if (!hasValue)
        return usageError(key + " needs a value (" + key + "=...)");
      return {};
    };
    auto asCount = [&](int &out, int minimum) -> Failure {
      if (Failure f = needValue())
        return f;
      uint64_t v;
      if (!parseUnsigned(value, v) || v < uint64_t(minimum) || v > 1000000)
        return usageError("bad " + key + " '" + value + "'");
      out = int(v);
      return {};
    };
    Failure f;
    if (key == "--entry") {
      f = needValue();
      options.entry = value;
    } else if (key == "--device") {
      f = needValue();
      if (!f && value != "cpu" && value != "cuda")
        f = usageError("--device must be cpu or cuda, not '" + value + "'");
      options.device = value;
    } else if (key == "--gpu") {
      f = asCount(options.gpu, 0);
    } else if (key == "--seed") {
      f = needValue();
      if (!f && !parseUnsigned(value, options.seed))
        f = usageError("bad --seed '" + value + "'");
    } else if (key == "--input-std") {
      f = needValue();
      char *end = nullptr;
      if (!f)
        options.inputStd = std::strtod(value.c_str(), &end);
      if (!f && (value.empty() || *end))
        f = usageError("bad --input-std '" + value + "'");
    } else if (key == "--input") {
      f = needValue();
      options.inputs.push_back(value);
    } else if (key == "--output-dir") {
      f = needValue();
      options.outputDir = value;
    } else if (key == "--save-inputs" && !hasValue) {
      options.saveInputs = true;
    } else if (key == "--bf16-as") {
      f = needValue();
      if (!f && value != "uint16" && value != "float32")
        f = usageError("--bf16-as must be uint16 or float32, not '" + value +
                       "'");
      options.bf16AsFloat32 = value == "float32";
    } else if (key == "--repeat") {
      f = asCount(options.repeat, 1);
    } else if (key == "--warmup") {
      f = asCount(options.warmup, 0);
    } else if (key == "--reference-repeat") {
      f = asCount(options.referenceRepeat, 1);
    } else if (key == "--fill-results") {
      f = asCount(options.fillResults, 0);
      if (!f && options.fillResults > 255)
        f = usageError("bad --fill-results '" + value + "' (a byte, 0 to 255)");
    } else if (key == "--compare-with") {
      f = needValue();
      options.compareWith = value;
    } else if (key == "--compare-manifest") {
      f = needValue();
      options.compareManifest = value;
    } else if (key == "--expect-exact" && !hasValue) {
      options.expectExact = true;
    } else if (key == "--list" && !hasValue) {
      options.list = true;
    } else if (key == "--profile" && !hasValue) {
      options.profile = true;
    } else if (key == "--profile-json") {
      f = needValue();
      options.profileJson = value;
      options.profile = true;
    } else if (key == "--profile-top") {
      f = asCount(options.profileTop, 0);
    } else {
      f = usageError("unknown option '" + arg + "'\n" + kUsage);
    }
    if (f)
      return f;
  }
  if (positional.size() != 2)
    return usageError("expected LIB.so and MANIFEST, got " +
                      std::to_string(positional.size()) +
                      " positional arguments\n" + kUsage);
  options.library = positional[0];
  options.manifest = positional[1];
  if (options.expectExact && options.compareWith.empty())
    return usageError("--expect-exact needs --compare-with");
  if (!options.compareManifest.empty() && options.compareWith.empty())
    return usageError("--compare-manifest needs --compare-with");
  return {};
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Prints rows as aligned columns, indented by two spaces.
void printTable(const std::vector<std::vector<std::string>> &rows) {
  std::fputs(formatTable(rows).c_str(), stdout);
}

/// Prints the per-matmul table of a probe function (mxfp8-compile
/// --per-matmul, CompareResults.h) and returns how many miss their bar.
int printMatmulProbes(const FunctionSpec &spec,
                      const std::vector<HostBuffer> &results) {
  std::vector<MatmulProbe> probes = getMatmulProbes(spec, results);
  if (probes.empty())
    return 0;
  std::vector<std::vector<std::string>> rows;
  rows.push_back(
      {"matmul", "role", "type", "SQNR dB", "max abs err", "bar dB", "result"});
  int failed = 0;
  for (const MatmulProbe &probe : probes) {
    const TensorSpec &hp = spec.results[probe.index];
    failed += !probe.passes;
    rows.push_back({hp.name, probe.role, hp.formatType(),
                    formatDb(probe.comparison.stats.sqnrDb),
                    formatDouble("%.3e", probe.comparison.stats.maxAbsError),
                    ">= " + formatDouble("%.2f", probe.barDb),
                    probe.passes ? "PASS" : "FAIL"});
  }
  std::printf("matmuls (each converted alone on the step's high-precision "
              "inputs, torchao's per-linear bars):\n");
  printTable(rows);
  std::printf("matmul bars: %zu passed, %d failed\n", probes.size() - failed,
              failed);
  return failed;
}

/// Prints the functions of `manifest` with their tensor types (--list).
void printFunctions(const Manifest &manifest) {
  for (const FunctionSpec &func : manifest.functions) {
    std::printf("@%s", func.name.c_str());
    if (!func.unsupported.empty()) {
      std::printf("  (cannot be called: %s)\n", func.unsupported.c_str());
      continue;
    }
    std::printf("(");
    for (size_t i = 0; i < func.args.size(); ++i)
      std::printf("%s%s: %s", i ? ", " : "", func.args[i].name.c_str(),
                  func.args[i].formatType().c_str());
    std::printf(") -> (");
    for (size_t i = 0; i < func.results.size(); ++i)
      std::printf("%s%s: %s", i ? ", " : "", func.results[i].name.c_str(),
                  func.results[i].formatType().c_str());
    std::printf(")\n");
  }
}

int fail(const Failure &failure) {
  std::fflush(stdout);
  std::fprintf(stderr, "mxfp8-launch: error: %s\n", failure.message.c_str());
  return getExitCode(failure);
}

/// Prints the profiled call's family and kernel tables and writes
/// --profile-json.
Failure printProfile(const ProfileReport &report, const Options &options,
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

int runMain(const Options &options) {
  Manifest manifest;
  std::string error;
  if (!readManifestFile(options.manifest, manifest, error))
    return fail(usageError(error));
  if (options.list) {
    printFunctions(manifest);
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

  // Inputs.
  if (!options.inputs.empty() && options.inputs.size() != spec->args.size())
    return fail(usageError("got " + std::to_string(options.inputs.size()) +
                           " --input files but @" + spec->name + " has " +
                           std::to_string(spec->args.size()) + " arguments"));
  std::vector<std::vector<uint8_t>> inputs(spec->args.size());
  Clock::time_point start = Clock::now();
  std::printf("inputs:\n");
  for (size_t i = 0; i < spec->args.size(); ++i) {
    const TensorSpec &arg = spec->args[i];
    std::string description;
    bool ok;
    if (!options.inputs.empty()) {
      ok = readInput(arg, unsigned(i), options.inputs[i], inputs[i], error);
      description = options.inputs[i];
    } else {
      ok = generateInput(arg, unsigned(i), options.seed, options.inputStd,
                         inputs[i], description, error);
    }
    if (!ok)
      return fail(usageError(error));
    std::printf("  #%zu %s : %s  %s\n", i, arg.name.c_str(),
                arg.formatType().c_str(), description.c_str());
  }
  if (options.inputs.empty())
    std::printf("  (generated with seed %llu in %.2f s)\n",
                static_cast<unsigned long long>(options.seed),
                secondsSince(start));
  else
    std::printf("  (read in %.2f s)\n", secondsSince(start));

  // Output directory.
  namespace fs = std::filesystem;
  if (!options.outputDir.empty()) {
    std::error_code ec;
    fs::create_directories(options.outputDir, ec);
    if (ec || !fs::is_directory(options.outputDir))
      return fail(usageError("cannot create '" + options.outputDir +
                             "': " + (ec ? ec.message() : "not a directory")));
    if (options.saveInputs) {
      fs::path dir = fs::path(options.outputDir) / "inputs";
      fs::create_directories(dir, ec);
      if (ec)
        return fail(usageError("cannot create '" + dir.string() +
                               "': " + ec.message()));
      for (size_t i = 0; i < spec->args.size(); ++i) {
        fs::path path = dir / (std::to_string(i) + "_" +
                               sanitizeFileName(spec->args[i].name) + ".npy");
        if (Failure f = writeTensorNpy(path.string(), spec->args[i],
                                       inputs[i].data(), options.bf16AsFloat32))
          return fail(f);
      }
    }
  } else if (options.saveInputs) {
    return fail(usageError("--save-inputs needs --output-dir"));
  }

  // Load, run, fetch.
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
  int matmulsFailed = printMatmulProbes(*spec, results);

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
  rows.clear();
  rows.push_back({"#", "name", "type", "bit-exact", "differing bytes",
                  "differing elements", "SQNR dB", "max abs err"});
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
  for (size_t i = 0; i < spec->results.size(); ++i) {
    const TensorSpec &result = spec->results[i];
    const TensorComparison &c = comparison.results[i];
    rows.push_back(
        {std::to_string(i), result.name, result.formatType(),
         c.isBitExact() ? "yes" : "no", std::to_string(c.differingBytes),
         std::to_string(c.differingElements), formatDb(c.stats.sqnrDb),
         formatDouble("%.3e", c.stats.maxAbsError)});
  }
  printTable(rows);
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
  // of each result next to its bar (mxfp8run.min_sqnr, checked), or the
  // torchao per-linear bar of its role (SPEC §8), which holds for one
  // quantized GEMM and is only shown for results behind several (as
  // mxfp8-run --compare does; its per-matmul table is not available here).
  bool anyBar = false;
  for (const TensorSpec &result : spec->results)
    anyBar |= result.hasMinSqnr || isStepRole(result.role);
  int barsFailed = 0;
  if (anyBar) {
    rows.clear();
    rows.push_back({"#", "name", "role", "SQNR dB", "bar dB", "result"});
    for (size_t i = 0; i < spec->results.size(); ++i) {
      const TensorSpec &result = spec->results[i];
      double sqnr = comparison.results[i].stats.sqnrDb;
      std::string bar = "-", verdict = "-";
      if (result.hasMinSqnr) {
        bool pass = sqnr >= result.minSqnr;
        barsFailed += !pass;
        bar = ">= " + formatDouble("%.2f", result.minSqnr);
        verdict = pass ? "PASS" : "FAIL";
      } else if (isStepRole(result.role)) {
        double roleBar = getPerLinearBarDb(result.role);
        bar = "(" + formatDouble("%.2f", roleBar) + ")";
        verdict = sqnr >= roleBar ? "(above)" : "(below)";
      }
      rows.push_back({std::to_string(i), result.name,
                      result.role.empty() ? "-" : result.role, formatDb(sqnr),
                      bar, verdict});
    }
    std::printf("bars (SPEC §8; in parentheses: torchao's per-linear bar of "
                "the role, not checked for a whole step):\n");
    printTable(rows);
  }
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
  Options options;
  if (Failure f = parseOptions(argc, argv, options))
    return fail(f);
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
