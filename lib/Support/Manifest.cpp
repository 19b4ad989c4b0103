//===- Manifest.cpp - AOT manifests of compiled functions -------*- C++ -*-===//
//
// Element kinds, and the line-oriented manifest text: a header line with the
// version, `key value` lines, one `func` line per function followed by its
// `arg` and `result` lines, and `end`. Fields are separated by spaces; text
// fields are percent-encoded so that they never contain spaces, and `-`
// stands for an empty one. Unknown keys are skipped, so later versions can
// add fields.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/Manifest.h"
#include "mxfp8train/Support/Float.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

using namespace mlir::mxfp8train;

static constexpr const char *kMagic = "mxfp8-aot-manifest";
static constexpr int kVersion = 1;

//===----------------------------------------------------------------------===//
// Element kinds
//===----------------------------------------------------------------------===//

namespace {
struct KindInfo {
  ElementKind kind;
  const char *name;
  int64_t size;
};
} // namespace

static const KindInfo kKinds[] = {
    {ElementKind::BF16, "bf16", 2},
    {ElementKind::F32, "f32", 4},
    {ElementKind::F64, "f64", 8},
    {ElementKind::F8E4M3FN, "f8E4M3FN", 1},
    {ElementKind::F8E5M2, "f8E5M2", 1},
    {ElementKind::F8E8M0FNU, "f8E8M0FNU", 1},
    {ElementKind::I32, "i32", 4},
    {ElementKind::I64, "i64", 8},
    {ElementKind::I1, "i1", 1},
    {ElementKind::I8, "i8", 1},
    {ElementKind::I16, "i16", 2},
    {ElementKind::F16, "f16", 2},
};

const char *mlir::mxfp8train::getElementKindName(ElementKind kind) {
  for (const KindInfo &info : kKinds)
    if (info.kind == kind)
      return info.name;
  return "?";
}

bool mlir::mxfp8train::parseElementKind(const std::string &text,
                                        ElementKind &kind) {
  for (const KindInfo &info : kKinds)
    if (text == info.name) {
      kind = info.kind;
      return true;
    }
  return false;
}

int64_t mlir::mxfp8train::getElementKindSize(ElementKind kind) {
  for (const KindInfo &info : kKinds)
    if (info.kind == kind)
      return info.size;
  return 0;
}

bool mlir::mxfp8train::isFloatKind(ElementKind kind) {
  switch (kind) {
  case ElementKind::I1:
  case ElementKind::I8:
  case ElementKind::I16:
  case ElementKind::I32:
  case ElementKind::I64:
    return false;
  default:
    return true;
  }
}

double mlir::mxfp8train::decodeElement(ElementKind kind, const uint8_t *data,
                                       int64_t i) {
  auto load = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, data + i * int64_t(sizeof(value)), sizeof(value));
    return value;
  };
  switch (kind) {
  case ElementKind::BF16:
    return convertBF16BitsToFloat(load(uint16_t()));
  case ElementKind::F32:
    return load(float());
  case ElementKind::F64:
    return load(double());
  case ElementKind::F8E4M3FN:
    return convertF8E4M3FNBitsToDouble(data[i]);
  case ElementKind::F8E5M2:
    return convertF8E5M2BitsToDouble(data[i]);
  case ElementKind::F8E8M0FNU:
    return convertF8E8M0FNUBitsToDouble(data[i]);
  case ElementKind::I32:
    return load(int32_t());
  case ElementKind::I64:
    return double(load(int64_t()));
  case ElementKind::I1:
    return data[i] ? 1.0 : 0.0;
  case ElementKind::I8:
    return load(int8_t());
  case ElementKind::I16:
    return load(int16_t());
  case ElementKind::F16:
    return convertF16BitsToDouble(load(uint16_t()));
  }
  return 0.0;
}

void mlir::mxfp8train::normalizeBooleans(ElementKind kind, uint8_t *data,
                                         size_t bytes) {
  if (kind != ElementKind::I1)
    return;
  for (size_t i = 0; i < bytes; ++i)
    data[i] = data[i] != 0;
}

