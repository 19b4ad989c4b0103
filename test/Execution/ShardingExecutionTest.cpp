//===- ShardingExecutionTest.cpp - partitioned graphs on CPU ----*- C++ -*-===//
//
// CPU execution of graphs partitioned by upstream's sharding-propagation and
// shard-partition with the mxfp8train ShardingInterface models, two ways:
//  - simulated: every shard of a 2-process grid runs its partitioned
//    function (process index fixed to the shard, the all-reduce left to the
//    test), the test gathers the shards (concatenation of split results, the
//    sum of all-reduced partials);
//  - with collectives: convert-shard-to-runtime-collectives lowers the
//    collectives to the runtime's, and the one compiled module runs on 2
//    threads, each bound to its rank of an in-process communicator.
// Both compare the bytes with the unpartitioned graph run on the same inputs
// (docs/sharding.md).
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"

#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h"
#include "mxfp8train/runtime/Collectives.h"

#include "InProcessRanks.h"

#include <cmath>
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

/// `resultSplit` of a result every shard holds whole (all-gathered).
constexpr int kReplicated = -2;

/// One partitioned graph: `@model` annotated for a 2-process grid, the split
/// dimension of each argument (-1: replicated), how the result is gathered.
struct ShardedCase {
  std::string source;
  std::vector<HostTensor> inputs;
  std::vector<int> inputSplits;
  /// Result split dimension, -1 for an all-reduced result (simulated: a
  /// partial per shard), or kReplicated.
  int resultSplit;
  int expectedAllReduces;
  llvm::SmallVector<int64_t> localResultShape;
  /// Whether the simulated run applies (only all-reduces to simulate).
  bool simulate = true;
  /// The collectives shard-partition emits, sorted by name.
  std::vector<std::string> collectives;
  /// Bytes each rank sends in the run with collectives (-1: not checked).
  int64_t bytesSent = -1;
  /// Run again after mxfp8train-quantize-before-all-gather (FSDP fp8
  /// all-gather) and mxfp8train-quantize-before-all-to-all (MXFP8 token
  /// exchange), each rank then sending `bytesSentAfterRewrite` bytes.
  bool quantizeBeforeCollectives = false;
  int64_t bytesSentAfterRewrite = -1;
};

/// The names of the shard collectives in `module`, sorted.
std::vector<std::string> getCollectives(ModuleOp module) {
  std::vector<std::string> names;
  module->walk([&](Operation *op) {
    if (isa<shard::AllReduceOp, shard::AllGatherOp, shard::AllToAllOp,
            shard::ReduceScatterOp, shard::AllSliceOp>(op))
      names.push_back(op->getName().getStringRef().str());
  });
  llvm::sort(names);
  return names;
}

/// `got` has the shape and bytes of `expected`, and is not trivially zero.
void expectSameBytes(const HostTensor &got, const HostTensor &expected,
                     const std::string &what) {
  ASSERT_EQ(got.shape, expected.shape) << what;
  ASSERT_EQ(got.bytes.size(), expected.bytes.size()) << what;
  int64_t mismatches = 0, first = -1;
  for (int64_t i = 0; i < got.getNumElements(); ++i)
    if (std::memcmp(got.data<float>() + i, expected.data<float>() + i,
                    sizeof(float)) != 0 &&
        mismatches++ == 0)
      first = i;
  EXPECT_EQ(mismatches, 0) << what << ": first at " << first << ": "
                           << got.getAsDouble(first) << " vs "
                           << expected.getAsDouble(first);
  double norm = 0;
  for (int64_t i = 0; i < got.getNumElements(); ++i)
    norm += std::abs(got.getAsDouble(i));
  EXPECT_GT(norm, 1.0) << what;
}

