//===- mxfp8-run.cpp - run and compare mxfp8train modules -------*- C++ -*-===//
//
// Runs one function of a tensor-level MLIR module on the CPU (through
// CPUExecutable) or on a CUDA GPU (CUDAExecutable: the GPU pipeline, JITed
// host code, libmxfp8train_runtime.so) with generated or .npy inputs and
// writes its results as .npy.
// In compare mode it runs the module as written and the module after the
// MXFP8 rewrite on the same inputs and reports, per result, the SQNR against
// the high-precision run and the torchao bar that applies (SPEC §8).
//
// See docs/mxfp8-run.md for the user documentation.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"
#include "mxfp8train/ExecutionEngine/CPURunner.h"
#include "mxfp8train/ExecutionEngine/CUDARunner.h"
#include "mxfp8train/InitAll.h"
#include "mxfp8train/Pipelines/Passes.h"
#include "mxfp8train/Support/Float.h"
#include "mxfp8train/Support/Npy.h"
#include "mxfp8train/Support/Random.h"
#include "mxfp8train/Support/Sqnr.h"
#include "mxfp8train/Tools/MatmulProbes.h"
#include "mxfp8train/Tools/ModuleSource.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <thread>
#include <type_traits>

using namespace mlir;
using namespace mlir::mxfp8train;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

namespace {
enum class BF16Format { UInt16, Float32 };
enum class Device { Auto, CPU, CUDA };
} // namespace

static cl::OptionCategory runCategory("mxfp8-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir file>"),
                                          cl::init("-"), cl::cat(runCategory));

static cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the only public function)"),
              cl::value_desc("name"), cl::cat(runCategory));

static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the generated inputs"),
                              cl::init(0), cl::cat(runCategory));

static cl::opt<double> inputStd(
    "input-std",
    cl::desc("Standard deviation of generated float inputs (an argument "
             "attribute {mxfp8run.std = S : f64} overrides it)"),
    cl::init(1.0), cl::cat(runCategory));

static cl::list<std::string>
    inputFiles("input",
               cl::desc("Read the next argument from a .npy file (repeat once "
                        "per argument, in order)"),
               cl::value_desc("path.npy"), cl::cat(runCategory));

static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write every result as <name>.npy into this directory"),
              cl::value_desc("dir"), cl::cat(runCategory));

static cl::opt<bool>
    saveInputs("save-inputs",
               cl::desc("Also write the inputs as <name>.npy into "
                        "--output-dir/inputs"),
               cl::init(false), cl::cat(runCategory));

static cl::opt<BF16Format>
    bf16As("bf16-as", cl::desc("How bf16 tensors are written to .npy"),
           cl::values(clEnumValN(BF16Format::UInt16, "uint16",
                                 "uint16 bit patterns (exact, the default)"),
                      clEnumValN(BF16Format::Float32, "float32",
                                 "float32 values (exact widening)")),
           cl::init(BF16Format::UInt16), cl::cat(runCategory));

static cl::opt<std::string> pipeline(
    "pipeline",
    cl::desc("Pass pipeline applied to the module before running it; in "
             "compare mode it replaces the default conversion pipeline"),
    cl::value_desc("text"), cl::cat(runCategory));

static cl::opt<bool> compareMode(
    "compare",
    cl::desc("Run the module as written and after the MXFP8 rewrite on the "
             "same inputs and report the SQNR of every result"),
    cl::init(false), cl::cat(runCategory));

static cl::opt<std::string> recipeText(
    "recipe",
    cl::desc("Recipe of the compare mode: a torchao recipe name "
             "(mxfp8_rceil, mxfp8_rceil_wgrad_with_hp, mxfp8_emulated_rceil) "
             "or the body of a #mxfp8train.recipe<...> attribute"),
    cl::init("mxfp8_rceil"), cl::cat(runCategory));

static cl::opt<bool>
    checkBars("check-bars",
              cl::desc("Exit with status 2 if a result misses its SQNR bar "
                       "(compare mode)"),
              cl::init(true), cl::cat(runCategory));

static cl::opt<bool> perMatmul(
    "per-matmul",
    cl::desc("In compare mode, also convert each matmul alone on the "
             "high-precision inputs it sees in the original run and check "
             "it against its role's bar (torchao's per-linear tests)"),
    cl::init(true), cl::cat(runCategory));

static cl::opt<bool> showRemarks(
    "remarks",
    cl::desc("Print the rewrite's remarks (one per matmul) in compare mode"),
    cl::init(true), cl::cat(runCategory));

static cl::opt<bool> runConcurrently(
    "parallel",
    cl::desc("In compare mode, run the two modules on two threads at once"),
    cl::init(true), cl::cat(runCategory));

static cl::opt<bool>
    vectorize("vectorize",
              cl::desc("Tile and vectorize in the CPU lowering (off: scalar "
                       "loops, for debugging)"),
              cl::init(true), cl::cat(runCategory));

static cl::opt<std::string>
    dumpIr("dump-ir",
           cl::desc("Write the module that is run (after --pipeline, or the "
                    "converted module in compare mode) to this file"),
           cl::value_desc("path"), cl::cat(runCategory));

static cl::opt<Device> device(
    "device",
    cl::desc("Where to run (default: cuda when the runtime finds a CUDA "
             "driver and a GPU, else cpu)"),
    cl::values(clEnumValN(Device::Auto, "auto",
                          "cuda if a GPU is usable, else cpu (the default)"),
               clEnumValN(Device::CPU, "cpu", "the host CPU (JIT)"),
               clEnumValN(Device::CUDA, "cuda",
                          "GPU --gpu (mxfp8train-lower-to-gpu, JIT host "
                          "code, libmxfp8train_runtime.so)")),
    cl::init(Device::Auto), cl::cat(runCategory));

static cl::opt<int> gpuIndex("gpu", cl::desc("CUDA device (--device=cuda)"),
                             cl::init(0), cl::cat(runCategory));

static cl::opt<std::string>
    chip("chip",
         cl::desc("NVVM chip of the GPU lowering (default: the GPU's: sm_90a "
                  "for compute capability 9.0, sm_100a for 10.0)"),
         cl::value_desc("sm_90a|sm_100a"), cl::cat(runCategory));

static cl::opt<std::string> gpuLowering(
    "lowering",
    cl::desc("--device=cuda: replace mxfp8train-lower-to-gpu by this pipeline "
             "(it must end in the LLVM dialect with llvm.emit_c_interface "
             "functions on device descriptors)"),
    cl::value_desc("text"), cl::cat(runCategory));

