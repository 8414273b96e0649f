// Vulkan instance, device selection and creation, and the public device/memory API.
#include "backends/vulkan/context.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "adept/errors.h"
#include "backends/vulkan/allocator.h"
#include "core/worker_process.h"
#include "backends/vulkan/pipeline.h"
#include "backends/vulkan/stream.h"

namespace adept::vk {

namespace {

std::atomic<uint64_t> g_validation_errors{0};

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                              VkDebugUtilsMessageTypeFlagsEXT, const VkDebugUtilsMessengerCallbackDataEXT* data,
                                              void*) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    g_validation_errors++;
    fmt::print(stderr, "adept vulkan validation error: {}\n", data->pMessage);
  }
  return VK_FALSE;
}

struct InstanceHolder {
  VkInstance instance = VK_NULL_HANDLE;
  VkResult result = VK_SUCCESS;
  std::vector<VkPhysicalDevice> devices;
  InstanceHolder() {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "adept";
    app.pEngineName = "adept";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    bool validation = env_flag("ADEPT_VK_VALIDATION");
    if (validation) {
      ci.enabledLayerCount = 1;
      ci.ppEnabledLayerNames = &layer;
      ci.enabledExtensionCount = 1;
      ci.ppEnabledExtensionNames = &ext;
    }
    result = vkCreateInstance(&ci, nullptr, &instance);
    if (result != VK_SUCCESS) {
      instance = VK_NULL_HANDLE;
      return;
    }
    if (validation) {
      auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
      if (create) {
        VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
        mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
        mi.pfnUserCallback = debug_callback;
        VkDebugUtilsMessengerEXT messenger;
        create(instance, &mi, nullptr, &messenger);
      }
    }
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(instance, &n, nullptr);
    devices.resize(n);
    if (n) vkEnumeratePhysicalDevices(instance, &n, devices.data());
  }
};

InstanceHolder& holder() {
  static InstanceHolder* h = new InstanceHolder();  // never destroyed: tensors may outlive statics
  return *h;
}

bool has_extension(VkPhysicalDevice pd, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> props(n);
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, props.data());
  for (auto& p : props) if (std::strcmp(p.extensionName, name) == 0) return true;
  return false;
}