/// Runs `@model` of the partitioned `module` with its collectives lowered to
/// the runtime: one thread per shard, each bound to its rank of an
/// in-process communicator, on its slices of the inputs. Returns each
/// shard's result.
std::vector<HostTensor>
runWithCollectives(ModuleOp partitioned, const ShardedCase &c,
                   bool quantizeBeforeCollectives = false,
                   int64_t expectedBytesSent = -1) {
  OwningOpRef<ModuleOp> module = partitioned.clone();
  PassManager pm(module->getContext());
  if (quantizeBeforeCollectives) {
    pm.addPass(createMXFP8TrainQuantizeBeforeAllGatherPass());
    pm.addPass(createMXFP8TrainQuantizeBeforeAllToAllPass());
  }
  pm.addPass(createConvertShardToRuntimeCollectivesPass());
  if (failed(pm.run(*module))) {
    ADD_FAILURE() << "convert-shard-to-runtime-collectives failed";
    return {};
  }
  module->walk([](Operation *op) {
    EXPECT_FALSE(isa<shard::ShardDialect>(op->getDialect()))
        << "left after the lowering: " << op->getName().getStringRef().str();
  });
  auto exe = CPUExecutable::compile(*module, vectorizeTests());
  if (!exe) {
    ADD_FAILURE() << llvm::toString(exe.takeError());
    return {};
  }
  std::vector<mxfp8rtComm> comms = mxfp8rt::test::createInProcessComms(kShards);
  if (comms.empty())
    return {};
  std::vector<std::vector<HostTensor>> outputs(kShards);
  mxfp8rt::test::runOnRanks(comms, [&](int p, mxfp8rtComm comm) {
    EXPECT_EQ(mxfp8rtCommBind(comm, nullptr), MXFP8RT_SUCCESS);
    std::vector<HostTensor> inputs;
    for (auto [input, split] : llvm::zip_equal(c.inputs, c.inputSplits))
      inputs.push_back(sliceOf(input, split, p));
    outputs[p] = runOrFail(**exe, "model", inputs);
    mxfp8rtCommBind(nullptr, nullptr);
  });
  for (int p = 0; p < kShards; ++p) {
    int64_t bytes = 0;
    EXPECT_EQ(mxfp8rtCommGetBytesSent(comms[p], &bytes), MXFP8RT_SUCCESS);
    if (expectedBytesSent >= 0) {
      EXPECT_EQ(bytes, expectedBytesSent) << "bytes sent by rank " << p;
    }
  }
  mxfp8rt::test::destroyComms(comms);
  std::vector<HostTensor> results;
  for (int p = 0; p < kShards; ++p) {
    if (outputs[p].size() != 1) {
      ADD_FAILURE() << "shard " << p << " returned " << outputs[p].size()
                    << " results";
      return {};
    }
    results.push_back(std::move(outputs[p][0]));
  }
  return results;
}

/// `@model` of `module` without its sharding annotations, run on
/// `inputs`: the unpartitioned results (none after a test failure).
std::vector<HostTensor>
runUnpartitioned(ModuleOp module, const std::vector<HostTensor> &inputs) {
  OwningOpRef<ModuleOp> reference = stripAnnotations(module);
  auto exe = CPUExecutable::compile(*reference, vectorizeTests());
  if (!exe) {
    ADD_FAILURE() << llvm::toString(exe.takeError());
    return {};
  }
  return runOrFail(**exe, "model", inputs);
}

/// Sharding propagation, forward then backward (the forward sweep reaches
/// the GEMMs from the annotated inputs, the backward one annotates the
/// quantizations of the replicated weights that the GEMMs' operands then
/// need), then shard-partition.
LogicalResult propagateAndPartition(ModuleOp module) {
  PassManager pm(module->getContext());
  shard::ShardingPropagationOptions options;
  options.traversal = shard::TraversalOrder::ForwardBackward;
  pm.addNestedPass<func::FuncOp>(shard::createShardingPropagation(options));
  pm.addNestedPass<func::FuncOp>(shard::createPartition());
  return pm.run(module);
}

void runShardedCase(const ShardedCase &c) {
  MLIRContext &ctx = getShardingContext();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(c.source, &ctx);
  ASSERT_TRUE(module) << c.source;

  std::vector<HostTensor> expected = runUnpartitioned(*module, c.inputs);
  ASSERT_EQ(expected.size(), 1u);
  ASSERT_TRUE(succeeded(propagateAndPartition(*module)));
  EXPECT_EQ(getCollectives(*module), c.collectives);

  if (c.simulate) {
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
    expectSameBytes(c.resultSplit >= 0 ? concat(parts, c.resultSplit)
                                       : sum(parts),
                    expected[0], "simulated collectives");
  }

  // The same partitioned module with real (in-process) collectives: an
  // all-reduced or gathered result is whole on every shard. With
  // quantizeBeforeCollectives, once more after the rewrites.
  for (bool rewrite : {false, true}) {
    if (rewrite && !c.quantizeBeforeCollectives)
      break;
    std::string what =
        rewrite ? "quantize before the collectives" : "runtime collectives";
    std::vector<HostTensor> results = runWithCollectives(
        *module, c, rewrite, rewrite ? c.bytesSentAfterRewrite : c.bytesSent);
    ASSERT_EQ(results.size(), static_cast<size_t>(kShards));
    if (c.resultSplit >= 0) {
      for (const HostTensor &r : results)
        EXPECT_EQ(r.shape, c.localResultShape);
      expectSameBytes(concat(results, c.resultSplit), expected[0], what);
      continue;
    }
    for (int p = 0; p < kShards; ++p)
      expectSameBytes(results[p], expected[0],
                      what + ", shard " + std::to_string(p));
  }
}

