#version 450
// Multi-tensor optimizer updates (see src/kernels/optim.h): one dispatch updates up to 64 parameters.
// The tensors are reached through the memory blocks that hold them: bindings 1..15 are whole device
// blocks (a block holds many tensors), and the metadata gives, per parameter j (workgroup row y = j):
//   meta[j * 12 + 0]             numel
//   meta[j * 12 + 1 + 2 * r]     binding of role r (0 param, 1 grad / new value, 2..4 state buffers)
//   meta[j * 12 + 2 + 2 * r]     element offset of role r in that block
// The binding index is uniform in a workgroup. OP: 0 SGD, 1 Adam, 2 EMA, 3 gradient unscale (role 0 the
// gradient, role 1 the found_inf flag: one element, set to 1 by any thread that meets inf or NaN).
// @build optim - f32,f16,bf16,f64
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int OP = 0;
#define BLOCK(n) layout(std430, set = 0, binding = n) buffer Block##n { T_1 v[]; } b##n;
BLOCK(1) BLOCK(2) BLOCK(3) BLOCK(4) BLOCK(5) BLOCK(6) BLOCK(7) BLOCK(8)
BLOCK(9) BLOCK(10) BLOCK(11) BLOCK(12) BLOCK(13) BLOCK(14) BLOCK(15)
layout(push_constant) uniform Push {
  uint flags;      // SGD: 1 nesterov, 2 maximize, 4 first, 8 momentum; Adam: 1 decoupled, 2 amsgrad, 4 maximize
  uint pad;
  uvec2 h[9];      // coefficients computed in double on the host (see optim.cpp): SGD lr, momentum,
                   // 1 - dampening, weight_decay; Adam 1 - lr * weight_decay, beta1, 1 - beta1, beta2, 1 - beta2,
                   // eps, weight_decay, step_size, bias_correction2_sqrt; EMA decay, 1 - decay; unscale inv_scale
} pc;

#if IS_DOUBLE
#define H(k) packDouble2x32(pc.h[k])
#else
#define H(k) C_1(uintBitsToFloat(pc.h[k].x))
#endif

C_1 ld(int buf, int i) {
  switch (buf) {
#define LD(n) case n: return LOAD_1(b##n.v[i]);
    LD(1) LD(2) LD(3) LD(4) LD(5) LD(6) LD(7) LD(8) LD(9) LD(10) LD(11) LD(12) LD(13) LD(14) LD(15)
  }
  return C_1(0);
}
void st(int buf, int i, C_1 x) {
  switch (buf) {
#define ST(n) case n: b##n.v[i] = STORE_1(x); break;
    ST(1) ST(2) ST(3) ST(4) ST(5) ST(6) ST(7) ST(8) ST(9) ST(10) ST(11) ST(12) ST(13) ST(14) ST(15)
  }
}

void main() {
  const int base = int(gl_WorkGroupID.y) * 12;
  const uint n = uint(meta[base]);
  int buf[5], off[5];
  for (int r = 0; r < 5; ++r) { buf[r] = meta[base + 1 + 2 * r]; off[r] = meta[base + 2 + 2 * r]; }
  const uint stride = gl_NumWorkGroups.x * 256u;
  for (uint e = gl_GlobalInvocationID.x; e < n; e += stride) {
    const int i = int(e);
    C_1 p = ld(buf[0], off[0] + i);
    if (OP == 0) {
      C_1 d = ld(buf[1], off[1] + i);
      if ((pc.flags & 2u) != 0u) d = -d;
      d = d + H(3) * p;
      if ((pc.flags & 8u) != 0u) {
        C_1 m = (pc.flags & 4u) != 0u ? d : ld(buf[2], off[2] + i) * H(1) + H(2) * d;
        st(buf[2], off[2] + i, m);
        d = (pc.flags & 1u) != 0u ? d + H(1) * m : m;
      }
      st(buf[0], off[0] + i, p - H(0) * d);
    } else if (OP == 1) {
      C_1 g = ld(buf[1], off[1] + i);
      if ((pc.flags & 4u) != 0u) g = -g;
      if ((pc.flags & 1u) != 0u) p = p * H(0);
      else g = g + H(6) * p;
      C_1 m = ld(buf[2], off[2] + i) * H(1) + H(2) * g;
      C_1 v = ld(buf[3], off[3] + i) * H(3) + H(4) * (g * g);
      st(buf[2], off[2] + i, m);
      st(buf[3], off[3] + i, v);
      if ((pc.flags & 2u) != 0u) {
        v = max(ld(buf[4], off[4] + i), v);
        st(buf[4], off[4] + i, v);
      }
      C_1 denom = sqrt(v) / H(8) + H(5);
      st(buf[0], off[0] + i, p - H(7) * (m / denom));
    } else if (OP == 2) {
      st(buf[0], off[0] + i, p * H(0) + H(1) * ld(buf[1], off[1] + i));
    } else {
      if (isnan(p) || isinf(p)) st(buf[1], off[1], C_1(1));
      st(buf[0], off[0] + i, p * H(0));
    }
  }
}
