//===- MXFP8TrainAttrs.cpp - mxfp8train attributes --------------*- C++ -*-===//
//
// Enums, the recipe attribute (its custom syntax, named torchao recipes and
// verifier), the GEMM configuration's verifier and scale-layout size
// helpers.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::mxfp8train;

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainEnums.cpp.inc"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainRecipeInterface.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.cpp.inc"

void MXFP8TrainDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.cpp.inc"
      >();
}

/// `ceil(x / m) * m` for x >= 0, or nullopt when it overflows int64.
static std::optional<int64_t> roundUpChecked(int64_t x, int64_t m) {
  std::optional<int64_t> biased = llvm::checkedAdd(x, m - 1);
  if (!biased)
    return std::nullopt;
  return *biased / m * m;
}

/// `a * b` of two checked sizes, or nullopt when either is missing or the
/// product overflows int64.
static std::optional<int64_t> mulChecked(std::optional<int64_t> a,
                                         std::optional<int64_t> b) {
  if (!a || !b)
    return std::nullopt;
  return llvm::checkedMul(*a, *b);
}

/// `a + b` of two checked sizes, as mulChecked.
static std::optional<int64_t> addChecked(std::optional<int64_t> a,
                                         std::optional<int64_t> b) {
  if (!a || !b)
    return std::nullopt;
  return llvm::checkedAdd(*a, *b);
}

std::optional<int64_t> mlir::mxfp8train::getBlockedScaleSize(int64_t rows,
                                                             int64_t cols) {
  return mulChecked(roundUpChecked(rows, 128), roundUpChecked(cols, 4));
}

std::optional<int64_t>
mlir::mxfp8train::getBlockedMGroupsScaleSize(int64_t rows, int64_t cols,
                                             int64_t groups) {
  return mulChecked(addChecked(rows, llvm::checkedMul<int64_t>(128, groups)),
                    roundUpChecked(cols, 4));
}

std::optional<int64_t>
mlir::mxfp8train::getBlockedKGroupsScaleSize(int64_t rows, int64_t cols,
                                             int64_t groups) {
  return mulChecked(roundUpChecked(rows, 128),
                    addChecked(cols, llvm::checkedMul<int64_t>(4, groups)));
}

std::optional<int64_t>
mlir::mxfp8train::getPaddedTokenCount(int64_t tokens, int64_t groups,
                                      int64_t alignment) {
  std::optional<int64_t> sum =
      addChecked(tokens, llvm::checkedMul(alignment, groups));
  return sum ? roundUpChecked(*sum, alignment) : std::nullopt;
}

std::optional<int64_t> mlir::mxfp8train::getTensorByteSize(ShapedType type) {
  Type elemType = type.getElementType();
  int64_t elemBytes =
      elemType.isIntOrFloat()
          ? llvm::divideCeil(elemType.getIntOrFloatBitWidth(), 8)
          : 8;
  if (llvm::is_contained(type.getShape(), 0))
    return 0;
  std::optional<int64_t> bytes = elemBytes;
  for (int64_t size : type.getShape())
    if (!ShapedType::isDynamic(size))
      bytes = mulChecked(bytes, size);
  return bytes;
}

//===----------------------------------------------------------------------===//
// RecipeAttr
//===----------------------------------------------------------------------===//

namespace {
/// The editable fields of a recipe, with torchao's defaults.
struct RecipeFields {
  Type elemType;
  ScaleMode scaleMode = ScaleMode::Rceil;
  bool wgradWithHp = false;
  Type outDtype;
  bool padTokenGroups = false;
  int64_t tokenGroupAlignment = 32;
  KernelPreference kernelPreference = KernelPreference::Auto;

  explicit RecipeFields(MLIRContext *ctx)
      : elemType(Float8E4M3FNType::get(ctx)), outDtype(BFloat16Type::get(ctx)) {
  }
  explicit RecipeFields(RecipeAttr a)
      : elemType(a.getElemType()), scaleMode(a.getScaleMode()),
        wgradWithHp(a.getWgradWithHp()), outDtype(a.getOutDtype()),
        padTokenGroups(a.getPadTokenGroups()),
        tokenGroupAlignment(a.getTokenGroupAlignment()),
        kernelPreference(a.getKernelPreference()) {}

  RecipeAttr get(MLIRContext *ctx) const {
    return RecipeAttr::get(ctx, elemType, scaleMode, wgradWithHp, outDtype,
                           padTokenGroups, tokenGroupAlignment,
                           kernelPreference);
  }
};
} // namespace

/// The named recipes of torchao `MXFP8TrainingRecipe` (SPEC §5.1).
static constexpr llvm::StringLiteral kRecipeNames[] = {
    "mxfp8_rceil", "mxfp8_rceil_wgrad_with_hp", "mxfp8_emulated_rceil"};

