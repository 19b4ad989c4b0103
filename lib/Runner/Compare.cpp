//===- Compare.cpp - the converted module against the original ------------===//
//
// With per-matmul comparison the original module runs as the probe module
// (Tools/MatmulProbes.h), which computes the original results followed by a
// high-precision and a converted result per converted matmul.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Runner/Compare.h"
#include "mxfp8train/Runner/Bars.h"
#include "mxfp8train/Runner/Run.h"
#include "mxfp8train/Tools/MatmulProbes.h"

#include <atomic>
#include <chrono>
#include <thread>

using namespace mlir;
using namespace mlir::mxfp8train;

using Clock = std::chrono::steady_clock;

/// Seconds since `start`.
static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

ErrorStats mlir::mxfp8train::compareTensors(const HostTensor &ref,
                                            const HostTensor &out) {
  constexpr int64_t kChunk = int64_t(1) << 20;
  int64_t n = ref.getNumElements();
  int64_t numChunks = std::max<int64_t>(1, (n + kChunk - 1) / kChunk);
  std::vector<ErrorAccumulator> partial(numChunks);
  std::atomic<int64_t> next{0};
  auto worker = [&] {
    for (int64_t c = next++; c < numChunks; c = next++) {
      int64_t end = std::min(n, (c + 1) * kChunk);
      for (int64_t i = c * kChunk; i < end; ++i)
        partial[c].add(ref.getAsDouble(i), out.getAsDouble(i));
    }
  };
  unsigned numThreads = unsigned(std::min<int64_t>(
      numChunks, std::max(1u, std::thread::hardware_concurrency())));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < numThreads; ++t)
    threads.emplace_back(worker);
  worker();
  for (std::thread &t : threads)
    t.join();
  ErrorAccumulator total;
  for (const ErrorAccumulator &acc : partial)
    total.merge(acc);
  return total.get();
}

/// The SQNR bar of result `i`, if any: `mxfp8run.min_sqnr`, else torchao's
/// bar of its role for `recipe` and the GEMM kinds it depends on (Bars.h),
/// which applies when the result depends on at most one quantized GEMM; a
/// result behind a chain of them accumulates their errors, and its role bar
/// is only shown (`reference` is set) while the per-matmul comparison
/// carries the check.
static std::optional<double> getBar(const Signature &sig, unsigned i,
                                    RecipeAttrInterface recipe,
                                    const ResultGemms &gemms, bool &reference) {
  reference = false;
  if (sig.resultMinSqnr[i])
    return sig.resultMinSqnr[i];
  std::optional<RoleBar> bar = getRoleBar(recipe, sig.resultRoles[i], gemms);
  if (!bar)
    return std::nullopt;
  reference = bar->reference;
  return bar->db;
}

/// Prefixes the error of a failed compilation of the `what` module.
static llvm::Error cannotCompile(llvm::Error err, StringRef what,
                                 ExecutionDevice device) {
  return llvm::createStringError(
      "cannot compile the " + what + " module" +
      (device == ExecutionDevice::CUDA ? " for the GPU" : "") + ": " +
      llvm::toString(std::move(err)));
}

