// Depthwise conv2d (groups == C_in, C_out = m * C_in) on shaders/conv_depthwise.comp: the forward and the
// input gradient with one invocation per written element (the input gradient a gather over the windows
// covering each input pixel), the weight gradient a workgroup reduction per (weight element, split).
// The weight gradient's sum over N * H_out * W_out is split for occupancy and for drivers with a loop
// limit (llvmpipe); the splits' partial sums (always, for half inputs, in float32) are added in a fixed
// order by sum_splits. Everything is deterministic.
#include <algorithm>
#include <iterator>

#include "backends/vulkan/kernels/conv/conv.h"
#include "backends/vulkan/launch.h"
#include "kernels/tensor_view.h"

namespace adept::vk::conv {
namespace {

// Weight-gradient split: aim at about this many workgroups (a few waves on a large GPU), never fewer
// than kMinSlice products per workgroup (8 per thread).
constexpr int64_t kTargetGroups = 4096, kMinSlice = 2048, kThreads = 256;

struct Push {
  uint32_t count, flags, K, k_slice, out_numel;
};

// The shader's metadata: the geometry, the multiplier and the operands' storage offsets.
std::vector<int32_t> metadata(const ConvGeometry& g, const std::vector<const Tensor*>& operands) {
  const int64_t fields[] = {g.N,        g.C_in,     g.H,     g.W,     g.C_out, g.kH,    g.kW,    g.H_out,
                            g.W_out,    g.stride_h, g.stride_w, g.pad_h, g.pad_w, g.dil_h, g.dil_w, g.C_out / g.C_in};
  std::vector<int32_t> meta(std::begin(fields), std::end(fields));
  const std::vector<int32_t> offsets = storage_offsets(operands);
  meta.insert(meta.end(), offsets.begin(), offsets.end());
  return meta;
}

// Modes 0 and 1: one invocation per element of operands[0], `steps` loop iterations each.
void per_element(const char* op, const char* base, const std::vector<const Tensor*>& operands, const ConvGeometry& g,
                 uint32_t flags, int64_t steps) {
  const Tensor& out = *operands[0];
  for (const Tensor* t : operands) check_index_range(*t, op);
  if (out.numel() == 0) return;
  check_loop_budget(*operands[1], op, steps);
  const Grid2d grid = grid_for(out.numel(), op);
  const Push push{static_cast<uint32_t>(out.numel()), flags, 0, 0, 0};
  const std::string suffix = dtype_suffix(out.dtype());
  launch(context_of(out), op, std::string(base) + "_" + suffix + "_" + suffix, {}, metadata(g, operands), operands, &push,
         sizeof(push), grid.x, grid.y);
}

}  // namespace

void depthwise_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g) {
  const uint32_t flags = (bias.defined() ? 1u : 0u) | (g.silu ? 2u : 0u);
  per_element("conv2d", "conv_dw_fwd", {&y, &x, &w, bias.defined() ? &bias : &x}, g, flags, g.kH * g.kW);
}

void depthwise_backward_input(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  per_element("conv2d_backward_input", "conv_dw_bwd_input", {&gx, &gy, &w}, g, 0, g.C_out / g.C_in * g.kH * g.kW);
}

void depthwise_backward_weight(const Tensor& gw, const Tensor& x, const Tensor& gy, const ConvGeometry& g) {
  const char* op = "conv2d_backward_weight";
  for (const Tensor* t : {&gw, &x, &gy}) check_index_range(*t, op);
  const int64_t numel = gw.numel(), K = g.N * g.H_out * g.W_out;
  if (numel == 0) return;
  // Splits: enough workgroups to fill the device, each thread within the driver's loop budget.
  int64_t splits = std::clamp<int64_t>(kTargetGroups / numel, 1, std::max<int64_t>(1, K / kMinSlice));
  const uint32_t limit = context_of(gw).info().loop_iteration_limit;
  const int64_t max_slice = limit ? kThreads * (limit / 4) : K;
  splits = std::max<int64_t>(splits, (K + max_slice - 1) / std::max<int64_t>(1, max_slice));
  const int64_t slice = std::max<int64_t>(1, (K + splits - 1) / splits);
  splits = std::max<int64_t>(1, (K + slice - 1) / slice);
  const int64_t groups = splits * numel;
  const Grid2d grid = grid_2d(groups);
  ADEPT_CHECK(grid.y <= 65535, ValueError, "{}: {} weight elements x {} splits are too many for one Vulkan dispatch", op,
              numel, splits);

  // Half inputs and split sums go to partials in the accumulation dtype.
  const bool half = gw.dtype() == kFloat16 || gw.dtype() == kBFloat16;
  const bool raw = splits > 1 || half;
  const Dtype acc_dtype = gw.dtype() == kFloat64 ? kFloat64 : kFloat32;
  const Tensor target = raw ? kernel_buffer({splits, numel}, acc_dtype, gw.device()) : gw;
  const std::string suffix = dtype_suffix(gw.dtype());
  const Push push{static_cast<uint32_t>(groups), raw ? 4u : 0u, static_cast<uint32_t>(K), static_cast<uint32_t>(slice),
                  static_cast<uint32_t>(numel)};
  launch(context_of(gw), op, "conv_dw_bwd_weight_" + (raw ? dtype_suffix(acc_dtype) : suffix) + "_" + suffix, {},
         metadata(g, {&target, &x, &gy}), {&target, &x, &gy}, &push, sizeof(push), grid.x, grid.y);
  if (raw) sum_splits(gw, target, op);
}

}  // namespace adept::vk::conv
