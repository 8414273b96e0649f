// ONNX Gemm and MatMul (https://onnx.ai/onnx/operators/onnx__Gemm.html, onnx__MatMul.html).
#include "adept/ops/linalg.h"
#include "adept/ops/pointwise.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

// Y = alpha * A' B' + beta * C, A' = transA ? A^T : A (2-d), C broadcasting to (M, N).
Out gemm_op(const OpContext& c) {
  Tensor a = c.input(0), b = c.input(1);
  if (c.attr_int("transA", 0)) a = a.t();
  if (c.attr_int("transB", 0)) b = b.t();
  Tensor y = matmul(a, b);
  double alpha = c.attr_float("alpha", 1.0f), beta = c.attr_float("beta", 1.0f);
  if (alpha != 1.0) y = mul(y, alpha);
  if (c.has_input(2) && beta != 0.0) y = add(y, beta == 1.0 ? c.input(2) : mul(c.input(2), beta));
  return {y};
}

Out matmul_op(const OpContext& c) { return {matmul(c.input(0), c.input(1))}; }

// x - zero_point in float64; a zero point per row of A (axis -2) or per column of B (axis -1).
Tensor centered(const OpContext& c, size_t input, size_t zero_point, int64_t axis) {
  Tensor v = c.input(input).to(kFloat64);
  if (!c.has_input(zero_point)) return v;
  Tensor zp = c.input(zero_point).to(kFloat64);
  if (zp.numel() > 1 && axis == -2) zp = zp.unsqueeze(-1);
  return sub(v, zp);
}

// MatMulInteger: (A - a_zero_point) @ (B - b_zero_point) in int32, computed exactly in float64.
Out matmul_integer_op(const OpContext& c) {
  return {matmul(centered(c, 0, 2, -2), centered(c, 1, 3, -1)).to(kInt32)};
}

}  // namespace

void register_linalg_ops(OpRegistry& r) {
  r.add("Gemm", 7, {gemm_op});
  r.add("MatMul", 1, {matmul_op});
  r.add("MatMulInteger", 10, {matmul_integer_op, nullptr, {{2, InputRole::Config}, {3, InputRole::Config}}});
}

}  // namespace adept::onnx::detail
