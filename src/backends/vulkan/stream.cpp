// Command batches, fences and serials (see stream.h).
#include "backends/vulkan/stream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "adept/errors.h"
#include "adept/profiler.h"
#include "backends/vulkan/allocator.h"
#include "backends/vulkan/context.h"

namespace adept::vk {

namespace {
constexpr uint32_t kMaxSets = 512;               // dispatches per batch
constexpr uint32_t kMaxBindings = 16;
constexpr VkDeviceSize kMetaBytes = 512 * 1024;  // metadata per batch
constexpr size_t kMaxInFlight = 4;
constexpr uint32_t kMaxSamples = 1024;           // profiled commands per batch (two timestamps each)
using HostClock = std::chrono::steady_clock;
double ms_since(HostClock::time_point t0) {
  return std::chrono::duration<double, std::milli>(HostClock::now() - t0).count();
}
}  // namespace

namespace {
uint64_t timeout_from_env() {
  const char* v = std::getenv("ADEPT_VK_TIMEOUT");
  const double s = v && *v ? std::atof(v) : 600.0;
  return static_cast<uint64_t>(std::max(s, 0.001) * 1e9);
}
}  // namespace

Stream::Stream(Context& ctx) : ctx_(ctx) {
  VkCommandPoolCreateInfo ci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  ci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  ci.queueFamilyIndex = ctx.queue_family();
  ADEPT_VK(vkCreateCommandPool(ctx.device(), &ci, nullptr, &cmd_pool_));
}

Stream::~Stream() {
  try {
    synchronize();
  } catch (...) {
  }
  VkDevice dev = ctx_.device();
  auto destroy = [&](Batch& b) {
    if (b.fence) vkDestroyFence(dev, b.fence, nullptr);
    if (b.pool) vkDestroyDescriptorPool(dev, b.pool, nullptr);
    if (b.queries) vkDestroyQueryPool(dev, b.queries, nullptr);
    if (b.meta) ctx_.host_allocator().release(b.meta, 0);
  };
  for (auto& b : spare_) destroy(*b);
  for (auto& b : in_flight_) destroy(*b);
  if (current_) destroy(*current_);
  vkDestroyCommandPool(dev, cmd_pool_, nullptr);
}

void Stream::poll() {
  while (!in_flight_.empty() && vkGetFenceStatus(ctx_.device(), in_flight_.front()->fence) == VK_SUCCESS) {
    retire(*in_flight_.front());
    spare_.push_back(std::move(in_flight_.front()));
    in_flight_.pop_front();
  }
}

void Stream::retire(Batch& b) {
  collect_profile(b);
  completed_ = std::max(completed_, b.serial);
  auto done = std::move(b.done);
  b.done.clear();
  for (auto& fn : done) fn();
  ctx_.allocator().collect(completed_);
  ctx_.host_allocator().collect(completed_);
}

Stream::Batch& Stream::recording() {
  if (current_) return *current_;
  poll();
  while (in_flight_.size() >= kMaxInFlight) wait(in_flight_.front()->serial);
  VkDevice dev = ctx_.device();
  if (!spare_.empty()) {
    current_ = std::move(spare_.back());
    spare_.pop_back();
    ADEPT_VK(vkResetDescriptorPool(dev, current_->pool, 0));
    ADEPT_VK(vkResetFences(dev, 1, &current_->fence));
  } else {
    current_ = std::make_unique<Batch>();
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = cmd_pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    ADEPT_VK(vkAllocateCommandBuffers(dev, &ai, &current_->cmd));
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    ADEPT_VK(vkCreateFence(dev, &fi, nullptr, &current_->fence));
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kMaxSets * kMaxBindings};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = kMaxSets;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &ps;
    ADEPT_VK(vkCreateDescriptorPool(dev, &pi, nullptr, &current_->pool));
    current_->meta = ctx_.host_allocator().allocate(kMetaBytes);
  }
  current_->serial = next_serial_;
  current_->sets = 0;
  current_->meta_used = 0;
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  ADEPT_VK(vkBeginCommandBuffer(current_->cmd, &bi));
  if (profiling_) {
    if (!current_->queries) {
      VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
      qi.queryCount = 2 * kMaxSamples;
      ADEPT_VK(vkCreateQueryPool(dev, &qi, nullptr, &current_->queries));
    }
    vkCmdResetQueryPool(current_->cmd, current_->queries, 0, 2 * kMaxSamples);
  }
  return *current_;
}

