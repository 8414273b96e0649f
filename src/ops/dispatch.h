// Device-keyed kernel dispatch. Each kernel family (copy, fill, unary, binary, reduce, ...) is a
// table with one function pointer per DeviceType; backends register theirs at load time. Looking
// up a family on a device without a kernel raises NotImplementedForDevice naming the op and the
// device, never a silent fallback to another device.
#pragma once
#include <array>

#include "adept/device.h"
#include "adept/errors.h"

namespace adept {

template <class Fn>
class KernelTable {
 public:
  explicit KernelTable(const char* name) : name_(name) {}
  void set(DeviceType d, Fn* fn) { fns_[static_cast<int>(d)] = fn; }
  Fn* get(const Device& d, const char* op = nullptr) const {
    Fn* f = fns_[static_cast<int>(d.type)];
    if (!f) {
      throw NotImplementedForDevice(fmt::format("{}: not implemented for device '{}' (kernel family '{}')",
                                                op ? op : name_, d.str(), name_));
    }
    return f;
  }
  bool has(DeviceType d) const { return fns_[static_cast<int>(d)] != nullptr; }

 private:
  const char* name_;
  std::array<Fn*, kNumDeviceTypes> fns_{};
};

}  // namespace adept

#define ADEPT_DECLARE_KERNEL(NAME, SIGNATURE) ::adept::KernelTable<SIGNATURE>& NAME();
#define ADEPT_DEFINE_KERNEL(NAME, SIGNATURE)            \
  ::adept::KernelTable<SIGNATURE>& NAME() {             \
    static ::adept::KernelTable<SIGNATURE> table(#NAME); \
    return table;                                       \
  }
#define ADEPT_REGISTER_KERNEL(NAME, DEVICE, FN)                                                  \
  [[maybe_unused]] static const bool adept_registered_##NAME##_##DEVICE =                        \
      (NAME().set(::adept::DeviceType::DEVICE, FN), true);
