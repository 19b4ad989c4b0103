//===- ShardingExecutionTest.cpp - partitioned graphs on CPU ----*- C++ -*-===//
//
// CPU execution of graphs partitioned by upstream's sharding-propagation and
// shard-partition with the mxfp8train ShardingInterface models: every shard
// of a 2-process grid runs its partitioned function (process index fixed to
// the shard, the all-reduce left to the test), the test gathers the shards
// (concatenation of split results, the sum of all-reduced partials) and
// compares the bytes with the unpartitioned graph run on the same inputs.
// MLIR 22 lowers the shard dialect's collectives only to MPI, so this is the
// single-process simulation of the collectives (docs/sharding.md).
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"

#include <cstring>
#include <random>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mxtest;

namespace {

constexpr int kShards = 2;

/// A context with the sharding models (registerAllExtensions).
MLIRContext &getShardingContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    mxfp8train::registerAllDialects(registry);
    mxfp8train::registerAllExtensions(registry);
    auto *ctx = new MLIRContext(registry);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  return *context;
}

/// `t` split evenly along `dim` into kShards parts: part `p` (dim < 0: `t`).
HostTensor sliceOf(const HostTensor &t, int dim, int p) {
  if (dim < 0)
    return t;
  HostTensor part(t.type, t.shape);
  part.shape[dim] /= kShards;
  int64_t elem = getHostElementSize(t.type);
  int64_t outer = 1, inner = elem;
  for (int d = 0; d < dim; ++d)
    outer *= t.shape[d];
  for (int d = dim + 1; d < static_cast<int>(t.shape.size()); ++d)
    inner *= t.shape[d];
  int64_t chunk = part.shape[dim] * inner;
  part.bytes.resize(outer * chunk);
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(part.bytes.data() + o * chunk,
                t.bytes.data() + (o * kShards + p) * chunk, chunk);
  return part;
}

/// The shards of a result split along `dim`, concatenated.
HostTensor concat(const std::vector<HostTensor> &parts, int dim) {
  HostTensor all(parts[0].type, parts[0].shape);
  all.shape[dim] *= kShards;
  all.bytes.resize(parts[0].bytes.size() * kShards);
  int64_t inner = getHostElementSize(all.type);
  int64_t outer = 1;
  for (int d = 0; d < dim; ++d)
    outer *= all.shape[d];
  for (int d = dim + 1; d < static_cast<int>(all.shape.size()); ++d)
    inner *= all.shape[d];
  int64_t chunk = parts[0].shape[dim] * inner;
  for (int64_t o = 0; o < outer; ++o)
    for (int p = 0; p < kShards; ++p)
      std::memcpy(all.bytes.data() + (o * kShards + p) * chunk,
                  parts[p].bytes.data() + o * chunk, chunk);
  return all;
}

/// The f32 sum of the shards' partial results (the all-reduce).
HostTensor sum(const std::vector<HostTensor> &parts) {
  HostTensor all = parts[0];
  for (size_t p = 1; p < parts.size(); ++p)
    for (int64_t i = 0; i < all.getNumElements(); ++i)
      all.data<float>()[i] += parts[p].data<float>()[i];
  return all;
}

/// `source` with the shard annotations removed: the unpartitioned graph.
OwningOpRef<ModuleOp> stripAnnotations(ModuleOp module) {
  OwningOpRef<ModuleOp> clone = module.clone();
  clone->walk([](shard::ShardOp op) {
    op.getResult().replaceAllUsesWith(op.getSrc());
    op.erase();
  });
  clone->walk([](Operation *op) {
    if (isa<shard::ShardingOp, shard::GridOp>(op))
      op->erase();
  });
  return clone;
}

/// The partitioned module as shard `p` runs it: process indices and grid
/// sizes become constants, each all-reduce passes its partial through (the
/// test reduces), and the grid goes. Counts the all-reduces.
OwningOpRef<ModuleOp> specializeForShard(ModuleOp partitioned, int p,
                                         int &allReduces) {
  OwningOpRef<ModuleOp> clone = partitioned.clone();
  allReduces = 0;
  clone->walk([&](Operation *op) {
    OpBuilder b(op);
    if (isa<shard::ProcessMultiIndexOp>(op)) {
      op->getResult(0).replaceAllUsesWith(
          arith::ConstantIndexOp::create(b, op->getLoc(), p));
      op->erase();
    } else if (isa<shard::GridShapeOp>(op)) {
      op->getResult(0).replaceAllUsesWith(
          arith::ConstantIndexOp::create(b, op->getLoc(), kShards));
      op->erase();
    } else if (auto reduce = dyn_cast<shard::AllReduceOp>(op)) {
      reduce.getResult().replaceAllUsesWith(reduce.getInput());
      reduce.erase();
      ++allReduces;
    }
  });
  clone->walk([](shard::GridOp op) { op.erase(); });
  return clone;
}