// Data parallelism with blocked scales: the tokens split in whole 128-row
// tiles, the weights replicated; the shards' rows concatenate to the
// unpartitioned result, bit for bit.
TEST(ShardingExecution, DataParallelBlockedScales) {
  ShardedCase c;
  c.source = R"mlir(
shard.grid @grid(shape = 2)
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
)mlir";
  c.inputs = {randomF32({256, 128}, 1), randomF32({64, 128}, 2)};
  c.inputSplits = {0, -1};
  c.resultSplit = 0;
  c.expectedAllReduces = 0;
  c.localResultShape = {128, 64};
  runShardedCase(c);
}

// Tensor parallelism: the weight split along N, the GEMM output requantized
// along the split axis (64 columns = 2 blocks per shard) and dequantized; the
// shards' columns concatenate to the unpartitioned result.
TEST(ShardingExecution, TensorParallelRequantize) {
  ShardedCase c;
  c.source = R"mlir(
shard.grid @grid(shape = 2)
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
)mlir";
  c.inputs = {randomF32({32, 128}, 3), randomF32({128, 128}, 4)};
  c.inputSplits = {-1, 0};
  c.resultSplit = 1;
  c.expectedAllReduces = 0;
  c.localResultShape = {32, 64};
  runShardedCase(c);
}

/// Expert parallelism of the 2d-3d grouped GEMM on group ends `ends`: 2 of
/// 4 experts per shard; each shard's partial holds its experts' rows (zeros
/// elsewhere), and their sum is the unpartitioned result.
static void runExpertParallelGroupedGemm(const int32_t (&ends)[4]) {
  ShardedCase c;
  c.source = R"mlir(
shard.grid @grid(shape = 2)
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
)mlir";
  HostTensor offs(HostElementType::I32, {4});
  std::memcpy(offs.data<int32_t>(), ends, sizeof(ends));
  c.inputs = {randomF32({160, 64}, 5), randomF32({4, 32, 64}, 6), offs};
  c.inputSplits = {-1, 0, -1};
  c.resultSplit = -1;
  c.expectedAllReduces = 1;
  c.collectives = {"shard.all_reduce"};
  c.localResultShape = {160, 32};
  runShardedCase(c);
}

// An empty group and tokens past the last group.
TEST(ShardingExecution, ExpertParallelGroupedGemm) {
  runExpertParallelGroupedGemm({32, 32, 96, 128});
}

// Offsets out of contract are clamped as the unsharded op clamps them
// (end_g = min(max(offs[g], end_{g-1}), M)): the second shard's first row
// is the running maximum of the first shard's ends, not its last entry (a
// negative or smaller entry used to mask the wrong rows: rows 10..99 were
// zero with ends 10, -5, 60, 100).
TEST(ShardingExecution, ExpertParallelGroupedGemmOutOfContractOffsets) {
  runExpertParallelGroupedGemm({10, -5, 60, 100});
  runExpertParallelGroupedGemm({40, 16, 100, 100});
  runExpertParallelGroupedGemm({-7, 200, 100, 90});
}

// FSDP-style weight gather: the fp8 data and e8m0 scales of a quantize
// split along the quantized axis (one 32-element block per shard) are
// all-gathered along that axis (the runtime's byte all-gather, moved
// outermost and back), then dequantized whole on every shard.
TEST(ShardingExecution, AllGatherFp8DataAndScales) {
  ShardedCase c;
  c.source = R"mlir(
shard.grid @grid(shape = 2)
func.func @model(%w: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %w1 = shard.shard %w to %s : tensor<16x64xf32>
  %q, %qs = mxfp8train.quantize %w1 axis = 1 mode = rceil
      : tensor<16x64xf32> -> tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %q1 = shard.shard %q to %r annotate_for_users : tensor<16x64xf8E4M3FN>
  %qs1 = shard.shard %qs to %r annotate_for_users : tensor<16x2xf8E8M0FNU>
  %d = mxfp8train.dequantize %q1 [%qs1] axis = 1
      : tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>] -> tensor<16x64xf32>
  return %d : tensor<16x64xf32>
}
)mlir";
  c.inputs = {randomF32({16, 64}, 7)};
  c.inputSplits = {1};
  c.resultSplit = kReplicated;
  c.expectedAllReduces = 0;
  c.collectives = {"shard.all_gather", "shard.all_gather"};
  c.localResultShape = {16, 64};
  c.simulate = false;
  runShardedCase(c);
}

