// Per-row reductions of the row shaders (softmax.comp, layer_norm.comp): one workgroup of 256
// invocations per row combining partials in shared memory, or, with PER_THREAD, one invocation per
// row (no combining). Needs C_0 and the PER_THREAD specialization constant declared first.
shared C_0 s_red[256];

C_0 max_nan(C_0 a, C_0 b) { return isnan(a) || isnan(b) ? a + b : max(a, b); }

// Combines the workgroup's partials v with max (use_max, NaN-propagating) or +; every invocation gets
// the result.
C_0 combine(C_0 v, bool use_max) {
  if (PER_THREAD) return v;
  uint lid = gl_LocalInvocationID.x;
  s_red[lid] = v;
  barrier();
  for (uint w = 128u; w > 0u; w >>= 1u) {
    if (lid < w) s_red[lid] = use_max ? max_nan(s_red[lid], s_red[lid + w]) : s_red[lid] + s_red[lid + w];
    barrier();
  }
  C_0 r = s_red[0];
  barrier();
  return r;
}
