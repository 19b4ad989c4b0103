//===- LaunchOptions.cpp - the command line of mxfp8-launch -----*- C++ -*-===//
//
// Parses the options of mxfp8-launch (LaunchOptions.h).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/LaunchOptions.h"

#include <cerrno>
#include <cstdlib>

using namespace mlir::mxfp8train::launch;

namespace mlir::mxfp8train::launch {

const char *const kUsage =
    "usage: mxfp8-launch LIB.so MANIFEST [--entry=NAME] [--device=cpu|cuda]\n"
    "         [--gpu=N] [--seed=N] [--input-std=S] [--input=x.npy ...]\n"
    "         [--output-dir=DIR] [--save-inputs] [--bf16-as=uint16|float32]\n"
    "         [--repeat=N] [--warmup=N] [--fill-results=BYTE]\n"
    "         [--compare-with=[LIB2.so]:NAME2] [--compare-manifest=M2]\n"
    "         [--reference-repeat=N]\n"
    "         [--profile] [--profile-json=FILE] [--profile-top=N]\n"
    "         [--expect-exact] [--list] [--comm=single|ranks:N]\n"
    "Runs _mlir_ciface_NAME of LIB.so (linked from mxfp8-compile objects)\n"
    "on inputs generated as mxfp8-run generates them; see docs/aot.md.\n"
    "--comm=single binds a one-rank communicator (NCCL for CUDA code,\n"
    "in-process for CPU code) for programs with shard collectives or the\n"
    "MoE exchange on a grid of one process; --comm=ranks:N runs such a\n"
    "program on N ranks, one thread (and GPU) each, inputs seeded seed+rank,\n"
    "results in DIR/rank<r>/.\n"
    "--profile (or MXFP8RT_PROFILE=1) adds one call timed kernel by kernel\n"
    "(docs/runtime.md \"Profiling\"); --profile-json writes it as JSON.\n"
    "Exit status: 0 ok, 1 results differ (--expect-exact), 2 usage or\n"
    "input error, 3 the call failed, 77 no usable CUDA GPU.\n";

} // namespace mlir::mxfp8train::launch

/// Parses a decimal unsigned integer (no sign, nothing after it).
static bool parseUnsigned(const std::string &text, uint64_t &value) {
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

LaunchError
mlir::mxfp8train::launch::parseLaunchOptions(int argc, const char *const *argv,
                                             LaunchOptions &options) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      return {};
    }
    if (arg.rfind("--", 0) != 0) {
      positional.push_back(arg);
      continue;
    }
    size_t eq = arg.find('=');
    std::string key = arg.substr(0, eq);
    bool hasValue = eq != std::string::npos;
    std::string value = hasValue ? arg.substr(eq + 1) : "";
    auto needValue = [&]() -> LaunchError {
      if (!hasValue)
        return makeUsageError(key + " needs a value (" + key + "=...)");
      return {};
    };
    auto asCount = [&](int &out, int minimum) -> LaunchError {
      if (LaunchError f = needValue())
        return f;
      uint64_t v;
      if (!parseUnsigned(value, v) || v < uint64_t(minimum) || v > 1000000)
        return makeUsageError("bad " + key + " '" + value + "'");
      out = int(v);
      return {};
    };
    LaunchError f;
    if (key == "--entry") {
      f = needValue();
      options.entry = value;
    } else if (key == "--device") {
      f = needValue();
      if (!f && value != "cpu" && value != "cuda")
        f = makeUsageError("--device must be cpu or cuda, not '" + value + "'");
      options.device = value;
    } else if (key == "--gpu") {
      f = asCount(options.gpu, 0);
    } else if (key == "--seed") {
      f = needValue();
      if (!f && !parseUnsigned(value, options.seed))
        f = makeUsageError("bad --seed '" + value + "'");
    } else if (key == "--input-std") {
      f = needValue();
      char *end = nullptr;
      if (!f)
        options.inputStd = std::strtod(value.c_str(), &end);
      if (!f && (value.empty() || *end))
        f = makeUsageError("bad --input-std '" + value + "'");
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
        f = makeUsageError("--bf16-as must be uint16 or float32, not '" +
                           value + "'");
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
        f = makeUsageError("bad --fill-results '" + value +
                           "' (a byte, 0 to 255)");
    } else if (key == "--compare-with") {
      f = needValue();
      options.compareWith = value;
    } else if (key == "--compare-manifest") {
      f = needValue();
      options.compareManifest = value;
    } else if (key == "--expect-exact" && !hasValue) {
      options.expectExact = true;
    } else if (key == "--comm") {
      f = needValue();
      uint64_t ranks = 0;
      if (!f && value == "single")
        options.singleRankComm = true;
      else if (!f && value.rfind("ranks:", 0) == 0 &&
               parseUnsigned(value.substr(6), ranks) && ranks >= 1 &&
               ranks <= 1024)
        options.commRanks = static_cast<int>(ranks);
      else if (!f)
        f = makeUsageError("bad --comm '" + value +
                           "' (single: a one-rank communicator; ranks:N: N "
                           "ranks, 1 <= N <= 1024)");
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
      f = makeUsageError("unknown option '" + arg + "'\n" + kUsage);
    }
    if (f)
      return f;
  }
  if (positional.size() != 2)
    return makeUsageError("expected LIB.so and MANIFEST, got " +
                          std::to_string(positional.size()) +
                          " positional arguments\n" + kUsage);
  options.library = positional[0];
  options.manifest = positional[1];
  if (options.expectExact && options.compareWith.empty())
    return makeUsageError("--expect-exact needs --compare-with");
  if (!options.compareManifest.empty() && options.compareWith.empty())
    return makeUsageError("--compare-manifest needs --compare-with");
  if (options.commRanks && (!options.compareWith.empty() || options.profile))
    return makeUsageError(
        "--comm=ranks:N runs one function on N ranks: without "
        "--compare-with and --profile");
  return {};
}
