//===- Random.h - reproducible normal random numbers ------------*- C++ -*-===//
//
// A seeded generator of normal(0, 1) samples that gives the same numbers on
// every platform and standard library (std::normal_distribution does not),
// and a chunked fill that gives the same numbers however many threads run it.
// Standard C++ only (no LLVM or MLIR), so that MLIR-free programs such as
// mxfp8-launch generate exactly the inputs mxfp8-run generates.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_RANDOM_H
#define MXFP8TRAIN_SUPPORT_RANDOM_H

#include <cstdint>
#include <functional>

namespace mlir::mxfp8train {

/// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit generator with good
/// statistical quality and a trivially seedable state.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}

  /// The next 64 random bits.
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  /// A uniform double in (0, 1] with 53 random bits.
  double nextUniformOpen0() { return double((next() >> 11) + 1) * 0x1.0p-53; }

private:
  uint64_t state;
};

/// Normal(0, 1) samples by a 128-layer ziggurat (Doornik 2005) over
/// SplitMix64.
class NormalGenerator {
public:
  explicit NormalGenerator(uint64_t seed) : bits(seed) {}

  /// The next normal(0, 1) sample.
  double next();

private:
  SplitMix64 bits;
};

/// Mixes a seed with a stream index (argument number, chunk number) into an
/// independent seed.
uint64_t mixSeed(uint64_t seed, uint64_t stream);

/// Calls `store(i, x)` for i in [0, n) with x ~ normal(0, 1). The samples
/// depend only on (seed, i): the range is cut into fixed chunks, each with its
/// own generator, and the chunks are spread over up to `numThreads` threads
/// (0: hardware concurrency). `store` must be safe to call concurrently for
/// distinct `i`.
void fillNormal(uint64_t seed, int64_t n,
                const std::function<void(int64_t, double)> &store,
                unsigned numThreads = 0);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_RANDOM_H