size_t Stream::profile_begin(Batch& b, const char* op, const char* kernel) {
  const size_t i = b.samples.size();
  vkCmdWriteTimestamp(b.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b.queries, static_cast<uint32_t>(2 * i));
  const profiler::ScopeState label = profiler::current_state();
  b.samples.push_back({op, kernel, label.scope, label.backward, 0.0});
  return i;
}

void Stream::profile_end(Batch& b, size_t sample, double host_ms) {
  vkCmdWriteTimestamp(b.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b.queries, static_cast<uint32_t>(2 * sample + 1));
  b.samples[sample].host_ms = host_ms;
}

void Stream::collect_profile(Batch& b) {
  if (b.samples.empty()) return;
  const auto n = static_cast<uint32_t>(b.samples.size());
  std::vector<uint64_t> ts(2 * n);
  ADEPT_VK(vkGetQueryPoolResults(ctx_.device(), b.queries, 0, 2 * n, ts.size() * 8, ts.data(), 8,
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  for (uint32_t i = 0; i < n; ++i) {
    const Sample& s = b.samples[i];
    VulkanProfileRow& row = profile_[{s.kernel, s.op, s.scope, s.backward}];
    row.count += 1;
    row.device_ms += static_cast<double>((ts[2 * i + 1] - ts[2 * i]) & timestamp_mask_) * timestamp_ns_ * 1e-6;
    row.host_ms += s.host_ms;
  }
  b.samples.clear();
  ++profile_batches_;
}

void Stream::start_profile() {
  ADEPT_CHECK(!profiling_, Error, "vulkan_profiler_start: a profile of {} is already running", ctx_.info().name);
  synchronize();
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(ctx_.physical(), &props);
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(ctx_.physical(), &families, nullptr);
  std::vector<VkQueueFamilyProperties> qf(families);
  vkGetPhysicalDeviceQueueFamilyProperties(ctx_.physical(), &families, qf.data());
  const uint32_t bits = qf.at(ctx_.queue_family()).timestampValidBits;
  ADEPT_CHECK(bits > 0, NotImplementedForDevice,
              "vulkan_profiler_start: the compute queue of {} has no timestamps (timestampValidBits 0)",
              ctx_.info().name);
  timestamp_mask_ = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  timestamp_ns_ = props.limits.timestampPeriod;
  profile_.clear();
  profile_batches_ = 0;
  profiling_ = true;
}

VulkanProfile Stream::stop_profile() {
  ADEPT_CHECK(profiling_, Error, "vulkan_profiler_stop: no profile of {} is running (call vulkan_profiler_start)",
              ctx_.info().name);
  synchronize();
  profiling_ = false;
  VulkanProfile p;
  for (auto& [key, row] : profile_) {
    const auto& [kernel, op, scope, backward] = key;
    row.kernel = kernel;
    row.op = op;
    row.scope = scope ? *scope : "";
    row.backward = backward;
    (row.kernel == "copy" ? p.copies : p.dispatches) += row.count;
    p.device_ms += row.device_ms;
    p.host_ms += row.host_ms;
    p.rows.push_back(std::move(row));
  }
  std::sort(p.rows.begin(), p.rows.end(),
            [](const VulkanProfileRow& a, const VulkanProfileRow& b) { return a.device_ms > b.device_ms; });
  p.batches = profile_batches_;
  profile_.clear();
  return p;
}

void Stream::barrier(VkCommandBuffer cmd) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT;
  VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

BufferRange Stream::push_meta(const std::vector<int32_t>& words) {
  VkDeviceSize bytes = std::max<VkDeviceSize>(words.size() * 4, 4);
  VkDeviceSize aligned = (bytes + 255) / 256 * 256;
  if (current_ && current_->meta_used + aligned > kMetaBytes) flush();
  Batch& b = recording();
  ADEPT_CHECK(aligned <= kMetaBytes, ValueError, "vulkan: kernel metadata of {} bytes is too large", bytes);
  char* dst = static_cast<char*>(block_of(b.meta)->mapped) + b.meta->offset + b.meta_used;
  if (!words.empty()) std::memcpy(dst, words.data(), words.size() * 4);
  BufferRange r{block_of(b.meta)->buffer, b.meta->offset + b.meta_used, bytes};
  b.meta_used += aligned;
  return r;
}

void Stream::dispatch(const char* op, const char* kernel, VkPipeline pipeline, VkPipelineLayout layout,
                      VkDescriptorSetLayout set_layout, const std::vector<BufferRange>& buffers, const void* push,
                      uint32_t push_size, uint32_t gx, uint32_t gy, uint32_t gz) {
  ADEPT_CHECK(buffers.size() <= kMaxBindings, ValueError, "vulkan: too many bindings ({})", buffers.size());
  const auto t0 = profiling_ ? HostClock::now() : HostClock::time_point{};  // host time only when profiling
  Batch& b = recording();
  b.last_op = last_op_ = op;
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = b.pool;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &set_layout;
  VkDescriptorSet set;
  ADEPT_VK(vkAllocateDescriptorSets(ctx_.device(), &ai, &set));
  std::vector<VkDescriptorBufferInfo> infos(buffers.size());
  std::vector<VkWriteDescriptorSet> writes(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    infos[i] = {buffers[i].buffer, buffers[i].offset, buffers[i].range};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(ctx_.device(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  barrier(b.cmd);
  const size_t sample = profiling_ ? profile_begin(b, op, kernel) : 0;
  vkCmdBindPipeline(b.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(b.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
  if (push_size) vkCmdPushConstants(b.cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
  vkCmdDispatch(b.cmd, gx, gy, gz);
  if (profiling_) profile_end(b, sample, ms_since(t0));
  // Full batches are submitted after recording (the dispatch's metadata lives in this batch).
  if (++b.sets >= kMaxSets || b.samples.size() >= kMaxSamples) flush();
}

void Stream::copy(const char* op, const BufferRange& src, const BufferRange& dst, VkDeviceSize bytes) {
  const auto t0 = profiling_ ? HostClock::now() : HostClock::time_point{};  // host time only when profiling
  Batch& b = recording();
  b.last_op = last_op_ = op;
  barrier(b.cmd);
  const size_t sample = profiling_ ? profile_begin(b, op, "copy") : 0;
  VkBufferCopy region{src.offset, dst.offset, bytes};
  vkCmdCopyBuffer(b.cmd, src.buffer, dst.buffer, 1, &region);
  if (profiling_) profile_end(b, sample, ms_since(t0));
  if (b.samples.size() >= kMaxSamples) flush();
}

void Stream::on_complete(std::function<void()> fn) { recording().done.push_back(std::move(fn)); }

uint64_t Stream::flush() {
  if (!current_) return next_serial_ - 1;
  Batch& b = *current_;
  ADEPT_VK(vkEndCommandBuffer(b.cmd));
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &b.cmd;
  ADEPT_VK(vkQueueSubmit(ctx_.queue(), 1, &si, b.fence));
  uint64_t serial = b.serial;
  in_flight_.push_back(std::move(current_));
  ++next_serial_;
  return serial;
}

void Stream::wait(uint64_t serial) {
  if (current_ && current_->serial <= serial) flush();
  while (!in_flight_.empty() && in_flight_.front()->serial <= serial) {
    Batch& b = *in_flight_.front();
    const uint64_t timeout_ns = timeout_from_env();
    const VkResult r = vkWaitForFences(ctx_.device(), 1, &b.fence, VK_TRUE, timeout_ns);
    if (r == VK_TIMEOUT) {
      throw DeviceError(fmt::format("vulkan: {} did not finish a batch of work within {} s (its last op: '{}'); the "
                                    "device is stuck or the work too large for ADEPT_VK_TIMEOUT",
                                    ctx_.info().name, timeout_ns / 1e9, b.last_op));
    }
    if (r == VK_ERROR_DEVICE_LOST) {
      throw DeviceError(fmt::format("vulkan: device {} was lost while running a batch whose last op was '{}'",
                                    ctx_.info().name, b.last_op));
    }
    ADEPT_VK(r);
    retire(b);
    spare_.push_back(std::move(in_flight_.front()));
    in_flight_.pop_front();
  }
}

void Stream::synchronize() {
  ++syncs_;
  wait(flush());
}

}  // namespace adept::vk
