#version 450
// Depthwise conv2d (groups == C_in, C_out = m * C_in: output channel o reads input channel o / m) on
// contiguous NCHW tensors, weight (C_out, 1, kH, kW). Arithmetic in C_1 (float for float16 / bfloat16,
// double for float64); every sum has one fixed order (deterministic, no atomics).
//   MODE 0 forward          one invocation per y element: sum over (ky, kx) of w * x, then + bias
//                           (flags 1) and SiLU (flags 2). Bindings: 1 y, 2 x, 3 w, 4 bias (a dummy
//                           when absent).
//   MODE 1 input gradient   one invocation per gx element (b, c, iy, ix): a gather over the m output
//                           channels of c and the taps (ky, kx) whose window covers (iy, ix), i.e.
//                           oy = (iy + pad_h - ky * dil_h) / stride_h where that divides and lies
//                           inside (likewise ox). Bindings: 1 gx, 2 gy, 3 w.
//   MODE 2 weight gradient  one workgroup of 256 per (weight element, split): the sum over
//                           k = (b, oy, ox) in [split * k_slice, +k_slice) of gy * x, each thread a
//                           strided share, then a fixed-order tree in shared memory. With raw (flags 4;
//                           the f32 variants of half inputs) the sum goes to
//                           out[split * out_numel + element] in C_1 for a fixed-order sum of the splits
//                           on the host side. Bindings: 1 gw (or partials), 2 x, 3 gy.
// Workgroups are numbered gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x.
// meta: [N, C_in, H, W, C_out, kH, kW, H_out, W_out, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, m,
//        off_out, off_2, off_3, off_4]
// push: count (invocations of modes 0/1, workgroups of mode 2), flags, K, k_slice, out_numel.
// @build conv_dw_fwd = float -DMODE=0
// @build conv_dw_bwd_input = float -DMODE=1
// @build conv_dw_bwd_weight = float -DMODE=2
// @build conv_dw_bwd_weight f32 f16,bf16 -DMODE=2
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "double_math.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer Src2 { T_1 src2_[]; };
layout(std430, set = 0, binding = 3) readonly buffer Src3 { T_1 src3_[]; };
#if MODE == 0
layout(std430, set = 0, binding = 4) readonly buffer Bias { T_1 bias_[]; };
#endif
layout(push_constant) uniform Push {
  uint count; uint flags; uint K; uint k_slice; uint out_numel;
} pc;

int g_Cin() { return meta[1]; }
int g_H() { return meta[2]; }
int g_W() { return meta[3]; }
int g_Cout() { return meta[4]; }
int g_kH() { return meta[5]; }
int g_kW() { return meta[6]; }
int g_Ho() { return meta[7]; }
int g_Wo() { return meta[8]; }

#if MODE == 2
shared C_1 partial[256];
#endif

void main() {
  const int sh = meta[9], sw = meta[10], ph = meta[11], pw = meta[12], dh = meta[13], dw = meta[14], m = meta[15];
  const int kHW = g_kH() * g_kW();
#if MODE == 2
  const uint wg = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (wg >= pc.count) return;
  const uint lid = gl_LocalInvocationID.x;
  const int element = int(wg % pc.out_numel), split = int(wg / pc.out_numel);
  const int o = element / kHW, tap = element % kHW, ky = tap / g_kW(), kx = tap % g_kW();
  const int c = o / m, HWo = g_Ho() * g_Wo();
  const int k_begin = split * int(pc.k_slice), k_end = min(int(pc.K), k_begin + int(pc.k_slice));
  C_1 acc = C_1(0);
  for (int k = k_begin + int(lid); k < k_end; k += 256) {
    const int b = k / HWo, r = k % HWo, oy = r / g_Wo(), ox = r % g_Wo();
    const int iy = oy * sh - ph + ky * dh, ix = ox * sw - pw + kx * dw;
    if (iy < 0 || ix < 0 || iy >= g_H() || ix >= g_W()) continue;
    acc += LOAD_1(src3_[meta[18] + (b * g_Cout() + o) * HWo + r]) *
           LOAD_1(src2_[meta[17] + ((b * g_Cin() + c) * g_H() + iy) * g_W() + ix]);
  }
  partial[lid] = acc;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (lid < s) partial[lid] += partial[lid + s];
    barrier();
  }
  if (lid != 0u) return;
  if ((pc.flags & 4u) != 0u) out_[meta[16] + split * int(pc.out_numel) + element] = T_0(partial[0]);
  else out_[meta[16] + element] = STORE_0(partial[0]);
#else
  const uint idx = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (idx >= pc.count) return;
#if MODE == 0
  int t = int(idx);
  const int ox = t % g_Wo(); t /= g_Wo();
  const int oy = t % g_Ho(); t /= g_Ho();
  const int o = t % g_Cout(), b = t / g_Cout();
  const int x_plane = meta[17] + (b * g_Cin() + o / m) * g_H() * g_W(), w_row = meta[18] + o * kHW;
  C_1 acc = C_1(0);
  for (int ky = 0; ky < g_kH(); ++ky) {
    const int iy = oy * sh - ph + ky * dh;
    if (iy < 0 || iy >= g_H()) continue;
    for (int kx = 0; kx < g_kW(); ++kx) {
      const int ix = ox * sw - pw + kx * dw;
      if (ix < 0 || ix >= g_W()) continue;
      acc += LOAD_1(src3_[w_row + ky * g_kW() + kx]) * LOAD_1(src2_[x_plane + iy * g_W() + ix]);
    }
  }
  if ((pc.flags & 1u) != 0u) acc += LOAD_1(bias_[meta[19] + o]);
  if ((pc.flags & 2u) != 0u) {
#if IS_DOUBLE
    acc = acc / (1.0LF + d_exp(-acc));
#else
    acc = acc / (1.0 + exp(-acc));
#endif
  }
#else
  int t = int(idx);
  const int ix = t % g_W(); t /= g_W();
  const int iy = t % g_H(); t /= g_H();
  const int c = t % g_Cin(), b = t / g_Cin();
  C_1 acc = C_1(0);
  for (int j = 0; j < m; ++j) {
    const int o = c * m + j;
    const int gy_plane = meta[17] + (b * g_Cout() + o) * g_Ho() * g_Wo(), w_row = meta[18] + o * kHW;
    for (int ky = 0; ky < g_kH(); ++ky) {
      const int ty = iy + ph - ky * dh;
      if (ty < 0 || ty % sh != 0 || ty / sh >= g_Ho()) continue;
      for (int kx = 0; kx < g_kW(); ++kx) {
        const int tx = ix + pw - kx * dw;
        if (tx < 0 || tx % sw != 0 || tx / sw >= g_Wo()) continue;
        acc += LOAD_1(src3_[w_row + ky * g_kW() + kx]) * LOAD_1(src2_[gy_plane + (ty / sh) * g_Wo() + tx / sw]);
      }
    }
  }
#endif
  out_[meta[16] + int(idx)] = STORE_0(acc);
#endif
}
