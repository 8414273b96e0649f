// CPU kernels of advanced indexing: offset-based read (index) and write (index_put), and the
// nonzero compaction. The op layer turns index tensors into one element-offset tensor, so each
// kernel walks three same-shaped operands.
#include <cstring>
#include <vector>

#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "kernels/kernels.h"

namespace adept::cpu {
namespace {

// Unsigned integer type of `Bytes` bytes: copies move raw elements without caring about the dtype.
template <size_t Bytes> struct RawOf;
template <> struct RawOf<1> { using type = uint8_t; };
template <> struct RawOf<2> { using type = uint16_t; };
template <> struct RawOf<4> { using type = uint32_t; };
template <> struct RawOf<8> { using type = uint64_t; };

template <class F>
void dispatch_raw(size_t bytes, F f) {
  switch (bytes) {
    case 1: f(RawOf<1>::type{}); break;
    case 2: f(RawOf<2>::type{}); break;
    case 4: f(RawOf<4>::type{}); break;
    default: f(RawOf<8>::type{}); break;
  }
}

void index_cpu(const Tensor& out, const Tensor& src, const Tensor& offset) {
  if (out.numel() == 0) return;
  dispatch_raw(out.element_size(), [&](auto tag) {
    using raw_t = decltype(tag);
    auto it = make_iter<3>({&out, &src, &offset});
    for_each_run(it, [&](std::array<char*, 3> p, std::array<int64_t, 3> s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t k = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
        *reinterpret_cast<raw_t*>(p[0] + i * s[0]) = reinterpret_cast<const raw_t*>(p[1] + i * s[1])[k];
      }
    });
  });
}

// One thread: duplicate offsets must give a deterministic result (last write wins, or a full sum).
void index_put_cpu(const Tensor& self, const Tensor& values, const Tensor& offset, bool accumulate) {
  if (self.numel() == 0) return;
  auto it = make_iter<3>({&self, &values, &offset});
  if (!accumulate) {
    dispatch_raw(self.element_size(), [&](auto tag) {
      using raw_t = decltype(tag);
      auto body = [&](std::array<char*, 3> p, std::array<int64_t, 3> s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          int64_t k = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
          reinterpret_cast<raw_t*>(p[0] + i * s[0])[k] = *reinterpret_cast<const raw_t*>(p[1] + i * s[1]);
        }
      };
      walk_range(it, 0, it.numel, body);
    });
    return;
  }
  ADEPT_DISPATCH_ALL(self.dtype(), "index_put", [&] {
    auto body = [&](std::array<char*, 3> p, std::array<int64_t, 3> s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t k = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
        scalar_t* dst = reinterpret_cast<scalar_t*>(p[0] + i * s[0]) + k;
        scalar_t v = *reinterpret_cast<const scalar_t*>(p[1] + i * s[1]);
        if constexpr (std::is_same_v<scalar_t, bool>) *dst = *dst || v;
        else *dst = convert<scalar_t>(static_cast<compute_t<scalar_t>>(*dst) + static_cast<compute_t<scalar_t>>(v));
      }
    };
    walk_range(it, 0, it.numel, body);
  });
}

// Two passes over the same row-major chunks: count the non-zeros of each chunk, then write their
// coordinates at the chunk's prefix-sum position. (A template, not a lambda: OpenMP pragmas
// cannot sit inside the dispatch macro's argument.)
template <class scalar_t>
void nonzero_typed(const Tensor& out, const Tensor& in) {
  const int64_t total = in.numel();
  const Shape sizes = in.sizes();
  const int64_t nd = in.dim();
  int64_t* o = out.data_ptr<int64_t>();
  auto it = make_iter<1>({&in});
  auto is_nz = [](const char* p) {
    return static_cast<compute_t<scalar_t>>(*reinterpret_cast<const scalar_t*>(p)) != compute_t<scalar_t>(0);
  };
  const int nt = num_threads_for(total);
  const int64_t chunk = (total + nt - 1) / nt;
  std::vector<int64_t> counts(nt + 1, 0);
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num();
    const int64_t b = t * chunk, e = std::min(total, b + chunk);
    int64_t c = 0;
    auto count = [&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) c += is_nz(p[0] + i * s[0]);
    };
    if (b < e) walk_range(it, b, e, count);
    counts[t + 1] = c;
#pragma omp barrier
#pragma omp single
    for (int k = 0; k < nt; ++k) counts[k + 1] += counts[k];
    int64_t row = counts[t], pos = b;
    auto write = [&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t n) {
      for (int64_t i = 0; i < n; ++i, ++pos) {
        if (!is_nz(p[0] + i * s[0])) continue;
        int64_t rem = pos;
        for (int64_t d = nd - 1; d >= 0; --d) {
          o[row * nd + d] = rem % sizes[d];
          rem /= sizes[d];
        }
        ++row;
      }
    };
    if (b < e) walk_range(it, b, e, write);
  }
}

void nonzero_cpu(const Tensor& out, const Tensor& in) {
  if (in.numel() == 0 || out.size(0) == 0) return;
  ADEPT_DISPATCH_ALL(in.dtype(), "nonzero", [&] { nonzero_typed<scalar_t>(out, in); });
}

}  // namespace

ADEPT_REGISTER_KERNEL(index_kernel, CPU, index_cpu)
ADEPT_REGISTER_KERNEL(index_put_kernel, CPU, index_put_cpu)
ADEPT_REGISTER_KERNEL(nonzero_kernel, CPU, nonzero_cpu)

}  // namespace adept::cpu
