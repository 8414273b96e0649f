// CPU sort / top-k along the last dim. Rows are independent and spread over OpenMP threads; each
// row is sorted as (value, position) entries, stably, with NaN as the largest value (PyTorch's
// order); top-k uses a partial sort with ties broken by position (the same order).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "kernels/kernels.h"

namespace adept::cpu {
namespace {

// `t` without its last dim (points at element 0 of each row).
Tensor rows_view(const Tensor& t) {
  return restrided(t, Shape(t.sizes().begin(), t.sizes().end() - 1),
                   Shape(t.strides().begin(), t.strides().end() - 1), t.storage_offset());
}

template <class T>
struct Entry {
  T v;
  int64_t i;
};

// Orders one row held in `e`: NaNs (PyTorch: the largest values) are split off first so the
// comparisons stay plain; ties keep their positions. Only the first k entries must be final.
template <class T>
void order_row(std::vector<Entry<T>>& e, bool descending, int64_t k) {
  auto finite_end = e.end();
  if constexpr (std::is_floating_point_v<T>) {
    finite_end = std::stable_partition(e.begin(), e.end(), [](const Entry<T>& a) { return !std::isnan(a.v); });
    if (descending) {  // NaNs lead, in their original order
      int64_t nans = e.end() - finite_end;
      std::rotate(e.begin(), finite_end, e.end());
      if (nans >= k) return;
      auto first = e.begin() + nans;
      auto rest = e.end();
      auto cmp = [](const Entry<T>& a, const Entry<T>& b) { return a.v > b.v || (a.v == b.v && a.i < b.i); };
      if (4 * (k - nans) < rest - first) std::partial_sort(first, first + (k - nans), rest, cmp);
      else std::stable_sort(first, rest, [](const Entry<T>& a, const Entry<T>& b) { return a.v > b.v; });
      return;
    }
  }
  const int64_t m = finite_end - e.begin();
  const int64_t kk = std::min(k, m);
  if (descending) {
    auto cmp = [](const Entry<T>& a, const Entry<T>& b) { return a.v > b.v || (a.v == b.v && a.i < b.i); };
    if (4 * kk < m) std::partial_sort(e.begin(), e.begin() + kk, finite_end, cmp);
    else std::stable_sort(e.begin(), finite_end, [](const Entry<T>& a, const Entry<T>& b) { return a.v > b.v; });
  } else {
    auto cmp = [](const Entry<T>& a, const Entry<T>& b) { return a.v < b.v || (a.v == b.v && a.i < b.i); };
    if (4 * kk < m) std::partial_sort(e.begin(), e.begin() + kk, finite_end, cmp);
    else std::stable_sort(e.begin(), finite_end, [](const Entry<T>& a, const Entry<T>& b) { return a.v < b.v; });
  }
}

void sort_cpu(const Tensor& values, const Tensor& indices, const Tensor& in, bool descending, int64_t topk) {
  const int64_t len = in.size(-1);
  const int64_t k = topk > 0 ? topk : len;
  if (values.numel() == 0 || len == 0) return;
  Tensor vr = rows_view(values), ir = rows_view(indices), xr = rows_view(in);
  const int64_t vs = values.stride(-1), is = indices.stride(-1), xs = in.stride(-1);
  ADEPT_DISPATCH_ALL(in.dtype(), "sort", [&] {
    using acc_t = compute_t<scalar_t>;
    auto it = make_iter<3>({&vr, &ir, &xr});
    auto body = [&](std::array<char*, 3> p, std::array<int64_t, 3> s, int64_t n) {
      std::vector<Entry<acc_t>> e(len);
      for (int64_t r = 0; r < n; ++r) {
        auto* out_v = reinterpret_cast<scalar_t*>(p[0] + r * s[0]);
        auto* out_i = reinterpret_cast<int64_t*>(p[1] + r * s[1]);
        const auto* x = reinterpret_cast<const scalar_t*>(p[2] + r * s[2]);
        for (int64_t j = 0; j < len; ++j) e[j] = {static_cast<acc_t>(x[j * xs]), j};
        order_row(e, descending, k);
        for (int64_t j = 0; j < k; ++j) {
          out_v[j * vs] = x[e[j].i * xs];
          out_i[j * is] = e[j].i;
        }
      }
    };
    for_each_run(it, body, std::max<int64_t>(1, kParallelGrain / (len * 8)));
  });
}

}  // namespace

ADEPT_REGISTER_KERNEL(sort_kernel, CPU, sort_cpu)

}  // namespace adept::cpu
