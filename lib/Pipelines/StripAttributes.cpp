//===- StripAttributes.cpp - mxfp8train-strip-attributes ------------------===//
//
// The last pass of the lowering pipelines: the lowered module keeps no
// attribute of ours, so that tools without the mxfp8train dialect read it
// (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINSTRIPATTRIBUTESPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;

namespace {

/// Named `mxfp8train.<name>`, or any name with a value of our dialect
/// (`my.recipe = #mxfp8train.recipe<...>`).
bool isOurs(NamedAttribute attr) {
  return attr.getName().getValue().starts_with("mxfp8train.") ||
         attr.getValue().getDialect().getNamespace() == "mxfp8train";
}

/// `attrs` without our attributes, or null when nothing changes.
DictionaryAttr withoutOurs(DictionaryAttr attrs) {
  if (!attrs || llvm::none_of(attrs, isOurs))
    return nullptr;
  SmallVector<NamedAttribute> kept;
  llvm::copy_if(attrs, std::back_inserter(kept),
                [](NamedAttribute a) { return !isOurs(a); });
  return DictionaryAttr::get(attrs.getContext(), kept);
}

struct StripAttributesPass final
    : mxfp8train::impl::MXFP8TrainStripAttributesPassBase<StripAttributesPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (DictionaryAttr kept = withoutOurs(op->getDiscardableAttrDictionary()))
        op->setDiscardableAttrs(kept);
      auto function = dyn_cast<FunctionOpInterface>(op);
      if (!function)
        return;
      for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
        if (DictionaryAttr kept = withoutOurs(function.getArgAttrDict(i)))
          function.setArgAttrs(i, kept);
      for (unsigned i = 0, e = function.getNumResults(); i < e; ++i)
        if (DictionaryAttr kept = withoutOurs(function.getResultAttrDict(i)))
          function.setResultAttrs(i, kept);
    });
  }
};

} // namespace