// Token rows split over the shards are quantized where they are (the
// quantize's results annotated with the row split), and the fp8 data and
// e8m0 scales move to a split along the quantized axis (all-to-all, split
// axis 1, concat axis 0) before the dequantize.
TEST(ShardingExecution, AllToAllFp8DataAndScales) {
  ShardedCase c;
  c.source = R"mlir(
shard.grid @grid(shape = 2)
func.func @model(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<16x64xf32>
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil
      : tensor<16x64xf32> -> tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
  %q0 = shard.shard %q to %s : tensor<16x64xf8E4M3FN>
  %qs0 = shard.shard %qs to %s : tensor<16x2xf8E8M0FNU>
  %c = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %q1 = shard.shard %q0 to %c annotate_for_users : tensor<16x64xf8E4M3FN>
  %qs1 = shard.shard %qs0 to %c annotate_for_users : tensor<16x2xf8E8M0FNU>
  %d = mxfp8train.dequantize %q1 [%qs1] axis = 1
      : tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>] -> tensor<16x64xf32>
  %d1 = shard.shard %d to %c : tensor<16x64xf32>
  return %d1 : tensor<16x64xf32>
}
)mlir";
  c.inputs = {randomF32({16, 64}, 8)};
  c.inputSplits = {0};
  c.resultSplit = 1;
  c.expectedAllReduces = 0;
  c.collectives = {"shard.all_to_all", "shard.all_to_all"};
  c.localResultShape = {16, 32};
  c.simulate = false;
  runShardedCase(c);
}

// The expert-parallel token exchange: tokens split along K on the two
// processes move to a split along their rows (all-to-all, split axis 0,
// concat axis 1) and are quantized along K there. After
// mxfp8train-quantize-before-all-to-all each process quantizes its 32-column
// half (one whole 1x32 block per row) and exchanges the fp8 data and e8m0
// scales instead: the same bytes out, and each rank's exchanges carry
// 16 x 32 fp8 bytes and 16 scale bytes (528) instead of 16 x 32 bf16
// (1024; the counter includes the piece a rank keeps).
TEST(ShardingExecution, TokenExchangeInMxfp8) {
  ShardedCase c;
  c.source = R"mlir(
shard.grid @grid(shape = 2)
func.func @model(%x: tensor<16x64xbf16>) -> tensor<16x64xf32> {
  %k = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %t = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %k : tensor<16x64xbf16>
  %x2 = shard.shard %x1 to %t annotate_for_users : tensor<16x64xbf16>
  %q, %qs = mxfp8train.quantize %x2 axis = 1 mode = rceil
      : tensor<16x64xbf16> -> tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
  %d = mxfp8train.dequantize %q [%qs] axis = 1
      : tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>] -> tensor<16x64xf32>
  %d1 = shard.shard %d to %t : tensor<16x64xf32>
  return %d1 : tensor<16x64xf32>
}
)mlir";
  c.inputs = {randomBF16({16, 64}, 12)};
  c.inputSplits = {1};
  c.resultSplit = 0;
  c.expectedAllReduces = 0;
  c.collectives = {"shard.all_to_all"};
  c.localResultShape = {8, 64};
  c.simulate = false;
  c.bytesSent = 16 * 32 * 2;
  c.quantizeBeforeCollectives = true;
  c.bytesSentAfterRewrite = 16 * 32 + 16;
  runShardedCase(c);
}