HostTensor randomF32(llvm::ArrayRef<int64_t> shape, unsigned seed) {
  HostTensor t(HostElementType::F32, shape);
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    t.data<float>()[i] = dist(gen);
  return t;
}

/// One partitioned graph: `@model` annotated for the grid `@grid` of
/// kShards processes (which the harness declares), the split dimension of
/// each argument (-1: replicated), how the result is gathered.
struct ShardedCase {
  std::string model;
  std::vector<HostTensor> inputs;
  std::vector<int> inputSplits;
  /// Result split dimension, or -1 for an all-reduced result.
  int resultSplit;
  int expectedAllReduces;
  llvm::SmallVector<int64_t> localResultShape;
};

void runShardedCase(const ShardedCase &c) {
  MLIRContext &ctx = getShardingContext();
  std::string source =
      "shard.grid @grid(shape = " + std::to_string(kShards) + ")\n" + c.model;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(module) << source;

  OwningOpRef<ModuleOp> reference = stripAnnotations(*module);
  auto refExe = CPUExecutable::compile(*reference, vectorizeTests());
  ASSERT_TRUE(bool(refExe)) << llvm::toString(refExe.takeError());
  std::vector<HostTensor> expected = runOrFail(**refExe, "model", c.inputs);
  ASSERT_EQ(expected.size(), 1u);

  PassManager pm(&ctx);
  // Forward then backward: the forward sweep reaches the GEMMs from the
  // annotated inputs, the backward one annotates the quantizations of the
  // replicated weights that the GEMMs' operands then need.
  shard::ShardingPropagationOptions options;
  options.traversal = shard::TraversalOrder::ForwardBackward;
  pm.addNestedPass<func::FuncOp>(shard::createShardingPropagation(options));
  pm.addNestedPass<func::FuncOp>(shard::createPartition());
  ASSERT_TRUE(succeeded(pm.run(*module)));

  std::vector<HostTensor> parts;
  for (int p = 0; p < kShards; ++p) {
    int allReduces = 0;
    OwningOpRef<ModuleOp> shardModule =
        specializeForShard(*module, p, allReduces);
    EXPECT_EQ(allReduces, c.expectedAllReduces);
    auto exe = CPUExecutable::compile(*shardModule, vectorizeTests());
    ASSERT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
    std::vector<HostTensor> inputs;
    for (auto [input, split] : llvm::zip_equal(c.inputs, c.inputSplits))
      inputs.push_back(sliceOf(input, split, p));
    std::vector<HostTensor> out = runOrFail(**exe, "model", inputs);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].shape, c.localResultShape);
    parts.push_back(std::move(out[0]));
  }
  HostTensor gathered =
      c.resultSplit >= 0 ? concat(parts, c.resultSplit) : sum(parts);
  ASSERT_EQ(gathered.shape, expected[0].shape);
  int64_t mismatches = 0, first = -1;
  for (int64_t i = 0; i < gathered.getNumElements(); ++i)
    if (std::memcmp(gathered.data<float>() + i, expected[0].data<float>() + i,
                    sizeof(float)) != 0 &&
        mismatches++ == 0)
      first = i;
  EXPECT_EQ(mismatches, 0) << "first at " << first << ": "
                           << gathered.getAsDouble(first) << " vs "
                           << expected[0].getAsDouble(first);
  // The gathered result is not trivially zero.
  double norm = 0;
  for (int64_t i = 0; i < gathered.getNumElements(); ++i)
    norm += std::abs(gathered.getAsDouble(i));
  EXPECT_GT(norm, 1.0);
}

