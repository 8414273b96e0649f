// Argument reduction of sin / cos / tan for any finite x (Payne and Hanek's method): with x = m * 2^e
// (m an integer of at most 53 bits), x * 2/pi modulo 4 is m times a 192-bit window of the bits of 2/pi
// at e, in exact integer arithmetic. The result is the quadrant q and the fraction f of
// x = (4k + q + f) * pi/2, f in [-1/2, 1/2), as 96 fraction bits.
#ifndef ADEPT_TRIG_REDUCE
#define ADEPT_TRIG_REDUCE 1
const uint TWO_OVER_PI[36] = uint[36](
    0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u,
    0xFE5163ABu, 0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u, 0x06492EEAu, 0x09D1921Cu,
    0xFE1DEB1Cu, 0xB129A73Eu, 0xE88235F5u, 0x2EBB4484u, 0xE99C7026u, 0xB45F7E41u,
    0x3991D639u, 0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu, 0x1FF897FFu, 0xDE05980Fu,
    0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u, 0x4F463F66u, 0x9E5FEA2Du,
    0x7527BAC7u, 0xEBE5F17Bu, 0x3D0739F7u, 0x8A5292EAu, 0x6BFB5FB1u, 0x1F8D5D08u);

struct PiO2Reduced {
  int q;
  bool negative;  // f < 0: the bits are |f|
  uint f0, f1, f2;  // |f| = f0 / 2^32 + f1 / 2^64 + f2 / 2^96
};

void add_at(inout uint p[8], int i, uint v) {
  for (; i < 8 && v != 0u; ++i) {
    uint carry;
    p[i] = uaddCarry(p[i], v, carry);
    v = carry;
  }
}

// 32 bits of p starting at bit `pos` (bits below 0 read as 0).
uint bits32(uint p[8], int pos) {
  if (pos <= -32 || pos >= 256) return 0u;
  if (pos < 0) return p[0] << uint(-pos);
  const int i = pos >> 5, k = pos & 31;
  const uint lo = p[i], hi = i + 1 < 8 ? p[i + 1] : 0u;
  return k == 0 ? lo : (lo >> uint(k)) | (hi << uint(32 - k));
}

PiO2Reduced reduce_pio2(uint m_hi, uint m_lo, int e) {
  const int j0 = e >= 32 ? (e - 32) / 32 : 0;  // words before j0 only add multiples of 4
  uint p[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
  const uint m[2] = uint[2](m_lo, m_hi);
  for (int a = 0; a < 2; ++a) {
    for (int t = 0; t < 6; ++t) {  // limb t of the window (little-endian) is word j0 + 5 - t
      uint hi, lo;
      umulExtended(m[a], TWO_OVER_PI[j0 + 5 - t], hi, lo);
      add_at(p, a + t, lo);
      add_at(p, a + t + 1, hi);
    }
  }
  const int point = 32 * (j0 + 6) - e;  // bit of weight 2^0
  PiO2Reduced r;
  r.q = int(bits32(p, point) & 3u);
  r.f0 = bits32(p, point - 32);
  r.f1 = bits32(p, point - 64);
  r.f2 = bits32(p, point - 96);
  r.negative = (r.f0 & 0x80000000u) != 0u;
  if (r.negative) {  // f >= 1/2: the next quadrant, with |f| = 1 - f (two's complement of the bits)
    r.q = (r.q + 1) & 3;
    uint c0, c1;
    r.f2 = uaddCarry(~r.f2, 1u, c0);
    r.f1 = uaddCarry(~r.f1, c0, c1);
    r.f0 = ~r.f0 + c1;
  }
  return r;
}

// sin (or cos) of r in [-pi/4, pi/4] by its Taylor series, float32.
float sincos_series_f(float r, bool cosine) {
  const float r2 = r * r;
  if (cosine) return 1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 + r2 * (-1.0 / 720.0 + r2 * (1.0 / 40320.0 - r2 / 3628800.0))));
  return r * (1.0 + r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 / 362880.0))));
}

// sin (or cos) of a float32 x, accurate for every finite x (GLSL's built-ins promise nothing beyond
// [-pi, pi]).
float sincos_f(float x, bool cosine) {
  if (isnan(x) || isinf(x)) return uintBitsToFloat(0x7fc00000u);
  if (abs(x) <= 0.78539816) return x == 0.0 && !cosine ? x : sincos_series_f(x, cosine);
  int ex;
  const float mant = frexp(abs(x), ex);  // |x| = mant * 2^ex, mant in [0.5, 1)
  PiO2Reduced red = reduce_pio2(0u, uint(mant * 16777216.0), ex - 24);
  float f = float(red.f0) * 2.3283064e-10 + float(red.f1) * 5.421011e-20;
  f *= red.negative ? -1.5707963 : 1.5707963;
  int q = red.q + (cosine ? 1 : 0);
  if (x < 0.0 && !cosine) q += 2;  // sin(-x) = -sin(x); cos is even
  q &= 3;
  const float v = sincos_series_f(f, (q & 1) != 0);
  return q >= 2 ? -v : v;
}
#endif
