#version 450
// 2-d pooling over planes (P, H, W) <-> (P, H_out, W_out), one invocation per element of the written tensor,
// each in a fixed order (deterministic; the order of the CPU kernels, so sums round alike):
//   KIND_MAX          out, indices = max_pool2d_kernel (NaN wins, the last NaN of a window; padding never)
//   KIND_AVG          out = avg_pool2d_kernel
//   KIND_AVG_BACKWARD grad_in: each input element sums, over the windows covering it in (oh, ow) order, the
//                     window's gradient / divisor (the CPU kernel adds them in that order too)
//   KIND_MAX_BACKWARD grad_in: each input element sums, over the windows that can contain it in (oh, ow)
//                     order, grad_out of those whose index is this element (plane_scatter with add, the
//                     sources of a plane in order)
// Arithmetic in ACC (float for float16/bfloat16, double for float64).
// Bindings: 1 the written tensor (T_0), 2 and 3 the others: KIND_MAX indices (int64), in;
// KIND_AVG in; KIND_AVG_BACKWARD grad_out; KIND_MAX_BACKWARD grad_out, indices (int64).
// meta: [H, W, H_out, W_out, kH, kW, sH, sW, padH, padW, dilH, dilW, adaptive, count_include_pad,
//        divisor_override, element offsets of bindings 1, 2, 3]
// push: the element count, workgroups along x.
// @build pool_max - float -DKIND=0
// @build pool_avg - float -DKIND=1
// @build pool_avg_backward - float -DKIND=2
// @build pool_max_backward - float -DKIND=3
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define KIND_MAX (KIND == 0)
#define KIND_AVG (KIND == 1)
#define KIND_AVG_BACKWARD (KIND == 2)
#define KIND_MAX_BACKWARD (KIND == 3)
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { uint n; uint groups_x; } pc;

layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
#if KIND_MAX
layout(std430, set = 0, binding = 2) writeonly buffer Idx { int64_t idx_[]; };
layout(std430, set = 0, binding = 3) readonly buffer In { T_1 in_[]; };
#else
layout(std430, set = 0, binding = 2) readonly buffer In { T_1 in_[]; };
#endif
#if KIND_MAX_BACKWARD
layout(std430, set = 0, binding = 3) readonly buffer Idx { int64_t idx_[]; };
#endif

int g_in(int axis) { return meta[axis]; }
int g_out(int axis) { return meta[2 + axis]; }
int g_kernel(int axis) { return meta[4 + axis]; }
int g_stride(int axis) { return meta[6 + axis]; }
int g_pad(int axis) { return meta[8 + axis]; }
int g_dil(int axis) { return meta[10 + axis]; }
bool g_adaptive() { return meta[12] != 0; }

// The input rows (axis 0) or columns (axis 1) window i reads: [begin, end) with step; for average pooling's
// fixed windows also the extent counting padding (the CPU kernel's max_span / avg_span).
struct Span { int begin; int end; int step; int padded; };

Span adaptive_span(int axis, int i) {
  int64_t n_in = g_in(axis), n_out = g_out(axis);
  int b = int((int64_t(i) * n_in) / n_out), e = int(1 + ((int64_t(i) + 1) * n_in - 1) / n_out);
  return Span(b, e, 1, e - b);
}

Span max_span(int axis, int i) {
  if (g_adaptive()) return adaptive_span(axis, i);
  int d = g_dil(axis);
  int b = i * g_stride(axis) - g_pad(axis);
  int e = min(b + (g_kernel(axis) - 1) * d + 1, g_in(axis));
  if (b < 0) b += ((-b + d - 1) / d) * d;
  return Span(b, e, d, 0);
}

Span avg_span(int axis, int i) {
  if (g_adaptive()) return adaptive_span(axis, i);
  int b = i * g_stride(axis) - g_pad(axis);
  int e = min(b + g_kernel(axis), g_in(axis) + g_pad(axis));
  int padded = e - b;
  return Span(max(b, 0), min(e, g_in(axis)), 1, padded);
}

