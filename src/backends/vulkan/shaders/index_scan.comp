#version 450
// In-place exclusive prefix sum of pc.n int32 counts (nonzero's block counts) by one workgroup: each
// of the 256 invocations sums a contiguous chunk, the chunk sums are scanned in shared memory, then
// each invocation rewrites its chunk as running sums. Binding 1: the counts.
// @build index_scan - i32
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Meta { int meta[]; };
layout(std430, set = 0, binding = 1) buffer Counts { int c_[]; };
layout(push_constant) uniform Push { uint n; } pc;
shared int s_sum[256];

void main() {
  uint lid = gl_LocalInvocationID.x;
  uint chunk = (pc.n + 255u) / 256u;
  uint begin = min(lid * chunk, pc.n), end = min(begin + chunk, pc.n);
  int total = 0;
  for (uint i = begin; i < end; ++i) total += c_[i];
  s_sum[lid] = total;
  barrier();
  for (uint w = 1u; w < 256u; w <<= 1u) {
    int v = lid >= w ? s_sum[lid - w] : 0;
    barrier();
    s_sum[lid] += v;
    barrier();
  }
  int run = s_sum[lid] - total;
  for (uint i = begin; i < end; ++i) {
    int x = c_[i];
    c_[i] = run;
    run += x;
  }
}
