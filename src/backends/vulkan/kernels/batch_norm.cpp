// Vulkan batch-norm training kernels (kernels/batch_norm.h): per-channel float64 sums
// (shaders/batch_norm_sums.comp, split over several workgroups per channel and combined by a second
// pass when a channel is long) and the elementwise normalisation / input gradient
// (shaders/batch_norm_apply.comp), each with a SILU variant for the fused BN+SiLU. float32, float16,
// bfloat16 and float64 (the per-channel float64 arithmetic needs the device's shaderFloat64).
// Deterministic: every sum has a fixed order.
#include <cstring>

#include "backends/vulkan/launch.h"
#include "kernels/batch_norm.h"
#include "kernels/tensor_view.h"

namespace adept::vk {
namespace {

bool float_dtype(int, Dtype d) { return is_floating_point(d); }

// Elements of one channel a phase-0 workgroup sums: 64 per invocation, more when a channel would
// need over 65535 workgroups.
constexpr int64_t kChunk = 256 * 64;

void check_operands(const char* op, const Tensor& x) {
  if (!is_floating_point(x.dtype())) {
    throw NotImplementedForDevice(fmt::format("{}: dtype {} is not implemented for device 'vulkan'", op,
                                              dtype_name(x.dtype())));
  }
  Context& ctx = context_of(x);
  ADEPT_CHECK(ctx.info().float64, NotImplementedForDevice,
              "{}: not implemented for device 'vulkan:{}' ({} lacks shaderFloat64, which the per-channel float64 "
              "statistics need)", op, ctx.index(), ctx.info().name);
  check_index_range(x, op);
  ADEPT_CHECK(x.size(1) <= 65535, ValueError, "{}: {} channels are too many for one Vulkan dispatch", op, x.size(1));
}

// res0/res1 (C) = the per-channel sums of batch_norm_sums.comp (BACKWARD reads dy, mean and invstd; a defined
// `shift` selects its SILU variant, which reads weight and shift too).
void channel_sums(const char* op, bool backward, const Tensor& x, const Tensor& dy, const Tensor& mean,
                  const Tensor& invstd, const Tensor& res0, const Tensor& res1, const Tensor& weight = {},
                  const Tensor& shift = {}) {
  const int64_t C = x.size(1), S = x.size(2), M = x.size(0) * S;
  const int64_t chunk = std::max(kChunk, ((M + 65534) / 65535 + 255) / 256 * 256);
  const int64_t groups = (M + chunk - 1) / chunk;
  Tensor partial = groups > 1 ? kernel_buffer({C, groups, 2}, kFloat64, x.device()) : res0;
  struct Push { uint32_t C, S, M, chunk, groups; } push{static_cast<uint32_t>(C), static_cast<uint32_t>(S),
                                                        static_cast<uint32_t>(M), static_cast<uint32_t>(chunk),
                                                        static_cast<uint32_t>(groups)};
  static_assert(sizeof(Push) == 20);
  Context& ctx = context_of(x);
  const std::string shader = "batch_norm_sums_" + dtype_suffix(x.dtype());
  const bool silu = shift.defined();
  const std::vector<const Tensor*> operands = {&partial, &x, &dy, &mean, &invstd, &res0, &res1,
                                               silu ? &weight : &mean, silu ? &shift : &mean};
  const int32_t b = backward ? 1 : 0, f = silu ? 1 : 0;
  const std::vector<int32_t> meta = storage_offsets(operands);
  launch(ctx, op, shader, {b, 0, f}, meta, operands, &push, sizeof(push), static_cast<uint32_t>(groups),
         static_cast<uint32_t>(C));
  if (groups > 1) launch(ctx, op, shader, {b, 1, f}, meta, operands, &push, sizeof(push), static_cast<uint32_t>(C));
}

// out = the elementwise pass of batch_norm_apply.comp over x (N, C, S); `channel` binds its six per-channel
// vectors.
void apply_pass(const char* op, bool backward, bool silu, const Tensor& out, const Tensor& x, const Tensor& dy,
                const std::vector<const Tensor*>& channel) {
  const int64_t n = x.numel();
  const Grid2d grid = grid_for(n, op);
  struct Push { uint32_t n, C, S, M, groups_x; } push{static_cast<uint32_t>(n), static_cast<uint32_t>(x.size(1)),
                                                      static_cast<uint32_t>(x.size(2)),
                                                      static_cast<uint32_t>(x.size(0) * x.size(2)), grid.x};
  static_assert(sizeof(Push) == 20);
  std::vector<const Tensor*> operands = {&out, &x, &dy};
  operands.insert(operands.end(), channel.begin(), channel.end());
  launch(context_of(x), op, "batch_norm_apply_" + dtype_suffix(x.dtype()), {backward ? 1 : 0, silu ? 1 : 0},
         storage_offsets(operands), operands, &push, sizeof(push), grid.x, grid.y);
}

void stats_vk(const Tensor& x, const Tensor& mean, const Tensor& var) {
  check_operands("batch_norm", x);
  if (x.numel() == 0) return;
  channel_sums("batch_norm", false, x, x, mean, var, mean, var);
}

void apply_vk(const Tensor& out, const Tensor& x, const Tensor& mean, const Tensor& scale, const Tensor& shift,
              bool silu) {
  check_operands("batch_norm", x);
  if (x.numel() == 0) return;
  apply_pass("batch_norm", false, silu, out, x, x, {&mean, &scale, &shift, &scale, &scale, &scale});
}

void backward_vk(const Tensor& dx, const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& invstd,
                 const Tensor& weight, const Tensor& shift, const Tensor& sum_dy, const Tensor& sum_dy_xhat) {
  const char* op = "batch_norm backward";
  check_operands(op, x);
  if (x.numel() == 0) return;
  channel_sums(op, true, x, dy, mean, invstd, sum_dy, sum_dy_xhat, weight, shift);
  if (dx.defined()) {
    apply_pass(op, true, shift.defined(), dx, x, dy,
               {&mean, &invstd, &weight, &sum_dy, &sum_dy_xhat, shift.defined() ? &shift : &mean});
  }
}

// One invocation per channel (shaders/batch_norm_finalize.comp); undefined optional operands are bound to
// `mean` and left alone (the flags say which are defined).
void finalize_vk(const Tensor& invstd, const Tensor& weight64, const Tensor& scale, const Tensor& shift,
                 const Tensor& mean, const Tensor& var, const Tensor& weight, const Tensor& bias,
                 const Tensor& running_mean, const Tensor& running_var, double eps, double factor, double var_factor) {
  const int64_t C = mean.numel();
  if (C == 0) return;
  const Dtype dt = weight.defined() ? weight.dtype() : bias.defined() ? bias.dtype()
                 : running_mean.defined() ? running_mean.dtype() : kFloat32;
  auto or_mean = [&](const Tensor& t) { return t.defined() ? &t : &mean; };
  const std::vector<const Tensor*> operands = {&invstd, &weight64, &scale, &shift, &mean, &var, or_mean(weight),
                                               or_mean(bias), or_mean(running_mean), or_mean(running_var)};
  struct Words { uint32_t lo, hi; };
  auto words = [](double d) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    return Words{static_cast<uint32_t>(u), static_cast<uint32_t>(u >> 32)};
  };
  struct Push { uint32_t C, flags; Words eps, factor, var_factor; } push{
      static_cast<uint32_t>(C),
      (weight.defined() ? 1u : 0u) | (bias.defined() ? 2u : 0u) | (running_mean.defined() ? 4u : 0u), words(eps),
      words(factor), words(var_factor)};
  static_assert(sizeof(Push) == 32);
  launch(context_of(mean), "batch_norm", "batch_norm_finalize_" + dtype_suffix(dt), {}, storage_offsets(operands),
         operands, &push, sizeof(push), static_cast<uint32_t>((C + 63) / 64));
}

// Parameters and running statistics in float32 or float64 (others take the unfused ops).
bool finalize_dtype(int, Dtype d) { return d == kFloat32 || d == kFloat64; }

}  // namespace

ADEPT_REGISTER_KERNEL_SUPPORTING(batch_norm_finalize_kernel, Vulkan, finalize_vk, finalize_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(batch_norm_stats_kernel, Vulkan, stats_vk, float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(batch_norm_apply_kernel, Vulkan, apply_vk, float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(batch_norm_backward_kernel, Vulkan, backward_vk, float_dtype)

}  // namespace adept::vk
