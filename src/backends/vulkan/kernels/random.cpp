// Vulkan random fills (shaders/random.comp): the Philox stream of the CPU's generator computed on the
// device, in double (the device needs shaderFloat64).
#include <cstring>

#include "backends/vulkan/launch.h"
#include "kernels/random.h"

namespace adept::vk {
namespace {

void random_vk(const Tensor& out, const RandomDraw& d) {
  Context& ctx = context_of(out);
  ADEPT_CHECK(ctx.info().float64, NotImplementedForDevice,
              "random: not implemented for device 'vulkan:{}' ({} lacks shaderFloat64, which the generator's float64 "
              "arithmetic needs)", ctx.index(), ctx.info().name);
  ElementwisePush p;
  if (d.kind == RandomDraw::Kind::Integer) {  // a, b: low and range as 64-bit integers
    std::memcpy(p.a, &d.low, 8);
    std::memcpy(p.b, &d.range, 8);
  } else {
    ElementwisePush::set(p.a, d.a, kFloat64);
    ElementwisePush::set(p.b, d.b, kFloat64);
  }
  std::memcpy(p.c, &d.seed, 8);
  std::memcpy(p.d, &d.offset, 8);
  launch_elementwise("random", "random_" + dtype_suffix(out.dtype()),
                     {static_cast<int32_t>(d.kind), d.half_open ? 1 : 0}, {&out}, p);
}

bool any_dtype(int, Dtype) { return true; }  // the ops check which dtypes each draw takes

}  // namespace

ADEPT_REGISTER_KERNEL_SUPPORTING(random_kernel, Vulkan, random_vk, any_dtype)

}  // namespace adept::vk
