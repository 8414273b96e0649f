#version 450
// Pass 1 of an indexed write (see index_put.glsl): links between equal offsets of one segment.
// Bindings: 1 links (int32 at keyed coordinate * seg + b - s0; links are relative to s0), 2 offsets (int64).
// meta: [ni, nk, offset base, I sizes (ni), I offset strides (ni), K sizes (nk), K offset strides (nk)]
// @build index_links - i64
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "index_put.glsl"
layout(std430, set = 0, binding = 1) writeonly buffer Links { int link_[]; };
layout(std430, set = 0, binding = 2) readonly buffer Off { int64_t off_[]; };

void main() {
  uint g = item();
  if (g >= pc.n) return;
  int ni = meta[0], nk = meta[1];
  int isz = 3, ist = 3 + ni, ksz = 3 + 2 * ni, kst = 3 + 2 * ni + nk;
  uint k = g / pc.seg, j = g % pc.seg;
  int base = meta[2];
  uint rem = k;
  for (int d = nk - 1; d >= 0; --d) {
    uint s = uint(meta[ksz + d]);
    base += int(rem % s) * meta[kst + d];
    rem /= s;
  }
  int64_t key = off_[index_offset(pc.s0 + j, ni, isz, ist, base)];
  bool first = true;
  if (ACCUMULATE) {
    for (uint i = 0u; i < j && first; ++i) first = off_[index_offset(pc.s0 + i, ni, isz, ist, base)] != key;
  }
  int next = -1;
  for (uint i = j + 1u; i < pc.seg && next == -1; ++i) {
    if (off_[index_offset(pc.s0 + i, ni, isz, ist, base)] == key) next = int(i);
  }
  link_[k * pc.seg + j] = first ? next : -3 - next;
}
