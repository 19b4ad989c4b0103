//===- CPURunner.cpp - run mxfp8train modules on the CPU -----------*- C++
//-*-===//
//
// Lowers a clone of a tensor-level module with the CPU pipeline, JITs it with
// mlir::ExecutionEngine and calls `_mlir_ciface_<name>` with one memref
// descriptor per input and per output (outputs are caller-allocated
// out-parameters, see buildMXFP8TrainCPUPipeline).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/ExecutionEngine/CPURunner.h"
#include "mxfp8train/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mxfp8train/InitAll.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::mxfp8train;

int64_t mlir::mxfp8train::getHostElementSize(HostElementType type) {
  switch (type) {
  case HostElementType::BF16:
    return 2;
  case HostElementType::F32:
  case HostElementType::I32:
    return 4;
  case HostElementType::F64:
  case HostElementType::I64:
    return 8;
  case HostElementType::F8E4M3FN:
  case HostElementType::F8E5M2:
  case HostElementType::F8E8M0FNU:
    return 1;
  }
  llvm_unreachable("unknown host element type");
}

llvm::Expected<HostElementType> mlir::mxfp8train::getHostElementType(Type t) {
  if (t.isBF16())
    return HostElementType::BF16;
  if (t.isF32())
    return HostElementType::F32;
  if (t.isF64())
    return HostElementType::F64;
  if (isa<Float8E4M3FNType>(t))
    return HostElementType::F8E4M3FN;
  if (isa<Float8E5M2Type>(t))
    return HostElementType::F8E5M2;
  if (isa<Float8E8M0FNUType>(t))
    return HostElementType::F8E8M0FNU;
  if (t.isSignlessInteger(32))
    return HostElementType::I32;
  if (t.isSignlessInteger(64) || t.isIndex())
    return HostElementType::I64;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "element type " << t << " is not supported on the host side";
  return llvm::createStringError(s);
}

HostTensor::HostTensor(HostElementType type, ArrayRef<int64_t> shape)
    : type(type), shape(shape) {
  bytes.assign(getNumElements() * getHostElementSize(type), 0);
}

int64_t HostTensor::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Decodes an fp8 byte with `mbits` mantissa bits and exponent `bias`;
/// `e4m3fn` has no infinities and NaN only at S.1111.111.
static double decodeFp8(uint8_t b, int mbits, int bias, bool e4m3fn) {
  int ebits = 7 - mbits;
  double sign = (b & 0x80) ? -1.0 : 1.0;
  int e = (b >> mbits) & ((1 << ebits) - 1);
  int m = b & ((1 << mbits) - 1);
  if (e4m3fn && e == 15 && m == 7)
    return NAN;
  if (!e4m3fn && e == (1 << ebits) - 1)
    return m ? NAN : sign * INFINITY;
  if (e == 0)
    return sign * std::ldexp(m, 1 - bias - mbits);
  return sign * std::ldexp((1 << mbits) + m, e - bias - mbits);
}

double HostTensor::getAsDouble(int64_t i) const {
  switch (type) {
  case HostElementType::BF16: {
    uint32_t bits = uint32_t(data<uint16_t>()[i]) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case HostElementType::F32:
    return data<float>()[i];
  case HostElementType::F64:
    return data<double>()[i];
  case HostElementType::F8E4M3FN:
    return decodeFp8(data<uint8_t>()[i], 3, 7, true);
  case HostElementType::F8E5M2:
    return decodeFp8(data<uint8_t>()[i], 2, 15, false);
  case HostElementType::F8E8M0FNU: {
    uint8_t b = data<uint8_t>()[i];
    return b == 255 ? NAN : std::ldexp(1.0, int(b) - 127);
  }
  case HostElementType::I32:
    return data<int32_t>()[i];
  case HostElementType::I64:
    return double(data<int64_t>()[i]);
  }
  llvm_unreachable("unknown host element type");
}

struct CPUExecutable::Impl {
  /// A private context: the lowering must not depend on which dialects the
  /// caller's context happens to have loaded.
  std::unique_ptr<MLIRContext> context;
  /// Tensor-level signatures of the public functions, by name.
  llvm::StringMap<FunctionType> signatures;
  std::unique_ptr<ExecutionEngine> engine;
};

CPUExecutable::CPUExecutable() : impl(std::make_unique<Impl>()) {}
CPUExecutable::~CPUExecutable() = default;

/// Collects the diagnostics of `context` while alive, as one string.
namespace {
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          os << diag.getLocation() << ": " << diag << "\n";
          for (Diagnostic &note : diag.getNotes())
            os << "  note: " << note << "\n";
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};
} // namespace

