//===- ExpertParallelExecutionTest.cpp - MXFP8 expert parallelism -*- C++ -*-//
//
// The expert-parallel MoE step that stays in MXFP8 (docs/sharding.md), run
// on 2 and 4 in-process ranks (threads) on the CPU:
//   tokens (bf16) --mxfp8train.quantize axis = 1--> fp8 data + e8m0 scales
//   --mxfp8rtMoeDispatchMx--> the rank's rows grouped by local expert, offs
//   --mxfp8train.scaled_grouped_mm (2d-3d, the rank's experts)--> bf16
//   --mxfp8rtMoeCombine--> every (token, slot) output back on its rank.
// No dequantize runs between the quantize and the GEMM. Each slot's output
// is compared bit for bit with one single-rank grouped GEMM over every
// rank's tokens and all experts (the same quantize). Top-2 routing with
// uneven groups, an empty expert on each rank, a rank without tokens and
// (with 4 ranks) a rank that receives nothing. The dispatch sends
// K + K/32 bytes per row where the bf16 exchange sends 2K.
//
// The step runs three ways: driven from C++ (the runtime's C calls between
// compiled ops), as hand-written calls of the runtime's shard ABI, and as
// the dialect's mxfp8train.moe_dispatch / moe_combine compiled through the
// CPU pipeline (which lowers them with convert-shard-to-runtime-collectives).
//
// The backward of the exchange is the same two ops with the roles swapped
// (torchao: the combine's gradient is an MXFP8 dispatch, the dispatch's a
// bf16 combine): each slot's output gradient dY (bf16, quantized 1x32
// along N) is dispatched as a row of its own (flat routing, one slot per
// row), the rank's experts compute dX = dY W_e (2d-3d, W quantized along
// N), and moe_combine returns every slot's dX row; compared bit for bit
// with one rank's grouped GEMM over all slots and experts. The experts'
// weight gradient dW_e = dY_e^T X_e runs on their ranks from the two
// dispatches (both operands dequantized and quantized along the received
// rows, 2d-2d over the 32-row groups), compared with one rank's 2d-2d GEMM
// over all slots padded to the same groups.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "mxfp8train/runtime/ExpertParallel.h"

#include "InProcessRanks.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <tuple>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mxtest;

