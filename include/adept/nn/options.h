// Small argument types shared by the nn functional ops and modules.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>

#include "adept/errors.h"

namespace adept::nn {

/// A (height, width) pair given as one int for both (`3`) or as two (`{3, 5}`), like the int-or-tuple
/// arguments of torch.nn.Conv2d (kernel_size, stride, padding, dilation, output_padding).
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

}  // namespace adept::nn