const char *mlir::mxfp8train::getNpyDescrForKind(ElementKind kind,
                                                 bool bf16AsFloat32) {
  switch (kind) {
  case ElementKind::BF16:
    return bf16AsFloat32 ? "<f4" : "<u2";
  case ElementKind::F32:
    return "<f4";
  case ElementKind::F64:
    return "<f8";
  case ElementKind::F8E4M3FN:
  case ElementKind::F8E5M2:
  case ElementKind::F8E8M0FNU:
    return "|u1";
  case ElementKind::I32:
    return "<i4";
  case ElementKind::I64:
    return "<i8";
  case ElementKind::I1:
    return "|b1";
  case ElementKind::I8:
    return "|i1";
  case ElementKind::I16:
    return "<i2";
  case ElementKind::F16:
    return "<f2";
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Specs
//===----------------------------------------------------------------------===//

int64_t TensorSpec::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t TensorSpec::getNumBytes() const {
  return getNumElements() * getElementKindSize(kind);
}

std::string mlir::mxfp8train::formatTensorType(const int64_t *dims, size_t rank,
                                               ElementKind kind) {
  std::string text;
  for (size_t i = 0; i < rank; ++i)
    text += std::to_string(dims[i]) + "x";
  return text + getElementKindName(kind);
}

std::string TensorSpec::formatType() const {
  return formatTensorType(shape.data(), shape.size(), kind);
}

std::string
mlir::mxfp8train::getFunctionSignature(const FunctionSpec &function) {
  auto list = [](const std::vector<TensorSpec> &tensors) {
    std::string text = "(";
    for (size_t i = 0; i < tensors.size(); ++i)
      text += (i ? "," : "") + tensors[i].formatType();
    return text + ")";
  };
  return function.name + list(function.args) + "->" + list(function.results) +
         " abi=" + std::to_string(function.abiArgs);
}

std::string
mlir::mxfp8train::getSignatureSymbol(const std::string &functionName) {
  return "__mxfp8train_signature_" + functionName;
}

const FunctionSpec *Manifest::lookup(const std::string &name) const {
  for (const FunctionSpec &func : functions)
    if (func.name == name)
      return &func;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

/// Characters that stand for themselves in encoded fields.
static bool isPlainChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') ||
         std::strchr("_-.:/#+,@!*{}=[]()<>", c) != nullptr;
}

/// Percent-encodes `text`; "" becomes "-" and "-" becomes "%2D".
static std::string encode(const std::string &text) {
  if (text.empty())
    return "-";
  if (text == "-")
    return "%2D";
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    if (isPlainChar(c) && c != '\0') {
      out.push_back(c);
      continue;
    }
    auto byte = uint8_t(c);
    out.push_back('%');
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xF]);
  }
  return out;
}

static std::string toHex(const std::vector<uint8_t> &bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xF]);
  }
  return out;
}

/// A double that parses back to the same value.
static std::string formatDouble(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  return buffer;
}

