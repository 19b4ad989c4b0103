//===- CheckKernelTypes.cpp - mxfp8train-check-kernel-types ------*- C++
//-*-===//
//
// Float types NVPTX cannot handle in GPU kernels are errors at the op,
// before the NVVM lowering: any f80 or tf32 value, arithmetic on f128.
// LLVM's NVPTX backend aborts the process on them ("unsupported library
// call operation", "Cannot select"), or the conversion fails without a
// location.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINCHECKKERNELTYPESPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
/// f80 and tf32 values (scalars, vectors, memref elements), which NVPTX
/// cannot even pass or store: every op of a kernel that has one.
bool isUnsupportedOnNVPTX(Type type) {
  return isa<Float80Type, FloatTF32Type>(getElementTypeOrSelf(type));
}

/// f128 values, which NVPTX moves but does not compute on.
bool isUncomputableOnNVPTX(Type type) {
  return isa<Float128Type>(getElementTypeOrSelf(type));
}

/// Arithmetic: arith and math ops other than those that move bits.
bool isArithmetic(Operation *op) {
  return isa_and_present<arith::ArithDialect, math::MathDialect>(
             op->getDialect()) &&
         !isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp>(op);
}

/// Where to report `op` of a kernel: its own location or its closest
/// ancestor's that points at an input op (not unknown, as the bodies of
/// linalg's named ops are built, nor the module's, which kernels shared by
/// several ops get), else the first launch of its kernel in `launches`,
/// else its own.
Location getReportLoc(Operation *op, Location moduleLoc,
                      const DenseMap<Operation *, Location> &launches) {
  for (Operation *at = op; at; at = at->getParentOp()) {
    Location loc = at->getLoc();
    if (!isa<UnknownLoc>(loc) && loc != moduleLoc)
      return loc;
    if (auto it = launches.find(at); it != launches.end())
      return it->second;
  }
  return op->getLoc();
}

struct CheckKernelTypesPass final
    : mxfp8train::impl::MXFP8TrainCheckKernelTypesPassBase<
          CheckKernelTypesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The first host launch of each kernel, whose location is the input
    // op's.
    SymbolTableCollection symbols;
    DenseMap<Operation *, Location> launches;
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (Operation *kernel =
              symbols.lookupNearestSymbolFrom(launch, launch.getKernel()))
        launches.try_emplace(kernel, launch.getLoc());
    });
    // One error per source location: the ops of one input op (a copy's
    // load and store) are reported once.
    llvm::DenseSet<Location> reported;
    module.walk([&](gpu::GPUModuleOp kernels) {
      kernels.walk([&](Operation *op) {
        check(op, module.getLoc(), launches, reported);
      });
    });
    if (!reported.empty())
      signalPassFailure();
  }

  void check(Operation *op, Location moduleLoc,
             const DenseMap<Operation *, Location> &launches,
             llvm::DenseSet<Location> &reported) {
    auto types =
        llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes());
    auto unsupported = llvm::find_if(types, isUnsupportedOnNVPTX);
    auto uncomputable = isArithmetic(op)
                            ? llvm::find_if(types, isUncomputableOnNVPTX)
                            : types.end();
    if (unsupported == types.end() && uncomputable == types.end())
      return;
    Location loc = getReportLoc(op, moduleLoc, launches);
    if (!reported.insert(loc).second)
      return;
    if (unsupported != types.end())
      emitError(loc) << "'" << op->getName() << "' on "
                     << getElementTypeOrSelf(*unsupported)
                     << " in a GPU kernel: NVPTX has no f80 or tf32 values "
                        "(f128 values can be moved, not computed on)";
    else
      emitError(loc) << "'" << op->getName() << "' on "
                     << getElementTypeOrSelf(*uncomputable)
                     << " in a GPU kernel: NVPTX has no f80, f128 or tf32 "
                        "arithmetic";
  }
};
} // namespace