static cl::opt<bool> simpleGemm(
    "simple-gemm",
    cl::desc("--device=cuda: the simple tiled GEMM kernels for every GEMM "
             "(scaled_mm / scaled_grouped_mm, linalg contractions, "
             "grouped_mm) even where a wgmma kernel exists"),
    cl::init(false), cl::cat(runCategory));

static cl::opt<bool> printDevice(
    "print-device",
    cl::desc("Print the device line (where --device would run, and why) and "
             "exit; no input file is read"),
    cl::init(false), cl::cat(runCategory));

/// The device chosen in main(), never Auto.
static Device selectedDevice = Device::CPU;
/// The chip used for --device=cuda.
static std::string selectedChip;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Prints `mxfp8-run: error: <message>` and returns failure.
static LogicalResult fail(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::errs() << "mxfp8-run: error: " << message << "\n";
  return failure();
}

/// Like fail(), for an llvm::Error.
static LogicalResult fail(llvm::Error err, const llvm::Twine &context = "") {
  std::string text = llvm::toString(std::move(err));
  if (context.isTriviallyEmpty())
    return fail(text);
  return fail(context + ": " + text);
}

using Clock = std::chrono::steady_clock;

/// Seconds since `start`.
static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// `64x4096xbf16` for a ranked tensor type.
static std::string formatShape(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    for (int64_t d : tensor.getShape()) {
      if (ShapedType::isDynamic(d))
        os << "?x";
      else
        os << d << "x";
    }
    os << tensor.getElementType();
  } else {
    os << type;
  }
  return text;
}

/// Turns a name into something safe as a file name.
static std::string sanitizeFileName(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) || c == '_' || c == '-' || c == '.' ? c
                                                                       : '_');
  if (out.empty() || out.front() == '.')
    out.insert(out.begin(), '_');
  return out;
}

//===----------------------------------------------------------------------===//
// Loading the module
//===----------------------------------------------------------------------===//

namespace {
/// The names and properties of the entry function's arguments and results,
/// read once from the module as written.
struct Signature {
  /// The entry function (mutable: op handles have non-const accessors).
  mutable func::FuncOp func;
  SmallVector<RankedTensorType> argTypes, resultTypes;
  SmallVector<HostElementType> argHostTypes, resultHostTypes;
  SmallVector<std::string> argNames, resultNames;
  /// Role (`mxfp8train.role`) of each result, or "".
  SmallVector<std::string> resultRoles;
  /// `mxfp8run.min_sqnr` of each result, if any.
  SmallVector<std::optional<double>> resultMinSqnr;
};
} // namespace

/// Parses the input file keeping the parser state (for SSA names).
static OwningOpRef<ModuleOp> parseModule(llvm::SourceMgr &sourceMgr,
                                         MLIRContext *context,
                                         AsmParserState &asmState) {
  std::string errorMessage;
  OwningOpRef<ModuleOp> module = parseModuleFile(
      inputFilename, sourceMgr, context, asmState, errorMessage);
  if (!module && !errorMessage.empty())
    (void)fail(errorMessage);
  return module;
}

/// True when `bytes` bytes can be allocated now: probes with std::malloc,
/// which returns null instead of aborting like a failed operator new.
static bool canAllocate(int64_t bytes) {
  if (bytes == 0)
    return true;
  if (uint64_t(bytes) > std::numeric_limits<size_t>::max())
    return false;
  // Through a volatile: a malloc whose result is only compared with null
  // and freed may be removed by the optimizer (clang does at -O1), and the
  // probe would always succeed.
  void *volatile probe = std::malloc(size_t(bytes));
  if (!probe)
    return false;
  std::free(probe);
  return true;
}

/// Finds the entry function and checks that its signature can be run.
static FailureOr<Signature> getSignature(ModuleOp module,
                                         const AsmParserState &asmState) {
  Signature sig;
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      candidates.push_back(func);
  std::string candidateNames;
  for (func::FuncOp func : candidates)
    candidateNames +=
        (candidateNames.empty() ? "@" : ", @") + func.getSymName().str();
  if (candidateNames.empty())
    candidateNames = "none";

  if (entryName.empty()) {
    if (candidates.size() != 1)
      return fail("--entry=NAME is needed: the module has " +
                  llvm::Twine(candidates.size()) + " public functions (" +
                  candidateNames + ")");
    sig.func = candidates.front();
  } else {
    sig.func = module.lookupSymbol<func::FuncOp>(entryName);
    if (!sig.func || sig.func.isExternal())
      return fail("no function @" + entryName + " with a body in '" +
                  inputFilename + "' (public functions: " + candidateNames +
                  ")");
  }
  func::FuncOp func = sig.func;
  FunctionType type = func.getFunctionType();

  getSignatureNames(func, asmState, sig.argNames, sig.resultNames);

  auto checkType =
      [&](Type t, StringRef what, unsigned i, StringRef name,
          SmallVectorImpl<RankedTensorType> &types,
          SmallVectorImpl<HostElementType> &hostTypes) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor)
      return fail(what + " #" + llvm::Twine(i) + " (" + name + ") of @" +
                  func.getSymName() + " has type " + formatShape(t) +
                  "; mxfp8-run supports ranked tensors only");
    if (!tensor.hasStaticShape())
      return fail(what + " #" + llvm::Twine(i) + " (" + name + ") of @" +
                  func.getSymName() + " has a dynamic shape (" +
                  formatShape(t) + "); mxfp8-run needs static shapes");
    llvm::Expected<HostElementType> host =
        getHostElementType(tensor.getElementType());
    if (!host)
      return fail(host.takeError(), what + " #" + llvm::Twine(i) + " (" + name +
                                        ") of @" + func.getSymName());
    // Check the size before anything is allocated: a host buffer that
    // cannot exist is an error, not an abort in the allocator.
    std::optional<int64_t> bytes = getHostElementSize(*host);
    if (llvm::is_contained(tensor.getShape(), 0))
      bytes = 0;
    for (int64_t size : tensor.getShape())
      if (bytes)
        bytes = llvm::checkedMul(*bytes, size);
    if (!bytes || !canAllocate(*bytes))
      return fail(
          "cannot allocate " +
          (bytes ? std::to_string(*bytes) : std::string("2^63 or more")) +
          " bytes for " + what + " #" + llvm::Twine(i) + " (" + name +
          ") of @" + func.getSymName() + " (" + formatShape(t) + ")");
    types.push_back(tensor);
    hostTypes.push_back(*host);
    return success();
  };
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i)
    if (failed(checkType(type.getInput(i), "argument", i, sig.argNames[i],
                         sig.argTypes, sig.argHostTypes)))
      return failure();
  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i)
    if (failed(checkType(type.getResult(i), "result", i, sig.resultNames[i],
                         sig.resultTypes, sig.resultHostTypes)))
      return failure();

  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i) {
    std::string role;
    if (Attribute attr = func.getResultAttr(i, "mxfp8train.role")) {
      auto str = dyn_cast<StringAttr>(attr);
      if (!str ||
          (str.getValue() != "output" && str.getValue() != "input_grad" &&
           str.getValue() != "weight_grad"))
        return fail("result #" + llvm::Twine(i) + " (" + sig.resultNames[i] +
                    ") of @" + func.getSymName() +
                    ": mxfp8train.role must be \"output\", \"input_grad\" or "
                    "\"weight_grad\"");
      role = str.str();
    }
    sig.resultRoles.push_back(role);
    std::optional<double> minSqnr;
    if (Attribute attr = func.getResultAttr(i, "mxfp8run.min_sqnr")) {
      if (auto f = dyn_cast<FloatAttr>(attr))
        minSqnr = f.getValueAsDouble();
      else if (auto n = dyn_cast<IntegerAttr>(attr))
        minSqnr = double(n.getInt());
      else
        return fail("result #" + llvm::Twine(i) + " (" + sig.resultNames[i] +
                    ") of @" + func.getSymName() +
                    ": mxfp8run.min_sqnr must be a number (dB)");
    }
    sig.resultMinSqnr.push_back(minSqnr);
  }
  return sig;
}

