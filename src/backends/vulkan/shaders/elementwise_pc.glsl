// Push constants of the elementwise shaders (std430; mirrored by ElementwisePush in C++).
layout(push_constant) uniform Push {
  uint numel;       // elements to produce
  uint ndim;        // dims in the metadata
  uint contiguous;  // bit k set: operand k is contiguous in output order (index = offset + i)
  uint pad0;
  float a;          // op parameters (unary: clamp bounds, slopes, exponents)
  float b;
  float c;
  uint pad1;
} pc;

int idx(uint i, uint k) {
  if ((pc.contiguous & (1u << k)) != 0u) return meta[pc.ndim + k * (pc.ndim + 1u)] + int(i);
  return operand_index(i, pc.ndim, k);
}
