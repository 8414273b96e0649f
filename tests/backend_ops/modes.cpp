// The four modes of adept_test_backend_ops: forward and backward against the CPU, finite-difference
// gradcheck and perf. Each runs one case in one dtype/layout on one backend and returns a Result.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "adept/vulkan.h"
#include "runner.h"

namespace adept::backend_ops {

std::string device_name(Device d) { return d.is_cpu() ? "cpu" : "vulkan"; }

namespace {

constexpr double kGradTolScale = 5;  // gradients go through more roundings than forward values

std::vector<Shape> shapes_of(const Case& c) {
  std::vector<Shape> s;
  for (const Input& in : c.inputs) s.push_back(in.shape);
  return s;
}

uint64_t seed_of(const Case& c, Dtype d, Layout l, const char* what) {
  return stable_hash(fmt::format("{}|{}|{}|{}", c.label, dtype_name(d), layout_name(l), what));
}

// The inputs of one run: `test` on the backend in the layout under test, `ref` on the CPU: the same
// layout and dtype for another backend; contiguous float64 copies (or contiguous copies of
// non-float inputs) for the CPU row itself.
struct Prepared {
  Tensors test, ref;
  std::string upload_error;  // set (and `test` empty) when an input cannot live on the device
};

Prepared prepare(const Case& c, Dtype dtype, Layout layout, Device device, bool grad) {
  const Tensors values = generate_inputs(c, shapes_of(c), dtype, seed_of(c, dtype, layout, "inputs"));
  Prepared p;
  for (size_t i = 0; i < values.size(); ++i) {
    const Input& in = c.inputs[i];
    Placed pl = place(values[i], in.layouts ? layout : Layout::Contiguous);
    Tensor test;
    if (device.is_cpu()) {
      test = pl.view(pl.base);
    } else if (p.upload_error.empty()) {
      try {
        test = pl.view(pl.base.to(device));
      } catch (const NotImplementedForDevice& e) {
        p.upload_error = e.what();
      }
    }
    Tensor ref = pl.view(pl.base);
    if (device.is_cpu()) {
      ref = (c.ref_f64 && ref.is_floating_point()) ? ref.to(kFloat64, /*copy=*/true).contiguous()
                                                  : ref.contiguous().clone();
    }
    if (grad && in.grad && pl.base.is_floating_point()) {
      if (test.defined()) test = test.detach().requires_grad_();
      ref = ref.detach().requires_grad_();
    }
    p.test.push_back(test);
    p.ref.push_back(ref);
  }
  return p;
}

// The reference result in the dtype of the result under test (the CPU row's float64 reference is
// rounded once to it).
Tensor as_expected(const Tensor& ref, const Tensor& got) {
  if (ref.is_floating_point() && got.is_floating_point() && ref.dtype() != got.dtype()) return ref.detach().to(got.dtype());
  return ref.detach();
}

Tol scaled(Tol t, double s) { return {t.rtol * s, t.atol * s}; }

Result start(const Case& c, Dtype d, Layout l, Device dev, const char* mode) {
  Result r;
  r.op = c.op;
  r.label = c.label;
  r.backend = device_name(dev);
  r.mode = mode;
  r.dtype = d;
  r.layout = l;
  return r;
}

Result& fail(Result& r, const std::string& msg) {
  r.status = Status::Fail;
  r.message = fmt::format("{} [{} {} {} {}]: {}", r.label, r.mode, r.backend, dtype_name(r.dtype), layout_name(r.layout),
                          msg);
  return r;
}

Result& not_implemented(Result& r, const std::string& msg) {
  r.status = Status::NotImpl;
  r.message = msg;
  return r;
}

// n/i because an input's dtype cannot live on the device (the move raised before the op ran).
Result& not_on_device(Result& r, const Prepared& p) {
  r.input_not_on_device = true;
  return not_implemented(r, p.upload_error);
}

void synchronize(Device d) {
#ifdef ADEPT_WITH_VULKAN
  if (!d.is_cpu()) vulkan_synchronize(d.index);
#endif
}

// Sets a case's environment for the device under test for its lifetime (restoring what was there).
class EnvGuard {
 public:
  EnvGuard(const Case& c, Device d) {
    for (const EnvSetting& e : c.env) {
      if (e.device != d.type) continue;
      const char* old = std::getenv(e.name.c_str());
      saved_.push_back({e.name, old ? std::optional<std::string>(old) : std::nullopt});
      setenv(e.name.c_str(), e.value.c_str(), 1);
    }
  }
  ~EnvGuard() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) setenv(it->first.c_str(), it->second->c_str(), 1);
      else unsetenv(it->first.c_str());
    }
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace

Result run_forward(const Case& c, Dtype dtype, Layout layout, Device device) {
  Result r = start(c, dtype, layout, device, "forward");
  NoGradGuard no_grad;
  Prepared p = prepare(c, dtype, layout, device, false);
  Tensors ref;
  try {
    ref = c.fn(p.ref);
  } catch (const std::exception& e) {
    return fail(r, fmt::format("the CPU reference threw: {}", e.what()));
  }
  if (!p.upload_error.empty()) return not_on_device(r, p);
  Tensors got;
  try {
    EnvGuard env(c, device);
    for (const Tensor& t : c.fn(p.test)) got.push_back(t.defined() ? t.cpu() : t);
  } catch (const NotImplementedForDevice& e) {
    return not_implemented(r, e.what());
  } catch (const std::exception& e) {
    return fail(r, fmt::format("threw {}", e.what()));
  }
  if (got.size() != ref.size()) return fail(r, fmt::format("{} outputs, reference {}", got.size(), ref.size()));
  const double s = c.tol * (device.is_cpu() ? 1.0 : c.device_tol);
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].defined() != ref[i].defined()) return fail(r, fmt::format("output {}: defined differs", i));
    if (!got[i].defined()) continue;
    std::string msg = compare_tensors(got[i], as_expected(ref[i], got[i]), scaled(dtype_tol(got[i].dtype()), s), c.compare);
    if (!msg.empty()) return fail(r, fmt::format("output {}: {}", i, msg));
  }
  return r;
}

