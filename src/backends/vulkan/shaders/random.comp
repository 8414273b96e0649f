#version 450
// Random fills (src/kernels/random.h): out[i] = f(Philox4x32-10(key = seed, counter = offset + i)) for
// the linear (row-major) position i, computed in double as the host does, then rounded to the output
// dtype. KIND (specialization constant): 0 uniform [a, b), 1 normal (mean a, std b), 2 bernoulli (p = a),
// 3 integer (randint: a = low, b = range as 64-bit integers). Push constants: a, b, c = seed, d = offset
// (two words each); HALF_OPEN maps a value that rounds to 1 or more to 0.
// @build random - all
#extension GL_GOOGLE_include_directive : require
#define DOUBLE_MATH 1
#include "common.glsl"
#include "elementwise_pc.glsl"
#include "double_math.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int KIND = 0;
layout(constant_id = 1) const bool HALF_OPEN = false;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };

uvec4 philox(uvec2 key, uvec2 ctr) {
  uvec4 c = uvec4(ctr.x, ctr.y, 0u, 0u);
  uvec2 k = key;
  for (int r = 0; r < 10; ++r) {
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    k += uvec2(0x9E3779B9u, 0xBB67AE85u);
  }
  return c;
}

double u01(uint a, uint b) {
  const uint64_t x = ((uint64_t(a) << 21) ^ uint64_t(b >> 11)) & ((uint64_t(1) << 53) - uint64_t(1));
  return double(x) * (1.0LF / 9007199254740992.0LF);
}

void main() {
  const double a = KIND == 3 ? 0.0LF : packDouble2x32(pc.a), b = KIND == 3 ? 0.0LF : packDouble2x32(pc.b);
  const uint64_t offset = packUint2x32(pc.d);
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.numel; i += stride) {
    const uvec4 v = philox(pc.c, unpackUint2x32(offset + uint64_t(i)));
    if (KIND == 3) {
      const uint64_t bits = (uint64_t(v.x) << 32) | uint64_t(v.y);
      const int64_t value = int64_t(packUint2x32(pc.a)) + int64_t(bits % packUint2x32(pc.b));
      out_[idx(i, 0u)] = STORE_0(C_0(value));
      continue;
    }
    double r;
    if (KIND == 0) r = a + (b - a) * u01(v.x, v.y);
    else if (KIND == 2) r = u01(v.x, v.y) < a ? 1.0LF : 0.0LF;
    else r = a + b * sqrt(-2.0LF * d_log(1.0LF - u01(v.x, v.y))) * d_sincos(6.28318530717958647693LF * u01(v.z, v.w), true);
    C_0 y = C_0(r);
#if IS_BF16_0
    if (HALF_OPEN && bf16_to_float(float_to_bf16(y)) >= 1.0) y = 0.0;
#else
    if (HALF_OPEN && T_0(y) >= T_0(1)) y = C_0(0);
#endif
    out_[idx(i, 0u)] = STORE_0(y);
  }
}