//===----------------------------------------------------------------------===//
// Inputs and outputs
//===----------------------------------------------------------------------===//

/// The .npy descriptor a host tensor is written with (bf16 as --bf16-as
/// says).
static StringRef getNpyDescr(HostElementType type) {
  return getNpyDescrForKind(type, bf16As == BF16Format::Float32);
}

/// Writes a host tensor as .npy (bf16 as --bf16-as says).
static LogicalResult writeTensor(StringRef path, const HostTensor &tensor) {
  llvm::Error err = llvm::Error::success();
  if (tensor.type == HostElementType::BF16 && bf16As == BF16Format::Float32) {
    int64_t n = tensor.getNumElements();
    std::vector<uint8_t> bytes(size_t(n) * 4);
    const uint16_t *src = tensor.data<uint16_t>();
    auto *dst = reinterpret_cast<float *>(bytes.data());
    for (int64_t i = 0; i < n; ++i)
      dst[i] = convertBF16BitsToFloat(src[i]);
    err = writeNpy(path, "<f4", tensor.shape, bytes);
  } else {
    err = writeNpy(path, getNpyDescr(tensor.type), tensor.shape, tensor.bytes);
  }
  if (err)
    return fail(std::move(err), "cannot write '" + path + "'");
  return success();
}

/// The semantics of an fp8 host type, for APFloat conversions.
static const llvm::fltSemantics &getFloat8Semantics(HostElementType type) {
  switch (type) {
  case HostElementType::F8E5M2:
    return llvm::APFloat::Float8E5M2();
  case HostElementType::F8E8M0FNU:
    return llvm::APFloat::Float8E8M0FNU();
  default:
    return llvm::APFloat::Float8E4M3FN();
  }
}

/// Generates input `index` of type `type` (see docs/mxfp8-run.md: normal
/// samples for floats, byte 127 (1.0) for e8m0 scales, zeros for integers,
/// or the values of an `mxfp8run.values` attribute).
static FailureOr<HostTensor> generateInput(const Signature &sig, unsigned index,
                                           std::string &description) {
  RankedTensorType type = sig.argTypes[index];
  HostElementType hostType = sig.argHostTypes[index];
  HostTensor tensor(hostType, type.getShape());
  int64_t n = tensor.getNumElements();
  llvm::raw_string_ostream desc(description);

  if (Attribute attr = sig.func.getArgAttr(index, "mxfp8run.values")) {
    auto dense = dyn_cast<DenseElementsAttr>(attr);
    if (!dense || dense.getType() != type)
      return fail("argument #" + llvm::Twine(index) + " (" +
                  sig.argNames[index] +
                  "): mxfp8run.values must be a dense "
                  "elements attribute of type " +
                  formatShape(type));
    ArrayRef<char> raw = dense.getRawData();
    size_t itemSize = size_t(getHostElementSize(hostType));
    if (dense.isSplat()) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(tensor.bytes.data() + i * itemSize, raw.data(), itemSize);
    } else if (raw.size() == tensor.bytes.size()) {
      std::memcpy(tensor.bytes.data(), raw.data(), raw.size());
    } else {
      return fail("argument #" + llvm::Twine(index) + " (" +
                  sig.argNames[index] + "): cannot read mxfp8run.values");
    }
    desc << "mxfp8run.values";
    return tensor;
  }

  switch (hostType) {
  case HostElementType::I32:
  case HostElementType::I64:
    desc << "zeros";
    return tensor;
  case HostElementType::F8E8M0FNU:
    std::memset(tensor.bytes.data(), 127, tensor.bytes.size());
    desc << "scale byte 127 (1.0)";
    return tensor;
  default:
    break;
  }

  double stddev = inputStd;
  if (Attribute attr = sig.func.getArgAttr(index, "mxfp8run.std")) {
    if (auto f = dyn_cast<FloatAttr>(attr))
      stddev = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(attr))
      stddev = double(i.getInt());
    else
      return fail("argument #" + llvm::Twine(index) + " (" +
                  sig.argNames[index] + "): mxfp8run.std must be a number");
  }
  if (!(stddev >= 0.0) || std::isinf(stddev))
    return fail("argument #" + llvm::Twine(index) + " (" + sig.argNames[index] +
                "): the standard deviation must be "
                "finite and >= 0");
  uint64_t streamSeed = mixSeed(seed, index);
  switch (hostType) {
  case HostElementType::BF16: {
    uint16_t *data = tensor.data<uint16_t>();
    fillNormal(streamSeed, n, [&](int64_t i, double x) {
      data[i] = convertFloatToBF16Bits(float(x * stddev));
    });
    break;
  }
  case HostElementType::F32: {
    float *data = tensor.data<float>();
    fillNormal(streamSeed, n,
               [&](int64_t i, double x) { data[i] = float(x * stddev); });
    break;
  }
  case HostElementType::F64: {
    double *data = tensor.data<double>();
    fillNormal(streamSeed, n,
               [&](int64_t i, double x) { data[i] = x * stddev; });
    break;
  }
  default: {
    // fp8 elements: round to nearest even, saturating to the largest finite
    // value (the formats have no infinity to overflow to).
    const llvm::fltSemantics &sem = getFloat8Semantics(hostType);
    llvm::APFloat maxValue = llvm::APFloat::getLargest(sem);
    double limit = maxValue.convertToDouble();
    uint8_t *data = tensor.data<uint8_t>();
    fillNormal(streamSeed, n, [&](int64_t i, double x) {
      double v = std::fmax(-limit, std::fmin(limit, x * stddev));
      llvm::APFloat f(v);
      bool lost;
      f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
      data[i] = uint8_t(f.bitcastToAPInt().getZExtValue());
    });
    break;
  }
  }
  desc << "normal(0, " << llvm::format("%g", stddev) << ")";
  return tensor;
}

