// The search's random numbers: a seeded generator and Dirichlet samples that
// are identical on every platform (std:: distributions are not specified
// bit-for-bit, so self-play with a fixed seed would differ between libraries).
#ifndef VOLKHV_ENGINE_UTIL_RANDOM_H_
#define VOLKHV_ENGINE_UTIL_RANDOM_H_

#include <cstdint>
#include <span>

namespace volkhv {

// xoshiro256** seeded through splitmix64. Not thread-safe.
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