namespace {

constexpr int64_t kK = 64, kN = 32, kTopK = 2, kExpertsPerRank = 2;
// The agreement header each exchange all-gathers first (runtime
// ExpertParallel.cpp): an error flag, then each call's fields as two i32
// halves (dispatch: numExperts, k, capacity, alignment; combine:
// numExperts, n, type, capacity, alignment).
constexpr int64_t kDispatchHeaderBytes = (1 + 2 * 4) * 4;
constexpr int64_t kCombineHeaderBytes = (1 + 2 * 5) * 4;
/// Rows of each rank's token buffer (its tokens, then zero rows) and of its
/// dispatched buffer; expert groups start at multiples of kAlignment rows
/// (torchao's default: 32-token blocks of the weight gradient stay inside
/// one expert). With 4 ranks, rank 2's two padded groups fill the capacity.
constexpr int64_t kMaxTokens = 40, kCapacity = 128, kAlignment = 32;

int64_t getNumTokens(int rank, int size) {
  static const int64_t twoRanks[] = {37, 20};
  static const int64_t fourRanks[] = {37, 0, 20, 29};
  return size == 2 ? twoRanks[rank] : fourRanks[rank];
}

/// Token t's slot j on `rank`: spread by a hash, no token to expert 1
/// (local expert 1 of rank 0 is empty), and with 4 ranks none to rank 3.
int32_t getExpert(int rank, int64_t t, int64_t j, int size) {
  int64_t experts = kExpertsPerRank * size;
  int64_t e = (rank * 131 + t * 17 + j * 7 + (t * t) % 5) % experts;
  if (e == 1)
    e = 0;
  if (size == 4 && e >= experts - kExpertsPerRank)
    e -= kExpertsPerRank;
  return static_cast<int32_t>(e);
}

/// `@step`: the whole step of one rank as one compiled function, calling
/// the runtime's dispatch and combine on the thread's bound communicator
/// (the ABI a compiler lowering of the exchange would emit): quantize,
/// mxfp8rtShardMoeDispatchMx, the grouped GEMM of the rank's experts on the
/// dispatched fp8 rows, mxfp8rtShardMoeCombine. Inputs: the rank's tokens
/// (kMaxTokens rows), their routing (kMaxTokens * kTopK ids, the first
/// numTokens * kTopK used), numTokens, the rank's expert weights. Result:
/// kMaxTokens * kTopK rows, the first numTokens * kTopK the slots' outputs.
/// Buffers cross the calls as in convert-shard-to-runtime-collectives:
/// fresh copies in, fresh allocations out.
std::string getStepSource(int size) {
  std::string text = R"mlir(
func.func private @mxfp8rtShardMoeDispatchMx(index, index, index, index, index,
    index, index, index, index, index, index, index, index, index) -> i32
func.func private @mxfp8rtShardMoeCombine(index, index, i32, index, index,
    index, index, index, index, index, index, index) -> i32
func.func @step(%x: tensor<40x64xbf16>, %route: tensor<80xi32>,
    %ntok: tensor<1xi64>, %w: tensor<2x32x64xbf16>) -> tensor<80x32xbf16> {
  %c0 = arith.constant 0 : index
  %ok0 = arith.constant 0 : i32
  %k = arith.constant 64 : index
  %topk = arith.constant 2 : index
  %experts = arith.constant EXPERTS : index
  %cap = arith.constant 128 : index
  %align = arith.constant ALIGN : index
  %n = arith.constant 32 : index
  %bf16 = arith.constant 1 : i32
  %procs = arith.constant PROCS : index
  %nt64 = tensor.extract %ntok[%c0] : tensor<1xi64>
  %nt = arith.index_cast %nt64 : i64 to index
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<40x64xbf16> -> tensor<40x64xf8E4M3FN>, tensor<40x2xf8E8M0FNU>
  %qc = bufferization.alloc_tensor() copy(%q) : tensor<40x64xf8E4M3FN>
  %qm = bufferization.to_buffer %qc : tensor<40x64xf8E4M3FN> to memref<40x64xf8E4M3FN>
  %sc = bufferization.alloc_tensor() copy(%s) : tensor<40x2xf8E8M0FNU>
  %sm = bufferization.to_buffer %sc : tensor<40x2xf8E8M0FNU> to memref<40x2xf8E8M0FNU>
  %rc = bufferization.alloc_tensor() copy(%route) : tensor<80xi32>
  %rm = bufferization.to_buffer %rc : tensor<80xi32> to memref<80xi32>
  %dm = memref.alloc() : memref<128x64xf8E4M3FN>
  %dsm = memref.alloc() : memref<128x2xf8E8M0FNU>
  %om = memref.alloc() : memref<2xi32>
  %cm = memref.alloc() : memref<COUNTSxi32>
  %qp = memref.extract_aligned_pointer_as_index %qm : memref<40x64xf8E4M3FN> -> index
  %sp = memref.extract_aligned_pointer_as_index %sm : memref<40x2xf8E8M0FNU> -> index
  %rp = memref.extract_aligned_pointer_as_index %rm : memref<80xi32> -> index
  %dp = memref.extract_aligned_pointer_as_index %dm : memref<128x64xf8E4M3FN> -> index
  %dsp = memref.extract_aligned_pointer_as_index %dsm : memref<128x2xf8E8M0FNU> -> index
  %op = memref.extract_aligned_pointer_as_index %om : memref<2xi32> -> index
  %cp = memref.extract_aligned_pointer_as_index %cm : memref<COUNTSxi32> -> index
  %st = func.call @mxfp8rtShardMoeDispatchMx(%qp, %sp, %nt, %k, %topk, %rp,
      %experts, %cap, %align, %dp, %dsp, %op, %cp, %procs)
      : (index, index, index, index, index, index, index, index, index, index,
         index, index, index, index) -> i32
  %ok = arith.cmpi eq, %st, %ok0 : i32
  cf.assert %ok, "mxfp8rtShardMoeDispatchMx failed"
  %a = bufferization.to_tensor %dm restrict writable : memref<128x64xf8E4M3FN> to tensor<128x64xf8E4M3FN>
  %as = bufferization.to_tensor %dsm restrict writable : memref<128x2xf8E8M0FNU> to tensor<128x2xf8E8M0FNU>
  %offs = bufferization.to_tensor %om restrict writable : memref<2xi32> to tensor<2xi32>
  %wq, %ws = mxfp8train.quantize %w axis = 2 mode = rceil
      : tensor<2x32x64xbf16> -> tensor<2x32x64xf8E4M3FN>, tensor<2x32x2xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %a [%as], %wq [%ws] offs(%offs) transpose_rhs
      : tensor<128x64xf8E4M3FN> [tensor<128x2xf8E8M0FNU>],
        tensor<2x32x64xf8E4M3FN> [tensor<2x32x2xf8E8M0FNU>], tensor<2xi32>
        -> tensor<128x32xbf16>
  %yc = bufferization.alloc_tensor() copy(%y) : tensor<128x32xbf16>
  %ym = bufferization.to_buffer %yc : tensor<128x32xbf16> to memref<128x32xbf16>
  %outm = memref.alloc() : memref<80x32xbf16>
  %yp = memref.extract_aligned_pointer_as_index %ym : memref<128x32xbf16> -> index
  %outp = memref.extract_aligned_pointer_as_index %outm : memref<80x32xbf16> -> index
  %rp2 = memref.extract_aligned_pointer_as_index %rm : memref<80xi32> -> index
  %cp2 = memref.extract_aligned_pointer_as_index %cm : memref<COUNTSxi32> -> index
  %st2 = func.call @mxfp8rtShardMoeCombine(%yp, %n, %bf16, %nt, %topk, %rp2,
      %experts, %cp2, %cap, %align, %outp, %procs)
      : (index, index, i32, index, index, index, index, index, index, index,
         index, index) -> i32
  %ok2 = arith.cmpi eq, %st2, %ok0 : i32
  cf.assert %ok2, "mxfp8rtShardMoeCombine failed"
  %out = bufferization.to_tensor %outm restrict writable : memref<80x32xbf16> to tensor<80x32xbf16>
  return %out : tensor<80x32xbf16>
}
)mlir";
  auto replace = [&](const std::string &from, const std::string &to) {
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace("EXPERTS", std::to_string(kExpertsPerRank * size));
  replace("PROCS", std::to_string(size));
  replace("ALIGN", std::to_string(kAlignment));
  replace("COUNTS", std::to_string(size * size * kExpertsPerRank));
  return text;
}

/// One exchange through a rank's experts with the dialect's ops on the
/// grid @ep of `size` processes (the default alignment, 32): `in` (rows x
/// inCols bf16) quantized 1x32, moe_dispatch with `route`, the rank's
/// expert weights `w` (E_local, kN, kK) quantized along `weightAxis`, the
/// 2d-3d grouped GEMM (`transpose_rhs` or not) to outCols columns, and
/// moe_combine back to the (slots, outCols) rows. `withGroups`: the offs
/// and counts are returned too.
std::string getExchangeSource(const std::string &name, int size, int64_t rows,
                              int64_t inCols, int64_t outCols,
                              const std::string &route, int64_t slots,
                              int64_t weightAxis, bool withGroups) {
  int64_t experts = kExpertsPerRank * size;
  std::vector<int64_t> scaleShape = {kExpertsPerRank, kN, kK};
  scaleShape[weightAxis] /= 32;
  std::string in = tensorType({rows, inCols}, "bf16");
  std::string q = tensorType({rows, inCols}, "f8E4M3FN");
  std::string s = tensorType({rows, inCols / 32}, "f8E8M0FNU");
  std::string got = tensorType({kCapacity, inCols}, "f8E4M3FN");
  std::string gs = tensorType({kCapacity, inCols / 32}, "f8E8M0FNU");
  std::string offs = tensorType({kExpertsPerRank}, "i32");
  std::string counts = tensorType({size * experts}, "i32");
  std::string w = tensorType({kExpertsPerRank, kN, kK}, "bf16");
  std::string wq = tensorType({kExpertsPerRank, kN, kK}, "f8E4M3FN");
  std::string ws = tensorType(scaleShape, "f8E8M0FNU");
  std::string y = tensorType({kCapacity, outCols}, "bf16");
  std::string out = tensorType({slots, outCols}, "bf16");
  std::string on =
      " on @ep grid_axes = [0] num_experts = " + std::to_string(experts) +
      " capacity = " + std::to_string(kCapacity);
  std::string results = out, returned = "%out";
  if (withGroups) {
    results = "(" + out + ", " + offs + ", " + counts + ")";
    returned = "%out, %offs, %counts : " + out + ", " + offs + ", " + counts;
  } else {
    returned += " : " + out;
  }
  return "func.func @" + name + "(%in: " + in + ", %route: " + route +
         ", %w: " + w + ") -> " + results + " {\n" +
         "  %q, %s = mxfp8train.quantize %in axis = 1 mode = rceil : " + in +
         " -> " + q + ", " + s + "\n" +
         "  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], "
         "%route" +
         on + " : " + q + " [" + s + "], " + route + " -> " + got + ", " + gs +
         ", " + offs + ", " + counts + "\n" +
         "  %wq, %ws = mxfp8train.quantize %w axis = " +
         std::to_string(weightAxis) + " mode = rceil : " + w + " -> " + wq +
         ", " + ws + "\n" +
         "  %y = mxfp8train.scaled_grouped_mm %rows [%rs], %wq [%ws] "
         "offs(%offs)" +
         (weightAxis == 2 ? " transpose_rhs" : "") + " : " + got + " [" + gs +
         "], " + wq + " [" + ws + "], " + offs + " -> " + y + "\n" +
         "  %out = mxfp8train.moe_combine %y, %route counts(%counts)" + on +
         " : " + y + ", " + route + ", " + counts + " -> " + out + "\n" +
         "  return " + returned + "\n}\n";
}

/// `@moe_step_T` for a rank with T tokens: the forward step (tokens (T, K)
/// through experts (N, K) to the (T * topK, N) slot outputs), returning the
/// rank's offs and the counts too. Routing is (T, topK) for odd T and flat
/// (T * topK) otherwise, so both forms run.
std::string getMoeStepSource(int size, int64_t tokens) {
  std::string route = tokens % 2 ? tensorType({tokens, kTopK}, "i32")
                                 : tensorType({tokens * kTopK}, "i32");
  return getExchangeSource("moe_step_" + std::to_string(tokens), size, tokens,
                           kK, kN, route, tokens * kTopK, /*weightAxis=*/2,
                           /*withGroups=*/true);
}

/// `@moe_grad_T` for a rank with T tokens: the exchange's backward. Inputs:
/// the (T * topK, N) gradients of the slot outputs, the flat routing
/// (T * topK) and the rank's expert weights. The gradients are quantized
/// 1x32 along N and dispatched one slot per row (topK 1: the rows land
/// where the forward's slot rows did), the rank's experts give dX = dY W_e
/// (W quantized along N, no transpose), and moe_combine returns the
/// (T * topK, K) dX of every slot.
std::string getMoeGradSource(int size, int64_t tokens) {
  int64_t slots = tokens * kTopK;
  return getExchangeSource("moe_grad_" + std::to_string(tokens), size, slots,
                           kN, kK, tensorType({slots}, "i32"), slots,
                           /*weightAxis=*/1, /*withGroups=*/false);
}

/// `@moe_wgrad_T` for a rank with T tokens: the experts' weight gradient
/// dW_e = dY_e^T X_e over the rows the rank received. The forward's
/// dispatch of the tokens (1x32 along K; flat routing, topK slots per
/// token) and the backward's dispatch of the slot gradients (1x32 along N,
/// one slot per row) put both operands' rows in the same groups; each is
/// dequantized (exact) and quantized 32x1 along the rows (the dispatch's
/// 32-row groups keep every block inside one expert) for the 2d-2d GEMM.
/// Result: (E_local, N, K).
std::string getMoeWgradSource(int size, int64_t tokens) {
  int64_t experts = kExpertsPerRank * size, slots = tokens * kTopK;
  auto t = [](std::vector<int64_t> shape, const char *elem) {
    return tensorType(shape, elem);
  };
  std::string x = t({tokens, kK}, "bf16");
  std::string dy = t({slots, kN}, "bf16");
  std::string route = t({slots}, "i32");
  std::string offs = t({kExpertsPerRank}, "i32");
  std::string counts = t({size * experts}, "i32");
  std::string on =
      " on @ep grid_axes = [0] num_experts = " + std::to_string(experts) +
      " capacity = " + std::to_string(kCapacity);
  // `in` (rows x cols bf16) quantized along the columns, dispatched with
  // %route, dequantized and quantized along the received rows.
  auto exchange = [&](const std::string &v, const std::string &in, int64_t rows,
                      int64_t cols) {
    std::string q = t({rows, cols}, "f8E4M3FN");
    std::string s = t({rows, cols / 32}, "f8E8M0FNU");
    std::string r = t({kCapacity, cols}, "f8E4M3FN");
    std::string rs = t({kCapacity, cols / 32}, "f8E8M0FNU");
    std::string hp = t({kCapacity, cols}, "bf16");
    std::string cs = t({kCapacity / 32, cols}, "f8E8M0FNU");
    return "  %" + v + "q, %" + v + "s = mxfp8train.quantize " + in +
           " axis = 1 mode = rceil : " + t({rows, cols}, "bf16") + " -> " + q +
           ", " + s + "\n  %" + v + "r, %" + v + "rs, %" + v + "o, %" + v +
           "c = mxfp8train.moe_dispatch %" + v + "q [%" + v + "s], %route" +
           on + " : " + q + " [" + s + "], " + route + " -> " + r + ", " + rs +
           ", " + offs + ", " + counts + "\n  %" + v +
           "h = mxfp8train.dequantize %" + v + "r [%" + v +
           "rs] axis = 1 : " + r + " [" + rs + "] -> " + hp + "\n  %" + v +
           "cq, %" + v + "cs = mxfp8train.quantize %" + v +
           "h axis = 0 mode = rceil : " + hp + " -> " + r + ", " + cs + "\n";
  };
  std::string dw = t({kExpertsPerRank, kN, kK}, "bf16");
  return "func.func @moe_wgrad_" + std::to_string(tokens) + "(%x: " + x +
         ", %dy: " + dy + ", %route: " + route + ") -> " + dw + " {\n" +
         exchange("x", "%x", tokens, kK) + exchange("g", "%dy", slots, kN) +
         "  %dw = mxfp8train.scaled_grouped_mm %gcq [%gcs], %xcq [%xcs] "
         "offs(%go) transpose_lhs : " +
         t({kCapacity, kN}, "f8E4M3FN") + " [" +
         t({kCapacity / 32, kN}, "f8E8M0FNU") + "], " +
         t({kCapacity, kK}, "f8E4M3FN") + " [" +
         t({kCapacity / 32, kK}, "f8E8M0FNU") + "], " + offs + " -> " + dw +
         "\n  return %dw : " + dw + "\n}\n";
}

/// @quantize_tokens, @experts (the rank's kExpertsPerRank experts on
/// kCapacity rows) and @experts_all (all experts on `allRows` rows).
std::string getModuleSource(int size, int64_t allRows) {
  int64_t experts = kExpertsPerRank * size;
  auto grouped = [](const std::string &name, int64_t rows, int64_t e) {
    std::string a = tensorType({rows, kK}, "f8E4M3FN");
    std::string as = tensorType({rows, kK / 32}, "f8E8M0FNU");
    std::string w = tensorType({e, kN, kK}, "bf16");
    std::string wq = tensorType({e, kN, kK}, "f8E4M3FN");
    std::string ws = tensorType({e, kN, kK / 32}, "f8E8M0FNU");
    std::string offs = tensorType({e}, "i32");
    std::string out = tensorType({rows, kN}, "bf16");
    return "func.func @" + name + "(%a: " + a + ", %as: " + as + ", %w: " + w +
           ", %offs: " + offs + ") -> " + out + " {\n" +
           "  %wq, %ws = mxfp8train.quantize %w axis = 2 mode = rceil : " + w +
           " -> " + wq + ", " + ws + "\n" +
           "  %y = mxfp8train.scaled_grouped_mm %a [%as], %wq [%ws] "
           "offs(%offs) transpose_rhs : " +
           a + " [" + as + "], " + wq + " [" + ws + "], " + offs + " -> " +
           out + "\n  return %y : " + out + "\n}\n";
  };
  std::string x = tensorType({kMaxTokens, kK}, "bf16");
  std::string q = tensorType({kMaxTokens, kK}, "f8E4M3FN");
  std::string s = tensorType({kMaxTokens, kK / 32}, "f8E8M0FNU");
  // One @moe_step_T per distinct token count of the ranks.
  std::string moeSteps =
      "shard.grid @ep(shape = " + std::to_string(size) + ")\n";
  std::vector<int64_t> counts;
  for (int r = 0; r < size; ++r)
    if (llvm::find(counts, getNumTokens(r, size)) == counts.end()) {
      counts.push_back(getNumTokens(r, size));
      moeSteps += getMoeStepSource(size, counts.back());
      moeSteps += getMoeGradSource(size, counts.back());
      moeSteps += getMoeWgradSource(size, counts.back());
    }
  // The backward's reference: the slot gradients quantized along N, one
  // grouped GEMM dX = dY W_e over all slots and experts.
  std::string dy = tensorType({allRows, kN}, "bf16");
  std::string dq = tensorType({allRows, kN}, "f8E4M3FN");
  std::string ds = tensorType({allRows, kN / 32}, "f8E8M0FNU");
  std::string wAll = tensorType({experts, kN, kK}, "bf16");
  std::string wq = tensorType({experts, kN, kK}, "f8E4M3FN");
  std::string ws = tensorType({experts, kN / 32, kK}, "f8E8M0FNU");
  std::string offsAll = tensorType({experts}, "i32");
  std::string dx = tensorType({allRows, kK}, "bf16");
  moeSteps +=
      "func.func @grads_all(%dy: " + dy + ", %w: " + wAll +
      ", %offs: " + offsAll + ") -> " + dx + " {\n" +
      "  %q, %s = mxfp8train.quantize %dy axis = 1 mode = rceil : " + dy +
      " -> " + dq + ", " + ds + "\n" +
      "  %wq, %ws = mxfp8train.quantize %w axis = 1 mode = rceil : " + wAll +
      " -> " + wq + ", " + ws + "\n" +
      "  %dx = mxfp8train.scaled_grouped_mm %q [%s], %wq [%ws] "
      "offs(%offs) : " +
      dq + " [" + ds + "], " + wq + " [" + ws + "], " + offsAll + " -> " + dx +
      "\n  return %dx : " + dx + "\n}\n";
  // The weight gradient's reference: the slots' token rows (fp8, in expert
  // order) and their gradients, dequantized after the 1x32 casts as on the
  // ranks, padded to 32-row groups (per expert the same rows in the same
  // order as the dispatch's groups), quantized along the rows, one 2d-2d
  // GEMM over all experts.
  int64_t padded = (allRows + 32 * experts + 31) / 32 * 32;
  auto padCast = [&](const std::string &v, const std::string &hp,
                     int64_t cols) {
    std::string in = tensorType({allRows, cols}, "bf16");
    std::string out = tensorType({padded, cols}, "bf16");
    return "  %" + v + "p, %" + v + "po = mxfp8train.pad_token_groups " + hp +
           " offs(%offs) alignment = 32 : " + in + ", " + offsAll + " -> " +
           out + ", " + offsAll + "\n  %" + v + "cq, %" + v +
           "cs = mxfp8train.quantize %" + v +
           "p axis = 0 mode = rceil : " + out + " -> " +
           tensorType({padded, cols}, "f8E4M3FN") + ", " +
           tensorType({padded / 32, cols}, "f8E8M0FNU") + "\n";
  };
  std::string xa = tensorType({allRows, kK}, "f8E4M3FN");
  std::string xs = tensorType({allRows, kK / 32}, "f8E8M0FNU");
  std::string xh = tensorType({allRows, kK}, "bf16");
  std::string gh = tensorType({allRows, kN}, "bf16");
  std::string dwAll = tensorType({experts, kN, kK}, "bf16");
  moeSteps +=
      "func.func @wgrad_all(%xq: " + xa + ", %xs: " + xs + ", %dy: " + dy +
      ", %offs: " + offsAll + ") -> " + dwAll + " {\n" +
      "  %xh = mxfp8train.dequantize %xq [%xs] axis = 1 : " + xa + " [" + xs +
      "] -> " + xh + "\n" +
      "  %gq, %gs = mxfp8train.quantize %dy axis = 1 mode = rceil : " + dy +
      " -> " + dq + ", " + ds + "\n" +
      "  %gh = mxfp8train.dequantize %gq [%gs] axis = 1 : " + dq + " [" + ds +
      "] -> " + gh + "\n" + padCast("x", "%xh", kK) + padCast("g", "%gh", kN) +
      "  %dw = mxfp8train.scaled_grouped_mm %gcq [%gcs], %xcq [%xcs] "
      "offs(%xpo) transpose_lhs : " +
      tensorType({padded, kN}, "f8E4M3FN") + " [" +
      tensorType({padded / 32, kN}, "f8E8M0FNU") + "], " +
      tensorType({padded, kK}, "f8E4M3FN") + " [" +
      tensorType({padded / 32, kK}, "f8E8M0FNU") + "], " + offsAll + " -> " +
      dwAll + "\n  return %dw : " + dwAll + "\n}\n";
  return moeSteps + "func.func @quantize_tokens(%x: " + x + ") -> (" + q +
         ", " + s +
         ") {\n  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : " + x +
         " -> " + q + ", " + s + "\n  return %q, %s : " + q + ", " + s +
         "\n}\n" + grouped("experts", kCapacity, kExpertsPerRank) +
         grouped("experts_all", allRows, experts) + getStepSource(size);
}

/// Rows [first, first + count) of `t` (dim 0) as a new tensor.
HostTensor sliceRows(const HostTensor &t, int64_t first, int64_t count) {
  HostTensor part(t.type, t.shape);
  part.shape[0] = count;
  int64_t row = t.bytes.size() / t.shape[0];
  part.bytes.assign(t.bytes.begin() + first * row,
                    t.bytes.begin() + (first + count) * row);
  return part;
}

/// The module for GetParam() ranks, each rank's tokens (zero rows past its
/// count), all experts' weights, and the single-rank reference: one rank
/// quantizes every rank's tokens, sorts all slots by expert and runs one
/// grouped GEMM with all experts.
class ExpertParallelExecution : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override {
    size = GetParam();
    experts = kExpertsPerRank * size;
    for (int r = 0; r < size; ++r)
      allRows += getNumTokens(r, size) * kTopK;
    exe = compileOrFail(getModuleSource(size, allRows));
    ASSERT_TRUE(exe);
    for (int r = 0; r < size; ++r) {
      HostTensor x = randomBF16({kMaxTokens, kK}, 100 + r);
      std::fill(x.bytes.begin() + getNumTokens(r, size) * kK * 2, x.bytes.end(),
                0);
      tokens.push_back(std::move(x));
    }
    weights = randomBF16({experts, kN, kK}, 7);

