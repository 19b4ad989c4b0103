//===- FusedProducer.h - elementwise producers read by kernels --*- C++ -*-===//
//
// A quantize kernel reads its input through a KernelInput: the tensor
// itself, or, when the tensor is the result of an elementwise
// `linalg.generic` whose every result only feeds quantizes, that generic's
// operands with its body evaluated on the loaded vectors. The fused kernel
// never writes the intermediate tensor, and the generic's own kernel goes
// away (docs/gpu.md "Elementwise producers fused into quantize").
//
// The body is the same scalar arith/math ops, applied lane by lane to
// vectors, so the values are the bits the separate kernel would have
// written (the NVVM lowering scalarises each vector op).
//
// A 32x1 MX quantize of a `pad_token_groups` result (alignment a multiple
// of 32, every user of the padded data such a quantize) reads the pad's
// input instead: each 32-row block of the padded rows lies in one group's
// padded range, so the kernel maps the block to its source tokens once
// (the pad's offsets, clamped as the pad kernel clamps them) and reads
// zeros past the group's tokens. The padded tensor is never written; the
// pad op launches only the kernel of its padded offsets (docs/gpu.md
// "Token-group padding fused into the column casts").
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FUSEDPRODUCER_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FUSEDPRODUCER_H

#include "KernelBuilder.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// What a quantize kernel reads for its input tensor.
class KernelInput {
public:
  /// The input `tensor` of a quantize or quantize_dual. With `fuse`, a
  /// qualifying elementwise producer (isFusableProducer) is read in its
  /// place; with `fusePad` (the lowering's `fuse-padding`), a qualifying
  /// pad_token_groups (isFusablePad, read by 32x1 MX quantizes only): the
  /// pad's input through its offsets.
  static KernelInput get(Value tensor, bool fuse, bool fusePad = false);
  /// Several results `tensors` of one fusable elementwise producer read by
  /// one kernel (sibling casts, e.g. the two gradients of a SwiGLU
  /// backward): the kernel loads the producer's operands once and
  /// evaluates its body once for all of them (loadEach). With `fuse`
  /// false, or a producer that is not fusable, only a single tensor is
  /// allowed.
  static KernelInput getSiblings(ArrayRef<Value> tensors, bool fuse);

  /// The tensors the kernel reads, in kernel-argument order.
  ArrayRef<Value> getTensors() const { return tensors; }
  /// Kernel-name suffix: empty unfused, `_ew<hash of the body and the
  /// results read>` fused, `_pad<groups>a<alignment>t<tokens>` for a fused
  /// pad.
  std::string getNameTag() const;
  bool isFused() const { return static_cast<bool>(producer); }
  bool isPadded() const { return static_cast<bool>(pad); }
  /// The values loadEach returns: the producer results read, else 1.
  unsigned getNumResults() const {
    return producer ? static_cast<unsigned>(results.size()) : 1;
  }

  /// Inside the kernel, a fused pad: the 32 padded rows from `row0` (a
  /// multiple of 32) are tokens [src, src + count) and `32 - count` zero
  /// rows (index values), found by walking the pad's offsets (the last of
  /// getTensors(), in `args`) with emitGroupBounds.
  struct PaddedBlock {
    Value src, count;
  };
  PaddedBlock mapPaddedBlock(KernelBuilder &kb, ValueRange args,
                             Value row0) const;
  /// A fused pad's token count (the rows of its input).
  int64_t getPadTokens() const;

  /// Inside the kernel: the input's `count` consecutive elements (a vector
  /// of the input tensor's element type) at `indices` of the collapsed
  /// view, from the kernel arguments `args` of getTensors(); `align` is the
  /// byte alignment of the access in the input's element type. One result
  /// read only.
  Value load(KernelBuilder &kb, VectorType type, ValueRange args,
             ValueRange indices, int64_t align) const;
  /// load() of every result read (getNumResults(), in the order of
  /// getSiblings' tensors): the operands loaded and the body evaluated once.
  SmallVector<Value> loadEach(KernelBuilder &kb, VectorType type,
                              ValueRange args, ValueRange indices,
                              int64_t align) const;
  /// load() at each of `indices`, every load (a fused producer's operands
  /// too) issued before the first evaluation of the producer's body:
  /// ptxas keeps the order of loads and arithmetic, so loads interleaved
  /// with the body are not all in flight together. Measured on the H200
  /// (docs/gpu.md): the MX column-tile casts of the Llama step's fused
  /// duals 12 % faster; the Float8 row casts and amax passes 10-60 %
  /// slower (more registers, fewer warps; again in session 23), so they
  /// use load() / loadEach(). The Float8 K-major casts load two chunks'
  /// operands (loadOperands) before evaluating either (evaluate): 12-35 %
  /// faster there (Gemm/Float8TransposeFusion.cpp).
  SmallVector<Value> loadAll(KernelBuilder &kb, VectorType type,
                             ValueRange args,
                             ArrayRef<SmallVector<Value>> indices,
                             int64_t align) const;
  /// The kernel's input buffers: each of getTensors() collapsed to the
  /// kernel's data view `shape` (a fused producer's operands have the
  /// quantize input's shape; a fused pad's input has getPadTokens rows in
  /// place of the view's rows, its offsets stay 1-D).
  SmallVector<Value> getViews(RewriterBase &rewriter, Location loc,
                              ArrayRef<int64_t> shape) const;

