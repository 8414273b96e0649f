#version 450
// Pass 2 of an indexed write (see index_put.glsl): per (R coordinate, index position b of the segment),
// "=": self[t] = values[p] when b has no later equal offset; "+=": when b is the first of its chain,
// self[t] plus the chain's values in increasing order, rounded to self's dtype after each addition as the
// CPU does (bool: or). t = self(p) + offset[p] * mul.
// Bindings: 1 self (read and written), 2 values (self's dtype), 3 offsets (int64), 4 links (int32).
// meta: [ni, nr, self base, values base, offset base, I sizes (ni), I values strides (ni),
//        I offset strides (ni), R sizes (nr), R self strides (nr), R values strides (nr),
//        R offset strides (nr), R link strides (nr)]
// @build index_put - all
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "index_put.glsl"
layout(std430, set = 0, binding = 1) buffer Self { T_0 self_[]; };
layout(std430, set = 0, binding = 2) readonly buffer Values { T_1 values_[]; };
layout(std430, set = 0, binding = 3) readonly buffer Off { int64_t off_[]; };
layout(std430, set = 0, binding = 4) readonly buffer Links { int link_[]; };

void main() {
  uint g = item();
  if (g >= pc.n) return;
  int ni = meta[0], nr = meta[1];
  int isz = 5, ivs = 5 + ni, ios = 5 + 2 * ni, rsz = 5 + 3 * ni;
  uint r = g / pc.seg, j = g % pc.seg;
  int t = meta[2], vb = meta[3], ob = meta[4], lb = 0;
  for (int d = nr - 1; d >= 0; --d) {
    uint s = uint(meta[rsz + d]);
    int c = int(r % s);
    r /= s;
    t += c * meta[rsz + nr + d];
    vb += c * meta[rsz + 2 * nr + d];
    ob += c * meta[rsz + 3 * nr + d];
    lb += c * meta[rsz + 4 * nr + d];
  }
  int link = link_[lb + int(j)];
  if (ACCUMULATE ? !link_first(link) : link != -1) return;
  t += int(off_[index_offset(pc.s0 + j, ni, isz, ios, ob)]) * pc.mul;
  if (!ACCUMULATE) {
    self_[t] = values_[index_offset(pc.s0 + j, ni, isz, ivs, vb)];
    return;
  }
  C_0 acc = LOAD_0(self_[t]);
  for (int c = int(j); c >= 0; c = link_next(link_[lb + c])) {
    acc = LOAD_0(STORE_0(acc + LOAD_1(values_[index_offset(pc.s0 + uint(c), ni, isz, ivs, vb)])));
  }
  self_[t] = STORE_0(acc);
}