Result run_backward(const Case& c, Dtype dtype, Layout layout, Device device) {
  Result r = start(c, dtype, layout, device, "backward");
  r.status = Status::Skip;
  if (!c.grad || c.compare != Compare::Values) return r;
  bool any_grad = false;
  for (const Input& in : c.inputs) any_grad |= in.grad && is_floating_point(in.dtype.value_or(dtype));
  if (!any_grad) return r;
  r.status = Status::Pass;
  Prepared p = prepare(c, dtype, layout, device, true);
  Tensors ref_out;
  std::vector<size_t> targets;
  try {
    ref_out = c.fn(p.ref);
    for (size_t i = 0; i < ref_out.size(); ++i)
      if (ref_out[i].defined() && ref_out[i].is_floating_point() && ref_out[i].requires_grad()) targets.push_back(i);
  } catch (const std::exception& e) {
    return fail(r, fmt::format("the CPU reference threw: {}", e.what()));
  }
  if (targets.empty()) {  // no differentiable output (comparisons, indices ...)
    r.status = Status::Skip;
    return r;
  }
  if (!p.upload_error.empty()) return not_on_device(r, p);
  Tensors got_out;
  try {
    EnvGuard env(c, device);
    got_out = c.fn(p.test);
  } catch (const NotImplementedForDevice& e) {
    return not_implemented(r, e.what());
  } catch (const std::exception& e) {
    return fail(r, fmt::format("forward threw {}", e.what()));
  }
  if (got_out.size() != ref_out.size()) return fail(r, fmt::format("{} outputs, reference {}", got_out.size(), ref_out.size()));
  // Upstream gradients: loss = sum_i sum(out_i * g_i), i.e. backward(outputs, {g_i}).
  Generator gen(seed_of(c, dtype, layout, "grad"));
  Tensors ref_targets, ref_grads, got_targets, got_grads;
  for (size_t i : targets) {
    const Tensor& o = got_out[i];
    if (!o.defined() || !o.requires_grad()) return fail(r, fmt::format("output {} does not require grad", i));
    Tensor g = randn(o.sizes(), TensorOptions(kFloat64), &gen).to(o.dtype());
    ref_targets.push_back(ref_out[i]);
    ref_grads.push_back(g.to(ref_out[i].dtype()));
    got_targets.push_back(o);
    got_grads.push_back(device.is_cpu() ? g : g.to(device));
  }
  try {
    autograd::backward(ref_targets, ref_grads);
  } catch (const std::exception& e) {
    return fail(r, fmt::format("the CPU reference backward threw: {}", e.what()));
  }
  try {
    EnvGuard env(c, device);
    autograd::backward(got_targets, got_grads);
  } catch (const NotImplementedForDevice& e) {
    return not_implemented(r, e.what());
  } catch (const std::exception& e) {
    return fail(r, fmt::format("backward threw {}", e.what()));
  }
  const double s = kGradTolScale * c.tol * (device.is_cpu() ? 1.0 : c.device_tol);
  for (size_t i = 0; i < p.test.size(); ++i) {
    if (!p.test[i].requires_grad()) continue;
    Tensor gg = p.test[i].grad(), rg = p.ref[i].grad();
    if (gg.defined() != rg.defined())
      return fail(r, fmt::format("grad of input {}: {} vs reference {}", i, gg.defined() ? "defined" : "undefined",
                                 rg.defined() ? "defined" : "undefined"));
    if (!gg.defined()) continue;
    Tensor g_cpu;
    try {
      g_cpu = gg.cpu();
    } catch (const NotImplementedForDevice& e) {
      return not_implemented(r, e.what());
    }
    // A gradient is as precise as the least precise floating output it flowed through (softmax(x, dtype=float32)
    // of a float64 x has a float32-accurate gradient).
    Tol tol = dtype_tol(g_cpu.dtype());
    for (const Tensor& o : got_targets) {
      if (is_floating_point(o.dtype())) tol = {std::max(tol.rtol, dtype_tol(o.dtype()).rtol), std::max(tol.atol, dtype_tol(o.dtype()).atol)};
    }
    std::string msg = compare_tensors(g_cpu, as_expected(rg, g_cpu), scaled(tol, s), Compare::Values);
    if (!msg.empty()) return fail(r, fmt::format("grad of input {}: {}", i, msg));
  }
  return r;
}

