// The kernel families every backend implements. Ops (src/ops) do argument checking, shape and
// dtype inference, broadcasting and autograd; kernels only compute. Unless noted, all tensors
// passed to a kernel are on the same device, operands already have the output's shape
// (broadcast by stride-0 views) and the op's compute dtype, and `out` is freshly allocated or a
// valid in-place target. Kernels accept any strides.
#pragma once
#include <cstdint>

#include "adept/tensor.h"
#include "ops/dispatch.h"

namespace adept {

enum class UnaryOp : int {
  Neg, Abs, Sign, Floor, Ceil, Round, Trunc, Exp, Exp2, Log, Log2, Log1p, Expm1, Sqrt, Rsqrt,
  Sin, Cos, Tan, Atan, Tanh, Sigmoid, Relu, Silu, GeluErf, GeluTanh, Softplus, Erf, Reciprocal,
  LogicalNot, BitwiseNot, IsNan, IsInf, IsFinite, IsPosInf, IsNegInf,
  Clamp,      // a = min (or -inf), b = max (or +inf)
  NanToNum,   // a = nan, b = posinf, c = neginf
  PowScalar,  // x ** a
  RoundDecimals,  // round to a decimals
  LeakyRelu,  // slope a
  Square,
};
/// Extra arguments of parameterised unary ops.
struct UnaryParams { double a = 0, b = 0, c = 0; };

enum class BinaryOp : int {
  Add, Sub, Mul, Div, FloorDivide, Remainder, Pow, Maximum, Minimum, Atan2,
  Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor, BitwiseAnd, BitwiseOr, BitwiseXor,
};
inline bool is_comparison(BinaryOp op) { return op >= BinaryOp::Eq && op <= BinaryOp::LogicalXor; }

enum class ReduceOp : int { Sum, Prod, Max, Min, ArgMax, ArgMin, All, Any };

/// A private alias of `t`'s storage with another geometry (any strides, negative too) and no
/// autograd history: how ops and kernels see an operand through a different layout.
Tensor restrided(const Tensor& t, Shape sizes, Shape strides, int64_t storage_offset);

/// dst[i] = cast(src[i]); dtypes may differ, same device.
ADEPT_DECLARE_KERNEL(copy_kernel, void(const Tensor& dst, const Tensor& src))
/// dst[i] = value.
ADEPT_DECLARE_KERNEL(fill_kernel, void(const Tensor& dst, const Scalar& value))
/// out = op(in). For IsNan/IsInf/IsFinite/LogicalNot out is bool; otherwise out.dtype == in.dtype.
ADEPT_DECLARE_KERNEL(unary_kernel, void(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p))
/// out = a op b; a and b share the compute dtype; out is bool for comparisons/logical ops.
ADEPT_DECLARE_KERNEL(binary_kernel, void(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b))
/// out = cond ? a : b (cond bool; a, b, out one dtype).
ADEPT_DECLARE_KERNEL(where_kernel, void(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b))
/// SiLU's gradient in one pass: grad_in = grad_out * s * (1 + x * (1 - s)), s = sigmoid(x); the three
/// tensors share shape and floating dtype. Optional (CPU only): silu's backward uses the same formula
/// written with ops on devices without it, and when building a graph (create_graph).
ADEPT_DECLARE_KERNEL(silu_backward_kernel, void(const Tensor& grad_in, const Tensor& grad_out, const Tensor& x))
/// Reduces `in` over the dims where `out` has size 1 and `in` does not (out has keepdim shape,
/// same rank). Sum/Prod/Max/Min: out dtype = in dtype (ints accumulate in int64, floats in
/// double); ArgMax/ArgMin: out int64 (first occurrence; NaN wins); All/Any: out bool.
/// `reduce_mask` has bit d set for each reduced dim (handles size-1 reduced dims).
ADEPT_DECLARE_KERNEL(reduce_kernel, void(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t reduce_mask))
/// Batched GEMM: out(B,M,N) = a(B,M,K) @ b(B,K,N), float dtypes, any strides; out contiguous.
ADEPT_DECLARE_KERNEL(bmm_kernel, void(const Tensor& out, const Tensor& a, const Tensor& b))
/// Inclusive scan along `dim`: out = cumsum (is_prod false) or cumprod of in; same shape/dtype.
ADEPT_DECLARE_KERNEL(scan_kernel, void(const Tensor& out, const Tensor& in, int64_t dim, bool is_prod))
/// Copies between devices (same dtype, contiguous both).
ADEPT_DECLARE_KERNEL(to_host_kernel, void(void* host_dst, const Tensor& src))
ADEPT_DECLARE_KERNEL(from_host_kernel, void(const Tensor& dst, const void* host_src))

}  // namespace adept

namespace adept {
/// out[p] = x[p with coordinate `dim` replaced by index[p]]; index is int64 with out's shape
/// (may be an expanded view); x has out's shape except along dim. Indices already bounds-checked.
ADEPT_DECLARE_KERNEL(gather_kernel, void(const Tensor& out, const Tensor& x, int64_t dim, const Tensor& index))
/// self[p with coordinate `dim` replaced by index[p]] (=, +=) src[p] for all p in index's shape.
ADEPT_DECLARE_KERNEL(scatter_kernel, void(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add))
}  // namespace adept

namespace adept {
/// Advanced-index read: out[p] = src[p + offset[p]] where `src` is viewed with out's shape (stride 0
/// over the broadcast index dims) and `offset` (int64, out's shape, usually a stride-0 view) holds
/// element offsets already bounds-checked by the op.
ADEPT_DECLARE_KERNEL(index_kernel, void(const Tensor& out, const Tensor& src, const Tensor& offset))
/// Advanced-index write: self[p + offset[p]] (=, +=) values[p]; self/values/offset share one shape
/// (self restrided like `src` above). Duplicate offsets: the last write wins, or all add up.
ADEPT_DECLARE_KERNEL(index_put_kernel, void(const Tensor& self, const Tensor& values, const Tensor& offset, bool accumulate))
/// Coordinates of the non-zero elements of `in`, row-major: out is (count, in.dim()) int64 with
/// count computed by the op.
ADEPT_DECLARE_KERNEL(nonzero_kernel, void(const Tensor& out, const Tensor& in))
/// Sorts along the last dim: values/indices (int64) have in's shape. NaN is the largest value;
/// equal elements keep their order (stable). topk > 0 orders only the first `topk` positions of
/// each row (values/indices then have size topk along the last dim).
ADEPT_DECLARE_KERNEL(sort_kernel, void(const Tensor& values, const Tensor& indices, const Tensor& in, bool descending, int64_t topk))
}  // namespace adept
