// Device identifiers: where a tensor's storage lives ("cpu", "vulkan:0").
#pragma once
#include <cstdint>
#include <string>

namespace adept {

enum class DeviceType : int8_t { CPU = 0, Vulkan = 1 };
inline constexpr int kNumDeviceTypes = 2;

/// A device type and index. Parsed from "cpu", "vulkan", "vulkan:N"; throws DeviceError on
/// anything else. Index -1 means "the default device of this type".
struct Device {
  DeviceType type = DeviceType::CPU;
  int index = -1;

  Device() = default;
  Device(DeviceType t, int i = -1) : type(t), index(i) {}  // NOLINT
  Device(const std::string& spec);                          // NOLINT
  Device(const char* spec) : Device(std::string(spec)) {}   // NOLINT

  bool is_cpu() const { return type == DeviceType::CPU; }
  std::string str() const;
  /// Same type and index; an index of -1 (the default device) matches any index of its type.
  bool operator==(const Device& o) const {
    return type == o.type && (index == o.index || index < 0 || o.index < 0 || type == DeviceType::CPU);
  }
};

inline const Device kCPU{DeviceType::CPU};

}  // namespace adept
