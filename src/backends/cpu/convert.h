// Element conversion between Adept's C++ element types, with PyTorch's semantics
// (bool = value != 0; 16-bit floats go through float).
#pragma once
#include <type_traits>

#include "adept/dtype.h"

namespace adept::cpu {

template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<compute_t<From>>(v) != compute_t<From>(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(static_cast<compute_t<From>>(v)));
  } else {
    return static_cast<To>(static_cast<compute_t<From>>(v));
  }
}

}  // namespace adept::cpu
