#version 450
// out = a OP b elementwise (OP: specialization constant, BinaryOp's numbering).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elementwise_pc.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int OP = 0;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer A { T_1 a_[]; };
layout(std430, set = 0, binding = 3) readonly buffer B { T_1 b_[]; };

C_1 floor_div(C_1 x, C_1 y) {
#if IS_FLOAT
  return floor(x / y);
#else
  C_1 q = x / y;
  if ((x % y != C_1(0)) && ((x < C_1(0)) != (y < C_1(0)))) q -= C_1(1);
  return q;
#endif
}
C_1 rem(C_1 x, C_1 y) {
#if IS_FLOAT
  C_1 r = x - y * floor(x / y);
  return r;
#else
  C_1 r = x % y;
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
    C_1 x = C_1(a_[idx(i, 1u)]);
    C_1 y = C_1(b_[idx(i, 2u)]);
    C_0 r;
    if (OP == 0) r = C_0(x + y);
    else if (OP == 1) r = C_0(x - y);
    else if (OP == 2) r = C_0(x * y);
    else if (OP == 3) r = C_0(x / y);
    else if (OP == 4) r = C_0(floor_div(x, y));
    else if (OP == 5) r = C_0(rem(x, y));
#if IS_FLOAT
    else if (OP == 6) r = C_0(pow_signed(x, y));
#endif
    else if (OP == 7) r = C_0(maxv(x, y));
    else if (OP == 8) r = C_0(minv(x, y));
#if IS_FLOAT
    else if (OP == 9) r = C_0(atan(x, y));
#endif
    else if (OP == 10) r = C_0(x == y);
    else if (OP == 11) r = C_0(x != y);
    else if (OP == 12) r = C_0(x < y);
    else if (OP == 13) r = C_0(x <= y);
    else if (OP == 14) r = C_0(x > y);
    else if (OP == 15) r = C_0(x >= y);
    else if (OP == 16) r = C_0((x != C_1(0)) && (y != C_1(0)));
    else if (OP == 17) r = C_0((x != C_1(0)) || (y != C_1(0)));
    else if (OP == 18) r = C_0((x != C_1(0)) != (y != C_1(0)));
#if !IS_FLOAT
    else if (OP == 19) r = C_0(x & y);
    else if (OP == 20) r = C_0(x | y);
    else if (OP == 21) r = C_0(x ^ y);
#endif
    else r = C_0(0);
#if OUT_BOOL
    out_[idx(i, 0u)] = T_0(r != C_0(0) ? 1 : 0);
#else
    out_[idx(i, 0u)] = T_0(r);
#endif
  }
}
