// sigmoid(z) = 1 / (1 + exp(-z)) in the input's compute type C_1 (float64 through double_math.glsl's d_exp,
// which GLSL lacks for double); for shaders that apply SiLU or its gradient in an epilogue.
#include "double_math.glsl"

C_1 sigmoid_c(C_1 z) {
#if IS_DOUBLE
  return d_sigmoid(z);
#else
  return C_1(1) / (C_1(1) + exp(-z));
#endif
}
