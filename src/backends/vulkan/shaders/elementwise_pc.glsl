// Push constants of the elementwise shaders (std430; mirrored by ElementwisePush in C++).
layout(push_constant) uniform Push {
  uint numel;       // elements to produce
  uint ndim;        // dims in the metadata
  uint contiguous;  // bit k set: operand k is contiguous in output order (index = offset + i)
  uint pad0;
  uvec2 a;          // op parameters (unary: clamp bounds, slopes, exponents): float bits in .x, the two
  uvec2 b;          // words of a double for float64 variants, of an int64 for integer ones (PARAM reads them)
  uvec2 c;
  uvec2 d;
} pc;

#if IS_DOUBLE
#define PARAM(v) packDouble2x32(v)
#elif IS_FLOAT
#define PARAM(v) uintBitsToFloat((v).x)
#else
#define PARAM(v) int64_t(packUint2x32(v))
#endif

int idx(uint i, uint k) {
  if ((pc.contiguous & (1u << k)) != 0u) return meta[pc.ndim + k * (pc.ndim + 1u)] + int(i);
  return operand_index(i, pc.ndim, k);
}
