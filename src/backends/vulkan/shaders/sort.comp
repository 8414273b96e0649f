#version 450
// Stable sort along the last dim: a bitonic network over (key, position) entries, the rows padded to
// a power of two P. The key maps each value to an unsigned integer of the same order (floats: sign
// bit flipped, negatives inverted, -0 as +0, NaN the largest; inverted for a descending sort), so a
// comparison of (key, position) is a total order that keeps equal values in their original order;
// padding entries (key all ones, position >= len) sort after every element.
// The entries of the rows lie one after another (row * P + slot). Two modes:
//   MODE 0: one workgroup per block of BLOCK entries, in shared memory: loads the entries (from the
//     input when LOAD_INPUT, else from the scratch buffers), runs stages k = k_first .. k_last (each
//     from j = j_first for the first stage, k/2 for the others, down to 1) and stores them (to the
//     outputs when WRITE_OUTPUT, the first `topk` slots of each row, else to the scratch buffers).
//     P <= BLOCK: BLOCK / P whole rows per block, sorted in one dispatch.
//   MODE 1: one compare-exchange step (k, j) with j >= BLOCK over the scratch buffers, one
//     invocation per pair.
// The direction of each compare-exchange follows the slot within the row, so every row ends ascending.
// Bindings: 0 meta, 1 values (T_0, the input's dtype), 2 indices (int64), 3 in (T_1),
//   4 scratch keys (KEY), 5 scratch positions (uint): rows * P entries (unused for P <= BLOCK).
// meta: [nd, in_off, v_off, i_off, in_step, v_step, i_step, row sizes (nd), row strides of in, values, indices (nd each)]
// @build sort - f32,f16,bf16,u8,bool
// @build sort - i32 -DSIGNED32=1
// @build sort - f64,i64 -DKEY64=1
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int MODE = 0;
#define BLOCK 2048u
#if KEY64
#define KEY uint64_t
#define KEY_MAX uint64_t(0xFFFFFFFFFFFFFFFFul)
#else
#define KEY uint
#define KEY_MAX 0xFFFFFFFFu
#endif
#define DESCENDING 1u
#define LOAD_INPUT 2u
#define WRITE_OUTPUT 4u
layout(std430, set = 0, binding = 1) writeonly buffer Values { T_0 values[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Indices { int64_t indices[]; };
layout(std430, set = 0, binding = 3) readonly buffer In { T_1 in_[]; };
layout(std430, set = 0, binding = 4) buffer Keys { KEY keys[]; };
layout(std430, set = 0, binding = 5) buffer Positions { uint positions[]; };
layout(push_constant) uniform Push {
  uint n_rows; uint len; uint p; uint topk;  // p: padded row length (a power of two)
  uint k_first; uint k_last; uint j_first; uint flags;
  uint groups_x;
} pc;

shared KEY s_key[BLOCK];
shared uint s_pos[BLOCK];

// Element offset of row `row`, slot 0, in operand `k` (0 in, 1 values, 2 indices).
int row_offset(uint row, int k) {
  int nd = meta[0];
  int off = meta[1 + k];
  for (int d = nd - 1; d >= 0; --d) {
    uint s = uint(meta[7 + d]);
    uint c = row % s;
    row /= s;
    off += int(c) * meta[7 + (k + 1) * nd + d];
  }
  return off;
}

KEY make_key(T_1 x) {
#if IS_DOUBLE
  double v = LOAD_1(x);
  if (isnan(v)) return KEY_MAX;
  uint64_t u = packUint2x32(unpackDouble2x32(v == 0.0lf ? 0.0lf : v));
  KEY key = (u >> 63) != 0ul ? ~u : u | (uint64_t(1) << 63);
#elif IS_FLOAT
  float v = float(LOAD_1(x));
  if (isnan(v)) return KEY_MAX;
  uint u = floatBitsToUint(v == 0.0 ? 0.0 : v);
  KEY key = (u >> 31) != 0u ? ~u : u | 0x80000000u;
#elif KEY64
  KEY key = uint64_t(LOAD_1(x)) ^ (uint64_t(1) << 63);
#elif SIGNED32
  KEY key = uint(LOAD_1(x)) ^ 0x80000000u;
#else
  KEY key = uint(LOAD_1(x));
#endif
  return key;
}

// Whether entry (ka, pa) goes after (kb, pb).
bool after(KEY ka, uint pa, KEY kb, uint pb) { return ka > kb || (ka == kb && pa > pb); }

// The lower slot of the q-th pair of a compare-exchange step of distance j (j a power of two).
uint lower_slot(uint q, uint j) { return ((q & ~(j - 1u)) << 1) | (q & (j - 1u)); }

// Whether the pair at flat slot i of step k sorts ascending (by its slot within the row).
bool ascending(uint i, uint k) { return (i & (pc.p - 1u) & k) == 0u; }

void block_network(uint base) {
  for (uint k = pc.k_first; k <= pc.k_last; k <<= 1) {
    for (uint j = k == pc.k_first ? pc.j_first : k >> 1; j > 0u; j >>= 1) {
      barrier();
      for (uint q = gl_LocalInvocationID.x; q < BLOCK / 2u; q += 256u) {
        uint a = lower_slot(q, j), b = a + j;
        KEY ka = s_key[a], kb = s_key[b];
        uint pa = s_pos[a], pb = s_pos[b];
        if (after(ka, pa, kb, pb) == ascending(base + a, k)) {
          s_key[a] = kb; s_key[b] = ka;
          s_pos[a] = pb; s_pos[b] = pa;
        }
      }
    }
  }
  barrier();
}

void main() {
  uint group = gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x;
  if (MODE == 1) {
    uint q = group * 256u + gl_LocalInvocationID.x;
    if (q >= pc.n_rows * (pc.p / 2u)) return;
    uint j = pc.j_first, a = lower_slot(q, j), b = a + j;
    KEY ka = keys[a], kb = keys[b];
    uint pa = positions[a], pb = positions[b];
    if (after(ka, pa, kb, pb) == ascending(a, pc.k_first)) {
      keys[a] = kb; keys[b] = ka;
      positions[a] = pb; positions[b] = pa;
    }
    return;
  }
  uint base = group * BLOCK;
  if (base >= pc.n_rows * pc.p) return;  // uniform per workgroup
  const bool desc = (pc.flags & DESCENDING) != 0u;
  for (uint t = gl_LocalInvocationID.x; t < BLOCK; t += 256u) {
    uint e = base + t, row = e / pc.p, slot = e % pc.p;
    if ((pc.flags & LOAD_INPUT) == 0u) {
      s_key[t] = keys[e];
      s_pos[t] = positions[e];
      continue;
    }
    KEY key = KEY_MAX;
    if (row < pc.n_rows && slot < pc.len) {
      key = make_key(in_[row_offset(row, 0) + int(slot) * meta[4]]);
      if (desc) key = ~key;
    }
    s_key[t] = key;
    s_pos[t] = slot;
  }
  block_network(base);
  for (uint t = gl_LocalInvocationID.x; t < BLOCK; t += 256u) {
    uint e = base + t, row = e / pc.p, slot = e % pc.p;
    if ((pc.flags & WRITE_OUTPUT) == 0u) {
      keys[e] = s_key[t];
      positions[e] = s_pos[t];
    } else if (row < pc.n_rows && slot < pc.topk) {
      uint pos = s_pos[t];
      values[row_offset(row, 1) + int(slot) * meta[5]] = in_[row_offset(row, 0) + int(pos) * meta[4]];
      indices[row_offset(row, 2) + int(slot) * meta[6]] = int64_t(pos);
    }
  }
}