/// Reads input `index` from a .npy file and checks it against the signature.
static FailureOr<HostTensor> readInput(const Signature &sig, unsigned index,
                                       StringRef path) {
  RankedTensorType type = sig.argTypes[index];
  HostElementType hostType = sig.argHostTypes[index];
  std::string what = "--input #" + std::to_string(index) + " ('" + path.str() +
                     "') for argument " + sig.argNames[index];
  llvm::Expected<NpyArray> array = readNpy(path);
  if (!array)
    return fail(array.takeError());
  if (ArrayRef<int64_t>(array->shape) != type.getShape()) {
    std::string shape;
    for (int64_t d : array->shape)
      shape += (shape.empty() ? "" : "x") + std::to_string(d);
    return fail(what + ": shape (" + shape + ") does not match " +
                formatShape(type));
  }
  HostTensor tensor(hostType, type.getShape());
  StringRef expected = getNpyDescr(hostType);
  if (hostType == HostElementType::BF16) {
    if (array->descr == "<u2") {
      std::memcpy(tensor.bytes.data(), array->data.data(), array->data.size());
      return tensor;
    }
    if (array->descr == "<f4") {
      const auto *src = reinterpret_cast<const float *>(array->data.data());
      uint16_t *dst = tensor.data<uint16_t>();
      for (int64_t i = 0, n = tensor.getNumElements(); i < n; ++i)
        dst[i] = convertFloatToBF16Bits(src[i]);
      return tensor;
    }
    return fail(what + ": dtype '" + array->descr + "' does not match " +
                formatShape(type) +
                " (expected '<u2' bf16 bit patterns or '<f4' float32)");
  }
  if (array->descr != expected)
    return fail(what + ": dtype '" + array->descr + "' does not match " +
                formatShape(type) + " (expected '" + expected + "')");
  std::memcpy(tensor.bytes.data(), array->data.data(), array->data.size());
  return tensor;
}

/// Builds all inputs, generated or read, and prints one line per input.
static FailureOr<std::vector<HostTensor>> prepareInputs(const Signature &sig,
                                                        llvm::raw_ostream &os) {
  unsigned numArgs = sig.argTypes.size();
  if (!inputFiles.empty() && inputFiles.size() != numArgs)
    return fail("got " + llvm::Twine(inputFiles.size()) +
                " --input files but @" + sig.func.getSymName() + " has " +
                llvm::Twine(numArgs) + " arguments");
  std::vector<HostTensor> inputs;
  Clock::time_point start = Clock::now();
  os << "inputs:\n";
  for (unsigned i = 0; i < numArgs; ++i) {
    std::string description;
    FailureOr<HostTensor> tensor = failure();
    if (!inputFiles.empty()) {
      tensor = readInput(sig, i, inputFiles[i]);
      description = inputFiles[i];
    } else {
      tensor = generateInput(sig, i, description);
    }
    if (failed(tensor))
      return failure();
    os << "  #" << i << " " << sig.argNames[i] << " : "
       << formatShape(sig.argTypes[i]) << "  " << description << "\n";
    inputs.push_back(std::move(*tensor));
  }
  if (inputFiles.empty())
    os << "  (generated with seed " << seed << " in "
       << llvm::format("%.2f", secondsSince(start)) << " s)\n";
  else
    os << "  (read in " << llvm::format("%.2f", secondsSince(start)) << " s)\n";
  return inputs;
}

/// Gives each result a unique file stem.
static SmallVector<std::string> getResultStems(const Signature &sig) {
  SmallVector<std::string> stems;
  std::map<std::string, int> counts;
  for (const std::string &name : sig.resultNames)
    ++counts[sanitizeFileName(name)];
  for (auto [i, name] : llvm::enumerate(sig.resultNames)) {
    std::string stem = sanitizeFileName(name);
    if (counts[stem] > 1)
      stem += "_" + std::to_string(i);
    stems.push_back(stem);
  }
  return stems;
}

/// Creates the output directory (if any) and saves the inputs when asked.
static LogicalResult prepareOutputDir(const Signature &sig,
                                      ArrayRef<HostTensor> inputs) {
  if (outputDir.empty()) {
    if (saveInputs)
      return fail("--save-inputs needs --output-dir");
    return success();
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return fail("cannot create '" + outputDir + "': " + ec.message());
  if (!llvm::sys::fs::is_directory(outputDir))
    return fail("cannot create '" + outputDir + "': not a directory");
  if (!saveInputs)
    return success();
  SmallString<256> dir(outputDir);
  llvm::sys::path::append(dir, "inputs");
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return fail("cannot create '" + dir + "': " + ec.message());
  for (auto [i, input] : llvm::enumerate(inputs)) {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, std::to_string(i) + "_" +
                                      sanitizeFileName(sig.argNames[i]) +
                                      ".npy");
    if (failed(writeTensor(path, input)))
      return failure();
  }
  return success();
}

