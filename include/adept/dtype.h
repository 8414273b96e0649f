// Element types of tensors, their sizes and names, and PyTorch's type-promotion lattice.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "adept/half.h"

namespace adept {

/// Element type of a tensor. Names and promotion rules follow PyTorch (`torch.float32` ...).
enum class Dtype : int8_t { Bool, UInt8, Int32, Int64, Float16, BFloat16, Float32, Float64 };
inline constexpr int kNumDtypes = 8;

inline constexpr Dtype kBool = Dtype::Bool;
inline constexpr Dtype kUInt8 = Dtype::UInt8;
inline constexpr Dtype kInt32 = Dtype::Int32;
inline constexpr Dtype kInt64 = Dtype::Int64;
inline constexpr Dtype kFloat16 = Dtype::Float16;
inline constexpr Dtype kBFloat16 = Dtype::BFloat16;
inline constexpr Dtype kFloat32 = Dtype::Float32;
inline constexpr Dtype kFloat64 = Dtype::Float64;

/// Size of one element in bytes.
size_t element_size(Dtype t);
/// PyTorch's spelling without the module prefix, e.g. "float32".
const char* dtype_name(Dtype t);
/// Parses "float32", "float", "torch.float32", "half", "long", ... ; throws ValueError otherwise.
Dtype dtype_from_string(const std::string& name);

inline bool is_floating_point(Dtype t) {
  return t == kFloat16 || t == kBFloat16 || t == kFloat32 || t == kFloat64;
}
inline bool is_integral(Dtype t, bool include_bool) {
  return t == kUInt8 || t == kInt32 || t == kInt64 || (include_bool && t == kBool);
}

/// The smallest dtype both `a` and `b` convert to without losing category, as torch.promote_types.
Dtype promote_types(Dtype a, Dtype b);

/// The default dtype of floating tensors created from Python floats (torch.get_default_dtype()).
Dtype default_float_dtype();
void set_default_float_dtype(Dtype t);

template <class T> struct DtypeOf;
template <> struct DtypeOf<bool> { static constexpr Dtype value = kBool; };
template <> struct DtypeOf<uint8_t> { static constexpr Dtype value = kUInt8; };
template <> struct DtypeOf<int32_t> { static constexpr Dtype value = kInt32; };
template <> struct DtypeOf<int64_t> { static constexpr Dtype value = kInt64; };
template <> struct DtypeOf<Half> { static constexpr Dtype value = kFloat16; };
template <> struct DtypeOf<BFloat16> { static constexpr Dtype value = kBFloat16; };
template <> struct DtypeOf<float> { static constexpr Dtype value = kFloat32; };
template <> struct DtypeOf<double> { static constexpr Dtype value = kFloat64; };

/// Arithmetic type used to compute on elements of T: float for the 16-bit floats, T otherwise.
template <class T> struct ComputeType { using type = T; };
template <> struct ComputeType<Half> { using type = float; };
template <> struct ComputeType<BFloat16> { using type = float; };
template <class T> using compute_t = typename ComputeType<T>::type;

}  // namespace adept

/// Calls `__VA_ARGS__` (a generic lambda body using `scalar_t`) with scalar_t bound to the C++
/// type of `DTYPE`. Used by kernels to instantiate one loop per dtype.
#define ADEPT_DISPATCH_CASE(ENUM, TYPE, ...) \
  case ::adept::Dtype::ENUM: { using scalar_t = TYPE; __VA_ARGS__(); break; }
#define ADEPT_DISPATCH_ALL(DTYPE, NAME, ...)                                       \
  switch (DTYPE) {                                                                \
    ADEPT_DISPATCH_CASE(Bool, bool, __VA_ARGS__)                                  \
    ADEPT_DISPATCH_CASE(UInt8, uint8_t, __VA_ARGS__)                              \
    ADEPT_DISPATCH_CASE(Int32, int32_t, __VA_ARGS__)                              \
    ADEPT_DISPATCH_CASE(Int64, int64_t, __VA_ARGS__)                              \
    ADEPT_DISPATCH_CASE(Float16, ::adept::Half, __VA_ARGS__)                      \
    ADEPT_DISPATCH_CASE(BFloat16, ::adept::BFloat16, __VA_ARGS__)                 \
    ADEPT_DISPATCH_CASE(Float32, float, __VA_ARGS__)                              \
    ADEPT_DISPATCH_CASE(Float64, double, __VA_ARGS__)                             \
  }
#define ADEPT_DISPATCH_FLOATING(DTYPE, NAME, ...)                                  \
  switch (DTYPE) {                                                                \
    ADEPT_DISPATCH_CASE(Float16, ::adept::Half, __VA_ARGS__)                      \
    ADEPT_DISPATCH_CASE(BFloat16, ::adept::BFloat16, __VA_ARGS__)                 \
    ADEPT_DISPATCH_CASE(Float32, float, __VA_ARGS__)                              \
    ADEPT_DISPATCH_CASE(Float64, double, __VA_ARGS__)                             \
    default: ::adept::detail::throw_dtype_unsupported(NAME, DTYPE);               \
  }
