// Shared declarations of Adept's compute shaders: arithmetic types, loads and stores of every dtype,
// the metadata buffer (binding 0) and N-d strided indexing. Each shader is compiled once per dtype
// variant with the -D macros of cmake/vulkan_shaders.cmake: T_<n> (storage type of operand n),
// C_<n> (compute type), IS_BF16_<n>, OUT_BOOL ...
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require

// bfloat16 lives in 16-bit storage as the upper half of a float32; arithmetic is in float32.
// Rounding to bfloat16 is to nearest even; NaN stays a (quiet) NaN.
float bf16_to_float(uint16_t x) { return uintBitsToFloat(uint(x) << 16); }
uint16_t float_to_bf16(float f) {
  uint u = floatBitsToUint(f);
  if (isnan(f)) return uint16_t((u >> 16) | 0x40u);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// LOAD_n(x): a stored value of operand n as its compute type; STORE_n(v): a compute-type value as
// operand n's storage (bool: 1 for any non-zero value, NaN included).
#if IS_BF16_0
#define LOAD_0(x) bf16_to_float(x)
#define STORE_0(v) float_to_bf16(float(v))
#elif OUT_BOOL
#define LOAD_0(x) C_0(x)
#define STORE_0(v) T_0(bool(v) ? 1 : 0)
#else
#define LOAD_0(x) C_0(x)
#define STORE_0(v) T_0(v)
#endif
#if IS_BF16_1
#define LOAD_1(x) bf16_to_float(x)
#define STORE_1(v) float_to_bf16(float(v))
#elif IS_BOOL
#define LOAD_1(x) C_1(x)
#define STORE_1(v) T_1(bool(v) ? 1 : 0)
#else
#define LOAD_1(x) C_1(x)
#define STORE_1(v) T_1(v)
#endif

// Metadata of a strided N-d iteration, written by the host per dispatch:
//   meta[0 .. ndim)                 sizes (outermost first)
//   meta[ndim + k*(ndim+1)]         element offset of operand k
//   meta[ndim + k*(ndim+1) + 1 + d] stride (elements) of operand k in dim d
layout(std430, set = 0, binding = 0) readonly buffer Meta { int meta[]; };

// Element index of operand k for the linear (row-major) position i.
int operand_index(uint i, uint ndim, uint k) {
  uint base = ndim + k * (ndim + 1u);
  int off = meta[base];
  for (int d = int(ndim) - 1; d >= 0; --d) {
    uint s = uint(meta[d]);
    uint c = i % s;
    i /= s;
    off += int(c) * meta[base + 1u + uint(d)];
  }
  return off;
}

// atan by reduction to |a| <= tan(pi/12) and its series, accurate to a few ulp (the built-in is allowed
// 4096 ulp and is poor near 0).
float atan_f(float x) {
  if (isnan(x) || x == 0.0) return x;
  float a = abs(x), offset = 0.0;
  const bool invert = a > 1.0;
  if (invert) a = 1.0 / a;
  if (a > 0.26794919) {
    a = (a * 1.7320508 - 1.0) / (a + 1.7320508);
    offset = 0.52359878;
  }
  const float a2 = a * a;
  float term = a, sum = 0.0;
  for (int k = 1; k <= 17; k += 2) { sum += term / float(k); term *= -a2; }
  float r = offset + sum;
  if (invert) r = 1.5707963 - r;
  return x < 0.0 ? -r : r;
}

// pow with C's semantics for negative bases and integral exponents (GLSL's pow is undefined for x < 0).
float pow_signed(float x, float y) {
  const float inf = uintBitsToFloat(0x7f800000u);
  if (y == 0.0 || x == 1.0) return 1.0;  // even for NaN
  if (isnan(x) || isnan(y)) return x + y;
  const bool y_int = y == floor(y), y_odd = y_int && abs(y) < 16777216.0 && mod(abs(y), 2.0) == 1.0;
  const bool x_neg = x < 0.0 || (x == 0.0 && 1.0 / x < 0.0);  // -0 counts as negative
  if (isinf(y)) return abs(x) == 1.0 ? 1.0 : ((abs(x) > 1.0) == (y > 0.0) ? inf : 0.0);
  if (x == 0.0 || isinf(x)) {
    const float r = (x == 0.0) == (y < 0.0) ? inf : 0.0;  // 0^-y and inf^y are infinite
    return x_neg && y_odd ? -r : r;
  }
  if (x < 0.0 && !y_int) return uintBitsToFloat(0x7fc00000u);  // NaN
  float r;
  if (y_int && abs(y) <= 64.0) {  // repeated squaring: exact for small results, few roundings otherwise
    float b = abs(x);
    r = 1.0;
    for (int e = int(abs(y)); e != 0; e >>= 1) {
      if ((e & 1) != 0) r *= b;
      b *= b;
    }
    if (y < 0.0) r = 1.0 / r;
  } else {
    r = pow(abs(x), y);
  }
  return x_neg && y_odd ? -r : r;
}
