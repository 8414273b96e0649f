// Vulkan tensor storage (device allocator registration) and host<->device copies via staging
// buffers. Uploads are queued; downloads submit and wait (the only points where the host blocks,
// besides synchronize()).
#include <cstring>

#include "adept/storage.h"
#include "backends/vulkan/allocator.h"
#include "backends/vulkan/launch.h"
#include "kernels/kernels.h"

namespace adept::vk {
namespace {

std::shared_ptr<Storage> allocate_vk(size_t nbytes, Device device) {
  Context& ctx = Context::get(device.index);
  Chunk* c = ctx.allocator().allocate(nbytes);
  Context* cp = &ctx;
  // Freed chunks are reused only after the work recorded so far has completed.
  return Storage::wrap(c, nbytes, Device(DeviceType::Vulkan, ctx.index()), [cp](void* p) {
    cp->allocator().release(static_cast<Chunk*>(p), cp->stream().recording_serial());
  });
}

void from_host_vk(const Tensor& dst, const void* host_src) {
  Context& ctx = context_of(dst);
  size_t bytes = dst.numel() * dst.element_size();
  Chunk* staging = ctx.host_allocator().allocate(bytes);
  std::memcpy(static_cast<char*>(block_of(staging)->mapped) + staging->offset, host_src, bytes);
  BufferRange d = range_of(dst);
  std::lock_guard<std::mutex> lock(ctx.mutex());
  ctx.stream().copy("to", {block_of(staging)->buffer, staging->offset, bytes},
                    {d.buffer, d.offset + dst.storage_offset() * dst.element_size(), bytes}, bytes);
  ctx.host_allocator().release(staging, ctx.stream().recording_serial());
}

void to_host_vk(void* host_dst, const Tensor& src) {
  Context& ctx = context_of(src);
  ++ctx.downloads();
  size_t bytes = src.numel() * src.element_size();
  Chunk* staging = ctx.host_allocator().allocate(bytes);
  BufferRange s = range_of(src);
  {
    std::lock_guard<std::mutex> lock(ctx.mutex());
    ctx.stream().copy("cpu", {s.buffer, s.offset + src.storage_offset() * src.element_size(), bytes},
                      {block_of(staging)->buffer, staging->offset, bytes}, bytes);
    ctx.stream().synchronize();
  }
  std::memcpy(host_dst, static_cast<char*>(block_of(staging)->mapped) + staging->offset, bytes);
  ctx.host_allocator().release(staging, 0);
}

[[maybe_unused]] const bool registered = (register_device_allocator(DeviceType::Vulkan, allocate_vk), true);

}  // namespace

ADEPT_REGISTER_KERNEL(from_host_kernel, Vulkan, from_host_vk)
ADEPT_REGISTER_KERNEL(to_host_kernel, Vulkan, to_host_vk)

}  // namespace adept::vk
