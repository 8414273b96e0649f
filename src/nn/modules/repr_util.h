// Helpers shared by the modules' extra_repr: Python-style formatting of numbers, bools and sizes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adept/nn/options.h"

namespace adept::nn::detail {

/// Python's repr of a float: shortest round-trip digits, always with a '.' or exponent ("1.0", "1e-05").
inline std::string py_float(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // 'n': inf / nan
  return s;
}
inline std::string py_bool(bool b) { return b ? "True" : "False"; }
/// A Python tuple of ints: "(3,)" for one value, "(3, 3)" for two.
inline std::string py_tuple(const std::vector<int64_t>& v) {
  if (v.size() == 1) return fmt::format("({},)", v[0]);
  return fmt::format("({})", fmt::join(v, ", "));
}
inline std::string py_tuple(const IntPair& p) { return py_tuple(std::vector<int64_t>{p[0], p[1]}); }
inline std::string py_optional_float(std::optional<double> v) { return v ? py_float(*v) : "None"; }

}  // namespace adept::nn::detail
