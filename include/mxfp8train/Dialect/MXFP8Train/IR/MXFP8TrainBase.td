//===- MXFP8TrainBase.td - mxfp8train dialect definition ---*- tablegen -*-===//
//
// The mxfp8train dialect and the base classes of its ops and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINBASE_TD
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def MXFP8Train_Dialect : Dialect {
  let name = "mxfp8train";
  let cppNamespace = "::mlir::mxfp8train";
  let summary = "OCP Microscaling FP8 (MXFP8) training: quantize, scaled GEMMs, recipes";
  let description = [{
    The `mxfp8train` dialect models MXFP8 training as torchao implements it
    (`torchao.prototype.moe_training`, `MXFP8TrainingOpConfig`): tensors are
    split into `f8E4M3FN` (or `f8E5M2`) elements and one `f8E8M0FNU`
    power-of-two scale per 32 consecutive elements along the contraction
    dimension of the GEMM that consumes them (OCP MX v1.0). The GEMMs
    (`scaled_mm`, `scaled_grouped_mm`) accumulate the exactly dequantized
    products in fp32.

    The semantic contract, bit for bit, is `shared/SPEC.md` of the project:
    §2 quantization, §3 dequantization, §4 scale layouts, §5 recipes, §6 dense
    linear training, §7 grouped GEMMs.
  }];
  let useDefaultAttributePrinterParser = 1;
  // The discardable `mxfp8train.*` attributes (MXFP8TrainDialect.cpp).
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

// Every tensor of an mxfp8train op has a byte size that fits in int64
// (MXFP8TrainOps.h); checked before the op's own verifier, so verifiers may
// multiply static sizes of one tensor without overflow.
def MXFP8Train_TensorByteSizesFitInt64
    : NativeOpTrait<"TensorByteSizesFitInt64"> {
  let cppNamespace = "::mlir::mxfp8train";
}

class MXFP8Train_Op<string mnemonic, list<Trait> traits = []>
    : Op<MXFP8Train_Dialect, mnemonic,
         !listconcat([MXFP8Train_TensorByteSizesFitInt64], traits)>;

class MXFP8Train_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<MXFP8Train_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINBASE_TD