/// `<output-dir>/<stem><suffix>.npy`.
static std::string getOutputPath(StringRef stem, StringRef suffix) {
  SmallString<256> path(outputDir);
  llvm::sys::path::append(path, stem + suffix + ".npy");
  return std::string(path);
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

/// Runs `pm` on `module`, collecting remarks into `remarks` (as
/// "location: message"); other diagnostics go to the default handler.
static LogicalResult runPasses(PassManager &pm, ModuleOp module,
                               SmallVectorImpl<std::string> &remarks) {
  ScopedDiagnosticHandler handler(
      module.getContext(), [&](Diagnostic &diag) -> LogicalResult {
        if (diag.getSeverity() != DiagnosticSeverity::Remark)
          return failure();
        std::string where = describeLocation(diag.getLocation());
        remarks.push_back((where.empty() ? "" : where + ": ") + diag.str());
        return success();
      });
  return pm.run(module);
}

/// Writes `module` to --dump-ir.
static LogicalResult dumpModule(ModuleOp module) {
  if (dumpIr.empty())
    return success();
  std::string errorMessage;
  auto file = openOutputFile(dumpIr, &errorMessage);
  if (!file)
    return fail(errorMessage);
  module->print(file->os());
  file->keep();
  return success();
}

/// Applies --pipeline (non-compare mode).
static LogicalResult applyUserPipeline(ModuleOp module) {
  if (pipeline.empty())
    return dumpModule(module);
  PassManager pm(module.getContext());
  std::string errorMessage;
  llvm::raw_string_ostream errorStream(errorMessage);
  if (failed(parsePassPipeline(stripModuleAnchor(pipeline), pm, errorStream)))
    return fail("invalid --pipeline: " + errorMessage);
  SmallVector<std::string> remarks;
  if (failed(runPasses(pm, module, remarks)))
    return fail("--pipeline failed on '" + inputFilename + "'");
  for (const std::string &remark : remarks)
    llvm::outs() << "remark: " << remark << "\n";
  return dumpModule(module);
}

/// Parses --recipe.
static FailureOr<RecipeAttr> parseRecipe(MLIRContext *context) {
  context->getOrLoadDialect<MXFP8TrainDialect>();
  if (RecipeAttr named = RecipeAttr::getNamed(context, recipeText))
    return named;
  std::string message;
  Attribute attr;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    attr = parseAttribute("#mxfp8train.recipe<" + recipeText + ">", context);
  }
  auto recipe = dyn_cast_or_null<RecipeAttr>(attr);
  if (!recipe)
    return fail("invalid --recipe '" + recipeText +
                "': " + (message.empty() ? "not a recipe" : message));
  return recipe;
}

/// True for an op that performs a quantized GEMM in a converted module: a
/// scaled (grouped) matmul, or (EMULATED recipes) a matmul reading a
/// dequantized operand.
static bool isQuantizedGemm(Operation *op) {
  if (isa<ScaledMmOp, ScaledGroupedMmOp>(op))
    return true;
  if (!isCandidateMatmul(op))
    return false;
  return llvm::any_of(op->getOperands(), [](Value v) {
    return isa_and_nonnull<DequantizeOp>(v.getDefiningOp());
  });
}

namespace {
/// What the conversion did, counted on the IR.
struct ConversionSummary {
  int64_t matmulsBefore = 0;
  /// Matmuls left in high precision (not reading dequantized operands).
  int64_t keptHighPrecision = 0;
  /// scaled_mm / scaled_grouped_mm ops, in total and by mxfp8train.role.
  int64_t scaledMms = 0;
  std::map<std::string, int64_t> scaledByRole;
  /// EMULATED recipes: matmuls on dequantized operands, by role.
  int64_t emulated = 0;
  std::map<std::string, int64_t> emulatedByRole;
  SmallVector<std::string> remarks;
};
} // namespace

/// Number of linalg contractions (matmuls in any form) and grouped_mm ops
/// under `root`.
static int64_t countMatmuls(Operation *root) {
  int64_t count = 0;
  root->walk([&](Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (isa<GroupedMmOp>(op) ||
        (linalgOp && linalg::isaContractionOpInterface(linalgOp)))
      ++count;
  });
  return count;
}