Result run_gradcheck(const Case& c) {
  Result r = start(c, kFloat64, Layout::Contiguous, kCPU, "gradcheck");
  r.status = Status::Skip;
  bool has_float = false;
  for (Dtype d : c.dtypes) has_float |= is_floating_point(d);
  bool special = false;  // NaN/inf inputs: finite differences are meaningless there
  for (const Input& in : c.inputs) special |= in.gen == Gen::Special;
  if (!c.grad || !c.gradcheck || !has_float || special || c.compare != Compare::Values) return r;
  Tensors x = generate_inputs(c, shapes_of(c), kFloat64, seed_of(c, kFloat64, Layout::Contiguous, "inputs"));
  std::vector<size_t> diff;
  Tensors leaves;
  for (size_t i = 0; i < x.size(); ++i) {
    if (c.inputs[i].grad && x[i].dtype() == kFloat64 && x[i].numel() > 0) {
      x[i] = x[i].detach().requires_grad_();
      diff.push_back(i);
      leaves.push_back(x[i]);
    }
  }
  if (diff.empty()) return r;
  r.status = Status::Pass;
  try {
    Tensors out = c.fn(x);
    Tensors targets, vs;
    std::vector<size_t> target_idx;
    Generator gen(seed_of(c, kFloat64, Layout::Contiguous, "gradcheck"));
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i].defined() || !out[i].is_floating_point() || !out[i].requires_grad()) continue;
      if (out[i].dtype() != kFloat64) {  // a cast to a lower precision (to, dtype=): not finite-differentiable
        r.status = Status::Skip;
        return r;
      }
      targets.push_back(out[i]);
      target_idx.push_back(i);
      vs.push_back((rand(out[i].sizes(), TensorOptions(kFloat64), &gen) + 0.5).to(out[i].dtype()));
    }
    if (targets.empty()) {
      r.status = Status::Skip;
      return r;
    }
    Tensors analytic = autograd::grad(targets, leaves, vs, std::nullopt, false, /*allow_unused=*/true);
    Tensors plain;
    for (const Tensor& t : x) plain.push_back(t.detach().clone().contiguous());
    // sum_k sum(out_k * v_k), and sum_k sum(|out_k * v_k|) (its rounding error scale)
    const auto objective = [&](double* abs_total = nullptr) {
      NoGradGuard ng;
      Tensors o = c.fn(plain);
      double total = 0;
      for (size_t k = 0; k < target_idx.size(); ++k) {
        Tensor terms = mul(o[target_idx[k]], vs[k]);
        total += sum(terms).item<double>();
        if (abs_total) *abs_total += sum(abs(terms)).item<double>();
      }
      return total;
    };
    const double eps = 1e-6, rtol = 1e-4 * c.tol;
    // The difference quotient carries the objective's rounding error divided by eps.
    double abs_total = 0;
    objective(&abs_total);
    const double atol = 1e-5 * c.tol + 10 * 2.2e-16 * abs_total / eps;
    for (size_t k = 0; k < diff.size(); ++k) {
      const size_t i = diff[k];
      Tensor a = analytic[k].defined() ? analytic[k].contiguous() : zeros_like(plain[i]);
      if (a.sizes() != plain[i].sizes()) return fail(r, fmt::format("grad of input {} has the wrong shape", i));
      const double* ap = a.data_ptr<double>();
      double* xp = plain[i].data_ptr<double>();
      // At most 256 elements per input, evenly spread (large-K cases stay fast).
      const int64_t n = plain[i].numel(), step = std::max<int64_t>(1, (n + 255) / 256);
      for (int64_t j = 0; j < n; j += step) {
        const double x0 = xp[j];
        xp[j] = x0 + eps;
        const double fp = objective();
        xp[j] = x0 - eps;
        const double fm = objective();
        xp[j] = x0;
        const double num = (fp - fm) / (2 * eps);
        if (!(std::abs(ap[j] - num) <= atol + rtol * std::abs(num)))
          return fail(r, fmt::format("grad of input {} element {} (x = {}): autograd {}, finite differences {}", i, j, x0,
                                     ap[j], num));
      }
    }
  } catch (const std::exception& e) {
    return fail(r, fmt::format("threw {}", e.what()));
  }
  return r;
}

