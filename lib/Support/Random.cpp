//===- Random.cpp - reproducible normal random numbers ----------*- C++ -*-===//
//
// A ziggurat over SplitMix64, and the chunked (thread-count independent)
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

namespace {
/// The 128-layer ziggurat of the standard normal density (Marsaglia and Tsang
/// 2000, in the formulation of Doornik 2005, "An Improved Ziggurat Method to
/// Generate Normal Random Samples"). Layer 0 is the base strip with the tail.
struct Ziggurat {
  static constexpr int kLayers = 128;
  /// Start of the tail.
  static constexpr double kR = 3.442619855899;
  /// Area of each layer.
  static constexpr double kV = 9.91256303526217e-3;
  /// Right edges of the layers (x[0] is the base strip's equivalent width).
  double x[kLayers + 1];
  /// x[i+1] / x[i]: the part of layer i that lies under the density.
  double ratio[kLayers];

  Ziggurat() {
    double f = std::exp(-0.5 * kR * kR);
    x[0] = kV / f;
    x[1] = kR;
    x[kLayers] = 0.0;
    for (int i = 2; i < kLayers; ++i) {
      x[i] = std::sqrt(-2.0 * std::log(kV / x[i - 1] + f));
      f = std::exp(-0.5 * x[i] * x[i]);
    }
    for (int i = 0; i < kLayers; ++i)
      ratio[i] = x[i + 1] / x[i];
  }
};
} // namespace

static const Ziggurat &getZiggurat() {
  static const Ziggurat table;
  return table;
}

double NormalGenerator::next() {
  const Ziggurat &z = getZiggurat();
  while (true) {
    uint64_t bits64 = bits.next();
    // Low 7 bits pick the layer, the top 53 bits give u in [-1, 1).
    int layer = int(bits64 & (Ziggurat::kLayers - 1));
    double u = double(bits64 >> 11) * 0x1.0p-52 - 1.0;
    if (std::fabs(u) < z.ratio[layer])
      return u * z.x[layer];
    if (layer == 0) {
      // The tail beyond kR (Marsaglia 1964).
      double t, y;
      do {
        t = std::log(bits.nextUniformOpen0()) / Ziggurat::kR;
        y = std::log(bits.nextUniformOpen0());
      } while (-2.0 * y < t * t);
      return u < 0 ? t - Ziggurat::kR : Ziggurat::kR - t;
    }
    double xv = u * z.x[layer];
    double f0 = std::exp(-0.5 * (z.x[layer] * z.x[layer] - xv * xv));
    double f1 = std::exp(-0.5 * (z.x[layer + 1] * z.x[layer + 1] - xv * xv));
    if (f1 + bits.nextUniformOpen0() * (f0 - f1) < 1.0)
      return xv;
  }
}

uint64_t mlir::mxfp8train::mixSeed(uint64_t seed, uint64_t stream) {
  SplitMix64 a(seed ^ 0x6A09E667F3BCC909ull);
  SplitMix64 b(a.next() ^ (stream * 0x9E3779B97F4A7C15ull));
  return b.next();
}

void mlir::mxfp8train::fillNormal(
    uint64_t seed, int64_t n, const std::function<void(int64_t, double)> &store,
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
