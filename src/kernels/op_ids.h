// The op codes of the kernel families that take one (unary, binary, reduce), generated from the op
// table (op_table.def), with the public names used in errors. The Vulkan shaders see the same
// numbering through a header generated from that table (cmake/op_table_glsl.cmake).
#pragma once
#include <cstdint>

#include "adept/dtype.h"

namespace adept {

enum class UnaryOp : int {
#define ADEPT_UNARY_OP(E, ...) E,
#include "kernels/op_table.def"
};
enum class BinaryOp : int {
#define ADEPT_BINARY_OP(E, ...) E,
#include "kernels/op_table.def"
};
enum class ReduceOp : int {
#define ADEPT_REDUCE_OP(E, ...) E,
#include "kernels/op_table.def"
};

inline constexpr int kNumUnaryOps = 0
#define ADEPT_UNARY_OP(...) +1
#include "kernels/op_table.def"
    ;
inline constexpr int kNumBinaryOps = 0
#define ADEPT_BINARY_OP(...) +1
#include "kernels/op_table.def"
    ;
inline constexpr int kNumReduceOps = 0
#define ADEPT_REDUCE_OP(...) +1
#include "kernels/op_table.def"
    ;
static_assert(static_cast<int>(UnaryOp::Hardshrink) + 1 == kNumUnaryOps, "UnaryOp and the op table disagree");
static_assert(static_cast<int>(BinaryOp::BitwiseXor) + 1 == kNumBinaryOps, "BinaryOp and the op table disagree");
static_assert(static_cast<int>(ReduceOp::Any) + 1 == kNumReduceOps, "ReduceOp and the op table disagree");

/// The dtypes an op accepts (the op table's dtype column): All; Numeric (no bool); Floating;
/// Integral (integers and bool); Signed (int32, int64).
enum class DtypeRule { All, Numeric, Floating, Integral, Signed };
bool accepts(DtypeRule rule, Dtype dtype);
/// The dtype rule of a unary op code, for the dtype its kernel computes in.
DtypeRule dtype_rule(UnaryOp op);

/// The public name of an op code ("gelu" for GeluErf and GeluTanh), as errors spell it.
const char* op_name(UnaryOp op);
const char* op_name(BinaryOp op);
const char* op_name(ReduceOp op);

/// Comparisons and logical ops: their binary kernels write bool.
inline bool is_comparison(BinaryOp op) { return op >= BinaryOp::Eq && op <= BinaryOp::LogicalXor; }

/// Extra arguments of parameterised unary ops: Clamp (a = min or -inf, b = max or +inf), NanToNum
/// (a = nan, b = posinf, c = neginf), PowScalar (a = exponent), RoundDecimals (a = decimals),
/// LeakyRelu (a = slope), Softplus (a = beta, b = threshold), Hardshrink (a = lambd).
struct UnaryParams { double a = 0, b = 0, c = 0; };

}  // namespace adept