std::string mlir::mxfp8train::printManifest(const Manifest &manifest) {
  std::ostringstream os;
  os << kMagic << " " << kVersion << "\n";
  os << "# Written by mxfp8-compile; read by mxfp8-launch (docs/aot.md).\n";
  os << "source " << encode(manifest.source) << "\n";
  os << "device " << encode(manifest.device) << "\n";
  os << "chip " << encode(manifest.chip) << "\n";
  os << "triple " << encode(manifest.triple) << "\n";
  os << "cpu " << encode(manifest.cpu) << "\n";
  os << "features " << encode(manifest.features) << "\n";
  os << "pipeline " << encode(manifest.pipeline) << "\n";
  os << "recipe " << encode(manifest.recipe) << "\n";
  os << "lowering " << encode(manifest.lowering) << "\n";
  for (const std::string &symbol : manifest.externs)
    os << "extern " << encode(symbol) << "\n";

  for (const FunctionSpec &func : manifest.functions) {
    os << "func " << encode(func.name);
    if (!func.unsupported.empty()) {
      os << " unsupported=" << encode(func.unsupported) << "\n";
      continue;
    }
    os << " args=" << func.args.size() << " results=" << func.results.size()
       << " abi=" << func.abiArgs;
    for (const GridSpec &grid : func.grids)
      os << " grid=" << encode(grid.name) << ":" << grid.size;
    os << "\n";
    for (size_t i = 0; i < func.args.size(); ++i) {
      const TensorSpec &arg = func.args[i];
      os << "  arg " << i << " " << encode(arg.name) << " " << arg.formatType();
      if (arg.hasStd)
        os << " std=" << formatDouble(arg.std);
      if (arg.hasValues)
        os << " values=" << (arg.valuesSplat ? "splat:" : "hex:")
           << toHex(arg.values);
      os << "\n";
    }
    for (size_t i = 0; i < func.results.size(); ++i) {
      const TensorSpec &result = func.results[i];
      os << "  result " << i << " " << encode(result.name) << " "
         << result.formatType();
      if (!result.role.empty())
        os << " role=" << encode(result.role);
      if (result.hasMinSqnr)
        os << " min_sqnr=" << formatDouble(result.minSqnr);
      if (result.hasBar)
        os << (result.barIsReference ? " reference_bar=" : " bar=")
           << formatDouble(result.bar);
      os << "\n";
    }
  }
  os << "end\n";
  return os.str();
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

static int hexDigit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static bool decode(const std::string &text, std::string &out) {
  out.clear();
  if (text == "-")
    return true;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size())
      return false;
    int hi = hexDigit(text[i + 1]), lo = hexDigit(text[i + 2]);
    if (hi < 0 || lo < 0)
      return false;
    out.push_back(char(hi * 16 + lo));
    i += 2;
  }
  return true;
}