llvm::Expected<std::unique_ptr<CPUExecutable>>
CPUExecutable::compile(ModuleOp module, bool vectorize) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;

  std::unique_ptr<CPUExecutable> exe(new CPUExecutable());
  {
    DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    mxfp8train::registerAllDialects(registry);
    mxfp8train::registerAllExtensions(registry);
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    exe->impl->context = std::make_unique<MLIRContext>(registry);
  }
  MLIRContext *ctx = exe->impl->context.get();
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                           func.getResultTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape())
        return llvm::createStringError(
            "function '" + func.getName().str() +
            "': the CPU runner needs statically shaped ranked tensor "
            "arguments and results");
      if (auto err = getHostElementType(tensor.getElementType()).takeError())
        return std::move(err);
    }
    exe->impl->signatures[func.getName()] = func.getFunctionType();
  }

  // Move the module into the private context through its textual form.
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().printGenericOpForm());
  }
  DiagnosticCollector diags(ctx);
  OwningOpRef<ModuleOp> lowered = parseSourceString<ModuleOp>(text, ctx);
  if (!lowered)
    return llvm::createStringError("could not re-parse the module:\n" +
                                   diags.text);
  // Argument and result attributes are discardable annotations of the
  // tensor-level function (roles, input generators); the LLVM translation
  // would reject them as parameter attributes.
  lowered->walk([](func::FuncOp func) {
    func.removeArgAttrsAttr();
    func.removeResAttrsAttr();
  });
  PassManager pm(ctx);
  CPUPipelineOptions options;
  options.vectorize = vectorize;
  buildMXFP8TrainCPUPipeline(pm, options);
  if (failed(pm.run(*lowered)))
    return llvm::createStringError("lowering for the CPU failed:\n" +
                                   diags.text);

  // MXFP8TRAIN_DUMP_LOWERED=1 prints the LLVM-dialect module that is JITed.
  if (const char *dump = std::getenv("MXFP8TRAIN_DUMP_LOWERED");
      dump && StringRef(dump) == "1")
    lowered->print(llvm::errs());

  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(/*optLevel=*/3,
                                               /*sizeLevel=*/0, nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(*lowered, engineOptions);
  if (!engine)
    return llvm::joinErrors(
        llvm::createStringError("JIT compilation failed: " + diags.text),
        engine.takeError());
  exe->impl->engine = std::move(*engine);
  return exe;
}

llvm::Expected<FunctionType>
CPUExecutable::getFunctionType(StringRef name) const {
  auto it = impl->signatures.find(name);
  if (it == impl->signatures.end())
    return llvm::createStringError("no public function named '" + name.str() +
                                   "' with a body in the module");
  return it->second;
}

/// Storage of one memref descriptor: allocated and aligned pointers, offset,
/// sizes and strides (all 8 bytes wide on 64-bit hosts).
namespace {
struct Descriptor {
  std::vector<int64_t> words;
  void *ptr() { return words.data(); }
};
} // namespace

static Descriptor makeDescriptor(void *data, ArrayRef<int64_t> shape) {
  static_assert(sizeof(void *) == sizeof(int64_t), "64-bit hosts only");
  Descriptor d;
  d.words.resize(3 + 2 * shape.size());
  d.words[0] = reinterpret_cast<int64_t>(data);
  d.words[1] = reinterpret_cast<int64_t>(data);
  d.words[2] = 0;
  int64_t stride = 1;
  for (int64_t i = int64_t(shape.size()) - 1; i >= 0; --i) {
    d.words[3 + i] = shape[i];
    d.words[3 + shape.size() + i] = stride;
    stride *= shape[i];
  }
  return d;
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

llvm::Expected<std::vector<HostTensor>>
CPUExecutable::run(StringRef name, ArrayRef<HostTensor> inputs) const {
  llvm::Expected<FunctionType> type = getFunctionType(name);
  if (!type)
    return type.takeError();
  if (inputs.size() != type->getNumInputs())
    return llvm::createStringError("function '" + name.str() + "' takes " +
                                   std::to_string(type->getNumInputs()) +
                                   " arguments, " +
                                   std::to_string(inputs.size()) + " given");
  // Inputs are passed by descriptor; the callee must not write them, but
  // copy anyway so that a const input can never be modified.
  std::vector<HostTensor> args(inputs.begin(), inputs.end());
  for (auto [i, t] : llvm::enumerate(type->getInputs())) {
    auto tensor = cast<RankedTensorType>(t);
    HostElementType want = *getHostElementType(tensor.getElementType());
    if (args[i].type != want || ArrayRef(args[i].shape) != tensor.getShape())
      return llvm::createStringError(
          "argument " + std::to_string(i) + " of '" + name.str() +
          "' must be " + formatShape(tensor.getShape()) +
          " of the right element type, given " + formatShape(args[i].shape));
  }
  std::vector<HostTensor> results;
  for (Type t : type->getResults()) {
    auto tensor = cast<RankedTensorType>(t);
    results.emplace_back(*getHostElementType(tensor.getElementType()),
                         tensor.getShape());
  }
  std::vector<Descriptor> descriptors;
  for (HostTensor &t : args)
    descriptors.push_back(makeDescriptor(t.bytes.data(), t.shape));
  for (HostTensor &t : results)
    descriptors.push_back(makeDescriptor(t.bytes.data(), t.shape));
  std::vector<void *> pointers;
  for (Descriptor &d : descriptors)
    pointers.push_back(d.ptr());
  std::vector<void *> packed;
  for (void *&p : pointers)
    packed.push_back(&p);
  if (llvm::Error err =
          impl->engine->invokePacked("_mlir_ciface_" + name.str(), packed))
    return std::move(err);
  return results;
}
