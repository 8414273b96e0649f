#version 450
// out = a OP b elementwise (OP: specialization constant, a BINARY_* code of the generated
// op_table.glsl). The `case` labels after each `@variant` marker are the ops that variant implements
// (read at build time; `all` is every variant, `float` the floating dtypes, `single` float32/float16/
// bfloat16, `double` float64 (pow and atan2 from double_math.glsl), `int` the integer and bool dtypes). Integer Div truncates
// (the op checks for zero divisors first).
// @build binary = all
// @build binary bool all
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elementwise_pc.glsl"
#include "op_table.glsl"
#include "double_math.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int OP = 0;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer A { T_1 a_[]; };
layout(std430, set = 0, binding = 3) readonly buffer B { T_1 b_[]; };

#if IS_FLOAT && !IS_DOUBLE
// atan2 from atan_f of the smaller over the larger magnitude, with C's signed zeros and infinities
// (the built-in atan(y, x) is undefined at 0/0 and allowed 4096 ulp).
float atan2_(float y, float x) {
  const float pi = 3.14159265, half_pi = 1.57079633;
  if (isnan(x) || isnan(y)) return x + y;
  const bool x_neg = x < 0.0 || (x == 0.0 && 1.0 / x < 0.0), y_neg = y < 0.0 || (y == 0.0 && 1.0 / y < 0.0);
  float r;
  if (y == 0.0) r = x_neg ? pi : 0.0;
  else if (isinf(x) && isinf(y)) r = x_neg ? 3.0 * pi / 4.0 : pi / 4.0;
  else if (isinf(x)) r = x_neg ? pi : 0.0;
  else if (x == 0.0 || isinf(y)) r = half_pi;
  else if (abs(y) <= abs(x)) r = x_neg ? pi - atan_f(abs(y) / abs(x)) : atan_f(abs(y) / abs(x));
  else r = half_pi + (x_neg ? atan_f(abs(x) / abs(y)) : -atan_f(abs(x) / abs(y)));
  return y_neg ? -r : r;
}
#endif
#if !IS_FLOAT
// Integer division on magnitudes (U_1: the unsigned type of C_1's width), so that the rounding of
// negative quotients does not depend on the driver: truncation, as C and the CPU backend do.
U_1 magnitude(C_1 v) { return v < C_1(0) ? U_1(-v) : U_1(v); }
C_1 div_trunc(C_1 x, C_1 y) {
  C_1 q = C_1(magnitude(x) / magnitude(y));
  return (x < C_1(0)) != (y < C_1(0)) ? -q : q;
}
// base ** e with wrapping products; negative e gives 0 except for bases 1 and -1 (as the CPU).
C_1 pow_int(C_1 base, C_1 e) {
  if (e < C_1(0)) return base == C_1(1) ? C_1(1) : (base == C_1(-1) ? ((e & C_1(1)) == C_1(0) ? C_1(1) : C_1(-1)) : C_1(0));
  C_1 r = C_1(1);
  for (; e != C_1(0); e >>= 1) {
    if ((e & C_1(1)) != C_1(0)) r *= base;
    base *= base;
  }
  return r;
}
#endif
C_1 floor_div(C_1 x, C_1 y) {
#if IS_FLOAT
  return floor(x / y);
#else
  C_1 q = div_trunc(x, y);
  if (q * y != x && ((x < C_1(0)) != (y < C_1(0)))) q -= C_1(1);
  return q;
#endif
}
C_1 rem(C_1 x, C_1 y) {
#if IS_FLOAT
  // A finite x modulo an infinite y is x itself when their signs agree (or x is 0), else y (as Python).
  if (isinf(y) && !isinf(x) && !isnan(x)) return (x == C_1(0) || (x < C_1(0)) == (y < C_1(0))) ? x : y;
  C_1 r = x - y * floor(x / y);
  return r;
#else
  C_1 r = x - div_trunc(x, y) * y;
  if (r != C_1(0) && ((r < C_1(0)) != (y < C_1(0)))) r += y;
  return r;
#endif
}
C_1 maxv(C_1 x, C_1 y) {
#if IS_FLOAT
  if (isnan(x) || isnan(y)) return x + y;
#endif
  return x > y ? x : y;
}
C_1 minv(C_1 x, C_1 y) {
#if IS_FLOAT
  if (isnan(x) || isnan(y)) return x + y;
#endif
  return x < y ? x : y;
}

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.numel; i += stride) {
    C_1 x = LOAD_1(a_[idx(i, 1u)]);
    C_1 y = LOAD_1(b_[idx(i, 2u)]);
    C_0 r;
    switch (OP) {
      // @variant all
      case BINARY_Add: r = C_0(x + y); break;
      case BINARY_Sub: r = C_0(x - y); break;
      case BINARY_Mul: r = C_0(x * y); break;
      case BINARY_FloorDivide: r = C_0(floor_div(x, y)); break;
      case BINARY_Remainder: r = C_0(rem(x, y)); break;
      case BINARY_Maximum: r = C_0(maxv(x, y)); break;
      case BINARY_Minimum: r = C_0(minv(x, y)); break;
      case BINARY_Eq: r = C_0(x == y); break;
      case BINARY_Ne: r = C_0(x != y); break;
      case BINARY_Lt: r = C_0(x < y); break;
      case BINARY_Le: r = C_0(x <= y); break;
      case BINARY_Gt: r = C_0(x > y); break;
      case BINARY_Ge: r = C_0(x >= y); break;
      case BINARY_LogicalAnd: r = C_0((x != C_1(0)) && (y != C_1(0))); break;
      case BINARY_LogicalOr: r = C_0((x != C_1(0)) || (y != C_1(0))); break;
      case BINARY_LogicalXor: r = C_0((x != C_1(0)) != (y != C_1(0))); break;
#if IS_FLOAT
      // @variant float
      case BINARY_Div: r = C_0(x / y); break;
#if !IS_DOUBLE
      // @variant single
      case BINARY_Pow: r = C_0(pow_signed(x, y)); break;
      case BINARY_Atan2: r = C_0(atan2_(x, y)); break;
#else
      // @variant double
      case BINARY_Pow: r = C_0(d_pow(x, y)); break;
      case BINARY_Atan2: r = C_0(d_atan2(x, y)); break;
#endif
#else
      // @variant int
      case BINARY_Div: r = C_0(div_trunc(x, y)); break;
      case BINARY_Pow: r = C_0(pow_int(x, y)); break;
      case BINARY_BitwiseAnd: r = C_0(x & y); break;
      case BINARY_BitwiseOr: r = C_0(x | y); break;
      case BINARY_BitwiseXor: r = C_0(x ^ y); break;
#endif
      // @end
      default: return;  // unreachable: the host refuses the ops a variant lacks (no value is written)
    }
    out_[idx(i, 0u)] = STORE_0(r);
  }
}
