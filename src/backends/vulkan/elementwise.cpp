// Vulkan kernels for copy/convert, fill, unary, binary and where.
#include <cstring>

#include "backends/vulkan/launch.h"
#include "ops/kernels.h"

namespace adept::vk {
namespace {

void copy_vk(const Tensor& dst, const Tensor& src) {
  std::string shader = "copy_" + dtype_suffix(dst.dtype(), "copy") + "_" + dtype_suffix(src.dtype(), "copy");
  launch_elementwise("copy", shader, {}, {&dst, &src}, {});
}

void fill_vk(const Tensor& dst, const Scalar& value) {
  ElementwisePush p;
  uint32_t lo = 0, hi = 0;
  switch (dst.dtype()) {
    case kFloat32: { float f = value.to<float>(); std::memcpy(&lo, &f, 4); break; }
    case kFloat16: lo = Half(static_cast<float>(value.to_double())).bits; break;
    case kInt32: lo = static_cast<uint32_t>(value.to<int32_t>()); break;
    case kInt64: {
      auto v = static_cast<uint64_t>(value.to<int64_t>());
      lo = static_cast<uint32_t>(v);
      hi = static_cast<uint32_t>(v >> 32);
      break;
    }
    case kBool: lo = value.to_bool() ? 1 : 0; break;
    default: dtype_suffix(dst.dtype(), "fill");
  }
  std::memcpy(&p.a, &lo, 4);
  std::memcpy(&p.b, &hi, 4);
  launch_elementwise("fill", "fill_" + dtype_suffix(dst.dtype(), "fill"), {}, {&dst}, p);
}

void unary_vk(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& params) {
  std::string shader = "unary_" + dtype_suffix(out.dtype(), "unary") + "_" + dtype_suffix(in.dtype(), "unary");
  ElementwisePush p;
  p.a = static_cast<float>(params.a);
  p.b = static_cast<float>(params.b);
  p.c = static_cast<float>(params.c);
  launch_elementwise("unary", shader, {static_cast<int32_t>(op)}, {&out, &in}, p);
}

void binary_vk(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (!is_floating_point(a.dtype()) && (op == BinaryOp::Div || op == BinaryOp::Pow || op == BinaryOp::Atan2)) {
    throw NotImplementedForDevice(fmt::format("binary op {} on {} is not implemented for device 'vulkan'",
                                              static_cast<int>(op), dtype_name(a.dtype())));
  }
  std::string shader = "binary_" + dtype_suffix(out.dtype(), "binary") + "_" + dtype_suffix(a.dtype(), "binary");
  launch_elementwise("binary", shader, {static_cast<int32_t>(op)}, {&out, &a, &b}, {});
}

void where_vk(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  launch_elementwise("where", "where_" + dtype_suffix(out.dtype(), "where"), {}, {&out, &cond, &a, &b}, {});
}

}  // namespace

ADEPT_REGISTER_KERNEL(copy_kernel, Vulkan, copy_vk)
ADEPT_REGISTER_KERNEL(fill_kernel, Vulkan, fill_vk)
ADEPT_REGISTER_KERNEL(unary_kernel, Vulkan, unary_vk)
ADEPT_REGISTER_KERNEL(binary_kernel, Vulkan, binary_vk)
ADEPT_REGISTER_KERNEL(where_kernel, Vulkan, where_vk)

}  // namespace adept::vk
