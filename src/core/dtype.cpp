// Dtype sizes, names and PyTorch's promotion lattice.
#include "adept/dtype.h"

#include <map>

#include "adept/errors.h"

namespace adept {

size_t element_size(Dtype t) {
  static constexpr size_t sizes[kNumDtypes] = {1, 1, 4, 8, 2, 2, 4, 8};
  return sizes[static_cast<int>(t)];
}

const char* dtype_name(Dtype t) {
  static constexpr const char* names[kNumDtypes] = {"bool",    "uint8",    "int32",   "int64",
                                                    "float16", "bfloat16", "float32", "float64"};
  return names[static_cast<int>(t)];
}

Dtype dtype_from_string(const std::string& name_in) {
  std::string name = name_in.rfind("torch.", 0) == 0 ? name_in.substr(6) : name_in;
  name = name.rfind("adept.", 0) == 0 ? name.substr(6) : name;
  static const std::map<std::string, Dtype> table = {
      {"bool", kBool},       {"uint8", kUInt8},       {"int32", kInt32},     {"int", kInt32},
      {"int64", kInt64},     {"long", kInt64},        {"float16", kFloat16}, {"half", kFloat16},
      {"bfloat16", kBFloat16}, {"float32", kFloat32}, {"float", kFloat32},   {"float64", kFloat64},
      {"double", kFloat64}};
  auto it = table.find(name);
  ADEPT_CHECK(it != table.end(), ValueError, "unknown dtype '{}' (expected one of bool, uint8, int32, "
              "int64, float16, bfloat16, float32, float64)", name_in);
  return it->second;
}

Dtype promote_types(Dtype a, Dtype b) {
  if (a == b) return a;
  // Order of the enum: b1 u1 i4 i8 f2 bf f4 f8. Table from torch.promote_types.
  constexpr Dtype b1 = kBool, u1 = kUInt8, i4 = kInt32, i8 = kInt64, f2 = kFloat16, bf = kBFloat16,
                  f4 = kFloat32, f8 = kFloat64;
  static constexpr Dtype table[kNumDtypes][kNumDtypes] = {
      /*b1*/ {b1, u1, i4, i8, f2, bf, f4, f8},
      /*u1*/ {u1, u1, i4, i8, f2, bf, f4, f8},
      /*i4*/ {i4, i4, i4, i8, f2, bf, f4, f8},
      /*i8*/ {i8, i8, i8, i8, f2, bf, f4, f8},
      /*f2*/ {f2, f2, f2, f2, f2, f4, f4, f8},
      /*bf*/ {bf, bf, bf, bf, f4, bf, f4, f8},
      /*f4*/ {f4, f4, f4, f4, f4, f4, f4, f8},
      /*f8*/ {f8, f8, f8, f8, f8, f8, f8, f8},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

namespace {
Dtype g_default_float = kFloat32;
}
Dtype default_float_dtype() { return g_default_float; }
void set_default_float_dtype(Dtype t) {
  ADEPT_CHECK(t == kFloat32 || t == kFloat64, ValueError,
              "set_default_dtype: only float32 and float64 are supported, got {}", dtype_name(t));
  g_default_float = t;
}

namespace detail {
void throw_dtype_unsupported(const char* op, Dtype dtype) {
  throw DtypeError(fmt::format("{}: not implemented for dtype {}", op, dtype_name(dtype)));
}
}  // namespace detail

}  // namespace adept