RecipeAttr RecipeAttr::getDefault(MLIRContext *context) {
  return RecipeFields(context).get(context);
}

RecipeAttr RecipeAttr::getNamed(MLIRContext *context, StringRef name) {
  RecipeFields f(context);
  if (name == "mxfp8_rceil_wgrad_with_hp")
    f.wgradWithHp = true;
  else if (name == "mxfp8_emulated_rceil")
    f.kernelPreference = KernelPreference::Emulated;
  else if (name != "mxfp8_rceil")
    return {};
  return f.get(context);
}

StringRef RecipeAttr::getRecipeName() const {
  for (StringRef name : kRecipeNames)
    if (getNamed(getContext(), name) == *this)
      return name;
  return "";
}

LogicalResult RecipeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 Type elemType, ScaleMode scaleMode,
                                 bool wgradWithHp, Type outDtype,
                                 bool padTokenGroups,
                                 int64_t tokenGroupAlignment,
                                 KernelPreference kernelPreference) {
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(elemType))
    return emitError() << "recipe elem_type must be f8E4M3FN or f8E5M2, found "
                       << elemType;
  if (!isa<BFloat16Type, Float32Type>(outDtype))
    return emitError() << "recipe out_dtype must be bf16 or f32, found "
                       << outDtype;
  if (tokenGroupAlignment != 32 && tokenGroupAlignment != 128)
    return emitError() << "recipe token_group_alignment must be 32 or 128, "
                          "found "
                       << tokenGroupAlignment;
  return success();
}

/// Parses `true` or `false`.
static ParseResult parseBool(AsmParser &parser, bool &value) {
  StringRef word;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&word))
    return failure();
  if (word != "true" && word != "false")
    return parser.emitError(loc, "expected 'true' or 'false', found '")
           << word << "'";
  value = word == "true";
  return success();
}

FailureOr<bool> mlir::mxfp8train::parseBoolParameter(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (failed(parser.parseOptionalKeyword(&word)) ||
      (word != "true" && word != "false"))
    return parser.emitError(loc, "expected 'true' or 'false'");
  return word == "true";
}

Attribute RecipeAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  RecipeFields f(ctx);
  if (parser.parseLess())
    return {};
  if (succeeded(parser.parseOptionalGreater()))
    return f.get(ctx);
  bool first = true;
  llvm::StringSet<> seen;
  do {
    SMLoc loc = parser.getCurrentLocation();
    std::string key;
    if (parser.parseKeywordOrString(&key))
      return {};
    if (succeeded(parser.parseOptionalEqual())) {
      // A field given twice would silently keep the last value.
      if (!seen.insert(key).second) {
        parser.emitError(loc, "recipe field '") << key << "' is given twice";
        return {};
      }
      if (key == "elem_type") {
        if (parser.parseType(f.elemType))
          return {};
      } else if (key == "out_dtype") {
        if (parser.parseType(f.outDtype))
          return {};
      } else if (key == "scale_calculation_mode") {
        StringRef word;
        SMLoc wloc = parser.getCurrentLocation();
        if (parser.parseKeyword(&word))
          return {};
        std::optional<ScaleMode> mode = symbolizeScaleMode(word);
        if (!mode) {
          parser.emitError(wloc, "expected floor, rceil, ceil or even, found '")
              << word << "'";
          return {};
        }
        f.scaleMode = *mode;
      } else if (key == "kernel_preference") {
        StringRef word;
        SMLoc wloc = parser.getCurrentLocation();
        if (parser.parseKeyword(&word))
          return {};
        std::optional<KernelPreference> pref = symbolizeKernelPreference(word);
        if (!pref) {
          parser.emitError(wloc, "expected auto or emulated, found '")
              << word << "'";
          return {};
        }
        f.kernelPreference = *pref;
      } else if (key == "wgrad_with_hp") {
        if (parseBool(parser, f.wgradWithHp))
          return {};
      } else if (key == "pad_token_groups") {
        if (parseBool(parser, f.padTokenGroups))
          return {};
      } else if (key == "token_group_alignment") {
        if (parser.parseInteger(f.tokenGroupAlignment))
          return {};
      } else {
        parser.emitError(loc, "unknown recipe field '") << key << "'";
        return {};
      }
    } else {
      RecipeAttr named = first ? getNamed(ctx, key) : RecipeAttr();
      if (!named) {
        parser.emitError(loc, "expected a recipe field or one of the named "
                              "recipes mxfp8_rceil, mxfp8_rceil_wgrad_with_hp, "
                              "mxfp8_emulated_rceil (first), found '")
            << key << "'";
        return {};
      }
      f = RecipeFields(named);
    }
    first = false;
  } while (succeeded(parser.parseOptionalComma()));
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); }, ctx,
                    f.elemType, f.scaleMode, f.wgradWithHp, f.outDtype,
                    f.padTokenGroups, f.tokenGroupAlignment,
                    f.kernelPreference);
}

