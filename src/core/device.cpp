// Parsing and printing of device specs ("cpu", "vulkan", "vulkan:1").
#include "adept/device.h"

#include <cctype>

#include "adept/errors.h"

namespace adept {

Device::Device(const std::string& spec) {
  std::string s = spec;
  int idx = -1;
  auto colon = s.find(':');
  if (colon != std::string::npos) {
    std::string num = s.substr(colon + 1);
    bool ok = !num.empty() && num.size() < 6;
    for (char c : num) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    ADEPT_CHECK(ok, DeviceError, "invalid device '{}': expected 'cpu', 'vulkan' or 'vulkan:N'", spec);
    idx = std::stoi(num);
    s = s.substr(0, colon);
  }
  if (s == "cpu") {
    type = DeviceType::CPU;
    index = -1;
  } else if (s == "vulkan") {
    type = DeviceType::Vulkan;
    index = idx;
  } else {
    throw DeviceError(fmt::format("invalid device '{}': expected 'cpu', 'vulkan' or 'vulkan:N'", spec));
  }
}

std::string Device::str() const {
  if (type == DeviceType::CPU) return "cpu";
  return index < 0 ? "vulkan" : fmt::format("vulkan:{}", index);
}

}  // namespace adept
