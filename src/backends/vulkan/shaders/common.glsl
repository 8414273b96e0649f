// Shared declarations of Adept's compute shaders: arithmetic types, the metadata buffer (binding
// 0) and N-d strided indexing. Each shader is compiled once per dtype variant with -D macros:
// T_<n> (storage type of operand n) and C_<n> (compute type).
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require

// Metadata of a strided N-d iteration, written by the host per dispatch:
//   meta[0 .. ndim)                 sizes (outermost first)
//   meta[ndim + k*(ndim+1)]         element offset of operand k
//   meta[ndim + k*(ndim+1) + 1 + d] stride (elements) of operand k in dim d
layout(std430, set = 0, binding = 0) readonly buffer Meta { int meta[]; };

// Element index of operand k for the linear (row-major) position i.
int operand_index(uint i, uint ndim, uint k) {
  uint base = ndim + k * (ndim + 1u);
  int off = meta[base];
  for (int d = int(ndim) - 1; d >= 0; --d) {
    uint s = uint(meta[d]);
    uint c = i % s;
    i /= s;
    off += int(c) * meta[base + 1u + uint(d)];
  }
  return off;
}

// pow with C's semantics for negative bases and integral exponents (GLSL's pow is undefined for x < 0).
float pow_signed(float x, float y) {
  if (x >= 0.0 || y != floor(y)) return pow(x, y);
  float r = pow(-x, y);
  return mod(y, 2.0) == 1.0 ? -r : r;
}
