// float64 versions of the transcendental functions GLSL has only for float (exp, log, sin, ...), for
// the float64 variants of the unary and binary shaders. Each reduces the argument and sums a short
// series in double; accuracy is within a few units in the last place (sin/cos
// reduce |x| >= 2^20 by Payne-Hanek, trig_reduce.glsl). Shaders of other dtypes that compute in double
// define DOUBLE_MATH before including this file.
#if IS_DOUBLE || defined(DOUBLE_MATH)
#include "trig_reduce.glsl"
const double D_LN2_HI = 6.93147180369123816490e-01LF, D_LN2_LO = 1.90821492927058770002e-10LF;
const double D_PI = 3.14159265358979311600e+00LF;
const double D_PIO2_1 = 1.57079632673412561417e+00LF, D_PIO2_2 = 6.07710050650619224932e-11LF,
             D_PIO2_3 = 2.02226624879595063154e-21LF;
const double D_INF = 1.0LF / 0.0LF;

// x rounded to the nearest integer, halves to even (GLSL's roundEven, which lavapipe gets wrong for
// double on some CPUs: -41.5 -> -41 measured on an AMD EPYC); the sign of a zero result kept.
double d_round_even(double x) {
  double r = floor(x);
  const double d = x - r;  // NaN for +-inf and NaN: r is returned as it is
  if (d > 0.5LF || (d == 0.5LF && mod(r, 2.0LF) != 0.0LF)) r += 1.0LF;
  return r == 0.0LF ? x * 0.0LF : r;
}

double d_exp(double x) {
  if (isnan(x)) return x;
  if (x > 709.782712893384LF) return D_INF;
  if (x < -745.1332191019412LF) return 0.0LF;
  const double n = roundEven(x * 1.44269504088896338700e+00LF);
  const double r = (x - n * D_LN2_HI) - n * D_LN2_LO;  // |r| <= ln2 / 2
  double term = 1.0LF, sum = 1.0LF;
  for (int k = 1; k <= 14; ++k) { term *= r / double(k); sum += term; }
  // ldexp in two steps keeps 2^n representable for results near the subnormal range.
  const int ni = int(n);
  return ldexp(ldexp(sum, ni / 2), ni - ni / 2);
}

double d_log(double x) {
  if (isnan(x) || x < 0.0LF) return 0.0LF / 0.0LF;
  if (x == 0.0LF) return -D_INF;
  if (isinf(x)) return x;
  int e;
  double m = frexp(x, e);  // x = m * 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440LF) { m *= 2.0LF; e -= 1; }
  const double f = m - 1.0LF, s = f / (2.0LF + f), s2 = s * s;
  double term = s, sum = 0.0LF;  // log(1 + f) = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...)
  for (int k = 1; k <= 23; k += 2) { sum += term / double(k); term *= s2; }
  return double(e) * D_LN2_HI + (2.0LF * sum + double(e) * D_LN2_LO);
}

double d_log1p(double x) {
  if (isnan(x) || x == 0.0LF) return x;
  if (x < -1.0LF) return 0.0LF / 0.0LF;
  if (abs(x) >= 0.5LF) return d_log(1.0LF + x);
  const double s = x / (2.0LF + x), s2 = s * s;  // log(1 + x) = 2 atanh(s), |s| < 1/3
  double term = s, sum = 0.0LF;
  for (int k = 1; k <= 37; k += 2) { sum += term / double(k); term *= s2; }
  return 2.0LF * sum;
}

double d_expm1(double x) {
  if (x == 0.0LF) return x;  // keeps -0
  if (abs(x) >= 0.5LF) return d_exp(x) - 1.0LF;
  double term = x, sum = x;
  for (int k = 2; k <= 18; ++k) { term *= x / double(k); sum += term; }
  return sum;
}

// sin or cos (cosine when `cosine`) of x by reduction to [-pi/4, pi/4] around k * pi/2.
double d_sincos(double x, bool cosine) {
  if (isnan(x) || isinf(x)) return 0.0LF / 0.0LF;
  if (x == 0.0LF) return cosine ? 1.0LF : x;  // keeps -0
  int q;
  double r;
  if (abs(x) < 1048576.0LF) {  // Cody-Waite: k * D_PIO2_1 and k * D_PIO2_2 are exact for k < 2^20
    const double k = roundEven(x * 6.36619772367581382433e-01LF);
    r = ((x - k * D_PIO2_1) - k * D_PIO2_2) - k * D_PIO2_3;
    q = int(mod(k, 4.0LF));
  } else {  // Payne-Hanek (trig_reduce.glsl)
    int ex;
    const double mant = frexp(abs(x), ex);
    const uint64_t m = uint64_t(mant * 9007199254740992.0LF);
    const PiO2Reduced red = reduce_pio2(uint(m >> 32), uint(m), ex - 53);
    r = (double(red.f0) * 2.3283064365386963e-10LF + double(red.f1) * 5.421010862427522e-20LF +
         double(red.f2) * 1.2621774483536189e-29LF) * (red.negative ? -1.57079632679489655800LF : 1.57079632679489655800LF);
    q = x < 0.0LF ? (4 - red.q) & 3 : red.q;  // x < 0: reduce |x| and mirror
    if (x < 0.0LF) r = -r;
  }
  q += cosine ? 1 : 0;
  const double r2 = r * r;
  double s = r, ts = r, c = 1.0LF, tc = 1.0LF;
  for (int n = 1; n <= 11; ++n) {
    ts *= -r2 / double((2 * n) * (2 * n + 1));
    tc *= -r2 / double((2 * n - 1) * (2 * n));
    s += ts;
    c += tc;
  }
  q &= 3;
  return q == 0 ? s : (q == 1 ? c : (q == 2 ? -s : -c));
}

