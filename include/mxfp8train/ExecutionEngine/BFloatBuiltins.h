//===- BFloatBuiltins.h - the f32 -> bf16 libcall, defined ------*- C++ -*-===//
//
// Without native bf16 conversions (AVX512-BF16) the x86 backend legalizes
// some bf16 code through the libcall `__truncsfbf2`, which libgcc provides
// only from GCC 13 on (Debian 12 has GCC 12) and compiler-rt only in its
// static builtins. A JIT on such a host fails with "Symbols not found:
// [ __truncsfbf2 ]", and an object would need that library at link time.
// Both the CPU JIT (RunnerSupport.cpp) and the ahead-of-time compiler
// (AOTCompile.cpp) define it inside the module instead.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_EXECUTIONENGINE_BFLOATBUILTINS_H
#define MXFP8TRAIN_EXECUTIONENGINE_BFLOATBUILTINS_H

namespace llvm {
class Module;
} // namespace llvm

namespace mlir {
namespace mxfp8train {

/// Defines `__truncsfbf2` (f32 -> bf16, round to nearest even, NaN kept
/// quiet with its sign and high payload bits) weak and hidden in `module`
/// when the module has bf16 values and no function of that name. A libgcc
/// copy would compute the same bits.
void addBFloatBuiltins(llvm::Module &module);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_EXECUTIONENGINE_BFLOATBUILTINS_H
