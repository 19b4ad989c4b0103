//===- MXFP8TrainPlugin.cpp - mxfp8train as an mlir-opt plugin --*- C++ -*-===//
//
// libMXFP8TrainPlugin.so: the mxfp8train dialect, its extensions, passes and
// pipelines for an upstream `mlir-opt` of the same MLIR (one that links
// libMLIR.so, as Debian's does), without building a tool of our own:
//
//   mlir-opt in.mlir --load-dialect-plugin=libMXFP8TrainPlugin.so \
//     --load-pass-plugin=libMXFP8TrainPlugin.so \
//     --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls)"
//
// (mlir-opt parses its per-pass flags before it loads a plugin: name the
// plugin's passes in --pass-pipeline.)
// The entry points are MLIR's plugin API (mlir/Tools/Plugins). What they
// register is what mxfp8-opt registers of ours (InitAll.h); the upstream
// dialects and passes are mlir-opt's own.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "MXFP8Train", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            mxfp8train::registerAllDialects(*registry);
            mxfp8train::registerAllExtensions(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "MXFP8Train", LLVM_VERSION_STRING,
          [] { mxfp8train::registerAllPasses(); }};
}
