//===- CheckBufferSizes.cpp - mxfp8train-check-buffer-sizes -----*- C++ -*-===//
//
// Statically sized buffers above a byte limit are errors at their op: the
// CPU JIT's guard against intermediates that cannot be allocated.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINCHECKBUFFERSIZESPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

/// Bytes of a static `type`, or std::nullopt past int64.
static std::optional<int64_t> getStaticBytes(MemRefType type) {
  Type element = type.getElementType();
  int64_t bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  std::optional<int64_t> bytes = (bits + 7) / 8;
  for (int64_t size : type.getShape())
    if (bytes)
      bytes = llvm::checkedMul(*bytes, size);
  return bytes;
}

namespace {
struct CheckBufferSizesPass final
    : mxfp8train::impl::MXFP8TrainCheckBufferSizesPassBase<
          CheckBufferSizesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (maxBytes < 0) {
      // The option, not the module, is wrong.
      emitError(getOperation().getLoc())
          << "mxfp8train-check-buffer-sizes: max-bytes must be >= 0 (0: no "
             "limit), got "
          << maxBytes.getValue();
      return signalPassFailure();
    }
    if (maxBytes == 0)
      return;
    bool failedAny = false;
    getOperation().walk([&](Operation *op) {
      if (!isa<memref::AllocOp, memref::AllocaOp>(op))
        return;
      auto type = cast<MemRefType>(op->getResult(0).getType());
      Type element = type.getElementType();
      if (!type.hasStaticShape() ||
          !(element.isIntOrFloat() || element.isIndex()))
        return;
      std::optional<int64_t> bytes = getStaticBytes(type);
      if (bytes && *bytes <= maxBytes)
        return;
      op->emitError() << "a buffer of "
                      << (bytes ? std::to_string(*bytes)
                                : std::string("2^63 or more"))
                      << " bytes (" << type << ") exceeds the limit of "
                      << maxBytes.getValue() << " bytes (max-bytes)";
      failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