// sum / the window's divisor, in the CPU kernel's order of division.
ACC avg_divide(ACC sum, Span h, Span w) {
  if (g_adaptive()) return sum / ACC(h.end - h.begin) / ACC(w.end - w.begin);
  int div;
  if (meta[14] > 0) div = meta[14];
  else if (meta[13] != 0) div = h.padded * w.padded;
  else div = (h.end - h.begin) * (w.end - w.begin);
  return sum / ACC(div);
}

// The windows [lo, hi] (clipped to the output) that may read input row (axis 0) or column x: a superset
// of those that do, which callers test.
void candidates(int axis, int x, out int lo, out int hi) {
  int out_n = g_out(axis);
  if (g_adaptive()) {
    int64_t n_in = g_in(axis);
    lo = int((int64_t(x) * out_n) / n_in);
    hi = int(((int64_t(x) + 1) * out_n - 1) / n_in);
  } else {
    int s = g_stride(axis), reach = (g_kernel(axis) - 1) * g_dil(axis);
    int first = x + g_pad(axis) - reach;  // the window starting here ends at x
    lo = first <= 0 ? 0 : (first + s - 1) / s;
    hi = (x + g_pad(axis)) / s;
  }
  hi = min(hi, out_n - 1);
}

void main() {
  uint local = (gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (local >= pc.n) return;
  int e = int(local);
#if KIND_MAX || KIND_AVG
  int W = g_in(1), oplane = g_out(0) * g_out(1);
  int p = e / oplane, oh = (e % oplane) / g_out(1), ow = e % g_out(1);
  int xp = meta[KIND_MAX ? 17 : 16] + p * g_in(0) * W;
#endif
#if KIND_MAX
  Span h = max_span(0, oh), w = max_span(1, ow);
  int best = h.begin < h.end && w.begin < w.end ? h.begin * W + w.begin : -1;
  ACC m = ACC(uintBitsToFloat(0xFF800000u));  // -inf
  for (int ih = h.begin; ih < h.end; ih += h.step) {
    for (int iw = w.begin; iw < w.end; iw += w.step) {
      ACC v = ACC(LOAD_1(in_[xp + ih * W + iw]));
      if (v > m || isnan(v)) {
        m = v;
        best = ih * W + iw;
      }
    }
  }
  out_[meta[15] + e] = STORE_0(m);
  idx_[meta[16] + e] = int64_t(best);
#elif KIND_AVG
  Span h = avg_span(0, oh), w = avg_span(1, ow);
  ACC r = ACC(0);
  if (h.begin < h.end && w.begin < w.end) {
    ACC sum = ACC(0);
    for (int ih = h.begin; ih < h.end; ++ih) {
      for (int iw = w.begin; iw < w.end; ++iw) sum += ACC(LOAD_1(in_[xp + ih * W + iw]));
    }
    r = avg_divide(sum, h, w);
  }
  out_[meta[15] + e] = STORE_0(r);
#else
  int plane = g_in(0) * g_in(1), W_out = g_out(1);
  int p = e / plane, ih = (e % plane) / g_in(1), iw = e % g_in(1);
  int gp = meta[16] + p * g_out(0) * W_out;
  int oh0, oh1, ow0, ow1;
  candidates(0, ih, oh0, oh1);
  candidates(1, iw, ow0, ow1);
  ACC acc = ACC(0);
#if KIND_AVG_BACKWARD
  for (int oh = oh0; oh <= oh1; ++oh) {
    Span h = avg_span(0, oh);
    if (ih < h.begin || ih >= h.end) continue;
    for (int ow = ow0; ow <= ow1; ++ow) {
      Span w = avg_span(1, ow);
      if (iw < w.begin || iw >= w.end) continue;
      acc += avg_divide(ACC(LOAD_1(in_[gp + oh * W_out + ow])), h, w);
    }
  }
#else
  int ip = meta[17] + p * g_out(0) * W_out;
  int64_t me = int64_t(e % plane);
  for (int oh = oh0; oh <= oh1; ++oh) {
    for (int ow = ow0; ow <= ow1; ++ow) {
      if (idx_[ip + oh * W_out + ow] == me) acc += ACC(LOAD_1(in_[gp + oh * W_out + ow]));
    }
  }
#endif
  out_[meta[15] + e] = STORE_0(acc);
#endif
}