/// Clones `module` and applies the conversion pipeline: --pipeline if given,
/// else the rewrite with --recipe followed by canonicalize and cse.
static FailureOr<OwningOpRef<ModuleOp>>
convertModule(ModuleOp module, ConversionSummary &summary,
              std::string &pipelineText) {
  OwningOpRef<ModuleOp> converted(module.clone());
  PassManager pm(module.getContext());
  if (!pipeline.empty()) {
    std::string errorMessage;
    llvm::raw_string_ostream errorStream(errorMessage);
    if (failed(parsePassPipeline(stripModuleAnchor(pipeline), pm, errorStream)))
      return fail("invalid --pipeline: " + errorMessage);
  } else {
    MXFP8TrainRewriteMatmulsPassOptions options;
    options.recipe = recipeText;
    options.emitRemarks = true;
    // fp8/e8m0 arith of the user's IR is lowered before canonicalize can
    // fold an e8m0 NaN into +Inf.
    pm.addPass(createMXFP8TrainLowerNarrowFloatArithPass());
    pm.addPass(createMXFP8TrainRewriteMatmulsPass(options));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  if (pipeline.empty()) {
    pipelineText = "mxfp8train-lower-narrow-float-arith,"
                   "mxfp8train-rewrite-matmuls{recipe=" +
                   recipeText + "},canonicalize,cse";
  } else {
    pipelineText = pipeline;
  }
  if (failed(runPasses(pm, *converted, summary.remarks)))
    return fail("the conversion pipeline failed on '" + inputFilename + "'");

  summary.matmulsBefore = countMatmuls(module);
  converted->walk([&](Operation *op) {
    auto role = op->getAttrOfType<StringAttr>(kMatmulRoleAttrName);
    std::string roleName = role ? role.str() : "unlabelled";
    if (isa<ScaledMmOp, ScaledGroupedMmOp>(op)) {
      ++summary.scaledMms;
      ++summary.scaledByRole[roleName];
    } else if (isQuantizedGemm(op)) {
      ++summary.emulated;
      ++summary.emulatedByRole[roleName];
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
               isa<GroupedMmOp>(op) ||
               (linalgOp && linalg::isaContractionOpInterface(linalgOp))) {
      ++summary.keptHighPrecision;
    }
  });
  return converted;
}

//===----------------------------------------------------------------------===//
// Running and reporting
//===----------------------------------------------------------------------===//

namespace {
/// A module compiled for the selected device.
struct Executable {
  std::unique_ptr<CPUExecutable> cpu;
  std::unique_ptr<CUDAExecutable> cuda;
};
} // namespace

/// Compiles the entry function of `module` (and what it references) for the
/// selected device, timing it.
static FailureOr<std::unique_ptr<Executable>> compileModule(ModuleOp module,
                                                            StringRef entry,
                                                            StringRef what,
                                                            double &seconds) {
  Clock::time_point start = Clock::now();
  OwningOpRef<ModuleOp> stripped(module.clone());
  (void)keepReachableFunctions(*stripped, {entry.str()});
  // The argument and result attributes (mxfp8run.*, mxfp8train.role) are
  // for this tool; they must not reach the LLVM function signatures.
  stripped->walk([](func::FuncOp func) {
    func.removeArgAttrsAttr();
    func.removeResAttrsAttr();
  });
  auto exe = std::make_unique<Executable>();
  if (selectedDevice == Device::CUDA) {
    CUDACompileOptions options;
    options.gpu = gpuIndex;
    options.chip = selectedChip;
    options.simpleGemm = simpleGemm;
    options.lowering = std::string(stripModuleAnchor(gpuLowering));
    llvm::Expected<std::unique_ptr<CUDAExecutable>> cuda =
        CUDAExecutable::compile(*stripped, options);
    seconds = secondsSince(start);
    if (!cuda)
      return fail(cuda.takeError(),
                  "cannot compile the " + what + " module for the GPU");
    exe->cuda = std::move(*cuda);
    return exe;
  }
  llvm::Expected<std::unique_ptr<CPUExecutable>> cpu =
      CPUExecutable::compile(*stripped, vectorize);
  seconds = secondsSince(start);
  if (!cpu)
    return fail(cpu.takeError(), "cannot compile the " + what + " module");
  exe->cpu = std::move(*cpu);
  return exe;
}

namespace {
/// The outcome of one run.
struct RunResult {
  llvm::Expected<std::vector<HostTensor>> outputs{std::vector<HostTensor>()};
  double seconds = 0.0;
  /// GPU: the call alone (CUDA events), without the copies.
  double deviceSeconds = 0.0;
};
} // namespace

/// Runs the entry function, timing it.
static void runExecutable(const Executable &exe, StringRef name,
                          ArrayRef<HostTensor> inputs, RunResult &result) {
  Clock::time_point start = Clock::now();
  if (exe.cuda)
    result.outputs = exe.cuda->run(name, inputs, &result.deviceSeconds);
  else
    result.outputs = exe.cpu->run(name, inputs);
  result.seconds = secondsSince(start);
}

/// Checks the outputs of a run against the signature.
static LogicalResult checkOutputs(const Signature &sig, RunResult &result,
                                  StringRef what, size_t numExtra = 0) {
  if (!result.outputs)
    return fail(result.outputs.takeError(), "running the " + what + " module");
  if (result.outputs->size() != sig.resultTypes.size() + numExtra)
    return fail("the " + what + " module returned " +
                llvm::Twine(result.outputs->size()) + " results, expected " +
                llvm::Twine(sig.resultTypes.size() + numExtra));
  for (auto [i, out] : llvm::enumerate(ArrayRef<HostTensor>(*result.outputs)
                                           .take_front(sig.resultTypes.size())))
    if (ArrayRef<int64_t>(out.shape) != sig.resultTypes[i].getShape() ||
        out.type != sig.resultHostTypes[i])
      return fail("result #" + llvm::Twine(i) + " of the " + what +
                  " module does not have type " +
                  formatShape(sig.resultTypes[i]));
  return success();
}

/// For each result of `func`, the number of quantized GEMMs it depends on.
static SmallVector<int64_t> countQuantizedGemmsPerResult(func::FuncOp func) {
  SmallVector<int64_t> counts;
  auto returnOp = dyn_cast<func::ReturnOp>(func.front().getTerminator());
  if (!returnOp)
    return counts;
  for (Value value : returnOp.getOperands()) {
    SetVector<Operation *> slice;
    BackwardSliceOptions options;
    options.inclusive = true;
    options.omitUsesFromAbove = false;
    int64_t count = 0;
    if (value.getDefiningOp() &&
        succeeded(getBackwardSlice(value, &slice, options)))
      count = llvm::count_if(slice, isQuantizedGemm);
    counts.push_back(count);
  }
  return counts;
}

/// The SQNR bar of result `i`, if any (SPEC §8): `mxfp8run.min_sqnr`, else
/// torchao's per-linear bar of its role, which applies when the result
/// depends on at most one quantized GEMM (`numGemms`); a result behind a
/// chain of them accumulates their errors, and its role bar is only shown
/// (`reference` is set) while the per-matmul table carries the check.
static std::optional<double> getBar(const Signature &sig, unsigned i,
                                    RecipeAttr recipe, int64_t numGemms,
                                    bool &reference) {
  reference = false;
  if (sig.resultMinSqnr[i])
    return sig.resultMinSqnr[i];
  reference = numGemms > 1;
  StringRef role = sig.resultRoles[i];
  if (role == "output")
    return 27.0;
  if (role == "input_grad")
    return 25.0;
  if (role == "weight_grad")
    return recipe.getWgradWithHp() ? 34.0 : 24.0;
  return std::nullopt;
}

/// Formats a dB value: `inf`, `nan` or two decimals.
static std::string formatDb(double db) {
  if (std::isnan(db))
    return "nan";
  if (std::isinf(db))
    return db > 0 ? "inf" : "-inf";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.2f", db);
  return text;
}

/// Compares two outputs elementwise. Fixed chunks, merged in order, keep
/// the sums (and so the printed digits) independent of the thread count.
static ErrorStats compareTensors(const HostTensor &ref, const HostTensor &out) {
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

/// Prints a left-aligned table.
static void printTable(llvm::raw_ostream &os,
                       ArrayRef<SmallVector<std::string>> rows) {
  SmallVector<size_t> widths;
  for (const auto &row : rows)
    for (auto [c, cell] : llvm::enumerate(row)) {
      if (widths.size() <= c)
        widths.push_back(0);
      widths[c] = std::max(widths[c], cell.size());
    }
  for (const auto &row : rows) {
    os << " ";
    for (auto [c, cell] : llvm::enumerate(row)) {
      os << " " << cell;
      if (c + 1 != row.size())
        os.indent(widths[c] - cell.size() + 1);
    }
    os << "\n";
  }
}

/// Plain mode: (pipeline,) compile, run, write outputs.
static LogicalResult runPlain(ModuleOp module, const Signature &sig) {
  llvm::raw_ostream &os = llvm::outs();
  if (failed(applyUserPipeline(module)))
    return failure();
  FailureOr<std::vector<HostTensor>> inputs = prepareInputs(sig, os);
  if (failed(inputs) || failed(prepareOutputDir(sig, *inputs)))
    return failure();
  double compileSeconds;
  FailureOr<std::unique_ptr<Executable>> exe =
      compileModule(module, sig.func.getSymName(), "input", compileSeconds);
  if (failed(exe))
    return failure();
  RunResult result;
  runExecutable(**exe, sig.func.getSymName(), *inputs, result);
  if (failed(checkOutputs(sig, result, "input")))
    return failure();

  SmallVector<std::string> stems = getResultStems(sig);
  SmallVector<SmallVector<std::string>> rows;
  rows.push_back({"#", "name", "role", "type", "L2 norm", "max abs", "file"});
  for (auto [i, out] : llvm::enumerate(*result.outputs)) {
    double sq = 0.0, maxAbs = 0.0;
    for (int64_t k = 0, n = out.getNumElements(); k < n; ++k) {
      double v = out.getAsDouble(k);
      sq += v * v;
      maxAbs = std::isnan(v) || std::isnan(maxAbs)
                   ? std::numeric_limits<double>::quiet_NaN()
                   : std::fmax(maxAbs, std::fabs(v));
    }
    std::string file = "-";
    if (!outputDir.empty()) {
      file = getOutputPath(stems[i], "");
      if (failed(writeTensor(file, out)))
        return failure();
    }
    std::string norm, maxText;
    llvm::raw_string_ostream(norm) << llvm::format("%.6g", std::sqrt(sq));
    llvm::raw_string_ostream(maxText) << llvm::format("%.6g", maxAbs);
    rows.push_back({std::to_string(i), sig.resultNames[i],
                    sig.resultRoles[i].empty() ? "-" : sig.resultRoles[i],
                    formatShape(sig.resultTypes[i]), norm, maxText, file});
  }
  os << "outputs:\n";
  printTable(os, rows);
  os << llvm::format("time: compile %.2f s, run %.2f s", compileSeconds,
                     result.seconds);
  if (selectedDevice == Device::CUDA)
    os << llvm::format(" (GPU call %.3f ms)", result.deviceSeconds * 1e3);
  os << "\n";
  return success();
}

/// Compare mode. Returns 0, 1 (error) or 2 (a bar failed).
static int runCompare(ModuleOp module, const Signature &sig) {
  llvm::raw_ostream &os = llvm::outs();
  Clock::time_point start = Clock::now();
  FailureOr<RecipeAttr> recipe = parseRecipe(module.getContext());
  if (failed(recipe))
    return 1;
  os << "recipe: " << *recipe << "\n";

  ConversionSummary summary;
  std::string pipelineText;
  FailureOr<OwningOpRef<ModuleOp>> converted =
      convertModule(module, summary, pipelineText);
  if (failed(converted) || failed(dumpModule(**converted)))
    return 1;
  auto convertedFunc =
      (*converted)->lookupSymbol<func::FuncOp>(sig.func.getSymName());
  if (!convertedFunc ||
      convertedFunc.getFunctionType() != sig.func.getFunctionType()) {
    (void)fail("the conversion removed @" + sig.func.getSymName() +
               " or changed its signature");
    return 1;
  }
  os << "conversion: " << pipelineText << "\n";
  auto printRoles = [&](const std::map<std::string, int64_t> &byRole) {
    if (byRole.empty())
      return;
    os << " (";
    for (auto [k, entry] : llvm::enumerate(byRole))
      os << (k ? ", " : "") << entry.first << " " << entry.second;
    os << ")";
  };
  os << "  matmuls: " << summary.matmulsBefore << " before, "
     << summary.scaledMms << " scaled_mm after";
  printRoles(summary.scaledByRole);
  if (summary.emulated) {
    os << ", " << summary.emulated << " emulated (on dequantized operands)";
    printRoles(summary.emulatedByRole);
  }
  os << ", " << summary.keptHighPrecision << " kept in high precision\n";
  if (showRemarks)
    for (const std::string &remark : summary.remarks)
      os << "  remark: " << remark << "\n";

  FailureOr<std::vector<HostTensor>> inputs = prepareInputs(sig, os);
  if (failed(inputs) || failed(prepareOutputDir(sig, *inputs)))
    return 1;

  // With --per-matmul the original module runs as the probe module, which
  // computes the original results and the per-matmul pairs.
  SmallVector<MatmulProbe> probes;
  OwningOpRef<ModuleOp> probeModule;
  if (perMatmul) {
    std::string probeError;
    FailureOr<OwningOpRef<ModuleOp>> built = buildProbeModule(
        module, sig.func.getSymName(), *recipe, probes, probeError);
    if (failed(built)) {
      (void)fail(probeError);
      return 1;
    }
    probeModule = std::move(*built);
  }
  size_t numExtra = 0;
  for (const MatmulProbe &probe : probes)
    if (probe.extraIndex >= 0)
      numExtra += 2;

  // Each CPUExecutable lowers in a private context, so the two modules can
  // be compiled at the same time (the shared modules are only read).
  double compileOriginal = 0.0, compileConverted = 0.0;
  FailureOr<std::unique_ptr<Executable>> exeOriginal = failure();
  FailureOr<std::unique_ptr<Executable>> exeConverted = failure();
  // One GPU: compile (its kernels are loaded on this thread) and run one
  // module after the other.
  bool concurrently = runConcurrently && selectedDevice == Device::CPU;
  Clock::time_point compileStart = Clock::now();
  ModuleOp originalToCompile = probeModule ? *probeModule : module;
  auto compileConvertedModule = [&] {
    exeConverted = compileModule(**converted, sig.func.getSymName(),
                                 "converted", compileConverted);
  };
  if (concurrently) {
    std::thread other(compileConvertedModule);
    exeOriginal = compileModule(originalToCompile, sig.func.getSymName(),
                                "original", compileOriginal);
    other.join();
  } else {
    exeOriginal = compileModule(originalToCompile, sig.func.getSymName(),
                                "original", compileOriginal);
    compileConvertedModule();
  }
  double compileWall = secondsSince(compileStart);
  if (failed(exeOriginal) || failed(exeConverted))
    return 1;

  RunResult original, mx;
  StringRef name = sig.func.getSymName();
  Clock::time_point runStart = Clock::now();
  if (concurrently) {
    std::thread other(
        [&] { runExecutable(**exeConverted, name, *inputs, mx); });
    runExecutable(**exeOriginal, name, *inputs, original);
    other.join();
  } else {
    runExecutable(**exeOriginal, name, *inputs, original);
    runExecutable(**exeConverted, name, *inputs, mx);
  }
  double runWall = secondsSince(runStart);
  if (failed(checkOutputs(sig, original, "original", numExtra)) ||
      failed(checkOutputs(sig, mx, "converted")))
    return 1;

  SmallVector<std::string> stems = getResultStems(sig);
  SmallVector<SmallVector<std::string>> rows;
  rows.push_back({"#", "name", "role", "type", "GEMMs", "SQNR dB",
                  "max abs err", "bar dB", "result"});
  int numPass = 0, numFail = 0, numReference = 0;
  SmallVector<int64_t> gemmCounts = countQuantizedGemmsPerResult(convertedFunc);
  for (unsigned i = 0, e = sig.resultTypes.size(); i < e; ++i) {
    const HostTensor &ref = (*original.outputs)[i];
    const HostTensor &out = (*mx.outputs)[i];
    if (!outputDir.empty() &&
        (failed(writeTensor(getOutputPath(stems[i], ".original"), ref)) ||
         failed(writeTensor(getOutputPath(stems[i], ".converted"), out))))
      return 1;
    ErrorStats stats = compareTensors(ref, out);
    int64_t numGemms = i < gemmCounts.size() ? gemmCounts[i] : 0;
    bool reference = false;
    std::optional<double> bar = getBar(sig, i, *recipe, numGemms, reference);
    std::string verdict = "-", barText = "-";
    if (bar && reference) {
      // Not checked: see getBar.
      ++numReference;
      barText = "(" + formatDb(*bar) + ")";
      verdict = stats.sqnrDb >= *bar ? "(above)" : "(below)";
    } else if (bar) {
      bool pass = stats.sqnrDb >= *bar;
      verdict = pass ? "PASS" : "FAIL";
      (pass ? numPass : numFail)++;
      barText = ">= " + formatDb(*bar);
    }
    std::string maxText;
    llvm::raw_string_ostream(maxText)
        << llvm::format("%.3e", stats.maxAbsError);
    rows.push_back({std::to_string(i), sig.resultNames[i],
                    sig.resultRoles[i].empty() ? "-" : sig.resultRoles[i],
                    formatShape(sig.resultTypes[i]), std::to_string(numGemms),
                    formatDb(stats.sqnrDb), maxText, barText, verdict});
  }
  os << "results (converted vs original):\n";
  printTable(os, rows);
  if (numReference)
    os << "  note: a result behind several quantized GEMMs accumulates their "
          "errors; torchao's per-linear bar of its role is shown in "
          "parentheses and not checked ("
       << (perMatmul ? "the per-matmul table below checks each GEMM"
                     : "--per-matmul checks each GEMM")
       << ")\n";

  if (perMatmul) {
    SmallVector<SmallVector<std::string>> matmulRows;
    matmulRows.push_back({"matmul", "role", "type", "SQNR dB", "max abs err",
                          "bar dB", "result"});
    ArrayRef<HostTensor> extra = ArrayRef<HostTensor>(*original.outputs)
                                     .drop_front(sig.resultTypes.size());
    for (const MatmulProbe &probe : probes) {
      if (probe.extraIndex < 0) {
        matmulRows.push_back({probe.name, "-", formatShape(probe.type), "-",
                              "-", "-", probe.decision});
        continue;
      }
      ErrorStats stats =
          compareTensors(extra[probe.extraIndex], extra[probe.extraIndex + 1]);
      double bar = getMatmulBar(probe.role, recipe->getWgradWithHp());
      bool pass = stats.sqnrDb >= bar;
      (pass ? numPass : numFail)++;
      std::string maxText;
      llvm::raw_string_ostream(maxText)
          << llvm::format("%.3e", stats.maxAbsError);
      matmulRows.push_back({probe.name, probe.role, formatShape(probe.type),
                            formatDb(stats.sqnrDb), maxText,
                            ">= " + formatDb(bar), pass ? "PASS" : "FAIL"});
    }
    os << "matmuls (each converted alone on the original's inputs):\n";
    printTable(os, matmulRows);
  }
  os << llvm::format("time: compile original %.2f s, converted %.2f s",
                     compileOriginal, compileConverted);
  if (concurrently)
    os << llvm::format(" (concurrently: %.2f s)", compileWall);
  os << llvm::format("; run original%s %.2f s, converted %.2f s",
                     perMatmul ? " + per-matmul" : "", original.seconds,
                     mx.seconds);
  if (concurrently)
    os << llvm::format(" (concurrently: %.2f s)", runWall);
  os << llvm::format("; total %.2f s\n", secondsSince(start));
  if (selectedDevice == Device::CUDA)
    os << llvm::format("gpu time (CUDA events, one call each): original%s "
                       "%.3f ms, converted %.3f ms\n",
                       perMatmul ? " + per-matmul" : "",
                       original.deviceSeconds * 1e3, mx.deviceSeconds * 1e3);
  os << "bars: " << numPass << " passed, " << numFail << " failed\n";
  os.flush();
  if (numFail && checkBars) {
    llvm::errs() << "mxfp8-run: " << numFail
                 << " row(s) below their SQNR bar\n";
    return 2;
  }
  return 0;
}

/// Decides the device and prints the first line, `device: cuda (NAME,
/// sm_XY)` or `device: cpu (why)`. --device=cuda without a usable GPU fails.
static LogicalResult selectDevice() {
  llvm::raw_ostream &os = llvm::outs();
  if (!chip.empty() && !parseGPUChip(chip))
    return fail("--chip=" + llvm::Twine(chip) +
                " is not a GPU target (expected " + kSupportedGPUChips + ")");
  if (device == Device::CPU) {
    selectedDevice = Device::CPU;
    os << "device: cpu (--device=cpu)\n";
    return success();
  }
  CUDADeviceInfo info = queryCUDADevice(gpuIndex);
  if (!info.available) {
    if (device == Device::CUDA)
      return fail("--device=cuda: no usable GPU: " + info.reason);
    selectedDevice = Device::CPU;
    os << "device: cpu (" << info.reason << ")\n";
    return success();
  }
  selectedChip = chip.empty() ? info.chip : std::string(chip);
  std::string capability =
      "sm_" + std::to_string(info.major) + std::to_string(info.minor);
  if (selectedChip.empty()) {
    if (device == Device::CUDA)
      return fail("--device=cuda: the GPU lowering has no target for " +
                  info.name + " (" + capability +
                  "); it supports sm_90a and sm_100a (--chip)");
    selectedDevice = Device::CPU;
    os << "device: cpu (GPU " << info.name << " is " << capability
       << ", which the GPU lowering does not target)\n";
    return success();
  }
  selectedDevice = Device::CUDA;
  os << "device: cuda (" << info.name << ", " << capability << ", code for "
     << selectedChip << ")\n";
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAllPasses();
  mxfp8train::registerAllPasses();
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mxfp8-run: run a function of a tensor-level MLIR module on the CPU "
      "or a CUDA GPU, or compare it with its MXFP8 conversion (--compare)\n");

  if (printDevice)
    return failed(selectDevice()) ? 1 : 0;

  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mxfp8train::registerAllDialects(registry);
  mxfp8train::registerAllExtensions(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  AsmParserState asmState;
  OwningOpRef<ModuleOp> module = parseModule(sourceMgr, &context, asmState);
  if (!module)
    return 1;
  if (failed(verify(*module)))
    return 1;
  FailureOr<Signature> sig = getSignature(*module, asmState);
  if (failed(sig))
    return 1;

  if (failed(selectDevice()))
    return 1;
  llvm::outs() << "mxfp8-run: @" << sig->func.getSymName() << " from "
               << inputFilename << "\n";
  if (compareMode)
    return runCompare(*module, *sig);
  return failed(runPlain(*module, *sig)) ? 1 : 0;
}
