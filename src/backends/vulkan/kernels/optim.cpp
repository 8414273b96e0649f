// Vulkan multi-tensor optimizer kernels (shaders/optim.comp): the parameters of a group are packed into
// dispatches of up to 64 parameters whose tensors lie in at most 15 distinct memory blocks; each block is
// bound once, and every tensor is addressed by (binding, element offset) in the metadata.
#include <cstring>
#include <map>

#include "backends/vulkan/allocator.h"
#include "backends/vulkan/launch.h"
#include "kernels/optim.h"

namespace adept::vk {
namespace {

constexpr size_t kMaxBlocks = 15, kMaxParams = 64, kRoles = 5, kMetaPerParam = 12;

struct OptimPush {
  uint32_t flags = 0, pad = 0;
  uint32_t h[9][2] = {};
};
static_assert(sizeof(OptimPush) == 80);

// Runs `op` over parameter i's tensors roles[r][i] (r < roles.size()), packing dispatches.
void launch_multi_tensor(const char* name, int op, const std::vector<const std::vector<Tensor>*>& roles,
                         const std::vector<double>& coefficients, uint32_t flags) {
  const std::vector<Tensor>& params = *roles[0];
  if (params.empty()) return;
  const Dtype dtype = params[0].dtype();
  for (const auto* list : roles) {
    ADEPT_CHECK(list->size() == params.size(), ValueError, "{}: {} tensors for {} parameters", name, list->size(),
                params.size());
    for (const Tensor& t : *list) {
      ADEPT_CHECK(t.is_contiguous() && t.dtype() == dtype && t.device() == params[0].device(), ValueError,
                  "{}: every tensor must be contiguous, of dtype {} and on {} (got {} {} on {})", name,
                  dtype_name(dtype), params[0].device().str(), t.is_contiguous() ? "contiguous" : "non-contiguous",
                  dtype_name(t.dtype()), t.device().str());
      check_index_range(t, name);
    }
  }
  OptimPush push;
  push.flags = flags;
  for (size_t k = 0; k < coefficients.size(); ++k) ElementwisePush::set(push.h[k], coefficients[k], dtype);
  Context& ctx = context_of(params[0]);
  const std::string shader = "optim_" + dtype_suffix(dtype);
  size_t i = 0;
  while (i < params.size()) {
    std::map<VkBuffer, int> binding;  // block -> binding index (1-based)
    std::vector<BufferRange> blocks;
    std::vector<int32_t> meta;
    int64_t largest = 0;
    for (; i < params.size() && meta.size() / kMetaPerParam < kMaxParams; ++i) {
      std::map<VkBuffer, int> trial = binding;
      for (const auto* list : roles) {
        const auto* chunk = static_cast<const Chunk*>((*list)[i].impl()->storage->data());
        trial.emplace(block_of(chunk)->buffer, static_cast<int>(trial.size()) + 1);
      }
      if (trial.size() > kMaxBlocks) break;
      binding = std::move(trial);
      std::vector<int32_t> row(kMetaPerParam, 0);
      row[0] = static_cast<int32_t>(params[i].numel());
      for (size_t r = 0; r < roles.size(); ++r) {
        const Tensor& t = (*roles[r])[i];
        const auto* chunk = static_cast<const Chunk*>(t.impl()->storage->data());
        row[1 + 2 * r] = binding.at(block_of(chunk)->buffer);
        row[2 + 2 * r] = static_cast<int32_t>(chunk->offset / t.element_size() + t.storage_offset());
      }
      meta.insert(meta.end(), row.begin(), row.end());
      largest = std::max(largest, params[i].numel());
    }
    ADEPT_CHECK(!meta.empty(), ValueError, "{}: one parameter's tensors span more than {} memory blocks", name,
                kMaxBlocks);
    blocks.resize(kMaxBlocks);
    for (const auto& [buffer, b] : binding) blocks[b - 1] = {buffer, 0, VK_WHOLE_SIZE};
    for (auto& b : blocks) if (b.buffer == VK_NULL_HANDLE) b = blocks[0];  // unused bindings repeat one block
    const uint32_t n_params = static_cast<uint32_t>(meta.size() / kMetaPerParam);
    if (largest == 0) continue;
    launch_buffers(ctx, name, shader, {op}, meta, blocks, &push, sizeof(push), groups_for(largest), n_params);
  }
}

void sgd_step_vk(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                 const std::vector<Tensor>& bufs, const SGDStep& h) {
  const bool momentum = h.momentum != 0;
  std::vector<const std::vector<Tensor>*> roles = {&params, &grads};
  if (momentum) roles.push_back(&bufs);
  const uint32_t flags = (h.nesterov ? 1u : 0u) | (h.maximize ? 2u : 0u) | (h.first ? 4u : 0u) | (momentum ? 8u : 0u);
  launch_multi_tensor("SGD", 0, roles, {h.lr, h.momentum, 1 - h.dampening, h.weight_decay}, flags);
}

void adam_step_vk(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                  const std::vector<Tensor>& max_exp_avg_sqs, const AdamStep& h) {
  std::vector<const std::vector<Tensor>*> roles = {&params, &grads, &exp_avgs, &exp_avg_sqs};
  if (h.amsgrad) roles.push_back(&max_exp_avg_sqs);
  const uint32_t flags = (h.decoupled ? 1u : 0u) | (h.amsgrad ? 2u : 0u) | (h.maximize ? 4u : 0u);
  launch_multi_tensor("Adam", 1, roles,
                      {1 - h.lr * h.weight_decay, h.beta1, 1 - h.beta1, h.beta2, 1 - h.beta2, h.eps, h.weight_decay,
                       h.step_size, h.bias_correction2_sqrt},
                      flags);
}

void ema_update_vk(const std::vector<Tensor>& averages, const std::vector<Tensor>& values, double decay) {
  launch_multi_tensor("ModelEMA", 2, {&averages, &values}, {decay, 1 - decay}, 0);
}

void amp_unscale_vk(const std::vector<Tensor>& grads, const Tensor& found_inf, double inv_scale) {
  ADEPT_CHECK(found_inf.numel() == 1, ShapeError, "GradScaler.unscale_: found_inf must hold 1 element, got {}",
              found_inf.numel());
  const std::vector<Tensor> flags(grads.size(), found_inf);  // every parameter's role 1 is the one flag
  launch_multi_tensor("GradScaler.unscale_", 3, {&grads, &flags}, {inv_scale}, 0);
}

bool floating(int, Dtype d) { return is_floating_point(d); }

}  // namespace

ADEPT_REGISTER_KERNEL_SUPPORTING(sgd_step_kernel, Vulkan, sgd_step_vk, floating)
ADEPT_REGISTER_KERNEL_SUPPORTING(adam_step_kernel, Vulkan, adam_step_vk, floating)
ADEPT_REGISTER_KERNEL_SUPPORTING(ema_update_kernel, Vulkan, ema_update_vk, floating)
ADEPT_REGISTER_KERNEL_SUPPORTING(amp_unscale_kernel, Vulkan, amp_unscale_vk, floating)

}  // namespace adept::vk