// FSDP: the bf16 weight split along its rows (64 of 128 per shard) is
// gathered whole for the forward GEMM, then quantized along K. After
// mxfp8train-quantize-before-all-gather each shard quantizes its rows and
// the fp8 data and e8m0 scales are gathered instead: the same bytes out,
// and each rank sends 64 x 128 fp8 bytes + 64 x 4 scale bytes (8448)
// instead of 64 x 128 bf16 (16384): half, plus the scales.
TEST(ShardingExecution, FsdpFp8AllGather) {
  ShardedCase c;
  c.source = R"mlir(
shard.grid @grid(shape = 2)
func.func @model(%x: tensor<32x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<32x128xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %w1 = shard.shard %w to %s : tensor<128x128xbf16>
  %w2 = shard.shard %w1 to %r annotate_for_users : tensor<128x128xbf16>
  %q, %qs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<32x128xbf16> -> tensor<32x128xf8E4M3FN>, tensor<32x4xf8E8M0FNU>
  %wq, %ws = mxfp8train.quantize %w2 axis = 1 mode = rceil
      : tensor<128x128xbf16> -> tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  %y = mxfp8train.scaled_mm %q [%qs], %wq [%ws] transpose_rhs
      : tensor<32x128xf8E4M3FN> [tensor<32x4xf8E8M0FNU>],
        tensor<128x128xf8E4M3FN> [tensor<128x4xf8E8M0FNU>] -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}
)mlir";
  c.inputs = {randomBF16({32, 128}, 10), randomBF16({128, 128}, 11)};
  c.inputSplits = {-1, 0};
  c.resultSplit = kReplicated;
  c.expectedAllReduces = 0;
  c.collectives = {"shard.all_gather"};
  c.localResultShape = {32, 128};
  c.simulate = false;
  c.bytesSent = 64 * 128 * 2;
  c.quantizeBeforeCollectives = true;
  c.bytesSentAfterRewrite = 64 * 128 * 2 / 2 + 64 * 4;
  runShardedCase(c);
}

// FSDP with both casts of the weight (quantize_dual): the forward GEMM
// reads the 1x32 (along K) cast, the input-gradient GEMM dY @ W the 32x1
// (along the split rows N) cast; 64 rows per shard are 2 whole 32-row
// blocks, so both casts move before the gather: 2 x (8192 fp8 bytes) +
// 64 x 4 + 2 x 128 scale bytes per rank instead of 16384 bf16 bytes once
// (the fp8 copies are half a bf16 copy each).
TEST(ShardingExecution, FsdpFp8AllGatherBothAxes) {
  ShardedCase c;
  c.source = R"mlir(
shard.grid @grid(shape = 2)
func.func @model(%x: tensor<32x128xbf16>, %dy: tensor<32x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<32x128xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %w1 = shard.shard %w to %s : tensor<128x128xbf16>
  %w2 = shard.shard %w1 to %r annotate_for_users : tensor<128x128xbf16>
  %q, %qs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<32x128xbf16> -> tensor<32x128xf8E4M3FN>, tensor<32x4xf8E8M0FNU>
  %g, %gs = mxfp8train.quantize %dy axis = 1 mode = rceil
      : tensor<32x128xbf16> -> tensor<32x128xf8E4M3FN>, tensor<32x4xf8E8M0FNU>
  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %w2 mode = rceil
      : tensor<128x128xbf16> -> tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>,
                                tensor<128x128xf8E4M3FN>, tensor<4x128xf8E8M0FNU>
  %y = mxfp8train.scaled_mm %q [%qs], %rq [%rs] transpose_rhs
      : tensor<32x128xf8E4M3FN> [tensor<32x4xf8E8M0FNU>],
        tensor<128x128xf8E4M3FN> [tensor<128x4xf8E8M0FNU>] -> tensor<32x128xf32>
  %dx = mxfp8train.scaled_mm %g [%gs], %cq [%cs]
      : tensor<32x128xf8E4M3FN> [tensor<32x4xf8E8M0FNU>],
        tensor<128x128xf8E4M3FN> [tensor<4x128xf8E8M0FNU>] -> tensor<32x128xf32>
  %e = tensor.empty() : tensor<32x128xf32>
  %sum = linalg.add ins(%y, %dx : tensor<32x128xf32>, tensor<32x128xf32>)
      outs(%e : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %sum : tensor<32x128xf32>
}
)mlir";
  c.inputs = {randomBF16({32, 128}, 12), randomBF16({32, 128}, 13),
              randomBF16({128, 128}, 14)};
  c.inputSplits = {-1, -1, 0};
  c.resultSplit = kReplicated;
  c.expectedAllReduces = 0;
  c.collectives = {"shard.all_gather"};
  c.localResultShape = {32, 128};
  c.simulate = false;
  c.bytesSent = 64 * 128 * 2;
  c.quantizeBeforeCollectives = true;
  c.bytesSentAfterRewrite = 2 * (64 * 128 * 2 / 2) + 64 * 4 + 2 * 128;
  runShardedCase(c);
}