void run_perf(const Case& c, Device device) {
  if (c.perf_shapes.empty()) return;
  const Dtype dtype = c.dtypes[0];
  const std::string what = fmt::format("{:<34} {:<8} {:<7}", c.label, dtype_name(dtype), device_name(device));
  try {
    NoGradGuard no_grad;
    Tensors x = generate_inputs(c, c.perf_shapes, dtype, seed_of(c, dtype, Layout::Contiguous, "perf"));
    if (!device.is_cpu())
      for (Tensor& t : x) t = t.to(device);
    double bytes = 0;
    for (const Tensor& t : x) bytes += static_cast<double>(t.numel() * t.element_size());
    Tensors out;
    for (int w = 0; w < 2; ++w) out = c.fn(x);
    synchronize(device);
    for (const Tensor& t : out)
      if (t.defined()) bytes += static_cast<double>(t.numel() * t.element_size());
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    int reps = 0;
    double elapsed = 0;
    while (reps < 200 && (elapsed < 0.3 || reps < 3)) {
      out = c.fn(x);
      synchronize(device);
      ++reps;
      elapsed = std::chrono::duration<double>(clock::now() - t0).count();
    }
    const double per_call = elapsed / reps;
    if (c.flops) {
      fmt::print("{} {:>10.1f} us  {:>8.2f} GFLOP/s\n", what, per_call * 1e6, c.flops(c.perf_shapes) / per_call * 1e-9);
    } else {
      fmt::print("{} {:>10.1f} us  {:>8.2f} GB/s\n", what, per_call * 1e6, bytes / per_call * 1e-9);
    }
  } catch (const NotImplementedForDevice&) {
    fmt::print("{} n/i\n", what);
  } catch (const std::exception& e) {
    fmt::print("{} error: {}\n", what, e.what());
  }
}

}  // namespace adept::backend_ops