    struct Slot {
      int rank;
      int64_t token, slot;
      int32_t expert;
    };
    std::vector<Slot> slots;
    std::vector<std::vector<HostTensor>> quantized;
    for (int r = 0; r < size; ++r) {
      quantized.push_back(runOrFail(*exe, "quantize_tokens", {tokens[r]}));
      ASSERT_EQ(quantized.back().size(), 2u);
      for (int64_t t = 0; t < getNumTokens(r, size); ++t)
        for (int64_t j = 0; j < kTopK; ++j)
          slots.push_back({r, t, j, getExpert(r, t, j, size)});
    }
    auto byExpert = [](const Slot &a, const Slot &b) {
      return a.expert < b.expert;
    };
    std::stable_sort(slots.begin(), slots.end(), byExpert);
    HostTensor allData(HostElementType::F8E4M3FN, {allRows, kK});
    HostTensor allScales(HostElementType::F8E8M0FNU, {allRows, kK / 32});
    HostTensor allOffs(HostElementType::I32, {experts});
    for (int64_t i = 0; i < allRows; ++i) {
      const Slot &s = slots[i];
      std::memcpy(allData.bytes.data() + i * kK,
                  quantized[s.rank][0].bytes.data() + s.token * kK, kK);
      std::memcpy(allScales.bytes.data() + i * kK / 32,
                  quantized[s.rank][1].bytes.data() + s.token * kK / 32,
                  kK / 32);
      allOffs.data<int32_t>()[s.expert] = static_cast<int32_t>(i + 1);
      referenceRow[{s.rank, s.token, s.slot}] = i;
    }
    for (int64_t e = 1; e < experts; ++e)
      allOffs.data<int32_t>()[e] =
          std::max(allOffs.data<int32_t>()[e], allOffs.data<int32_t>()[e - 1]);
    referenceOffs = allOffs;
    referenceData = allData;
    referenceScales = allScales;
    EXPECT_EQ(allOffs.data<int32_t>()[1], allOffs.data<int32_t>()[0])
        << "expert 1 is meant to be empty";
    std::vector<HostTensor> out =
        runOrFail(*exe, "experts_all", {allData, allScales, weights, allOffs});
    ASSERT_EQ(out.size(), 1u);
    reference = std::move(out[0]);
  }