VulkanDeviceInfo describe(VkPhysicalDevice pd, int index) {
  VulkanDeviceInfo info;
  info.index = index;
  VkPhysicalDeviceSubgroupProperties sub{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceDriverProperties drv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  sub.pNext = &drv;
  drv.pNext = &id;
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &sub;
  vkGetPhysicalDeviceProperties2(pd, &p2);
  const auto& p = p2.properties;
  info.name = p.deviceName;
  for (int i = 0; i < VK_UUID_SIZE; ++i) {
    info.uuid += fmt::format("{}{:02x}", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", id.deviceUUID[i]);
  }
  info.driver = drv.driverName;
  switch (p.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: info.device_type = "discrete"; break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: info.device_type = "integrated"; break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: info.device_type = "virtual"; break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: info.device_type = "cpu"; break;
    default: info.device_type = "other";
  }
  info.api_version = p.apiVersion;
  info.subgroup_size = sub.subgroupSize;
  info.max_push_constants = p.limits.maxPushConstantsSize;
  info.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  info.max_workgroup_invocations = p.limits.maxComputeWorkGroupInvocations;
  info.max_shared_memory = p.limits.maxComputeSharedMemorySize;
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  for (uint32_t i = 0; i < mp.memoryHeapCount; ++i) {
    if (mp.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) info.device_local_bytes += mp.memoryHeaps[i].size;
  }
  VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features f16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  s16.pNext = &s8;
  s8.pNext = &f16;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &s16;
  vkGetPhysicalDeviceFeatures2(pd, &f2);
  info.float16 = s16.storageBuffer16BitAccess && f16.shaderFloat16;
  info.int8_storage = s8.storageBuffer8BitAccess && f16.shaderInt8;
  info.int64 = f2.features.shaderInt64;
  info.float64 = f2.features.shaderFloat64;
  info.int16 = f2.features.shaderInt16;
  // llvmpipe (lavapipe) cuts an invocation's loops short after about 2^16 iterations in total:
  // seen as wrong sums over ~6M elements (24k steps of 2 loops) and matmuls with K over ~40k.
  if (info.driver.find("llvmpipe") != std::string::npos || info.name.find("llvmpipe") != std::string::npos) {
    info.loop_iteration_limit = 65536;
  }
  if (has_extension(pd, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    VkPhysicalDeviceFeatures2 cf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    cf.pNext = &cm;
    vkGetPhysicalDeviceFeatures2(pd, &cf);
    // The shader assumes 32-lane subgroups; ADEPT_VK_DISABLE_COOPMAT=1 is the off switch.
    info.cooperative_matrix = cm.cooperativeMatrix && info.subgroup_size == 32 && info.float16 &&
                              !env_flag("ADEPT_VK_DISABLE_COOPMAT");
  }
  return info;
}

int default_index() {
  const char* v = std::getenv("ADEPT_VULKAN_DEVICE");
  return v && *v ? std::atoi(v) : 0;
}

}  // namespace

void check(VkResult r, const char* what) {
  if (r == VK_SUCCESS) return;
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
    throw OutOfMemoryError(fmt::format("vulkan: {} failed: out of memory (VkResult {})", what, static_cast<int>(r)));
  }
  throw Error(fmt::format("vulkan: {} failed with VkResult {}", what, static_cast<int>(r)));
}

VkInstance instance() {
  auto& h = holder();
  ADEPT_CHECK(h.instance != VK_NULL_HANDLE, DeviceError,
              "vulkan: no Vulkan driver available (vkCreateInstance returned {}); install mesa-vulkan-drivers "
              "or a GPU driver", static_cast<int>(h.result));
  return h.instance;
}

uint64_t validation_error_count() { return g_validation_errors.load(); }

bool Context::available() { return holder().instance != VK_NULL_HANDLE && !holder().devices.empty(); }

namespace {

std::mutex g_contexts_mu;
std::vector<Context*> g_contexts;  // by device index; each lives until exit

}  // namespace

Context& Context::get(int index) {
  // A forked DataLoader worker must not touch the parent's device (nor take locks another
  // thread of the parent may have held at fork time).
  ADEPT_CHECK(!in_worker_process(), DeviceError,
              "vulkan: DataLoader worker processes must not use a GPU device; return CPU tensors from the "
              "dataset and move batches to the device in the main process");
  if (index < 0) index = default_index();
  std::lock_guard<std::mutex> lock(g_contexts_mu);
  instance();
  int n = static_cast<int>(holder().devices.size());
  ADEPT_CHECK(index < n, DeviceError, "vulkan: device index {} requested but {} Vulkan device(s) are present", index, n);
  if (g_contexts.size() < static_cast<size_t>(n)) g_contexts.resize(n, nullptr);
  if (!g_contexts[index]) g_contexts[index] = new Context(index);
  return *g_contexts[index];
}

Context::Context(int index) : index_(index) {
  physical_ = holder().devices[index];
  info_ = describe(physical_, index);
  ADEPT_CHECK(info_.int8_storage && info_.float16 && info_.int16, DeviceError,
              "vulkan: device {} lacks 8/16-bit storage buffers, shaderFloat16 or shaderInt16, which Adept requires",
              info_.name);
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> qf(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, qf.data());
  bool found = false;
  for (uint32_t i = 0; i < nq && !found; ++i) {
    if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queue_family_ = i;
      found = true;
    }
  }
  ADEPT_CHECK(found, DeviceError, "vulkan: device {} has no compute queue", info_.name);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = queue_family_;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  s16.storageBuffer16BitAccess = VK_TRUE;
  VkPhysicalDevice8BitStorageFeatures s8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  s8.storageBuffer8BitAccess = VK_TRUE;
  VkPhysicalDeviceShaderFloat16Int8Features f16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  f16.shaderFloat16 = VK_TRUE;
  f16.shaderInt8 = VK_TRUE;
  s16.pNext = &s8;
  s8.pNext = &f16;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.features.shaderInt64 = info_.int64 ? VK_TRUE : VK_FALSE;
  f2.features.shaderFloat64 = info_.float64 ? VK_TRUE : VK_FALSE;
  f2.features.shaderInt16 = VK_TRUE;
  f2.pNext = &s16;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  const char* cm_ext = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
  if (info_.cooperative_matrix) {
    cm.cooperativeMatrix = VK_TRUE;
    f16.pNext = &cm;
  }
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.pNext = &f2;
  if (info_.cooperative_matrix) {
    di.enabledExtensionCount = 1;
    di.ppEnabledExtensionNames = &cm_ext;
  }
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  ADEPT_VK(vkCreateDevice(physical_, &di, nullptr, &device_));
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  vkGetPhysicalDeviceMemoryProperties(physical_, &mem_props_);
  allocator_ = std::make_unique<Allocator>(*this, false);
  if (const char* cap = std::getenv("ADEPT_VK_MEMORY_LIMIT"); cap && *cap) allocator_->set_limit(std::strtoull(cap, nullptr, 10));
  host_allocator_ = std::make_unique<Allocator>(*this, true);
  pipelines_ = std::make_unique<PipelineCache>(*this);
  stream_ = std::make_unique<Stream>(*this);
}

Context::~Context() = default;

const char* Context::last_op() const { return stream_ ? stream_->last_op() : ""; }

