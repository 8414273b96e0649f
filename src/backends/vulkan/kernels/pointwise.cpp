// Vulkan kernels of the pointwise family: copy/convert, fill, unary, binary, where and silu's backward
// (shaders/copy.comp, fill.comp, unary.comp, binary.comp, where.comp, silu_backward.comp).
#include <bitset>
#include <cstring>

#include "backends/vulkan/launch.h"
#include "kernels/pointwise.h"

namespace adept::vk {
namespace {

// The op codes each variant of the unary and binary shaders implements (generated from their `case`
// labels), so that the host refuses the others before recording anything.
// Markers: `all`, `float` (single and double), `single` (float32/float16/bfloat16), `double`, `int`.
struct VariantOps {
  std::bitset<64> single_ops, double_ops, int_ops;
  VariantOps& add(const char* variant, int code) {
    const std::string v(variant);
    if (v == "all" || v == "float" || v == "single") single_ops.set(code);
    if (v == "all" || v == "float" || v == "double") double_ops.set(code);
    if (v == "all" || v == "int") int_ops.set(code);
    return *this;
  }
  bool has(int code, Dtype d) const {
    if (d == kFloat64) return double_ops.test(code);
    if (is_floating_point(d)) return single_ops.test(code);
    return int_ops.test(code);
  }
};
static_assert(kNumUnaryOps <= 64 && kNumBinaryOps <= 64, "VariantOps holds 64 codes per family");

const VariantOps& unary_ops() {
  static const VariantOps v = [] {
    VariantOps r;
#define ADEPT_VK_UNARY(VARIANT, CODE) r.add(#VARIANT, static_cast<int>(UnaryOp::CODE));
#define ADEPT_VK_BINARY(VARIANT, CODE)
#include "vk_op_support.inc"
#undef ADEPT_VK_UNARY
#undef ADEPT_VK_BINARY
    return r;
  }();
  return v;
}
const VariantOps& binary_ops() {
  static const VariantOps v = [] {
    VariantOps r;
#define ADEPT_VK_UNARY(VARIANT, CODE)
#define ADEPT_VK_BINARY(VARIANT, CODE) r.add(#VARIANT, static_cast<int>(BinaryOp::CODE));
#include "vk_op_support.inc"
#undef ADEPT_VK_UNARY
#undef ADEPT_VK_BINARY
    return r;
  }();
  return v;
}
bool unary_supports(int code, Dtype d) { return unary_ops().has(code, d); }

bool binary_supports(int code, Dtype d) { return binary_ops().has(code, d); }

// The dispatching op checks support first; a direct kernel call gets the same error.
void require(bool ok, const char* op, Dtype d) {
  if (!ok) {
    throw NotImplementedForDevice(fmt::format("{}: not implemented for device 'vulkan' and dtype {}", op, dtype_name(d)));
  }
}

void copy_vk(const Tensor& dst, const Tensor& src) {
  std::string shader = "copy_" + dtype_suffix(dst.dtype()) + "_" + dtype_suffix(src.dtype());
  launch_elementwise("copy", shader, {}, {&dst, &src}, {});
}

void fill_vk(const Tensor& dst, const Scalar& value) {
  ElementwisePush p;
  uint32_t lo = 0, hi = 0;
  switch (dst.dtype()) {
    case kFloat32: { float f = value.to<float>(); std::memcpy(&lo, &f, 4); break; }
    case kFloat16: lo = Half(static_cast<float>(value.to_double())).bits; break;
    case kBFloat16: lo = BFloat16(static_cast<float>(value.to_double())).bits; break;
    case kFloat64: {
      double f = value.to_double();
      uint64_t v;
      std::memcpy(&v, &f, 8);
      lo = static_cast<uint32_t>(v);
      hi = static_cast<uint32_t>(v >> 32);
      break;
    }
    case kUInt8: lo = static_cast<uint8_t>(value.to<int64_t>()); break;
    case kInt32: lo = static_cast<uint32_t>(value.to<int32_t>()); break;
    case kInt64: {
      auto v = static_cast<uint64_t>(value.to<int64_t>());
      lo = static_cast<uint32_t>(v);
      hi = static_cast<uint32_t>(v >> 32);
      break;
    }
    case kBool: lo = value.to_bool() ? 1 : 0; break;
  }
  p.a[0] = lo;
  p.a[1] = hi;
  launch_elementwise("fill", "fill_" + dtype_suffix(dst.dtype()), {}, {&dst}, p);
}

void unary_vk(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& params) {
  require(unary_supports(static_cast<int>(op), in.dtype()), op_name(op), in.dtype());
  std::string shader = "unary_" + dtype_suffix(out.dtype()) + "_" + dtype_suffix(in.dtype());
  ElementwisePush p;
  ElementwisePush::set(p.a, params.a, in.dtype());
  ElementwisePush::set(p.b, params.b, in.dtype());
  ElementwisePush::set(p.c, params.c, in.dtype());
  launch_elementwise("unary", shader, {static_cast<int32_t>(op)}, {&out, &in}, p);
}

void binary_vk(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  require(binary_supports(static_cast<int>(op), a.dtype()), op_name(op), a.dtype());
  std::string shader = "binary_" + dtype_suffix(out.dtype()) + "_" + dtype_suffix(a.dtype());
  launch_elementwise("binary", shader, {static_cast<int32_t>(op)}, {&out, &a, &b}, {});
}

void where_vk(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  launch_elementwise("where", "where_" + dtype_suffix(out.dtype()), {}, {&out, &cond, &a, &b}, {});
}

void silu_backward_vk(const Tensor& grad_in, const Tensor& grad_out, const Tensor& x) {
  launch_elementwise("silu backward", "silu_backward_" + dtype_suffix(x.dtype()), {}, {&grad_in, &grad_out, &x}, {});
}

}  // namespace

ADEPT_REGISTER_KERNEL(copy_kernel, Vulkan, copy_vk)
ADEPT_REGISTER_KERNEL(fill_kernel, Vulkan, fill_vk)
ADEPT_REGISTER_KERNEL_SUPPORTING(unary_kernel, Vulkan, unary_vk, unary_supports)
ADEPT_REGISTER_KERNEL_SUPPORTING(binary_kernel, Vulkan, binary_vk, binary_supports)
ADEPT_REGISTER_KERNEL(where_kernel, Vulkan, where_vk)
ADEPT_REGISTER_KERNEL(silu_backward_kernel, Vulkan, silu_backward_vk)

}  // namespace adept::vk
