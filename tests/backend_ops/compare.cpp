// Comparison of a backend's result with the reference: dtype, shape, then values (floats within
// tolerance with NaN/inf positions equal; integers and bools exactly).
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner.h"

namespace adept::backend_ops {

Tol dtype_tol(Dtype d) {
  switch (d) {
    case kFloat64: return {1e-10, 1e-12};
    case kFloat32: return {1e-5, 1e-6};
    case kFloat16: return {5e-3, 5e-3};
    case kBFloat16: return {4e-2, 4e-2};
    default: return {0, 0};
  }
}

namespace {

std::string multi_index(const Shape& s, int64_t flat) {
  Shape idx(s.size());
  for (int64_t d = static_cast<int64_t>(s.size()) - 1; d >= 0; --d) {
    idx[d] = s[d] ? flat % s[d] : 0;
    flat = s[d] ? flat / s[d] : 0;
  }
  return fmt::format("[{}]", fmt::join(idx, ", "));
}

std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.detach().to(kFloat64).contiguous();
  const double* p = c.numel() ? c.data_ptr<double>() : nullptr;
  return std::vector<double>(p, p + c.numel());
}

std::string compare_stats(const Tensor& got, const Tensor& ref) {
  if (got.numel() < 2) return "";
  const auto stats = [](const Tensor& t) {
    Tensor f = t.to(kFloat64);
    return std::pair<double, double>{mean(f).item<double>(), adept::std(f).item<double>()};
  };
  auto [gm, gs] = stats(got);
  auto [rm, rs] = stats(ref);
  if (std::abs(gm - rm) > 0.1 * std::max(1.0, std::abs(rm)) || std::abs(gs - rs) > 0.1 * std::max(1.0, rs))
    return fmt::format("statistics differ: mean {} vs {}, std {} vs {}", gm, rm, gs, rs);
  return "";
}

}  // namespace

std::string compare_tensors(const Tensor& got, const Tensor& ref, Tol tol, Compare how) {
  if (got.dtype() != ref.dtype())
    return fmt::format("dtype {} vs reference {}", dtype_name(got.dtype()), dtype_name(ref.dtype()));
  if (got.sizes() != ref.sizes())
    return fmt::format("shape [{}] vs reference [{}]", fmt::join(got.sizes(), ", "), fmt::join(ref.sizes(), ", "));
  if (how == Compare::Meta) return "";
  if (how == Compare::Stats) return compare_stats(got, ref);
  if (!is_floating_point(got.dtype())) {
    Tensor g = got.detach().to(kInt64).contiguous(), r = ref.detach().to(kInt64).contiguous();
    const int64_t* gp = g.numel() ? g.data_ptr<int64_t>() : nullptr;
    const int64_t* rp = r.numel() ? r.data_ptr<int64_t>() : nullptr;
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < g.numel(); ++i)
      if (gp[i] != rp[i] && bad++ == 0) first = i;
    if (!bad) return "";
    return fmt::format("{} of {} values differ; first at {}: {} vs reference {}", bad, g.numel(),
                       multi_index(g.sizes(), first), gp[first], rp[first]);
  }
  const std::vector<double> g = values_of(got), r = values_of(ref);
  double mag = 0;
  for (double v : r)
    if (std::isfinite(v)) mag = std::max(mag, std::abs(v));
  const double atol = tol.atol * std::max(1.0, mag);
  double max_abs = 0, max_rel = 0;
  int64_t bad = 0, first = -1;
  for (size_t i = 0; i < g.size(); ++i) {
    bool ok;
    if (std::isnan(r[i]) || std::isnan(g[i])) {
      ok = std::isnan(r[i]) && std::isnan(g[i]);
    } else if (std::isinf(r[i]) || std::isinf(g[i])) {
      ok = g[i] == r[i];
    } else {
      const double e = std::abs(g[i] - r[i]);
      max_abs = std::max(max_abs, e);
      if (r[i] != 0) max_rel = std::max(max_rel, e / std::abs(r[i]));
      ok = e <= atol + tol.rtol * std::abs(r[i]);
    }
    if (!ok && bad++ == 0) first = static_cast<int64_t>(i);
  }
  if (!bad) return "";
  return fmt::format("{} of {} values differ (max abs err {:.3g}, max rel err {:.3g}, rtol {:.2g}, atol {:.2g}); "
                     "first at {}: {} vs reference {}",
                     bad, g.size(), max_abs, max_rel, tol.rtol, atol, multi_index(got.sizes(), first), g[first],
                     r[first]);
}

}  // namespace adept::backend_ops
