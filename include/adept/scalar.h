// A Python-like number (bool, integer or floating) passed to ops such as `add(x, 2)`. Scalars take
// part in type promotion as PyTorch's "wrapped numbers": they never widen a tensor's dtype within
// the same category.
#pragma once
#include <cstdint>
#include <type_traits>

#include "adept/dtype.h"

namespace adept {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Float };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Float), d_(static_cast<double>(v)) {}  // NOLINT
  Scalar(Half v) : kind_(Kind::Float), d_(static_cast<float>(v)) {}  // NOLINT
  Scalar(BFloat16 v) : kind_(Kind::Float), d_(static_cast<float>(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  bool is_floating_point() const { return kind_ == Kind::Float; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  double to_double() const { return kind_ == Kind::Float ? d_ : static_cast<double>(i_); }
  int64_t to_int64() const { return kind_ == Kind::Float ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const { return kind_ == Kind::Float ? d_ != 0.0 : i_ != 0; }
  template <class T> T to() const {
    if constexpr (std::is_same_v<T, bool>) return to_bool();
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(to_int64());
    else return static_cast<T>(static_cast<compute_t<T>>(to_double()));
  }
  /// The dtype PyTorch gives a tensor made from this number: bool, int64 or the default float.
  Dtype dtype() const {
    return kind_ == Kind::Bool ? kBool : kind_ == Kind::Int ? kInt64 : default_float_dtype();
  }
  Scalar operator-() const {
    return kind_ == Kind::Float ? Scalar(-d_) : Scalar(static_cast<int64_t>(-i_));
  }

 private:
  Kind kind_;
  union { int64_t i_; double d_; };
};

}  // namespace adept
