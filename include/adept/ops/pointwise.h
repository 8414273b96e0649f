// Elementwise ops with PyTorch broadcasting and type promotion (tensors > 0-d tensors > scalars;
// see result_type). Shapes: inputs broadcast to a common shape, which is the output's shape.
// Errors: ShapeError for shapes that do not broadcast, DtypeError for an op undefined on a dtype
// (e.g. bitwise ops on floats), DeviceError for operands on different devices.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "adept/tensor.h"

namespace adept {

/// The dtype PyTorch's type promotion gives an op on these operands (torch.result_type).
Dtype result_type(const std::vector<Tensor>& tensors, const std::vector<Scalar>& scalars = {});
/// Broadcast shape of two shapes (torch.broadcast_shapes); ShapeError if incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b);
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);

// Binary arithmetic. `div` is true division (ints promote to float); rounding_mode "floor" or
// "trunc" keeps ints. floor_divide rounds toward -inf; remainder takes the divisor's sign (Python).
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor rsub(const Tensor& a, const Scalar& b);  // b - a
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Scalar& b);
Tensor div(const Tensor& a, const Tensor& b, const std::optional<std::string>& rounding_mode = std::nullopt);
Tensor div(const Tensor& a, const Scalar& b, const std::optional<std::string>& rounding_mode = std::nullopt);
Tensor div(const Scalar& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Scalar& b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Scalar& b);
Tensor remainder(const Scalar& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Scalar& b);
Tensor pow(const Scalar& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor atan2(const Tensor& a, const Tensor& b);

// Comparisons and logic: bool results.
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, const Scalar& b);
Tensor ne(const Tensor& a, const Scalar& b);
Tensor lt(const Tensor& a, const Scalar& b);
Tensor le(const Tensor& a, const Scalar& b);
Tensor gt(const Tensor& a, const Scalar& b);
Tensor ge(const Tensor& a, const Scalar& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& a);
Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_not(const Tensor& a);
/// True where |a - b| <= atol + rtol * |b| (NaNs equal when equal_nan).
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool equal(const Tensor& a, const Tensor& b);

/// cond ? a : b, broadcast over all three; cond must be bool.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b);
Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b);
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max);
Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max);

// Unary. Integer inputs of floating functions (exp, sin, sqrt ...) promote to the default float.
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
/// Round half to even; `decimals` as torch.round(x, decimals=d).
Tensor round(const Tensor& x, int64_t decimals = 0);
Tensor trunc(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor exp2(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log2(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor square(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor silu(const Tensor& x);
/// approximate: "none" (exact, erf) or "tanh".
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
/// log(1 + exp(beta x)) / beta, linear above `threshold`.
Tensor softplus(const Tensor& x, double beta = 1, double threshold = 20);
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
/// log(sigmoid(x)) computed as min(x, 0) - log1p(exp(-|x|)) (no overflow for large |x|); floating
/// dtypes only (DtypeError otherwise). Gradient: sigmoid(-x). torch.nn.functional.logsigmoid.
Tensor logsigmoid(const Tensor& x);
/// x where |x| > lambd, else 0 (NaN stays NaN); floating dtypes only (DtypeError otherwise).
/// Gradient: 1 outside [-lambd, lambd], 0 inside. torch.nn.functional.hardshrink.
Tensor hardshrink(const Tensor& x, double lambd = 0.5);
Tensor erf(const Tensor& x);
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
Tensor isfinite(const Tensor& x);
Tensor isposinf(const Tensor& x);
Tensor isneginf(const Tensor& x);
/// Replaces NaN by `nan`, +inf/-inf by `posinf`/`neginf` (default: the dtype's largest/lowest).
Tensor nan_to_num(const Tensor& x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);

// In-place forms: modify `self` (dtype must hold the result: an int tensor cannot take a float
// result, as in PyTorch), bump its version and return it.
Tensor& add_(Tensor& self, const Tensor& b, const Scalar& alpha = 1);
Tensor& add_(Tensor& self, const Scalar& b, const Scalar& alpha = 1);
Tensor& sub_(Tensor& self, const Tensor& b, const Scalar& alpha = 1);
Tensor& sub_(Tensor& self, const Scalar& b, const Scalar& alpha = 1);
Tensor& mul_(Tensor& self, const Tensor& b);
Tensor& mul_(Tensor& self, const Scalar& b);
Tensor& div_(Tensor& self, const Tensor& b);
Tensor& div_(Tensor& self, const Scalar& b);
Tensor& pow_(Tensor& self, const Scalar& b);
Tensor& clamp_(Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max);
Tensor& neg_(Tensor& self);
Tensor& exp_(Tensor& self);
Tensor& sqrt_(Tensor& self);
Tensor& relu_(Tensor& self);
Tensor& sigmoid_(Tensor& self);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);

/// Copies src into dst (broadcast to dst's shape, cast to dst's dtype). Records autograd.
Tensor& copy_(Tensor& dst, const Tensor& src);

}  // namespace adept
