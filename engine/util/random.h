// Random numbers that are identical on every platform (std:: distributions
// are not specified bit-for-bit, so self-play with a fixed seed would differ
// between libraries): SplitMix64 for seeds, hashes and keys, and the search's
// seeded generator with its Dirichlet samples.
#ifndef VOLKHV_ENGINE_UTIL_RANDOM_H_
#define VOLKHV_ENGINE_UTIL_RANDOM_H_

#include <cstdint>
#include <span>

namespace volkhv {

// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state advanced by a
// fixed increment, each state mixed into the output. All thread-safe.
inline constexpr uint64_t kSplitMix64Increment = 0x9E3779B97F4A7C15ull;

// SplitMix64's output function: a bijection of 64-bit words in which every
// input bit changes about half the output bits.
constexpr uint64_t SplitMix64Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// One step of the generator: advances `state`, returns the next output.
constexpr uint64_t SplitMix64Next(uint64_t& state) {
  state += kSplitMix64Increment;
  return SplitMix64Mix(state);
}

// The first output of the generator started at `x`: a stateless hash of a
// seed into a well-mixed one.
constexpr uint64_t SplitMix64(uint64_t x) {
  return SplitMix64Mix(x + kSplitMix64Increment);
}

// xoshiro256** seeded through SplitMix64. Not thread-safe.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t Next();
  // Uniform in [0, 1).
  double Uniform();
  // Standard normal (Marsaglia's polar method).
  double Normal();
  // Gamma(shape, 1), shape > 0 (Marsaglia-Tsang; boosted below 1).
  double Gamma(double shape);
  // A sample of the symmetric Dirichlet(alpha) over out.size() entries.
  void Dirichlet(double alpha, std::span<float> out);

 private:
  uint64_t s_[4];
  bool has_spare_normal_ = false;
  double spare_normal_ = 0;
};

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_UTIL_RANDOM_H_