// Data parallelism with blocked scales: the tokens split in whole 128-row
// tiles, the weights replicated; the shards' rows concatenate to the
// unpartitioned result, bit for bit.
TEST(ShardingExecution, DataParallelBlockedScales) {
  runShardedCase({R"mlir(
func.func @model(%x: tensor<256x128xf32>, %w: tensor<64x128xf32>) -> tensor<256x64xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<256x128xf32>
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil layout = blocked
      : tensor<256x128xf32> -> tensor<256x128xf8E4M3FN>, tensor<1024xf8E8M0FNU>
  %wq, %ws = mxfp8train.quantize %w axis = 1 mode = rceil layout = blocked
      : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<512xf8E8M0FNU>
  %y = mxfp8train.scaled_mm %q [%qs], %wq [%ws] transpose_rhs lhs_layout = blocked rhs_layout = blocked
      : tensor<256x128xf8E4M3FN> [tensor<1024xf8E8M0FNU>],
        tensor<64x128xf8E4M3FN> [tensor<512xf8E8M0FNU>] -> tensor<256x64xf32>
  return %y : tensor<256x64xf32>
}
)mlir",
                  {randomF32({256, 128}, 1), randomF32({64, 128}, 2)},
                  /*inputSplits=*/{0, -1},
                  /*resultSplit=*/0,
                  /*expectedAllReduces=*/0,
                  /*localResultShape=*/{128, 64}});
}

// Tensor parallelism: the weight split along N, the GEMM output requantized
// along the split axis (64 columns = 2 blocks per shard) and dequantized; the
// shards' columns concatenate to the unpartitioned result.
TEST(ShardingExecution, TensorParallelRequantize) {
  runShardedCase({R"mlir(
func.func @model(%x: tensor<32x128xf32>, %w: tensor<128x128xf32>) -> tensor<32x128xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %w1 = shard.shard %w to %s : tensor<128x128xf32>
  %q, %qs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<32x128xf32> -> tensor<32x128xf8E4M3FN>, tensor<32x4xf8E8M0FNU>
  %wq, %ws = mxfp8train.quantize %w1 axis = 1 mode = rceil
      : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  %y = mxfp8train.scaled_mm %q [%qs], %wq [%ws] transpose_rhs
      : tensor<32x128xf8E4M3FN> [tensor<32x4xf8E8M0FNU>],
        tensor<128x128xf8E4M3FN> [tensor<128x4xf8E8M0FNU>] -> tensor<32x128xf32>
  %hq, %hs = mxfp8train.quantize %y axis = 1 mode = floor
      : tensor<32x128xf32> -> tensor<32x128xf8E4M3FN>, tensor<32x4xf8E8M0FNU>
  %h = mxfp8train.dequantize %hq [%hs] axis = 1
      : tensor<32x128xf8E4M3FN> [tensor<32x4xf8E8M0FNU>] -> tensor<32x128xf32>
  return %h : tensor<32x128xf32>
}
)mlir",
                  {randomF32({32, 128}, 3), randomF32({128, 128}, 4)},
                  /*inputSplits=*/{-1, 0},
                  /*resultSplit=*/1,
                  /*expectedAllReduces=*/0,
                  /*localResultShape=*/{32, 64}});
}

// Expert parallelism of the 2d-3d grouped GEMM: 2 of 4 experts per shard,
// an empty group, tokens past the last group; each shard's partial holds its
// experts' rows (zeros elsewhere), and their sum is the unpartitioned result.
TEST(ShardingExecution, ExpertParallelGroupedGemm) {
  HostTensor offs(HostElementType::I32, {4});
  const int32_t ends[4] = {32, 32, 96, 128};
  std::memcpy(offs.data<int32_t>(), ends, sizeof(ends));
  runShardedCase({R"mlir(
func.func @model(%a: tensor<160x64xf32>, %w: tensor<4x32x64xf32>, %offs: tensor<4xi32>) -> tensor<160x32xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %w1 = shard.shard %w to %s : tensor<4x32x64xf32>
  %aq, %as = mxfp8train.quantize %a axis = 1 mode = rceil
      : tensor<160x64xf32> -> tensor<160x64xf8E4M3FN>, tensor<160x2xf8E8M0FNU>
  %wq, %ws = mxfp8train.quantize %w1 axis = 2 mode = rceil
      : tensor<4x32x64xf32> -> tensor<4x32x64xf8E4M3FN>, tensor<4x32x2xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %aq [%as], %wq [%ws] offs(%offs) transpose_rhs
      : tensor<160x64xf8E4M3FN> [tensor<160x2xf8E8M0FNU>],
        tensor<4x32x64xf8E4M3FN> [tensor<4x32x2xf8E8M0FNU>], tensor<4xi32>
        -> tensor<160x32xf32>
  return %y : tensor<160x32xf32>
}
)mlir",
                  {randomF32({160, 64}, 5), randomF32({4, 32, 64}, 6), offs},
                  /*inputSplits=*/{-1, 0, -1},
                  /*resultSplit=*/-1,
                  /*expectedAllReduces=*/1,
                  /*localResultShape=*/{160, 32}});
}

} // namespace
