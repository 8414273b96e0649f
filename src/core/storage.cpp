// Storage allocation: CPU memory is 64-byte aligned (cache line, AVX-512); other devices
// register their allocator with the backend.
#include "adept/storage.h"

#include <cstdlib>
#include <new>

#include "adept/errors.h"

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
  size_t padded = (nbytes + 63) / 64 * 64;
  void* p = padded ? std::aligned_alloc(64, padded) : nullptr;
  if (padded && !p) {
    throw OutOfMemoryError(fmt::format("allocate: out of memory allocating {} bytes on cpu", nbytes));
  }
  return std::make_shared<Storage>(p, nbytes, device, [](void* q) { std::free(q); });
}

std::shared_ptr<Storage> Storage::wrap(void* data, size_t nbytes, Device device, Deleter deleter) {
  return std::make_shared<Storage>(data, nbytes, device, std::move(deleter));
}

}  // namespace adept