  /// The routing of rank r's slots, `rows` entries (zeros past its slots).
  std::vector<int32_t> getRoute(int r, int64_t rows) const {
    std::vector<int32_t> route(rows, 0);
    for (int64_t t = 0; t < getNumTokens(r, size); ++t)
      for (int64_t j = 0; j < kTopK; ++j)
        route[t * kTopK + j] = getExpert(r, t, j, size);
    return route;
  }

  /// Rank r's routing as a flat (T * topK) i32 tensor.
  HostTensor getFlatRoute(int r) const {
    int64_t slots = getNumTokens(r, size) * kTopK;
    HostTensor route(HostElementType::I32, {slots});
    std::vector<int32_t> ids = getRoute(r, slots);
    if (!ids.empty())
      std::memcpy(route.bytes.data(), ids.data(), ids.size() * sizeof(int32_t));
    return route;
  }

  /// Random gradients of every rank's slot outputs ((T * topK, N) bf16
  /// each, in `grads`), and all of them in the reference's slot order.
  HostTensor makeSlotGradients(std::vector<HostTensor> &grads) const {
    HostTensor all(HostElementType::BF16, {allRows, kN});
    for (int r = 0; r < size; ++r) {
      int64_t slots = getNumTokens(r, size) * kTopK;
      grads.push_back(randomBF16({std::max<int64_t>(slots, 1), kN}, 300 + r));
      grads.back().shape[0] = slots;
      grads.back().bytes.resize(slots * kN * 2);
      for (int64_t t = 0; t < getNumTokens(r, size); ++t)
        for (int64_t j = 0; j < kTopK; ++j)
          std::memcpy(all.bytes.data() + referenceRow.at({r, t, j}) * kN * 2,
                      grads[r].bytes.data() + (t * kTopK + j) * kN * 2, kN * 2);
    }
    return all;
  }

