// Autocast state (per thread) and the Scope ops use to apply it (autocast_scope.h).
#include "adept/ops/autocast.h"

#include "adept/errors.h"
#include "adept/tensor.h"
#include "ops/autocast_scope.h"

namespace adept {
namespace {

struct State {
  bool enabled[kNumDeviceTypes] = {false, false};
  Dtype dtype[kNumDeviceTypes] = {kBFloat16, kFloat16};  // CPU, Vulkan (torch: cpu bfloat16, cuda float16)
  int any = 0;           // number of device types enabled (the fast path reads only this)
  bool casting = false;  // an op of a cast list is running its body
};
thread_local State t_state;

int index(DeviceType type) { return static_cast<int>(type); }

}  // namespace

bool is_autocast_enabled(DeviceType type) { return t_state.enabled[index(type)]; }

Dtype get_autocast_dtype(DeviceType type) { return t_state.dtype[index(type)]; }

void set_autocast_enabled(DeviceType type, bool enabled) {
  bool& e = t_state.enabled[index(type)];
  t_state.any += static_cast<int>(enabled) - static_cast<int>(e);
  e = enabled;
}

void set_autocast_dtype(DeviceType type, Dtype dtype) {
  ADEPT_CHECK(dtype == kFloat16 || dtype == kBFloat16, DtypeError,
              "autocast: the low-precision dtype must be float16 or bfloat16, got {}", dtype_name(dtype));
  t_state.dtype[index(type)] = dtype;
}

AutocastGuard::AutocastGuard(DeviceType type, std::optional<Dtype> dtype, bool enabled)
    : type_(type), prev_enabled_(is_autocast_enabled(type)), prev_dtype_(get_autocast_dtype(type)) {
  if (dtype) set_autocast_dtype(type, *dtype);
  set_autocast_enabled(type, enabled);
}

AutocastGuard::~AutocastGuard() {
  set_autocast_enabled(type_, prev_enabled_);
  t_state.dtype[index(type_)] = prev_dtype_;
}

namespace autocast {

bool applies(Policy policy, std::initializer_list<const Tensor*> operands) {
  if (t_state.any == 0 || t_state.casting) return false;
  const Tensor* first = nullptr;
  const Tensor* scalar = nullptr;  // a 0-d CPU operand, which may join tensors of another device
  for (const Tensor* t : operands) {
    if (!t->defined()) continue;
    if (t->dim() == 0 && t->device().is_cpu()) {
      if (!scalar) scalar = t;
      continue;
    }
    if (!first) first = t;
    else if (t->device() != first->device()) return false;
  }
  if (!first) first = scalar;
  if (!first) return false;
  const DeviceType type = first->device().type;
  return t_state.enabled[index(type)] && (policy != Policy::Float32Gpu || type == DeviceType::Vulkan);
}

Scope::Scope(Policy policy, std::initializer_list<const Tensor*> operands) {
  if (!applies(policy, operands)) return;
  ADEPT_CHECK(operands.size() <= cast_.size(), ValueError, "autocast: at most {} operands", cast_.size());
  active_ = true;
  t_state.casting = true;
  size_t i = 0;
  for (const Tensor* t : operands) {
    Tensor& c = cast_[i++];
    c = *t;
    if (policy == Policy::Exclude || !t->defined() || !t->is_floating_point() || t->dtype() == kFloat64) continue;
    const DeviceType type = t->device().type;
    if (!t_state.enabled[index(type)]) continue;
    const Dtype want = policy == Policy::Lower ? t_state.dtype[index(type)] : kFloat32;
    if (t->dtype() != want) c = t->to(want);
  }
}

Scope::~Scope() {
  if (active_) t_state.casting = false;
}

Suspend::Suspend() : prev_(t_state.casting) { t_state.casting = true; }
Suspend::~Suspend() { t_state.casting = prev_; }

}  // namespace autocast
}  // namespace adept
