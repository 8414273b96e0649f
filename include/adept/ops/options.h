// Small argument types of the spatial ops (convolution, pooling): a 2-d size given as one value for
// both dims or as (height, width).
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>

#include "adept/errors.h"

namespace adept {

/// A (height, width) pair of sizes, built from one value (both dims) or two, as PyTorch's _pair.
/// Throws ValueError for an initializer list of another length.
struct IntPair {
  std::array<int64_t, 2> v{};
  IntPair(int64_t both = 0) : v{both, both} {}  // NOLINT(google-explicit-constructor)
  IntPair(int64_t h, int64_t w) : v{h, w} {}
  IntPair(std::initializer_list<int64_t> l) {
    ADEPT_CHECK(l.size() == 1 || l.size() == 2, ValueError, "expected 1 or 2 values for a 2-d size, got {}", l.size());
    v = {*l.begin(), *(l.end() - 1)};
  }
  int64_t operator[](size_t i) const { return v[i]; }
  int64_t& operator[](size_t i) { return v[i]; }
  bool operator==(const IntPair&) const = default;
};

}  // namespace adept