void RecipeAttr::print(AsmPrinter &printer) const {
  printer << "<";
  StringRef name = getRecipeName();
  if (!name.empty()) {
    printer << name << ">";
    return;
  }
  RecipeFields d(getContext());
  SmallVector<std::string> items;
  auto add = [&](StringRef key, auto &&printValue) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << key << " = ";
    printValue(os);
    items.push_back(s);
  };
  if (getElemType() != d.elemType)
    add("elem_type", [&](raw_ostream &os) { os << getElemType(); });
  if (getScaleMode() != d.scaleMode)
    add("scale_calculation_mode",
        [&](raw_ostream &os) { os << stringifyScaleMode(getScaleMode()); });
  if (getWgradWithHp() != d.wgradWithHp)
    add("wgrad_with_hp",
        [&](raw_ostream &os) { os << (getWgradWithHp() ? "true" : "false"); });
  if (getOutDtype() != d.outDtype)
    add("out_dtype", [&](raw_ostream &os) { os << getOutDtype(); });
  if (getPadTokenGroups() != d.padTokenGroups)
    add("pad_token_groups", [&](raw_ostream &os) {
      os << (getPadTokenGroups() ? "true" : "false");
    });
  if (getTokenGroupAlignment() != d.tokenGroupAlignment)
    add("token_group_alignment",
        [&](raw_ostream &os) { os << getTokenGroupAlignment(); });
  if (getKernelPreference() != d.kernelPreference)
    add("kernel_preference", [&](raw_ostream &os) {
      os << stringifyKernelPreference(getKernelPreference());
    });
  llvm::interleaveComma(items, printer);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// GemmConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult GemmConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, GemmKernel kernel,
    std::optional<int64_t> stages, std::optional<int64_t> tileN,
    std::optional<int64_t> dequantCtas, std::optional<int64_t> prefetch,
    std::optional<int64_t> ctasPerSm, bool rebalance,
    std::optional<int64_t> converters, std::optional<int64_t> ctaGroup,
    std::optional<int64_t> clusterM) {
  bool dequant = kernel == GemmKernel::DequantBF16;
  auto onlyDequant = [&](StringRef field) {
    return emitError() << "gemm_config " << field
                       << " applies to kernel = dequant_bf16 only, found "
                          "kernel = "
                       << stringifyGemmKernel(kernel);
  };
  auto inRange = [&](StringRef field, std::optional<int64_t> value, int64_t lo,
                     int64_t hi) -> LogicalResult {
    if (!value || (*value >= lo && *value <= hi))
      return success();
    return emitError() << "gemm_config " << field << " must be in [" << lo
                       << ", " << hi << "], found " << *value;
  };
  if (tileN && !dequant)
    return onlyDequant("tile_n");
  if (dequantCtas && !dequant)
    return onlyDequant("dequant_ctas");
  if (clusterM && !dequant)
    return onlyDequant("cluster_m");
  // The fused upcast without warp specialisation has three stages and no
  // converter warpgroups.
  if (kernel == GemmKernel::FusedUpcast && (stages || converters))
    return emitError() << "gemm_config " << (stages ? "stages" : "converters")
                       << " does not apply to kernel = fused_upcast";
  if (tileN && *tileN != 128 && *tileN != 256)
    return emitError() << "gemm_config tile_n must be 128 or 256, found "
                       << *tileN;
  if (failed(inRange("stages", stages, 2, 6)))
    return failure();
  // 128x256 tiles take 48 KiB per stage: five do not fit in shared memory.
  if (dequant && tileN.value_or(256) == 256 && stages && *stages > 4)
    return emitError() << "gemm_config stages must be at most 4 with "
                          "kernel = dequant_bf16 and tile_n = 256, found "
                       << *stages;
  if (dequantCtas && *dequantCtas < 0)
    return emitError() << "gemm_config dequant_ctas must be >= 0 (0: no "
                          "cap), found "
                       << *dequantCtas;
  if (failed(inRange("prefetch", prefetch, 1, 4)) ||
      failed(inRange("ctas_per_sm", ctasPerSm, 1, 2)) ||
      failed(inRange("converters", converters, 1, 2)) ||
      failed(inRange("cta_group", ctaGroup, 1, 2)) ||
      failed(inRange("cluster_m", clusterM, 1, 2)))
    return failure();
  return success();
}
