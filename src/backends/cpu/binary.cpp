// CPU elementwise binary kernels and where. Operands share one dtype T; floating math runs in
// compute_t<T>. Integer division/remainder follow Python (floor) semantics as PyTorch does.
#include <cmath>

#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "kernels/kernels.h"

namespace adept::cpu {
namespace {

template <class C>
inline C floor_div_float(C a, C b) {
  if (b == C(0)) return a / b;
  C mod = std::fmod(a, b);
  C div = (a - mod) / b;
  if (mod != C(0) && ((b < C(0)) != (mod < C(0)))) div -= C(1);
  if (div == C(0)) return std::copysign(C(0), a / b);
  C fl = std::floor(div);
  if (div - fl > C(0.5)) fl += C(1);
  return fl;
}

template <class C>
inline C remainder_float(C a, C b) {
  C r = std::fmod(a, b);
  if (r != C(0) && ((r < C(0)) != (b < C(0)))) r += b;
  return r;
}

// a / -1 overflows for the most negative value (and traps on x86): negate with wrap-around
// instead, so INT64_MIN // -1 == INT64_MIN rather than a crash.
template <class C>
inline C div_trunc_int(C a, C b) {
  if constexpr (std::is_signed_v<C>) {
    if (b == C(-1)) return static_cast<C>(std::make_unsigned_t<C>(0) - static_cast<std::make_unsigned_t<C>>(a));
  }
  return static_cast<C>(a / b);
}

template <class C>
inline C floor_div_int(C a, C b) {
  if constexpr (std::is_signed_v<C>) {
    if (b == C(-1)) return div_trunc_int(a, b);
  }
  C q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

template <class C>
inline C remainder_int(C a, C b) {
  if constexpr (std::is_signed_v<C>) {
    if (b == C(-1)) return 0;
  }
  C r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// Integer +, -, * wrap around on overflow (two's complement), as PyTorch's do; signed overflow
// is undefined behaviour in C++, so the arithmetic runs in the unsigned type.
template <class C>
inline C wrap_add(C a, C b) {
  if constexpr (std::is_integral_v<C> && std::is_signed_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class C>
inline C wrap_sub(C a, C b) {
  if constexpr (std::is_integral_v<C> && std::is_signed_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <class C>
inline C wrap_mul(C a, C b) {
  if constexpr (std::is_integral_v<C> && std::is_signed_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

template <class C>
inline C pow_int(C base, C exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp % 2 == 0) ? 1 : -1;
    return 0;
  }
  C result = 1;
  while (exp) {
    if (exp & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  return result;
}

template <class T, class C>
inline C max_nan(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
  }
  return a > b ? a : b;
}
template <class T, class C>
inline C min_nan(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
  }
  return a < b ? a : b;
}

#define ADEPT_BINARY_CASE(OP, EXPR)                                                   \
  case BinaryOp::OP:                                                                  \
    binary_loop<T, T>(out, a, b, [](T xv, T yv) {                                     \
      const C x = static_cast<C>(xv), y = static_cast<C>(yv);                         \
      return static_cast<T>(EXPR);                                                    \
    });                                                                               \
    return;
#define ADEPT_COMPARE_CASE(OP, EXPR)                                                  \
  case BinaryOp::OP:                                                                  \
    binary_loop<bool, T>(out, a, b, [](T xv, T yv) {                                  \
      const C x = static_cast<C>(xv), y = static_cast<C>(yv);                         \
      return static_cast<bool>(EXPR);                                                 \
    });                                                                               \
    return;

template <class T>
void binary_typed(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  using C = std::conditional_t<std::is_same_v<T, bool>, bool, compute_t<T>>;
  constexpr bool kFloat = std::is_floating_point_v<C>;
  constexpr bool kBool = std::is_same_v<T, bool>;
  switch (op) {
    ADEPT_COMPARE_CASE(Eq, x == y)
    ADEPT_COMPARE_CASE(Ne, x != y)
    ADEPT_COMPARE_CASE(Lt, x < y)
    ADEPT_COMPARE_CASE(Le, x <= y)
    ADEPT_COMPARE_CASE(Gt, x > y)
    ADEPT_COMPARE_CASE(Ge, x >= y)
    ADEPT_COMPARE_CASE(LogicalAnd, (x != C(0)) && (y != C(0)))
    ADEPT_COMPARE_CASE(LogicalOr, (x != C(0)) || (y != C(0)))
    ADEPT_COMPARE_CASE(LogicalXor, (x != C(0)) != (y != C(0)))
    default:
      break;
  }
  if constexpr (kBool) {
    switch (op) {
      ADEPT_BINARY_CASE(Add, x || y)
      ADEPT_BINARY_CASE(Mul, x && y)
      ADEPT_BINARY_CASE(Maximum, x || y)
      ADEPT_BINARY_CASE(Minimum, x && y)
      ADEPT_BINARY_CASE(BitwiseAnd, x && y)
      ADEPT_BINARY_CASE(BitwiseOr, x || y)
      ADEPT_BINARY_CASE(BitwiseXor, x != y)
      default:
        break;
    }
  } else {
    switch (op) {
      ADEPT_BINARY_CASE(Add, wrap_add(x, y))
      ADEPT_BINARY_CASE(Sub, wrap_sub(x, y))
      ADEPT_BINARY_CASE(Mul, wrap_mul(x, y))
      ADEPT_BINARY_CASE(Maximum, (max_nan<T, C>(x, y)))
      ADEPT_BINARY_CASE(Minimum, (min_nan<T, C>(x, y)))
      default:
        break;
    }
    if constexpr (kFloat) {
      switch (op) {
        ADEPT_BINARY_CASE(Div, x / y)
        ADEPT_BINARY_CASE(FloorDivide, floor_div_float(x, y))
        ADEPT_BINARY_CASE(Remainder, remainder_float(x, y))
        ADEPT_BINARY_CASE(Pow, std::pow(x, y))
        ADEPT_BINARY_CASE(Atan2, std::atan2(x, y))
        default:
          break;
      }
    } else {
      switch (op) {
        ADEPT_BINARY_CASE(Div, div_trunc_int(x, y))  // truncation; the op checks for zero divisors
        ADEPT_BINARY_CASE(FloorDivide, floor_div_int(x, y))
        ADEPT_BINARY_CASE(Remainder, remainder_int(x, y))
        ADEPT_BINARY_CASE(Pow, pow_int(x, y))
        ADEPT_BINARY_CASE(BitwiseAnd, x & y)
        ADEPT_BINARY_CASE(BitwiseOr, x | y)
        ADEPT_BINARY_CASE(BitwiseXor, x ^ y)
        default:
          break;
      }
    }
  }
  throw DtypeError(fmt::format("{}: not implemented for dtype {}", op_name(op),
                               dtype_name(a.dtype())));
}

void binary_cpu(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (out.numel() == 0) return;
  ADEPT_DISPATCH_ALL(a.dtype(), "binary", [&] { binary_typed<scalar_t>(op, out, a, b); });
}

void where_cpu(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (out.numel() == 0) return;
  ADEPT_DISPATCH_ALL(out.dtype(), "where", [&] {
    auto it = make_iter<4>({&out, &cond, &a, &b});
    for_each_run(it, [&](std::array<char*, 4> p, std::array<int64_t, 4> s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
        *reinterpret_cast<scalar_t*>(p[0] + i * s[0]) =
            *reinterpret_cast<const scalar_t*>(c ? p[2] + i * s[2] : p[3] + i * s[3]);
      }
    });
  });
}

}  // namespace

ADEPT_REGISTER_KERNEL(binary_kernel, CPU, binary_cpu)
ADEPT_REGISTER_KERNEL(where_kernel, CPU, where_cpu)

}  // namespace adept::cpu