llvm::Expected<CompareReport> mlir::mxfp8train::compareModules(
    ModuleOp module, ModuleOp converted, const Signature &sig,
    RecipeAttrInterface recipe, ArrayRef<HostTensor> inputs,
    const CompareOptions &options) {
  StringRef name = sig.func.getSymName();
  auto convertedFunc = converted.lookupSymbol<func::FuncOp>(name);
  if (!convertedFunc ||
      convertedFunc.getFunctionType() != sig.func.getFunctionType())
    return llvm::createStringError("the conversion removed @" + name +
                                   " or changed its signature");
  CompareReport report;
  report.perMatmul = options.perMatmul;

  SmallVector<MatmulProbe> probes;
  OwningOpRef<ModuleOp> probeModule;
  if (options.perMatmul) {
    std::string probeError;
    FailureOr<OwningOpRef<ModuleOp>> built =
        buildProbeModule(module, name, recipe, probes, probeError);
    if (failed(built))
      return llvm::createStringError(probeError);
    probeModule = std::move(*built);
  }
  size_t numExtra = 0;
  for (const MatmulProbe &probe : probes)
    if (probe.extraIndex >= 0)
      numExtra += 2;

  // Each CPUExecutable lowers in a private context, so the two modules can
  // be compiled at the same time (the shared modules are only read). One
  // GPU: compile (its kernels are loaded on this thread) and run one module
  // after the other.
  const ExecutableOptions &exeOptions = options.executable;
  report.concurrently =
      options.parallel && exeOptions.device == ExecutionDevice::CPU;
  ModuleOp originalToCompile = probeModule ? *probeModule : module;
  llvm::Expected<std::unique_ptr<Executable>> exeOriginal = nullptr;
  llvm::Expected<std::unique_ptr<Executable>> exeConverted = nullptr;
  auto compileOriginal = [&] {
    exeOriginal = compileEntry(originalToCompile, name, exeOptions,
                               report.compileOriginalSeconds);
  };
  auto compileConverted = [&] {
    exeConverted = compileEntry(converted, name, exeOptions,
                                report.compileConvertedSeconds);
  };
  Clock::time_point compileStart = Clock::now();
  if (report.concurrently) {
    std::thread other(compileConverted);
    compileOriginal();
    other.join();
  } else {
    compileOriginal();
    compileConverted();
  }
  report.compileWallSeconds = secondsSince(compileStart);
  if (!exeOriginal) {
    if (!exeConverted)
      llvm::consumeError(exeConverted.takeError());
    // With --per-matmul, the original module holds the probes: each
    // matmul converted alone, which fail where the conversion does.
    return cannotCompile(exeOriginal.takeError(),
                         probeModule ? "original (with the per-matmul probes, "
                                       "each matmul converted alone)"
                                     : "original",
                         exeOptions.device);
  }
  if (!exeConverted)
    return cannotCompile(exeConverted.takeError(), "converted",
                         exeOptions.device);

  RunResult original, mx;
  Clock::time_point runStart = Clock::now();
  if (report.concurrently) {
    std::thread other([&] { runTimed(**exeConverted, name, inputs, mx); });
    runTimed(**exeOriginal, name, inputs, original);
    other.join();
  } else {
    runTimed(**exeOriginal, name, inputs, original);
    runTimed(**exeConverted, name, inputs, mx);
  }
  report.runWallSeconds = secondsSince(runStart);
  report.runOriginalSeconds = original.seconds;
  report.runConvertedSeconds = mx.seconds;
  report.gpuOriginalSeconds = original.deviceSeconds;
  report.gpuConvertedSeconds = mx.deviceSeconds;
  if (llvm::Error err = checkOutputs(sig, original, "original", numExtra)) {
    if (!mx.outputs)
      llvm::consumeError(mx.outputs.takeError());
    return std::move(err);
  }
  if (llvm::Error err = checkOutputs(sig, mx, "converted"))
    return std::move(err);

  SmallVector<ResultGemms> gemms = getQuantizedGemmsPerResult(convertedFunc);
  for (unsigned i = 0, e = sig.resultTypes.size(); i < e; ++i) {
    ResultComparison row;
    row.name = sig.resultNames[i];
    row.role = sig.resultRoles[i];
    row.type = formatTensorType(sig.resultTypes[i]);
    ResultGemms resultGemms = i < gemms.size() ? gemms[i] : ResultGemms();
    row.numGemms = resultGemms.count;
    ErrorStats stats = compareTensors((*original.outputs)[i], (*mx.outputs)[i]);
    row.sqnrDb = stats.sqnrDb;
    row.maxAbsError = stats.maxAbsError;
    row.bothAllZero = stats.bothAllZero();
    row.bar = getBar(sig, i, recipe, resultGemms, row.barIsReference);
    if (row.bar && row.barIsReference) {
      ++report.numReference;
    } else if (row.bar) {
      row.passed = stats.sqnrDb >= *row.bar;
      (row.passed ? report.numPassed : report.numFailed)++;
    }
    report.results.push_back(std::move(row));
  }

  ArrayRef<HostTensor> extra = ArrayRef<HostTensor>(*original.outputs)
                                   .drop_front(sig.resultTypes.size());
  for (const MatmulProbe &probe : probes) {
    MatmulComparison row;
    row.name = probe.name;
    row.role = probe.role;
    row.type = formatTensorType(probe.type);
    row.decision = probe.decision;
    if (probe.extraIndex >= 0) {
      ErrorStats stats =
          compareTensors(extra[probe.extraIndex], extra[probe.extraIndex + 1]);
      row.compared = true;
      row.bothAllZero = stats.bothAllZero();
      row.sqnrDb = stats.sqnrDb;
      row.maxAbsError = stats.maxAbsError;
      row.bar = getMatmulBar(recipe, probe.role, probe.grouped);
      row.passed = stats.sqnrDb >= row.bar;
      (row.passed ? report.numPassed : report.numFailed)++;
    }
    report.matmuls.push_back(std::move(row));
  }

  report.originalResults.assign(
      std::make_move_iterator(original.outputs->begin()),
      std::make_move_iterator(original.outputs->begin() +
                              sig.resultTypes.size()));
  report.convertedResults = std::move(*mx.outputs);
  return report;
}

llvm::Expected<CompareReport> mlir::mxfp8train::compareFunction(
    ModuleOp module, StringRef function, StringRef recipeText,
    const CompareOptions &options, const InputOptions &inputOptions) {
  llvm::Expected<Signature> sig =
      getSignature(module, function, /*asmState=*/nullptr, "<module>");
  if (!sig)
    return sig.takeError();
  llvm::Expected<RecipeAttrInterface> recipe =
      parseRecipe(module.getContext(), recipeText);
  if (!recipe)
    return recipe.takeError();
  ConversionSummary summary;
  llvm::Expected<OwningOpRef<ModuleOp>> converted =
      convertModule(module, recipeText, /*pipeline=*/"", "<module>", summary);
  if (!converted)
    return converted.takeError();
  llvm::Expected<PreparedInputs> inputs = prepareInputs(*sig, inputOptions);
  if (!inputs)
    return inputs.takeError();
  llvm::Expected<CompareReport> report = compareModules(
      module, **converted, *sig, *recipe, inputs->tensors, options);
  if (!report)
    return report.takeError();
  std::string recipeString;
  llvm::raw_string_ostream(recipeString) << *recipe;
  report->recipe = std::move(recipeString);
  report->conversion = std::move(summary);
  return report;
}
