// The kernel registry. Each kernel family (copy, fill, unary, binary, reduce, conv2d_forward, ...) is
// a table with one function pointer per DeviceType; backends register theirs when the library loads.
// Looking up a family on a device without a kernel raises NotImplementedForDevice naming the op and
// the device, never a silent fallback to another device.
//
// Families whose kernels take an op code (unary, binary, reduce) may also register, per device, which
// codes and dtypes that device implements: a backend whose shader variants cover only part of the op
// table refuses the rest at dispatch (the four-argument get()) and `supported()` (adept/supported.h) answers
// from the same predicate.
#pragma once
#include <array>
#include <string>

#include "adept/device.h"
#include "adept/dtype.h"
#include "adept/errors.h"

namespace adept {

/// Whether a device's kernel of a family implements op `code` (the family's enum value, or -1 for
/// families without codes) for operands of `dtype`.
using KernelSupportFn = bool (*)(int code, Dtype dtype);

/// The per-device state of one kernel family that does not depend on its signature.
class KernelFamily {
 public:
  /// Registers the family under `name` without its `_kernel` suffix (see find_kernel_family).
  explicit KernelFamily(const char* name);
  /// The family's name as errors and the op table spell it ("unary", "conv2d_forward").
  const char* name() const { return name_.c_str(); }
  bool has(DeviceType d) const { return present_[static_cast<int>(d)]; }
  /// True when the device has the family and its predicate (if any) accepts (code, dtype).
  bool supports(DeviceType d, int code, Dtype dtype) const {
    KernelSupportFn f = support_[static_cast<int>(d)];
    return has(d) && (!f || f(code, dtype));
  }
  void set_support(DeviceType d, KernelSupportFn f) { support_[static_cast<int>(d)] = f; }

 protected:
  std::string name_;
  std::array<bool, kNumDeviceTypes> present_{};
  std::array<KernelSupportFn, kNumDeviceTypes> support_{};
};

/// The family registered under `name` ("unary", "conv2d_forward"), or nullptr.
const KernelFamily* find_kernel_family(const std::string& name);

template <class Fn>
class KernelTable : public KernelFamily {
 public:
  using KernelFamily::KernelFamily;
  void set(DeviceType d, Fn* fn) {
    fns_[static_cast<int>(d)] = fn;
    present_[static_cast<int>(d)] = fn != nullptr;
  }
  Fn* get(const Device& d, const char* op = nullptr) const {
    Fn* f = fns_[static_cast<int>(d.type)];
    if (!f) {
      throw NotImplementedForDevice(fmt::format("{}: not implemented for device '{}' (kernel family '{}')",
                                                op ? op : name(), d.str(), name()));
    }
    return f;
  }
  /// get(), after checking that the device implements op `code` (named `op` in the error) for `dtype`.
  Fn* get(const Device& d, const char* op, int code, Dtype dtype) const {
    Fn* f = get(d, op);
    if (!supports(d.type, code, dtype)) {
      throw NotImplementedForDevice(fmt::format("{}: not implemented for device '{}' and dtype {} (kernel family '{}')",
                                                op, d.str(), dtype_name(dtype), name()));
    }
    return f;
  }

 private:
  std::array<Fn*, kNumDeviceTypes> fns_{};
};

}  // namespace adept

/// Declares the family NAME (a function returning its table); the family's name is NAME without `_kernel`.
#define ADEPT_DECLARE_KERNEL(NAME, SIGNATURE) ::adept::KernelTable<SIGNATURE>& NAME();
#define ADEPT_DEFINE_KERNEL(NAME, SIGNATURE)                    \
  ::adept::KernelTable<SIGNATURE>& NAME() {                     \
    static ::adept::KernelTable<SIGNATURE> table(#NAME);        \
    return table;                                               \
  }                                                             \
  [[maybe_unused]] static const bool adept_family_##NAME = (NAME(), true);
/// Registers FN as the DEVICE kernel of family NAME (at load time).
#define ADEPT_REGISTER_KERNEL(NAME, DEVICE, FN)                                                  \
  [[maybe_unused]] static const bool adept_registered_##NAME##_##DEVICE =                        \
      (NAME().set(::adept::DeviceType::DEVICE, FN), true);
/// Registers FN as the DEVICE kernel of family NAME together with the (code, dtype) pairs it implements.
#define ADEPT_REGISTER_KERNEL_SUPPORTING(NAME, DEVICE, FN, SUPPORT_FN)                           \
  [[maybe_unused]] static const bool adept_registered_##NAME##_##DEVICE =                        \
      (NAME().set(::adept::DeviceType::DEVICE, FN), NAME().set_support(::adept::DeviceType::DEVICE, SUPPORT_FN), true);
