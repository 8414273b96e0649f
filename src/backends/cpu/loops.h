// Strided N-d iteration for CPU kernels. Operands (same shape) are described by byte strides;
// dims are coalesced where every operand is contiguous across them, then the index space
// [0, numel) is split among OpenMP threads and walked in runs along the innermost dim.
#pragma once
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "adept/tensor.h"

namespace adept::cpu {

/// Elements below which a loop runs on one thread (thread start-up costs more than it saves).
inline constexpr int64_t kParallelGrain = 32768;

template <int K>
struct StridedIter {
  std::vector<int64_t> sizes;                 // coalesced, outermost first
  std::array<std::vector<int64_t>, K> strides;  // bytes, per operand
  std::array<char*, K> base{};
  int64_t numel = 1;
};

/// Builds the iteration for K same-shaped tensors (operand 0 usually the output).
template <int K>
StridedIter<K> make_iter(const std::array<const Tensor*, K>& ts) {
  StridedIter<K> it;
  const Shape& shape = ts[0]->sizes();
  for (int k = 0; k < K; ++k) it.base[k] = static_cast<char*>(ts[k]->data_ptr());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !it.sizes.empty();
    for (int k = 0; k < K && merge; ++k) {
      int64_t es = static_cast<int64_t>(ts[k]->element_size());
      merge = it.strides[k].back() == ts[k]->strides()[d] * es * shape[d];
    }
    if (merge) {
      it.sizes.back() *= shape[d];
      for (int k = 0; k < K; ++k) {
        it.strides[k].back() = ts[k]->strides()[d] * static_cast<int64_t>(ts[k]->element_size());
      }
    } else {
      it.sizes.push_back(shape[d]);
      for (int k = 0; k < K; ++k) {
        it.strides[k].push_back(ts[k]->strides()[d] * static_cast<int64_t>(ts[k]->element_size()));
      }
    }
  }
  for (int64_t s : shape) it.numel *= s;
  if (it.sizes.empty()) {  // 0-d or all ones: one element
    it.sizes.push_back(1);
    for (int k = 0; k < K; ++k) it.strides[k].push_back(0);
  }
  return it;
}

/// Number of threads for `work` elements of cheap work.
inline int num_threads_for(int64_t work, int64_t grain = kParallelGrain) {
  if (work < 2 * grain || omp_in_parallel()) return 1;
  int64_t t = work / grain;
  int max_t = omp_get_max_threads();
  return static_cast<int>(t < max_t ? t : max_t);
}

/// Runs body(p) for every plane p < P (independent planes of `work_per_plane` elements each), in
/// parallel when the total work is large.
template <class F>
void for_each_plane(int64_t P, int64_t work_per_plane, F body) {
  const int nt = num_threads_for(P * std::max<int64_t>(work_per_plane, 1), kParallelGrain / 8);
  if (nt <= 1) {
    for (int64_t p = 0; p < P; ++p) body(p);
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t p = 0; p < P; ++p) body(p);
}

/// Calls f(ptrs, inner_strides, n) for runs of n elements along the innermost dim, covering the
/// index range [begin, end).
template <int K, class F>
void walk_range(const StridedIter<K>& it, int64_t begin, int64_t end, F& f) {
  const int nd = static_cast<int>(it.sizes.size());
  std::vector<int64_t> idx(nd, 0);
  int64_t rem = begin;
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = rem % it.sizes[d];
    rem /= it.sizes[d];
  }
  std::array<char*, K> ptrs;
  std::array<int64_t, K> inner;
  for (int k = 0; k < K; ++k) {
    ptrs[k] = it.base[k];
    for (int d = 0; d < nd; ++d) ptrs[k] += idx[d] * it.strides[k][d];
    inner[k] = it.strides[k][nd - 1];
  }
  int64_t pos = begin;
  while (pos < end) {
    int64_t n = std::min(it.sizes[nd - 1] - idx[nd - 1], end - pos);
    f(ptrs, inner, n);
    pos += n;
    if (pos >= end) break;
    // advance the multi-index by n along the innermost dim, carrying outward
    idx[nd - 1] += n;
    for (int k = 0; k < K; ++k) ptrs[k] += n * inner[k];
    for (int d = nd - 1; d > 0 && idx[d] == it.sizes[d]; --d) {
      idx[d] = 0;
      idx[d - 1] += 1;
      for (int k = 0; k < K; ++k) ptrs[k] += it.strides[k][d - 1] - it.sizes[d] * it.strides[k][d];
    }
  }
}

/// Runs f over all elements, in parallel when large.
template <int K, class F>
void for_each_run(const StridedIter<K>& it, F f, int64_t grain = kParallelGrain) {
  if (it.numel == 0) return;
  int nt = num_threads_for(it.numel, grain);
  if (nt <= 1) {
    walk_range(it, 0, it.numel, f);
    return;
  }
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num();
    int n = omp_get_num_threads();
    int64_t chunk = (it.numel + n - 1) / n;
    int64_t b = t * chunk, e = std::min(it.numel, b + chunk);
    if (b < e) walk_range(it, b, e, f);
  }
}

/// out[i] = op(a[i]) with Out/In element types; contiguous runs get a plain loop the compiler vectorises.
template <class Out, class In, class Op>
void unary_loop(const Tensor& out, const Tensor& in, Op op) {
  auto it = make_iter<2>({&out, &in});
  for_each_run(it, [&](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t n) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* a = reinterpret_cast<const In*>(p[1]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = op(*reinterpret_cast<const In*>(p[1] + i * s[1]));
      }
    }
  });
}

/// out[i] = op(a[i], b[i]); fast paths for contiguous and for a broadcast scalar operand.
template <class Out, class In, class Op>
void binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, Op op) {
  auto it = make_iter<3>({&out, &a, &b});
  for_each_run(it, [&](std::array<char*, 3> p, std::array<int64_t, 3> s, int64_t n) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* x = reinterpret_cast<const In*>(p[1]);
    const In* y = reinterpret_cast<const In*>(p[2]);
    constexpr int64_t so = sizeof(Out), si = sizeof(In);
    if (s[0] == so && s[1] == si && s[2] == si) {
      for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i]);
    } else if (s[0] == so && s[1] == si && s[2] == 0) {
      const In yv = *y;
      for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], yv);
    } else if (s[0] == so && s[1] == 0 && s[2] == si) {
      const In xv = *x;
      for (int64_t i = 0; i < n; ++i) o[i] = op(xv, y[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = op(*reinterpret_cast<const In*>(p[1] + i * s[1]),
                                                      *reinterpret_cast<const In*>(p[2] + i * s[2]));
      }
    }
  });
}

}  // namespace adept::cpu