  /// A call of one compiled function: its name and inputs.
  using RankCall = std::pair<std::string, std::vector<HostTensor>>;

  /// Runs on every in-process rank, with the rank's communicator bound to
  /// its thread (the exchanges of the compiled code use it), the function
  /// `call(r)` names on the inputs it gives (built on the rank's thread);
  /// each rank's results, `numResults` of them, and in `bytesSent` (when
  /// given) the bytes each rank's communicator sent.
  std::vector<std::vector<HostTensor>>
  runBoundOnRanks(const std::function<RankCall(int)> &call, size_t numResults,
                  std::vector<int64_t> *bytesSent = nullptr) const {
    std::vector<std::vector<HostTensor>> results(size);
    if (bytesSent)
      bytesSent->assign(size, -1);
    mxfp8rt::test::runInProcessRanks(size, [&](int r, mxfp8rtComm comm) {
      ASSERT_EQ(mxfp8rtCommBind(comm, nullptr), MXFP8RT_SUCCESS);
      RankCall c = call(r);
      std::vector<HostTensor> out = runOrFail(*exe, c.first, c.second);
      mxfp8rtCommBind(nullptr, nullptr);
      if (bytesSent)
        mxfp8rtCommGetBytesSent(comm, &(*bytesSent)[r]);
      ASSERT_EQ(out.size(), numResults) << "rank " << r << ": " << c.first;
      results[r] = std::move(out);
    });
    return results;
  }