  /// loadEach in two steps, for kernels that issue many loads before the
  /// first evaluation: the vectors it reads (the tensor's, or the
  /// producer's operands'), then the results read (getNumResults(), in
  /// getSiblings' order) computed from them.
  SmallVector<Value> loadOperands(KernelBuilder &kb, VectorType type,
                                  ValueRange args, ValueRange indices,
                                  int64_t align) const;
  SmallVector<Value> evaluate(KernelBuilder &kb, ValueRange operands) const;

private:
  mutable linalg::GenericOp producer;
  mutable PadTokenGroupsOp pad;
  /// The producer's results read.
  SmallVector<unsigned, 2> results;
  /// Distinct tensors read; for a fused producer, argOfInput[i] is the
  /// position in `tensors` of the generic's input i.
  SmallVector<Value> tensors;
  SmallVector<unsigned> argOfInput;
};

/// Whether the quantize kernels can read `pad`'s input in place of its
/// padded data: static 2-D shapes with tokens and columns, an alignment
/// that is a multiple of 32, and every user of the padded data a 32x1 MX
/// quantize (axis 0).
bool isFusablePad(PadTokenGroupsOp pad);

/// Whether a kernel can evaluate the linalg body `body` by cloning it:
/// side-effect-free arith/math ops without regions (with
/// `elementwiseOnly`, elementwise ops and constants: applied lane by lane
/// to vectors) on integer and float values defined in the body or
/// constants, yielding such values.
bool isKernelBody(Block &body, bool elementwiseOnly);

/// Whether `generic` is an elementwise map the kernels can evaluate: all
/// loops parallel, identity indexing maps, static shapes of int/float
/// elements, and a body of side-effect-free elementwise arith/math ops
/// (values from outside the body only constants) that does not read the
/// outputs.
bool isElementwiseGeneric(linalg::GenericOp generic);

/// Whether the elementwise `generic` can be evaluated inside the kernels of
/// its users: every user of every result is a `quantize` or
/// `quantize_dual`, and they read no more bytes than the separate kernel
/// moves. A result that feeds a pad_token_groups keeps the generic, fused
/// pad or not: the casts behind a fused pad evaluating the body too
/// measured slower on the H200 (the DeepSeek step's SwiGLU derivative
/// evaluated by four casts of three inputs each: +0.25 ms of kernel time,
/// docs/gpu.md).
bool isFusableProducer(linalg::GenericOp generic);

/// Inside a kernel: the results of the elementwise `generic`'s body (one
/// vector per result) applied lane by lane to `inputs`, the vectors loaded
/// for its inputs (same shape, the inputs' element types).
SmallVector<Value> evaluateElementwiseBody(KernelBuilder &kb,
                                           linalg::GenericOp generic,
                                           ValueRange inputs);

/// A hash of the body of `generic` (ops, attributes, constants, yields) and
/// `extra` for kernel names, `bits` (32 or 64) wide in hex digits:
/// different bodies get different kernels.
std::string getElementwiseBodyHash(linalg::LinalgOp generic,
                                   StringRef extra = "", unsigned bits = 32);

/// The part of a kernel's hashed name that says which kernel argument each
/// input of an elementwise body reads (`argOfInput`, inputs that are the
/// same tensor share one argument): empty when each reads its own, in order,
/// so that `x * x` (one argument) and `x * y` (two) of one shape and body
/// get different kernels.
std::string getInputAliasing(ArrayRef<unsigned> argOfInput);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FUSEDPRODUCER_H