uint32_t Context::memory_type(uint32_t bits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const {
  for (int pass = 0; pass < 2; ++pass) {
    VkMemoryPropertyFlags want = pass == 0 ? (required | preferred) : required;
    for (uint32_t i = 0; i < mem_props_.memoryTypeCount; ++i) {
      if ((bits & (1u << i)) && (mem_props_.memoryTypes[i].propertyFlags & want) == want) return i;
    }
  }
  throw DeviceError(fmt::format("vulkan: no suitable memory type on {}", info_.name));
}

}  // namespace adept::vk

namespace adept {

std::string VulkanDeviceInfo::str() const {
  return fmt::format("vulkan:{} {} ({}, driver {}, Vulkan {}.{}, subgroup {}, push constants {} B, storage range {} MiB, "
                     "shared memory {} KiB, device memory {} MiB, float16 {}, float64 {}, int64 {}, cooperative_matrix {})",
                     index, name, device_type, driver, VK_API_VERSION_MAJOR(api_version), VK_API_VERSION_MINOR(api_version),
                     subgroup_size, max_push_constants, max_storage_buffer_range >> 20, max_shared_memory >> 10,
                     device_local_bytes >> 20, float16, float64, int64, cooperative_matrix);
}

bool vulkan_is_available() { return vk::Context::available(); }

uint64_t vulkan_validation_error_count() { return vk::validation_error_count(); }

std::vector<VulkanDeviceInfo> vulkan_devices() {
  std::vector<VulkanDeviceInfo> out;
  if (!vulkan_is_available()) return out;
  const auto& devs = vk::holder().devices;
  for (size_t i = 0; i < devs.size(); ++i) out.push_back(vk::describe(devs[i], static_cast<int>(i)));
  return out;
}

int vulkan_device_for_local_rank(int local_rank) {
  std::vector<VulkanDeviceInfo> devs = vulkan_devices();
  ADEPT_CHECK(!devs.empty(), DeviceError, "vulkan: a GPU for node-local rank {} was asked for, but no Vulkan device is "
              "present", local_rank);
  std::stable_sort(devs.begin(), devs.end(), [](const auto& a, const auto& b) { return a.uuid < b.uuid; });
  return devs[static_cast<size_t>(local_rank) % devs.size()].index;
}

void vulkan_synchronize(int index) {
  auto& ctx = vk::Context::get(index);
  std::lock_guard<std::mutex> lock(ctx.mutex());
  ctx.stream().synchronize();
}

void vulkan_wait_idle() noexcept {
  if (in_worker_process()) return;
  std::lock_guard<std::mutex> lock(vk::g_contexts_mu);
  for (vk::Context* c : vk::g_contexts) {
    if (!c) continue;
    std::unique_lock<std::mutex> stream_lock(c->mutex(), std::try_to_lock);
    if (stream_lock.owns_lock()) vkDeviceWaitIdle(c->device());
  }
}

void vulkan_flush(int index) {
  auto& ctx = vk::Context::get(index);
  std::lock_guard<std::mutex> lock(ctx.mutex());
  ctx.stream().flush();
}

void vulkan_set_per_process_memory_fraction(double fraction, int index) {
  ADEPT_CHECK(fraction >= 0 && fraction <= 1, ValueError,
              "vulkan_set_per_process_memory_fraction: fraction {} is outside [0, 1]", fraction);
  auto& ctx = vk::Context::get(index);
  const auto bytes = static_cast<uint64_t>(fraction * static_cast<double>(ctx.info().device_local_bytes));
  ctx.allocator().set_limit(fraction >= 1 ? 0 : std::max<uint64_t>(bytes, 1));
}

void vulkan_profiler_start(int index) {
  auto& ctx = vk::Context::get(index);
  std::lock_guard<std::mutex> lock(ctx.mutex());
  ctx.stream().start_profile();
}

VulkanProfile vulkan_profiler_stop(int index) {
  auto& ctx = vk::Context::get(index);
  std::lock_guard<std::mutex> lock(ctx.mutex());
  return ctx.stream().stop_profile();
}

uint64_t vulkan_download_count(int index) { return vk::Context::get(index).downloads().load(); }

uint64_t vulkan_sync_count(int index) { return vk::Context::get(index).stream().sync_count(); }

VulkanMemoryStats vulkan_memory_stats(int index) { return vk::Context::get(index).allocator().stats(); }

void vulkan_reset_peak_memory_stats(int index) { vk::Context::get(index).allocator().reset_peak_stats(); }

void vulkan_empty_cache(int index) {
  auto& ctx = vk::Context::get(index);
  std::lock_guard<std::mutex> lock(ctx.mutex());
  ctx.stream().synchronize();
  ctx.allocator().empty_cache();
}

}  // namespace adept