  /// Row t * kTopK + j of combined[r] is, bit for bit, the reference row of
  /// rank r's token t, slot j.
  void expectMatchesReference(const std::vector<HostTensor> &combined) const {
    int64_t nonZero = 0;
    for (int r = 0; r < size; ++r) {
      int64_t numTokens = getNumTokens(r, size);
      ASSERT_GE(combined[r].shape[0], numTokens * kTopK);
      ASSERT_EQ(combined[r].shape[1], kN);
      for (int64_t t = 0; t < numTokens; ++t)
        for (int64_t j = 0; j < kTopK; ++j) {
          int64_t row = referenceRow.at({r, t, j});
          const uint16_t *got =
              combined[r].data<uint16_t>() + (t * kTopK + j) * kN;
          const uint16_t *want = reference.data<uint16_t>() + row * kN;
          for (int64_t c = 0; c < kN; ++c) {
            ASSERT_EQ(got[c], want[c])
                << "rank " << r << " token " << t << " slot " << j << " column "
                << c << " (expert " << getExpert(r, t, j, size) << ")";
            nonZero += (got[c] & 0x7FFF) != 0;
          }
        }
    }
    EXPECT_GT(nonZero, allRows * kN / 2) << "the outputs are mostly zero";
  }

  int size = 0;
  int64_t experts = 0, allRows = 0;
  std::unique_ptr<CPUExecutable> exe;
  std::vector<HostTensor> tokens;
  HostTensor weights, reference, referenceOffs, referenceData, referenceScales;
  /// The reference row of (rank, token, slot).
  std::map<std::tuple<int, int64_t, int64_t>, int64_t> referenceRow;
};

