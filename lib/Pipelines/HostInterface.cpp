//===- HostInterface.cpp - the host interface of public functions ---------===//
//
// The passes that shape how a host calls the public functions of a lowered
// module, in the CPU and the GPU pipeline alike: every returned tensor gets
// a buffer of its own (mxfp8train-distinct-results, before bufferization),
// and every public function gets its `_mlir_ciface_` wrapper
// (mxfp8train-emit-c-interface, before the conversion to LLVM).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINDISTINCTRESULTSPASS
#define GEN_PASS_DEF_MXFP8TRAINEMITCINTERFACEPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {

//===----------------------------------------------------------------------===//
// mxfp8train-distinct-results
//===----------------------------------------------------------------------===//

struct DistinctResultsPass final
    : mxfp8train::impl::MXFP8TrainDistinctResultsPassBase<DistinctResultsPass> {
  using Base::Base;
  void runOnOperation() override {
    // Inputs belong to the caller: never bufferize in place into them.
    getOperation().walk([](func::FuncOp func) {
      if (!func.isPublic() || func.isExternal())
        return;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(
              i, bufferization::BufferizationDialect::kWritableAttrName,
              BoolAttr::get(func.getContext(), false));
    });
    getOperation().walk([](func::ReturnOp ret) {
      auto func = dyn_cast<func::FuncOp>(ret->getParentOp());
      if (!func || !func.isPublic())
        return;
      OpBuilder b(ret);
      llvm::SmallPtrSet<Value, 8> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type)
          continue;
        // A returned tensor.empty (the value of an op with nothing to
        // compute) may also be the destination of ops whose results share
        // its buffer: it gets a buffer of its own. Its contents are
        // undefined, so nothing is copied.
        if (auto empty = v.getDefiningOp<tensor::EmptyOp>()) {
          operand.set(bufferization::AllocTensorOp::create(
              b, ret.getLoc(), type, empty.getDynamicSizes()));
          continue;
        }
        bool fresh = seen.insert(v).second && !isa<BlockArgument>(v);
        if (fresh)
          continue;
        operand.set(bufferization::AllocTensorOp::create(b, ret.getLoc(), type,
                                                         ValueRange{}, v));
      }
    });
  }
};

//===----------------------------------------------------------------------===//
// mxfp8train-emit-c-interface
//===----------------------------------------------------------------------===//

struct EmitCInterfacePass final
    : mxfp8train::impl::MXFP8TrainEmitCInterfacePassBase<EmitCInterfacePass> {
  using Base::Base;
  void runOnOperation() override {
    UnitAttr unit = UnitAttr::get(&getContext());
    getOperation().walk([&](func::FuncOp func) {
      if (func.isPublic() && !func.isExternal())
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), unit);
    });
  }
};

} // namespace
