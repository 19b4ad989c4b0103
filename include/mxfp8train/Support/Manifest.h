//===- Manifest.h - AOT manifests of compiled functions ---------*- C++ -*-===//
//
// mxfp8-compile writes, next to each object file, a manifest: the public
// functions of the module with their tensor-level argument and result types,
// names, roles and input-generation attributes (`mxfp8run.std`,
// `mxfp8run.values`), and how the object was built. mxfp8-launch reads it to
// build memref descriptors, generate inputs and name outputs without MLIR.
// Standard C++ only. The text format is described in docs/aot.md.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_MANIFEST_H
#define MXFP8TRAIN_SUPPORT_MANIFEST_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::mxfp8train {

/// Element types a host buffer can hold (the CPU runner's HostElementType
/// is this type). Storage: bf16 and f16 as their uint16 bits, fp8 and e8m0
/// as uint8 bits, i1 as one byte (0 or 1, as the lowerings store it and as
/// numpy's bool), the rest as their C type. The values are the C API's
/// MXFP8TrainElementKind: new kinds are appended.
enum class ElementKind {
  BF16,
  F32,
  F64,
  F8E4M3FN,
  F8E5M2,
  F8E8M0FNU,
  I32,
  I64,
  I1,
  I8,
  I16,
  F16
};

/// The MLIR spelling of `kind`: `bf16`, `f32`, `f8E4M3FN`, `i32`, ...
const char *getElementKindName(ElementKind kind);

/// `64x128xbf16` (`f32` for rank 0): the tensor type of `rank` dimensions
/// `dims` and elements `kind`, as manifests and messages print it.
std::string formatTensorType(const int64_t *dims, size_t rank,
                             ElementKind kind);

/// Parses an MLIR element type spelling; false if it is not supported.
bool parseElementKind(const std::string &text, ElementKind &kind);

/// Size in bytes of one element.
int64_t getElementKindSize(ElementKind kind);

/// True for the floating-point kinds (bf16, f16, f32, f64, fp8, e8m0).
bool isFloatKind(ElementKind kind);

/// Element `i` of `data` as a double (bf16, f16, f32, f64, fp8 decoded; e8m0
/// as 2^(b-127); integers as values, i1 as 0 or 1).
double decodeElement(ElementKind kind, const uint8_t *data, int64_t i);

/// Makes the `bytes` bytes of i1 elements at `data` 0 or 1 (numpy's truth:
/// any nonzero byte is true); nothing for other kinds. The compiled code
/// reads an i1 element as the byte's lowest bit, so a byte of 2 would be
/// false there and true in numpy.
void normalizeBooleans(ElementKind kind, uint8_t *data, size_t bytes);

/// The .npy descriptor a tensor of `kind` is written with (bf16 as `<u2`
/// bits, or `<f4` when `bf16AsFloat32`; fp8 and e8m0 as `|u1` bits; i1 as
/// `|b1`), as mxfp8-run writes them.
const char *getNpyDescrForKind(ElementKind kind, bool bf16AsFloat32);

/// One tensor argument or result of a compiled function.
struct TensorSpec {
  /// The name mxfp8-run uses (SSA name, `mxfp8run.name`, `arg<i>`,
  /// `result<i>`).
  std::string name;
  ElementKind kind = ElementKind::F32;
  std::vector<int64_t> shape;
  /// `mxfp8run.std` of an argument.
  bool hasStd = false;
  double std = 1.0;
  /// `mxfp8run.values` of an argument: the raw little-endian element bytes,
  /// one element when `valuesSplat`.
  bool hasValues = false;
  bool valuesSplat = false;
  std::vector<uint8_t> values;
  /// `mxfp8train.role` of a result, or "".
  std::string role;
  /// `mxfp8run.min_sqnr` of a result.
  bool hasMinSqnr = false;
  double minSqnr = 0.0;
  /// torchao's SQNR bar (dB) of a result under the module's recipe
  /// (Runner/Bars.h): a training role of a converted step, or a converted
  /// matmul of a per-matmul probe. `barIsReference`: the result depends on
  /// several quantized GEMMs, so the bar is shown, not checked.
  bool hasBar = false;
  double bar = 0.0;
  bool barIsReference = false;

  /// Product of the shape (1 for rank 0).
  int64_t getNumElements() const;
  /// Bytes of the dense row-major tensor.
  int64_t getNumBytes() const;
  /// `64x128xbf16` (`f32` for rank 0).
  std::string formatType() const;
};

/// A `shard.grid` a function's collectives run on, with its number of
/// processes (static shapes only).
struct GridSpec {
  std::string name;
  int64_t size = 1;
};

/// One public function of a compiled module.
struct FunctionSpec {
  std::string name;
  std::vector<TensorSpec> args, results;
  /// The grids its ops (and those of the functions it calls) name: an SPMD
  /// program's collectives need a communicator of that size bound to each
  /// rank's thread (mxfp8-launch --comm checks it).
  std::vector<GridSpec> grids;
  /// Number of pointer parameters of `_mlir_ciface_<name>` in the lowered
  /// module (one memref descriptor per argument and per result), or -1 when
  /// the function has no C interface.
  int64_t abiArgs = -1;
  /// Why the function cannot be called through the manifest ("" if it can):
  /// non-tensor or dynamically shaped arguments, unsupported element types.
  std::string unsupported;
};

/// Everything mxfp8-compile records about one object file.
struct Manifest {
  /// Format version (currently 1).
  int version = 1;
  /// The input module, the device (`cpu` or `cuda`), the GPU chip
  /// (`sm_90a`, "" for cpu), the host target triple, CPU and features.
  std::string source, device, chip, triple, cpu, features;
  /// The pre-pipeline (`--pipeline`) and the lowering pipeline.
  std::string pipeline, lowering;
  /// The training recipe the module was converted with (its
  /// `mxfp8train.recipe` after the pre-pipeline, or the `--per-matmul`
  /// recipe) as MLIR prints it, or "": the source of the results' bars.
  std::string recipe;
  /// Undefined symbols the object needs at link time.
  std::vector<std::string> externs;

  std::vector<FunctionSpec> functions;

  /// The function named `name`, or null.
  const FunctionSpec *lookup(const std::string &name) const;
};

/// What a library and its manifest must agree on about `function`, as text:
/// `name(16x64xbf16,32x64xbf16)->(16x32xf32) abi=3`. mxfp8-compile stores it
/// in the object as the string constant getSignatureSymbol(name), and
/// mxfp8-launch compares it with the manifest before calling (a manifest
/// that is not the library's would make it read and write past buffers).
std::string getFunctionSignature(const FunctionSpec &function);

/// `__mxfp8train_signature_<name>`.
std::string getSignatureSymbol(const std::string &functionName);

/// The manifest as text (see docs/aot.md).
std::string printManifest(const Manifest &manifest);

/// Parses a manifest; on failure returns false with `error` naming `name`
/// and the line.
bool parseManifest(const std::string &text, const std::string &name,
                   Manifest &manifest, std::string &error);

/// Reads and parses the manifest file at `path`.
bool readManifestFile(const std::string &path, Manifest &manifest,
                      std::string &error);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_MANIFEST_H
