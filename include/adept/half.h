// 16-bit floating-point storage types: IEEE 754 binary16 (`Half`) and bfloat16 (`BFloat16`).
// Arithmetic happens in float: both convert implicitly to and from float, rounding to nearest even.
#pragma once
#include <bit>
#include <cstdint>
#include <cmath>

namespace adept {

/// IEEE 754-2008 binary16: 1 sign, 5 exponent, 10 mantissa bits. Values are rounded to nearest
/// even on conversion from float; overflow gives +-inf, NaN stays NaN.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(from_float(f)) {}  // NOLINT(google-explicit-constructor)
  operator float() const { return to_float(bits); }  // NOLINT

  static Half from_bits(uint16_t b) { Half h; h.bits = b; return h; }

  static uint16_t from_float(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) {  // inf or nan
      return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
    }
    if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (absx < 0x38800000u) {  // subnormal half or zero: add magic to round via float hardware
      float v = std::bit_cast<float>(absx) + 0.5f;
      return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(v) - 0x3f000000u));
    }
    uint32_t mant_odd = (absx >> 13) & 1u;
    absx += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    return static_cast<uint16_t>(sign | (absx >> 13));
  }

  static float to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t out;
    if (exp == 0) {
      if (mant == 0) {
        out = sign;
      } else {  // subnormal: value = mant * 2^-24
        float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
        out = sign | std::bit_cast<uint32_t>(v);
      }
    } else if (exp == 31) {
      out = sign | 0x7f800000u | (mant << 13);
    } else {
      out = sign | ((exp + 112) << 23) | (mant << 13);
    }
    return std::bit_cast<float>(out);
  }
};

/// bfloat16: the upper 16 bits of a float32 (8 exponent bits, 7 mantissa bits), rounded to nearest even.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(from_float(f)) {}  // NOLINT(google-explicit-constructor)
  operator float() const { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }  // NOLINT

  static BFloat16 from_bits(uint16_t b) { BFloat16 h; h.bits = b; return h; }

  static uint16_t from_float(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
    uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + rounding) >> 16);
  }
};

}  // namespace adept