// The step driven from C++: compiled quantize, the runtime's dispatch, the
// compiled grouped GEMM on the dispatched fp8 rows, the runtime's combine.
TEST_P(ExpertParallelExecution, DispatchGroupedGemmCombineMatchesOneRank) {
  std::vector<HostTensor> combined(size);
  std::vector<int64_t> dispatchBytes(size, -1);
  mxfp8rt::test::runInProcessRanks(size, [&](int r, mxfp8rtComm comm) {
    int64_t numTokens = getNumTokens(r, size);
    std::vector<HostTensor> q = runOrFail(*exe, "quantize_tokens", {tokens[r]});
    ASSERT_EQ(q.size(), 2u);
    std::vector<int32_t> route = getRoute(r, numTokens * kTopK);
    HostTensor data(HostElementType::F8E4M3FN, {kCapacity, kK});
    HostTensor scales(HostElementType::F8E8M0FNU, {kCapacity, kK / 32});
    HostTensor offs(HostElementType::I32, {kExpertsPerRank});
    std::vector<int32_t> counts(size * size * kExpertsPerRank);
    ASSERT_EQ(mxfp8rtMoeDispatchMx(comm, q[0].bytes.data(), q[1].bytes.data(),
                                   numTokens, kK, kTopK, route.data(), experts,
                                   kCapacity, kAlignment, data.bytes.data(),
                                   scales.bytes.data(), offs.data<int32_t>(),
                                   counts.data(), nullptr),
              MXFP8RT_SUCCESS)
        << mxfp8rtGetLastError();
    mxfp8rtCommGetBytesSent(comm, &dispatchBytes[r]);
    for (int64_t e = 0; e < kExpertsPerRank; ++e)
      EXPECT_EQ(offs.data<int32_t>()[e] % kAlignment, 0) << "rank " << r;
    HostTensor w = sliceRows(weights, r * kExpertsPerRank, kExpertsPerRank);
    std::vector<HostTensor> y =
        runOrFail(*exe, "experts", {data, scales, w, offs});
    ASSERT_EQ(y.size(), 1u);
    HostTensor out(HostElementType::BF16, {numTokens * kTopK, kN});
    ASSERT_EQ(mxfp8rtMoeCombine(comm, y[0].bytes.data(), kN, MXFP8RT_DATA_BF16,
                                numTokens, kTopK, route.data(), experts,
                                counts.data(), kCapacity, kAlignment,
                                out.bytes.data(), nullptr),
              MXFP8RT_SUCCESS)
        << mxfp8rtGetLastError();
    combined[r] = std::move(out);
  });
  expectMatchesReference(combined);
  // The agreement's header (a flag and four 64-bit fields), the counts
  // gather (size * kExpertsPerRank i32) and one packed row of K fp8 + K/32
  // e8m0 bytes per slot: (K + K/32) / 2K of bf16 rows.
  for (int r = 0; r < size; ++r)
    EXPECT_EQ(dispatchBytes[r],
              kDispatchHeaderBytes + size * kExpertsPerRank * 4 +
                  getNumTokens(r, size) * kTopK * (kK + kK / 32))
        << "rank " << r;
}

// The same step as one compiled function per rank (@step), its exchanges
// calls of the runtime's ABI on the thread's bound communicator: the same
// bytes.
TEST_P(ExpertParallelExecution, CompiledStepOnBoundCommunicator) {
  std::vector<std::vector<HostTensor>> out = runBoundOnRanks(
      [&](int r) {
        HostTensor route(HostElementType::I32, {kMaxTokens * kTopK});
        std::vector<int32_t> ids = getRoute(r, kMaxTokens * kTopK);
        std::memcpy(route.bytes.data(), ids.data(),
                    ids.size() * sizeof(int32_t));
        HostTensor numTokens(HostElementType::I64, {1});
        numTokens.data<int64_t>()[0] = getNumTokens(r, size);
        HostTensor w = sliceRows(weights, r * kExpertsPerRank, kExpertsPerRank);
        return RankCall{"step", {tokens[r], route, numTokens, w}};
      },
      1);
  ASSERT_FALSE(HasFatalFailure());
  std::vector<HostTensor> combined(size);
  for (int r = 0; r < size; ++r)
    combined[r] = std::move(out[r][0]);
  expectMatchesReference(combined);
}

// The step with the dialect's ops, compiled through the CPU pipeline
// (quantize, moe_dispatch, scaled_grouped_mm 2d-3d, moe_combine; the
// exchange lowered to the runtime's shard ABI): the same bytes as one rank
// over all experts, the counts and offs of the routing on every rank, and
// the bytes each rank sent.
TEST_P(ExpertParallelExecution, DialectOpsMatchOneRank) {
  std::vector<int64_t> bytesSent;
  std::vector<std::vector<HostTensor>> out = runBoundOnRanks(
      [&](int r) {
        int64_t numTokens = getNumTokens(r, size);
        HostTensor x = sliceRows(tokens[r], 0, numTokens);
        std::vector<int64_t> routeShape = {numTokens, kTopK};
        if (numTokens % 2 == 0)
          routeShape = {numTokens * kTopK};
        HostTensor route(HostElementType::I32, routeShape);
        std::vector<int32_t> ids = getRoute(r, numTokens * kTopK);
        if (!ids.empty())
          std::memcpy(route.bytes.data(), ids.data(),
                      ids.size() * sizeof(int32_t));
        HostTensor w = sliceRows(weights, r * kExpertsPerRank, kExpertsPerRank);
        return RankCall{"moe_step_" + std::to_string(numTokens), {x, route, w}};
      },
      3, &bytesSent);
  ASSERT_FALSE(HasFatalFailure());
  std::vector<HostTensor> combined(size), offs(size), counts(size);
  for (int r = 0; r < size; ++r) {
    combined[r] = std::move(out[r][0]);
    offs[r] = std::move(out[r][1]);
    counts[r] = std::move(out[r][2]);
  }
  expectMatchesReference(combined);

  // counts[(s * size + r) * E_local + e]: rank s's slots for expert
  // r * E_local + e, the same on every rank; offs: each rank's group ends,
  // padded to multiples of 32.
  std::vector<int32_t> expected(size * experts, 0);
  std::vector<int64_t> received(size, 0);
  for (int s = 0; s < size; ++s)
    for (int32_t e : getRoute(s, getNumTokens(s, size) * kTopK)) {
      ++expected[s * experts + e];
      ++received[e / kExpertsPerRank];
    }
  for (int r = 0; r < size; ++r) {
    ASSERT_EQ(counts[r].getNumElements(), size * experts);
    for (int64_t i = 0; i < size * experts; ++i)
      EXPECT_EQ(counts[r].data<int32_t>()[i], expected[i])
          << "rank " << r << " counts[" << i << "]";
    int64_t end = 0;
    for (int64_t e = 0; e < kExpertsPerRank; ++e) {
      int64_t rows = 0;
      for (int s = 0; s < size; ++s)
        rows += expected[s * experts + r * kExpertsPerRank + e];
      end += (rows + kAlignment - 1) / kAlignment * kAlignment;
      EXPECT_EQ(offs[r].data<int32_t>()[e], end)
          << "rank " << r << " local expert " << e;
    }
  }
  EXPECT_EQ(expected[1], 0) << "expert 1 is meant to be empty";
  if (size == 4) {
    EXPECT_EQ(received[3], 0) << "rank 3 is meant to receive nothing";
    EXPECT_EQ(getNumTokens(1, size), 0) << "rank 1 is meant to send nothing";
  }

  // The dispatch: its header, the counts gather (size * E_local i32) and
  // K fp8 + K/32 e8m0 bytes per slot; the combine: its header and one bf16
  // row per row the rank received.
  for (int r = 0; r < size; ++r)
    EXPECT_EQ(bytesSent[r], kDispatchHeaderBytes + size * kExpertsPerRank * 4 +
                                getNumTokens(r, size) * kTopK * (kK + kK / 32) +
                                kCombineHeaderBytes + received[r] * kN * 2)
        << "rank " << r;
}