// shard.reduce_scatter (which shard-partition does not emit for these
// graphs) written by hand along the columns: the lowering splits the axis,
// moves the blocks outermost and back; shard p gets columns [4p, 4p + 4)
// of the f32 sum of the shards' inputs (shard 0's plus shard 1's, the
// in-process order).
TEST(ShardingExecution, LoweredReduceScatterAlongColumns) {
  MLIRContext &ctx = getShardingContext();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
shard.grid @grid(shape = 2)
func.func @model(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %r = shard.reduce_scatter %x on @grid grid_axes = [0] reduction = sum
      scatter_axis = 1 : tensor<4x8xf32> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
)mlir",
                                                             &ctx);
  ASSERT_TRUE(module);
  ShardedCase c;
  // Rows [4p, 4p + 4) are shard p's input.
  c.inputs = {randomF32({8, 8}, 9)};
  c.inputSplits = {0};
  std::vector<HostTensor> results = runWithCollectives(*module, c);
  ASSERT_EQ(results.size(), static_cast<size_t>(kShards));
  const float *x = c.inputs[0].data<float>();
  HostTensor expected(HostElementType::F32, {4, 8});
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 8; ++j)
      expected.data<float>()[i * 8 + j] = x[i * 8 + j] + x[(4 + i) * 8 + j];
  expectSameBytes(concat(results, 1), expected, "reduce-scatter");
}

// A K split with a bf16 result: each shard's f32 partial, the all-reduce,
// and one arith.truncf on the tensor that shard-partition emits (which the
// pipelines used to reject: "op was not bufferized"). The result is the
// unsplit GEMM's up to the f32 summation order (docs/sharding.md): within
// one bf16 ulp of it everywhere, and whole and identical on both ranks.
TEST(ShardingExecution, SplitKBf16Result) {
  MLIRContext &ctx = getShardingContext();
  ShardedCase c;
  c.source = R"mlir(
shard.grid @grid(shape = 2)
func.func @model(%x: tensor<16x128xf32>, %w: tensor<32x128xf32>) -> tensor<16x32xbf16> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<16x128xf32>
  %w1 = shard.shard %w to %s : tensor<32x128xf32>
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil
      : tensor<16x128xf32> -> tensor<16x128xf8E4M3FN>, tensor<16x4xf8E8M0FNU>
  %wq, %ws = mxfp8train.quantize %w1 axis = 1 mode = rceil
      : tensor<32x128xf32> -> tensor<32x128xf8E4M3FN>, tensor<32x4xf8E8M0FNU>
  %y = mxfp8train.scaled_mm %q [%qs], %wq [%ws] transpose_rhs
      : tensor<16x128xf8E4M3FN> [tensor<16x4xf8E8M0FNU>],
        tensor<32x128xf8E4M3FN> [tensor<32x4xf8E8M0FNU>] -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}
)mlir";
  c.inputs = {randomF32({16, 128}, 11), randomF32({32, 128}, 12)};
  c.inputSplits = {1, 1};
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(c.source, &ctx);
  ASSERT_TRUE(module);
  std::vector<HostTensor> expected = runUnpartitioned(*module, c.inputs);
  ASSERT_EQ(expected.size(), 1u);
  ASSERT_TRUE(succeeded(propagateAndPartition(*module)));
  int truncs = 0;
  module->walk([&](arith::TruncFOp) { ++truncs; });
  EXPECT_EQ(truncs, 1);

  std::vector<HostTensor> results = runWithCollectives(*module, c);
  ASSERT_EQ(results.size(), static_cast<size_t>(kShards));
  ASSERT_EQ(results[0].shape, expected[0].shape);
  EXPECT_EQ(results[0].bytes, results[1].bytes) << "ranks disagree";
  int64_t exact = 0;
  for (int64_t i = 0; i < expected[0].getNumElements(); ++i) {
    double want = expected[0].getAsDouble(i), got = results[0].getAsDouble(i);
    // One bf16 ulp at |want|: 2^(exponent - 7).
    double ulp = std::ldexp(1.0, std::ilogb(want == 0 ? 1e-30 : want) - 7);
    EXPECT_LE(std::abs(got - want), ulp) << "element " << i;
    exact += got == want;
  }
  // Mostly the same bits: only sums near a rounding boundary move.
  EXPECT_GT(exact, expected[0].getNumElements() * 9 / 10);
}

} // namespace
