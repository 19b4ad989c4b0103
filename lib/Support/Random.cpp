//===- Random.cpp - reproducible normal random numbers -------------*- C++ -*-===//
//
// Box-Muller over SplitMix64, and the chunked (thread-count independent)
// parallel fill.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/Random.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

using namespace mlir::mxfp8train;

/// Elements per chunk of fillNormal; part of the definition of the stream.
static constexpr int64_t kChunkSize = int64_t(1) << 16;

double NormalGenerator::next() {
  if (haveSpare) {
    haveSpare = false;
    return spare;
  }
  double u1 = bits.nextUniformOpen0();
  double u2 = bits.nextUniformOpen0();
  double r = std::sqrt(-2.0 * std::log(u1));
  double theta = 6.283185307179586476925286766559 * u2;
  spare = r * std::sin(theta);
  haveSpare = true;
  return r * std::cos(theta);
}

uint64_t mlir::mxfp8train::mixSeed(uint64_t seed, uint64_t stream) {
  SplitMix64 a(seed ^ 0x6A09E667F3BCC909ull);
  SplitMix64 b(a.next() ^ (stream * 0x9E3779B97F4A7C15ull));
  return b.next();
}

void mlir::mxfp8train::fillNormal(
    uint64_t seed, int64_t n, llvm::function_ref<void(int64_t, double)> store,
    unsigned numThreads) {
  if (n <= 0)
    return;
  int64_t numChunks = (n + kChunkSize - 1) / kChunkSize;
  auto fillChunk = [&](int64_t chunk) {
    NormalGenerator gen(mixSeed(seed, uint64_t(chunk)));
    int64_t begin = chunk * kChunkSize;
    int64_t end = std::min(n, begin + kChunkSize);
    for (int64_t i = begin; i < end; ++i)
      store(i, gen.next());
  };
  if (numThreads == 0)
    numThreads = std::max(1u, std::thread::hardware_concurrency());
  numThreads = unsigned(std::min<int64_t>(numThreads, numChunks));
  if (numThreads <= 1) {
    for (int64_t c = 0; c < numChunks; ++c)
      fillChunk(c);
    return;
  }
  std::atomic<int64_t> nextChunk{0};
  auto worker = [&] {
    for (int64_t c = nextChunk++; c < numChunks; c = nextChunk++)
      fillChunk(c);
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < numThreads; ++t)
    threads.emplace_back(worker);
  worker();
  for (std::thread &t : threads)
    t.join();
}
