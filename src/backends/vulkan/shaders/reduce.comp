#version 450
// Reduction over any set of dims: one workgroup per output element, whose 256 threads fold strided
// parts of the reduced sub-block and combine in shared memory; or, for short reductions with many
// outputs (PER_THREAD), one invocation per output element. With chunk_len < n_red (few outputs, many
// elements) workgroup g reduces the elements [c * chunk_len, (c + 1) * chunk_len) of output g % n_out
// (c = g / n_out) into a partial at out offset + c * n_out; the host folds the partials afterwards. OP is a REDUCE_* code of the generated op_table.glsl
// (Sum, Prod, Max, Min, ArgMax, ArgMin, All, Any). Max/Min propagate NaN; Arg* return the first
// index of the extreme value (NaN counts as the extreme), as int64. ACC is the input's accumulator
// type (float for float16/bfloat16).
// @build reduce = all -DARG_OUT=0
// @build reduce bool all -DARG_OUT=0
// @build reduce_idx i64 all -DARG_OUT=1
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "op_table.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int OP = 0;
// PER_THREAD: one invocation per output element (small reductions with many outputs).
layout(constant_id = 1) const bool PER_THREAD = false;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { T_1 in_[]; };
layout(push_constant) uniform Push { uint n_out; uint n_red; uint groups_x; uint chunk_len; } pc;
// meta: [nk, nr, in_off, out_off, kept sizes, kept in-strides, kept out-strides, red sizes, red in-strides]

shared ACC s_val[256];
shared int s_idx[256];

bool is_nan_acc(ACC v) {
#if IS_FLOAT
  return isnan(v);
#else
  return false;
#endif
}

ACC identity() {
  if (OP == REDUCE_Sum || OP == REDUCE_Any) return ACC(0);
  if (OP == REDUCE_Prod || OP == REDUCE_All) return ACC(1);
  return ACC(0);  // Max/Min/Arg*: the first element replaces it (idx < 0 marks "empty")
}

// Folds (v, i) into (acc, best). best < 0 means nothing folded yet.
void fold(inout ACC acc, inout int best, ACC v, int i) {
  if (OP == REDUCE_Sum) { acc += v; best = 0; }
  else if (OP == REDUCE_Prod) { acc *= v; best = 0; }
  else if (OP == REDUCE_All) { acc = ACC((acc != ACC(0)) && (v != ACC(0))); best = 0; }
  else if (OP == REDUCE_Any) { acc = ACC((acc != ACC(0)) || (v != ACC(0))); best = 0; }
  else {
    bool is_max = (OP == REDUCE_Max || OP == REDUCE_ArgMax);
    bool take;
    if (best < 0) take = true;
    else if (is_nan_acc(acc)) take = is_nan_acc(v) && i < best;
    else if (is_nan_acc(v)) take = true;
    else take = is_max ? (v > acc || (v == acc && i < best)) : (v < acc || (v == acc && i < best));
    if (take) { acc = v; best = i; }
  }
}

void store(int out_off, ACC acc, int best) {
#if ARG_OUT
  out_[out_off] = T_0(best < 0 ? 0 : best);
#else
  out_[out_off] = STORE_0(C_0(acc));
#endif
}

void main() {
  uint group = gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x;
  uint lid = gl_LocalInvocationID.x;
  const uint chunk = PER_THREAD ? 0u : group / pc.n_out;
  uint o = PER_THREAD ? group * 256u + lid : group - chunk * pc.n_out;
  if (o >= pc.n_out || (chunk > 0u && chunk * pc.chunk_len >= pc.n_red)) return;  // uniform per workgroup unless PER_THREAD
  int nk = meta[0], nr = meta[1];
  int in_base = meta[2], out_off = meta[3] + int(chunk * pc.n_out);
  int ks = 4, kis = 4 + nk, kos = 4 + 2 * nk, rs = 4 + 3 * nk, ris = 4 + 3 * nk + nr;
  uint rem = o;
  for (int d = nk - 1; d >= 0; --d) {
    uint s = uint(meta[ks + d]);
    uint c = rem % s;
    rem /= s;
    in_base += int(c) * meta[kis + d];
    out_off += int(c) * meta[kos + d];
  }
  ACC acc = identity();
  int best = -1;
  uint first = PER_THREAD ? 0u : chunk * pc.chunk_len + lid, step = PER_THREAD ? 1u : 256u;
  const uint last = PER_THREAD ? pc.n_red : min(pc.n_red, (chunk + 1u) * pc.chunk_len);
  for (uint r = first; r < last; r += step) {
    uint rr = r;
    int off = in_base;
    for (int d = nr - 1; d >= 0; --d) {
      uint s = uint(meta[rs + d]);
      uint c = rr % s;
      rr /= s;
      off += int(c) * meta[ris + d];
    }
    fold(acc, best, ACC(LOAD_1(in_[off])), int(r));
  }
  if (PER_THREAD) {
    store(out_off, acc, best);
    return;
  }
  s_val[lid] = acc;
  s_idx[lid] = best;
  barrier();
  for (uint w = 128u; w > 0u; w >>= 1u) {
    if (lid < w) {
      ACC a = s_val[lid];
      int ai = s_idx[lid];
      if (s_idx[lid + w] >= 0) {
        if (OP <= REDUCE_Prod || OP >= REDUCE_All) {
          ACC b = s_val[lid + w];
          if (OP == REDUCE_Sum) a += b;
          else if (OP == REDUCE_Prod) a *= b;
          else if (OP == REDUCE_All) a = ACC((a != ACC(0)) && (b != ACC(0)));
          else a = ACC((a != ACC(0)) || (b != ACC(0)));
          ai = 0;
        } else {
          fold(a, ai, s_val[lid + w], s_idx[lid + w]);
        }
      }
      s_val[lid] = a;
      s_idx[lid] = ai;
    }
    barrier();
  }
  if (lid == 0u) store(out_off, s_val[0], s_idx[0]);
}
