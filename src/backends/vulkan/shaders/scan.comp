#version 450
// Inclusive scan (cumsum, or cumprod when IS_PROD) along one dim. One invocation per row walks
// positions [pc.start, pc.start + pc.len) of its row in order (the CPU kernel's order), starting
// from the identity when start == 0 or else from the carry the previous chunk's dispatch left,
// and leaves its running value in the carry. Rows longer than the driver's loop limit are scanned
// by several dispatches of consecutive chunks. ACC is the input's accumulator type (float for
// float32/float16/bfloat16, double for float64, int or int64 for the integers: the wrap-around of
// the narrow integer types matches the CPU's int64 accumulation converted back).
// Bindings: 0 meta, 1 out (T_0), 2 in (T_1, the same dtype), 3 carry (ACC, one per row).
// meta: [nd, in_off, out_off, in_step, out_step, row sizes (nd), row in-strides (nd), row out-strides (nd)]
//   (in_step/out_step: strides of the scanned dim; the row dims are all the others.)
// @build scan - all
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool IS_PROD = false;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { T_1 in_[]; };
layout(std430, set = 0, binding = 3) buffer Carry { ACC carry[]; };
layout(push_constant) uniform Push { uint n_rows; uint start; uint len; uint groups_x; } pc;

void main() {
  uint row = (gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (row >= pc.n_rows) return;
  int nd = meta[0];
  int in_off = meta[1], out_off = meta[2];
  const int in_step = meta[3], out_step = meta[4];
  uint rem = row;
  for (int d = nd - 1; d >= 0; --d) {
    uint s = uint(meta[5 + d]);
    uint c = rem % s;
    rem /= s;
    in_off += int(c) * meta[5 + nd + d];
    out_off += int(c) * meta[5 + 2 * nd + d];
  }
  ACC acc = pc.start == 0u ? ACC(IS_PROD ? 1 : 0) : carry[row];
  in_off += int(pc.start) * in_step;
  out_off += int(pc.start) * out_step;
  for (uint i = 0u; i < pc.len; ++i) {
    ACC v = ACC(LOAD_1(in_[in_off]));
    acc = IS_PROD ? acc * v : acc + v;
    out_[out_off] = STORE_0(C_0(acc));
    in_off += in_step;
    out_off += out_step;
  }
  carry[row] = acc;
}
