// Storage allocation: CPU memory is 64-byte aligned (cache line, AVX-512) and comes through the
// caching allocator (core/cpu_cache.h); other devices register their allocator with the backend.
#include "adept/storage.h"

#include <cstdlib>
#include <new>

#include "adept/errors.h"
#include "core/cpu_cache.h"

namespace adept {

namespace {
DeviceAllocator g_allocators[kNumDeviceTypes] = {};
}

void register_device_allocator(DeviceType type, DeviceAllocator fn) { g_allocators[static_cast<int>(type)] = fn; }

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, Device device) {
  if (!device.is_cpu()) {
    DeviceAllocator fn = g_allocators[static_cast<int>(device.type)];
    ADEPT_CHECK(fn != nullptr, NotImplementedForDevice,
                "allocate: device '{}' is not available in this build of Adept", device.str());
    return fn(nbytes, device);
  }
  const size_t rounded = cpu_cache::round_size(nbytes);
  void* p = rounded ? cpu_cache::allocate(rounded) : nullptr;
  if (rounded && !p) {
    throw OutOfMemoryError(fmt::format("allocate: out of memory allocating {} bytes on cpu", nbytes));
  }
  return std::make_shared<Storage>(p, nbytes, device, [rounded](void* q) {
    if (q) cpu_cache::release(q, rounded);
  });
}

std::shared_ptr<Storage> Storage::wrap(void* data, size_t nbytes, Device device, Deleter deleter) {
  return std::make_shared<Storage>(data, nbytes, device, std::move(deleter));
}

}  // namespace adept
