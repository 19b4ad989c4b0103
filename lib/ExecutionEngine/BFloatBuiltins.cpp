//===- BFloatBuiltins.cpp - the f32 -> bf16 libcall, defined ----*- C++ -*-===//
//
// `__truncsfbf2` defined inside the LLVM modules we compile (the JIT of
// mxfp8-run / the C API and mxfp8-compile's objects), see
// BFloatBuiltins.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/ExecutionEngine/BFloatBuiltins.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"

using namespace llvm;

/// True if any value of `module` has bf16 (scalar or vector) type.
static bool usesBFloat(llvm::Module &module) {
  auto isBF16 = [](llvm::Type *type) {
    return type->getScalarType()->isBFloatTy();
  };
  for (llvm::Function &function : module) {
    for (llvm::Argument &arg : function.args())
      if (isBF16(arg.getType()))
        return true;
    for (llvm::Instruction &inst : llvm::instructions(function)) {
      if (isBF16(inst.getType()))
        return true;
      for (llvm::Value *operand : inst.operands())
        if (isBF16(operand->getType()))
          return true;
    }
  }
  return false;
}

/// Defines `__truncsfbf2` (f32 -> bf16, round to nearest even, NaN kept
/// quiet with its sign and high payload bits) weak and hidden in `module`
/// when it has bf16 values. Without native bf16 conversions (AVX512-BF16),
/// the x86 backend legalizes some bf16 vector code through this libcall,
/// which libgcc provides only from GCC 13 on; the definition keeps the
/// object self-contained, and a libgcc copy would compute the same bits.
void mlir::mxfp8train::addBFloatBuiltins(llvm::Module &module) {
  const char *name = "__truncsfbf2";
  if (!usesBFloat(module) || module.getFunction(name))
    return;
  llvm::LLVMContext &ctx = module.getContext();
  auto *type = llvm::FunctionType::get(llvm::Type::getBFloatTy(ctx),
                                       {llvm::Type::getFloatTy(ctx)}, false);
  auto *function = llvm::Function::Create(
      type, llvm::GlobalValue::WeakAnyLinkage, name, module);
  function->setVisibility(llvm::GlobalValue::HiddenVisibility);
  function->setDSOLocal(true);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", function));
  llvm::Value *bits = b.CreateBitCast(function->getArg(0), b.getInt32Ty());
  llvm::Value *isNaN =
      b.CreateICmpUGT(b.CreateAnd(bits, 0x7FFFFFFFu), b.getInt32(0x7F800000u));
  llvm::Value *high = b.CreateLShr(bits, 16);
  llvm::Value *quiet = b.CreateOr(high, 0x40u);
  llvm::Value *bias = b.CreateAdd(b.CreateAnd(high, 1u), b.getInt32(0x7FFFu));
  llvm::Value *rounded = b.CreateLShr(b.CreateAdd(bits, bias), 16);
  llvm::Value *result = b.CreateSelect(isNaN, quiet, rounded);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(result, b.getInt16Ty()),
                              llvm::Type::getBFloatTy(ctx)));
}
