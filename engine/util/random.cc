#include "engine/util/random.h"

#include <cmath>
#include <vector>

namespace volkhv {
namespace {

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(uint64_t seed) {
  for (uint64_t& word : s_) word = SplitMix64Next(seed);
}

uint64_t Rng::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

double Rng::Uniform() { return (Next() >> 11) * 0x1.0p-53; }

double Rng::Normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  double u, v, s;
  do {
    u = 2 * Uniform() - 1;
    v = 2 * Uniform() - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  const double scale = std::sqrt(-2 * std::log(s) / s);
  spare_normal_ = v * scale;
  has_spare_normal_ = true;
  return u * scale;
}

double Rng::Gamma(double shape) {
  if (shape < 1) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a).
    double u;
    do u = Uniform();
    while (u == 0);
    return Gamma(shape + 1) * std::pow(u, 1 / shape);
  }
  const double d = shape - 1.0 / 3;
  const double c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x, v;
    do {
      x = Normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = Uniform();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (u > 0 && std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) {
      return d * v;
    }
  }
}

void Rng::Dirichlet(double alpha, std::span<float> out) {
  // Doubles until normalised: small alphas give samples below float range.
  std::vector<double> samples(out.size());
  double sum = 0;
  for (double& x : samples) {
    x = Gamma(alpha);
    sum += x;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    // Every sample underflowing is (very nearly) impossible; stay uniform.
    out[i] = sum > 0 ? static_cast<float>(samples[i] / sum) : 1.0f / out.size();
  }
}

}  // namespace volkhv
