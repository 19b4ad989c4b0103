//===- InitAll.h - register everything of mxfp8train ------------*- C++ -*-===//
//
// One place for tools and embedding stacks to register our dialects, passes
// and extensions.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_INITALL_H
#define MXFP8TRAIN_INITALL_H

namespace mlir {
class DialectRegistry;
namespace mxfp8train {

/// Registers the mxfp8train dialect.
void registerAllDialects(DialectRegistry &registry);

/// Registers the dialect extensions of mxfp8train: the ShardingInterface
/// models of its ops (Transforms/ShardingInterfaceImpl.h).
void registerAllExtensions(DialectRegistry &registry);

/// Registers what mxfp8-opt registers: every upstream dialect and extension,
/// the LLVM IR translations (the GPU ones too: gpu-module-to-binary and the
/// NVVM target need them), and the mxfp8train dialect and extensions.
void registerAllWithUpstream(DialectRegistry &registry);

/// Registers every mxfp8train pass and pipeline with the global registry.
void registerAllPasses();

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_INITALL_H