static bool fromHex(const std::string &text, std::vector<uint8_t> &bytes) {
  if (text.size() % 2)
    return false;
  bytes.clear();
  for (size_t i = 0; i < text.size(); i += 2) {
    int hi = hexDigit(text[i]), lo = hexDigit(text[i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    bytes.push_back(uint8_t(hi * 16 + lo));
  }
  return true;
}

static bool parseInt(const std::string &text, int64_t &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno || *end)
    return false;
  value = v;
  return true;
}

static bool parseDouble(const std::string &text, double &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return *end == '\0';
}

/// Parses `64x128xbf16` / `f32`.
static bool parseTensorType(const std::string &text, TensorSpec &spec) {
  spec.shape.clear();
  size_t start = 0;
  while (true) {
    size_t x = text.find('x', start);
    if (x == std::string::npos)
      return parseElementKind(text.substr(start), spec.kind);
    int64_t dim;
    if (!parseInt(text.substr(start, x - start), dim) || dim < 0)
      return false;
    spec.shape.push_back(dim);
    start = x + 1;
  }
}

/// Whether the size in bytes of `spec` fits in int64 (what
/// TensorSpec::getNumBytes computes).
static bool hasInt64ByteSize(const TensorSpec &spec) {
  int64_t bytes = getElementKindSize(spec.kind);
  for (int64_t dim : spec.shape) {
    if (dim != 0 && bytes > std::numeric_limits<int64_t>::max() / dim)
      return false;
    bytes *= dim;
  }
  return true;
}

/// Splits `key=value`; false if there is no '='.
static bool splitKeyValue(const std::string &field, std::string &key,
                          std::string &value) {
  size_t eq = field.find('=');
  if (eq == std::string::npos)
    return false;
  key = field.substr(0, eq);
  value = field.substr(eq + 1);
  return true;
}

bool mlir::mxfp8train::parseManifest(const std::string &text,
                                     const std::string &name,
                                     Manifest &manifest, std::string &error) {
  std::istringstream lines(text);
  std::string line;
  int lineNumber = 0;
  bool sawHeader = false, sawEnd = false;
  Manifest result;
  // Every argument and result has a line of its own, so no count can be
  // larger than this (checked before the spec lists are sized).
  auto numLines = int64_t(std::count(text.begin(), text.end(), '\n')) + 1;
  auto fail = [&](const std::string &message) {
    error = name + ":" + std::to_string(lineNumber) + ": " + message;
    return false;
  };
  while (std::getline(lines, line)) {
    ++lineNumber;
    std::istringstream fieldStream(line);
    std::vector<std::string> fields;
    for (std::string field; fieldStream >> field;)
      fields.push_back(field);
    if (fields.empty() || fields[0][0] == '#')
      continue;
    if (sawEnd)
      return fail("text after 'end'");
    const std::string &key = fields[0];
    if (!sawHeader) {
      if (key != kMagic || fields.size() != 2)
        return fail("not an mxfp8-compile manifest (expected '" +
                    std::string(kMagic) + " " + std::to_string(kVersion) +
                    "' on the first line)");
      int64_t version;
      if (!parseInt(fields[1], version) || version < 1)
        return fail("bad manifest version '" + fields[1] + "'");
      if (version > kVersion)
        return fail("manifest version " + fields[1] +
                    " is newer than this program reads (" +
                    std::to_string(kVersion) + ")");
      result.version = int(version);
      sawHeader = true;
      continue;
    }
    if (key == "end") {
      sawEnd = true;
      continue;
    }
    if (key == "func") {
      if (fields.size() < 2)
        return fail("'func' needs a name");
      FunctionSpec func;
      if (!decode(fields[1], func.name) || func.name.empty())
        return fail("bad function name '" + fields[1] + "'");
      int64_t numArgs = -1, numResults = -1;
      for (size_t i = 2; i < fields.size(); ++i) {
        std::string k, v;
        if (!splitKeyValue(fields[i], k, v))
          return fail("expected key=value, found '" + fields[i] + "'");
        if (k == "args" && !parseInt(v, numArgs))
          return fail("bad args count '" + v + "'");
        if (k == "results" && !parseInt(v, numResults))
          return fail("bad results count '" + v + "'");
        if (k == "abi" && !parseInt(v, func.abiArgs))
          return fail("bad abi count '" + v + "'");
        if (k == "unsupported" && !decode(v, func.unsupported))
          return fail("bad unsupported text '" + v + "'");
        if (k == "grid") {
          GridSpec grid;
          size_t colon = v.rfind(':');
          if (colon == std::string::npos ||
              !decode(v.substr(0, colon), grid.name) ||
              !parseInt(v.substr(colon + 1), grid.size) || grid.size < 1)
            return fail("bad grid '" + v + "' (expected NAME:SIZE, SIZE >= 1)");
          func.grids.push_back(std::move(grid));
        }
      }
      if (func.unsupported.empty() && (numArgs < 0 || numResults < 0))
        return fail("function '" + func.name + "' needs args= and results=");
      if (func.unsupported.empty() &&
          (numArgs > numLines || numResults > numLines - numArgs))
        return fail("function '" + func.name + "' declares " +
                    std::to_string(numArgs) + " arguments and " +
                    std::to_string(numResults) +
                    " results, more than the manifest has lines");
      if (func.unsupported.empty()) {
        func.args.resize(size_t(numArgs));
        func.results.resize(size_t(numResults));
      }
      result.functions.push_back(std::move(func));
      continue;
    }
    if (key == "arg" || key == "result") {
      if (result.functions.empty() ||
          !result.functions.back().unsupported.empty())
        return fail("'" + key + "' outside a supported function");
      FunctionSpec &func = result.functions.back();
      bool isArg = key == "arg";
      std::vector<TensorSpec> &list = isArg ? func.args : func.results;
      int64_t index;
      if (fields.size() < 4 || !parseInt(fields[1], index))
        return fail("expected '" + key + " INDEX NAME TYPE [key=value...]'");
      if (index < 0 || size_t(index) >= list.size())
        return fail(key + " index " + fields[1] + " out of range for '" +
                    func.name + "'");
      TensorSpec spec;
      if (!decode(fields[2], spec.name))
        return fail("bad name '" + fields[2] + "'");
      if (!parseTensorType(fields[3], spec))
        return fail("bad tensor type '" + fields[3] +
                    "' (expected e.g. 64x128xbf16)");
      if (!hasInt64ByteSize(spec))
        return fail("tensor type '" + fields[3] +
                    "' has more bytes than int64 can count");
      for (size_t i = 4; i < fields.size(); ++i) {
        std::string k, v;
        if (!splitKeyValue(fields[i], k, v))
          return fail("expected key=value, found '" + fields[i] + "'");
        if (k == "std") {
          if (!parseDouble(v, spec.std))
            return fail("bad std '" + v + "'");
          spec.hasStd = true;
        } else if (k == "values") {
          std::string hex;
          if (v.rfind("splat:", 0) == 0) {
            spec.valuesSplat = true;
            hex = v.substr(6);
          } else if (v.rfind("hex:", 0) == 0) {
            hex = v.substr(4);
          } else {
            return fail("values= must start with hex: or splat:");
          }
          if (!fromHex(hex, spec.values))
            return fail("bad hex in values=");
          int64_t want = spec.valuesSplat ? getElementKindSize(spec.kind)
                                          : spec.getNumBytes();
          if (int64_t(spec.values.size()) != want)
            return fail("values= has " + std::to_string(spec.values.size()) +
                        " bytes, " + spec.formatType() + " needs " +
                        std::to_string(want));
          spec.hasValues = true;
        } else if (k == "role") {
          if (!decode(v, spec.role))
            return fail("bad role '" + v + "'");
        } else if (k == "min_sqnr") {
          if (!parseDouble(v, spec.minSqnr))
            return fail("bad min_sqnr '" + v + "'");
          spec.hasMinSqnr = true;
        } else if (k == "bar" || k == "reference_bar") {
          if (!parseDouble(v, spec.bar))
            return fail("bad " + k + " '" + v + "'");
          spec.hasBar = true;
          spec.barIsReference = k == "reference_bar";
        }
      }
      list[size_t(index)] = std::move(spec);
      continue;
    }
    if (fields.size() > 2)
      return fail("expected 'KEY VALUE', found " +
                  std::to_string(fields.size()) + " fields");
    std::string value;
    if (fields.size() == 2 && !decode(fields[1], value))
      return fail("bad value '" + fields[1] + "'");
    if (key == "source")
      result.source = value;
    else if (key == "device")
      result.device = value;
    else if (key == "chip")
      result.chip = value;
    else if (key == "triple")
      result.triple = value;
    else if (key == "cpu")
      result.cpu = value;
    else if (key == "features")
      result.features = value;
    else if (key == "pipeline")
      result.pipeline = value;
    else if (key == "recipe")
      result.recipe = value;
    else if (key == "lowering")
      result.lowering = value;
    else if (key == "extern")
      result.externs.push_back(value);
    // Other keys: written by a later mxfp8-compile; skipped.
  }
  if (!sawHeader)
    return fail("empty file; not an mxfp8-compile manifest");
  if (!sawEnd)
    return fail("no 'end' line (truncated manifest?)");
  for (const FunctionSpec &func : result.functions) {
    if (!func.unsupported.empty())
      continue;
    for (const TensorSpec &spec : func.args)
      if (spec.name.empty())
        return fail("function '" + func.name + "' lacks an 'arg' line");
    for (const TensorSpec &spec : func.results)
      if (spec.name.empty())
        return fail("function '" + func.name + "' lacks a 'result' line");
  }
  manifest = std::move(result);
  return true;
}

bool mlir::mxfp8train::readManifestFile(const std::string &path,
                                        Manifest &manifest,
                                        std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  return parseManifest(contents.str(), path, manifest, error);
}