double d_atan(double x) {
  if (isnan(x) || x == 0.0LF) return x;
  const bool neg = x < 0.0LF;
  double a = abs(x), offset = 0.0LF;
  bool invert = a > 1.0LF;
  if (invert) a = 1.0LF / a;
  if (a > 0.26794919243112270647LF) {  // tan(pi/12): shift by pi/6
    a = (a * 1.73205080756887719318LF - 1.0LF) / (a + 1.73205080756887719318LF);
    offset = 5.23598775598298815658e-01LF;
  }
  const double a2 = a * a;
  double term = a, sum = 0.0LF;
  for (int k = 1; k <= 41; k += 2) { sum += term / double(k); term *= -a2; }
  double r = offset + sum;
  if (invert) r = 1.57079632679489655800LF - r;
  return neg ? -r : r;
}

double d_atan2(double y, double x) {
  if (isnan(x) || isnan(y)) return x + y;
  if (x == 0.0LF) {
    if (y != 0.0LF) return y > 0.0LF ? D_PI / 2.0LF : -D_PI / 2.0LF;
    if (1.0LF / x > 0.0LF) return y;        // atan2(+-0, +0) = +-0
    return 1.0LF / y < 0.0LF ? -D_PI : D_PI;  // atan2(+-0, -0) = +-pi
  }
  if (isinf(x) || isinf(y)) {
    const double r = isinf(x) && isinf(y) ? (x > 0.0LF ? D_PI / 4.0LF : 3.0LF * D_PI / 4.0LF)
                     : isinf(y) ? D_PI / 2.0LF : (x > 0.0LF ? 0.0LF : D_PI);
    return (y < 0.0LF || (y == 0.0LF && 1.0LF / y < 0.0LF)) ? -r : r;
  }
  const double r = d_atan(y / x);
  if (x > 0.0LF) return r;
  return (y < 0.0LF || (y == 0.0LF && 1.0LF / y < 0.0LF)) ? r - D_PI : r + D_PI;
}

double d_tanh(double x) {
  if (abs(x) > 20.0LF) return sign(x);
  if (x == 0.0LF) return x;
  const double e = d_expm1(2.0LF * x);
  return e / (e + 2.0LF);
}

double d_sigmoid(double x) { return 1.0LF / (1.0LF + d_exp(-x)); }

// erf: the Taylor series below 2.5, 1 - erfc by its continued fraction above, exactly +-1 past 6.
double d_erf(double x) {
  if (isnan(x) || x == 0.0LF) return x;
  const double a = abs(x);
  double r;
  if (a < 2.5LF) {
    double term = a, sum = a;
    const double a2 = a * a;
    for (int n = 1; n <= 60; ++n) {
      term *= -a2 / double(n);
      sum += term / double(2 * n + 1);
    }
    r = sum * 1.12837916709551255856LF;  // 2 / sqrt(pi)
  } else if (a < 6.0LF) {
    double f = a;  // erfc(a) = exp(-a^2) / sqrt(pi) / (a + 1/2 / (a + 1 / (a + 3/2 / (a + ...))))
    for (int n = 60; n >= 1; --n) f = a + (double(n) * 0.5LF) / f;
    r = 1.0LF - d_exp(-a * a) * 0.56418958354775627928LF / f;
  } else {
    r = 1.0LF;
  }
  return x < 0.0LF ? -r : r;
}

double d_pow(double x, double y) {
  if (y == 0.0LF || x == 1.0LF) return 1.0LF;  // even for NaN
  if (isnan(x) || isnan(y)) return x + y;
  const bool odd_int = y == floor(y) && mod(abs(y), 2.0LF) == 1.0LF;
  if (x == 0.0LF) return y < 0.0LF ? (odd_int && 1.0LF / x < 0.0LF ? -D_INF : D_INF) : (odd_int ? x : 0.0LF);
  if (x < 0.0LF && y != floor(y)) return 0.0LF / 0.0LF;
  if (isinf(y)) return abs(x) == 1.0LF ? 1.0LF : ((abs(x) > 1.0LF) == (y > 0.0LF) ? D_INF : 0.0LF);
  if (isinf(x)) {
    const double r = y > 0.0LF ? D_INF : 0.0LF;
    return x < 0.0LF && odd_int ? -r : r;
  }
  double r;
  if (y == floor(y) && abs(y) <= 64.0LF) {  // repeated squaring: exact for small results
    double b = abs(x);
    r = 1.0LF;
    for (int e = int(abs(y)); e != 0; e >>= 1) {
      if ((e & 1) != 0) r *= b;
      b *= b;
    }
    if (y < 0.0LF) r = 1.0LF / r;
  } else {
    r = d_exp(y * d_log(abs(x)));
  }
  return x < 0.0LF && odd_int ? -r : r;
}
#endif
