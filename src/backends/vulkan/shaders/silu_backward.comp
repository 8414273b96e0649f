#version 450
// SiLU's gradient in one pass (silu_backward_kernel, kernels/pointwise.h):
//   grad_in = grad_out * s * (1 + x (1 - s)),  s = sigmoid(x),
// elementwise over strided operands; float16 and bfloat16 compute in float32, float64 in double.
// Bindings: 0 metadata, 1 grad_in, 2 grad_out, 3 x.
// @build silu_backward - float
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elementwise_pc.glsl"
#include "double_math.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer G { T_0 g_[]; };
layout(std430, set = 0, binding = 3) readonly buffer X { T_0 x_[]; };

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.numel; i += stride) {
    C_0 x = LOAD_0(x_[idx(i, 2u)]), g = LOAD_0(g_[idx(i, 1u)]);
#if IS_DOUBLE
    C_0 s = d_sigmoid(x);
#else
    C_0 s = 1.0 / (1.0 + exp(-x));
#endif
    out_[idx(i, 0u)] = STORE_0(g * s * (C_0(1) + x * (C_0(1) - s)));
  }
}
