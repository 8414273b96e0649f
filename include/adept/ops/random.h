// Seeded random number generation. One default generator per process (manual_seed); its state
// can be read and restored so that checkpoints reproduce runs. Generator: Philox4x32-10
// counter-based (Salmon et al., SC'11), so a state is just (seed, offset).
#pragma once
#include <cstdint>
#include <mutex>

#include "adept/ops/creation.h"

namespace adept {

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ULL) : seed_(seed) {}
  void manual_seed(uint64_t seed) { std::lock_guard<std::mutex> l(mu_); seed_ = seed; offset_ = 0; }
  uint64_t initial_seed() const { return seed_; }
  /// State as (seed, offset); set_state restores it exactly.
  struct State { uint64_t seed, offset; };
  State get_state() const { std::lock_guard<std::mutex> l(mu_); return {seed_, offset_}; }
  void set_state(State s) { std::lock_guard<std::mutex> l(mu_); seed_ = s.seed; offset_ = s.offset; }
  /// Reserves `n` 128-bit counter blocks; returns the first counter. Thread-safe.
  uint64_t reserve(uint64_t n) { std::lock_guard<std::mutex> l(mu_); uint64_t o = offset_; offset_ += n; return o; }
  uint64_t seed() const { std::lock_guard<std::mutex> l(mu_); return seed_; }

 private:
  mutable std::mutex mu_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

Generator& default_generator();
/// Seeds the default generator (torch.manual_seed).
void manual_seed(uint64_t seed);

/// Uniform on [0, 1).
Tensor rand(const Shape& shape, const TensorOptions& o = {}, Generator* g = nullptr);
/// Standard normal (Box-Muller).
Tensor randn(const Shape& shape, const TensorOptions& o = {}, Generator* g = nullptr);
/// Integers uniform on [low, high); dtype int64 by default. ValueError if low >= high.
Tensor randint(int64_t low, int64_t high, const Shape& shape, const TensorOptions& o = {}, Generator* g = nullptr);
/// A random permutation of 0..n-1 (int64).
Tensor randperm(int64_t n, const TensorOptions& o = {}, Generator* g = nullptr);
/// Fills in place: uniform on [from, to) / normal(mean, std).
Tensor& uniform_(Tensor& t, double from = 0, double to = 1, Generator* g = nullptr);
Tensor& normal_(Tensor& t, double mean = 0, double std = 1, Generator* g = nullptr);
/// Bernoulli(p) in place, values 0/1 in t's dtype.
Tensor& bernoulli_(Tensor& t, double p, Generator* g = nullptr);

}  // namespace adept