// The exchange's backward with the dialect's ops (@moe_grad_T): every
// slot's dX row, bit for bit, is the row of one rank's grouped GEMM over
// all slots (in expert order, as the forward's reference) and experts.
TEST_P(ExpertParallelExecution, BackwardDialectOpsMatchOneRank) {
  std::vector<HostTensor> grads;
  HostTensor allGrads = makeSlotGradients(grads);
  std::vector<HostTensor> want =
      runOrFail(*exe, "grads_all", {allGrads, weights, referenceOffs});
  ASSERT_EQ(want.size(), 1u);

  std::vector<std::vector<HostTensor>> out = runBoundOnRanks(
      [&](int r) {
        HostTensor w = sliceRows(weights, r * kExpertsPerRank, kExpertsPerRank);
        return RankCall{"moe_grad_" + std::to_string(getNumTokens(r, size)),
                        {grads[r], getFlatRoute(r), w}};
      },
      1);
  ASSERT_FALSE(HasFatalFailure());
  std::vector<HostTensor> got(size);
  for (int r = 0; r < size; ++r)
    got[r] = std::move(out[r][0]);

  int64_t nonZero = 0;
  for (int r = 0; r < size; ++r) {
    ASSERT_EQ(got[r].shape[0], getNumTokens(r, size) * kTopK);
    ASSERT_EQ(got[r].shape[1], kK);
    for (int64_t t = 0; t < getNumTokens(r, size); ++t)
      for (int64_t j = 0; j < kTopK; ++j) {
        const uint16_t *g = got[r].data<uint16_t>() + (t * kTopK + j) * kK;
        const uint16_t *w =
            want[0].data<uint16_t>() + referenceRow.at({r, t, j}) * kK;
        for (int64_t c = 0; c < kK; ++c) {
          ASSERT_EQ(g[c], w[c]) << "rank " << r << " token " << t << " slot "
                                << j << " column " << c;
          nonZero += (g[c] & 0x7FFF) != 0;
        }
      }
  }
  EXPECT_GT(nonZero, allRows * kK / 2) << "the gradients are mostly zero";
}

// The experts' weight gradient on their ranks (@moe_wgrad_T: both
// operands dispatched, dequantized and quantized along the received rows,
// 2d-2d over the 32-row groups): every expert's dW bit-identical to one
// rank's 2d-2d GEMM over all slots, padded to the same 32-row groups.
TEST_P(ExpertParallelExecution, WeightGradientMatchesOneRank) {
  std::vector<HostTensor> grads;
  HostTensor allGrads = makeSlotGradients(grads);
  std::vector<HostTensor> want =
      runOrFail(*exe, "wgrad_all",
                {referenceData, referenceScales, allGrads, referenceOffs});
  ASSERT_EQ(want.size(), 1u);

  std::vector<std::vector<HostTensor>> out = runBoundOnRanks(
      [&](int r) {
        int64_t numTokens = getNumTokens(r, size);
        return RankCall{
            "moe_wgrad_" + std::to_string(numTokens),
            {sliceRows(tokens[r], 0, numTokens), grads[r], getFlatRoute(r)}};
      },
      1);
  ASSERT_FALSE(HasFatalFailure());
  std::vector<HostTensor> got(size);
  for (int r = 0; r < size; ++r)
    got[r] = std::move(out[r][0]);

  int64_t perExpert = kN * kK, nonZero = 0;
  for (int r = 0; r < size; ++r) {
    ASSERT_EQ(got[r].getNumElements(), kExpertsPerRank * perExpert);
    for (int64_t e = 0; e < kExpertsPerRank; ++e)
      for (int64_t i = 0; i < perExpert; ++i) {
        uint16_t g = got[r].data<uint16_t>()[e * perExpert + i];
        uint16_t w =
            want[0].data<uint16_t>()[(r * kExpertsPerRank + e) * perExpert + i];
        ASSERT_EQ(g, w) << "rank " << r << " local expert " << e << " element "
                        << i;
        nonZero += (g & 0x7FFF) != 0;
      }
  }
  // Expert 1 (and, with 4 ranks, rank 3's two experts) receive nothing.
  EXPECT_GT(nonZero, (experts - (size == 4 ? 3 : 1)) * perExpert / 2)
      << "the weight gradients are mostly zero";
}

INSTANTIATE_TEST_SUITE_P(Ranks, ExpertParallelExecution,
                         ::testing::Values(2, 4), [](const auto &info) {
                           return std::to_string(info.param) + "Ranks";
                         });

} // namespace
