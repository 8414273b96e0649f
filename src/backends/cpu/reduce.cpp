// CPU reductions. Two strategies:
//  - inner: the innermost input dim is reduced: each output element (in parallel) folds its
//    reduced sub-block, contiguous runs first;
//  - outer: the innermost dim is kept: rows of the input are folded into an accumulator row per
//    output slice, which keeps memory access sequential (e.g. sum over the batch dim).
// Floating sums accumulate in double (float32 runs: float SIMD lanes per block, see simd.h),
// integer sums in int64. A sum with few outputs over one long contiguous run is split into
// fixed-size blocks summed in parallel and added in order (same result for any thread count).
#include <cmath>
#include <limits>

#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "backends/cpu/simd.h"
#include "kernels/kernels.h"

namespace adept::cpu {
namespace {

template <class T>
struct AccOf {
  using type = std::conditional_t<std::is_floating_point_v<compute_t<T>>, double, int64_t>;
};

// Folds values of type T; acc_t holds the running value. For Arg* ops `index` tracks the position.
template <class T>
struct Folder {
  using C = compute_t<T>;
  using acc_t = typename AccOf<T>::type;
  ReduceOp op;
  acc_t init() const {
    switch (op) {
      case ReduceOp::Sum: case ReduceOp::Any: return acc_t(0);
      case ReduceOp::Prod: case ReduceOp::All: return acc_t(1);
      case ReduceOp::Max: case ReduceOp::ArgMax:
        return std::is_floating_point_v<acc_t> ? -std::numeric_limits<acc_t>::infinity()
                                               : std::numeric_limits<acc_t>::lowest();
      case ReduceOp::Min: case ReduceOp::ArgMin:
        return std::is_floating_point_v<acc_t> ? std::numeric_limits<acc_t>::infinity()
                                               : std::numeric_limits<acc_t>::max();
    }
    return acc_t(0);
  }
  static bool is_nan(acc_t v) {
    if constexpr (std::is_floating_point_v<acc_t>) return std::isnan(v); else return false;
  }
  // Returns true when `v` replaces the current best (for Arg ops).
  inline void fold(acc_t& acc, T raw, int64_t idx, int64_t& best) const {
    acc_t v = static_cast<acc_t>(static_cast<C>(raw));
    switch (op) {
      case ReduceOp::Sum: acc += v; break;
      case ReduceOp::Prod: acc *= v; break;
      case ReduceOp::All: acc = acc && (v != acc_t(0)); break;
      case ReduceOp::Any: acc = acc || (v != acc_t(0)); break;
      case ReduceOp::Max: if (!is_nan(acc) && (v > acc || is_nan(v))) acc = v; break;
      case ReduceOp::Min: if (!is_nan(acc) && (v < acc || is_nan(v))) acc = v; break;
      case ReduceOp::ArgMax:
        if (best < 0 || (!is_nan(acc) && (v > acc || is_nan(v)))) { acc = v; best = idx; }
        break;
      case ReduceOp::ArgMin:
        if (best < 0 || (!is_nan(acc) && (v < acc || is_nan(v)))) { acc = v; best = idx; }
        break;
    }
  }
  inline void store(char* out, acc_t acc, int64_t best) const {
    if (op == ReduceOp::ArgMax || op == ReduceOp::ArgMin) {
      *reinterpret_cast<int64_t*>(out) = best;
    } else if (op == ReduceOp::All || op == ReduceOp::Any) {
      *reinterpret_cast<bool*>(out) = acc != acc_t(0);
    } else {
      *reinterpret_cast<T*>(out) = convert<T>(static_cast<C>(acc));
    }
  }
};

struct Dims {
  std::vector<int64_t> sizes, in_strides, out_strides;  // bytes
};

// Splits the input dims into kept and reduced groups, each coalesced.
void split_dims(const Tensor& out, const Tensor& in, uint64_t mask, Dims& kept, Dims& red) {
  const int64_t ies = static_cast<int64_t>(in.element_size()), oes = static_cast<int64_t>(out.element_size());
  for (int64_t d = 0; d < in.dim(); ++d) {
    int64_t size = in.size(d);
    if (size == 1) continue;
    bool reduced = (mask >> d) & 1;
    Dims& g = reduced ? red : kept;
    int64_t is = in.stride(d) * ies, os = reduced ? 0 : out.stride(d) * oes;
    if (!g.sizes.empty() && g.in_strides.back() == is * size && g.out_strides.back() == os * size) {
      g.sizes.back() *= size;
      g.in_strides.back() = is;
      g.out_strides.back() = os;
    } else {
      g.sizes.push_back(size);
      g.in_strides.push_back(is);
      g.out_strides.push_back(os);
    }
  }
}

int64_t prod(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Offset (bytes) of linear index `lin` in a dim group.
inline void offsets(const Dims& g, int64_t lin, int64_t& in_off, int64_t& out_off) {
  in_off = out_off = 0;
  for (int64_t d = static_cast<int64_t>(g.sizes.size()) - 1; d >= 0; --d) {
    int64_t i = lin % g.sizes[d];
    lin /= g.sizes[d];
    in_off += i * g.in_strides[d];
    out_off += i * g.out_strides[d];
  }
}

// Sum of n contiguous values in the accumulator type.
template <class T>
typename AccOf<T>::type sum_run(const T* q, int64_t n) {
  using acc_t = typename AccOf<T>::type;
  if constexpr (std::is_same_v<T, float>) {
    return simd::sum_f32(q, n);
  } else {
    acc_t s[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      for (int k = 0; k < 4; ++k) s[k] += static_cast<acc_t>(static_cast<compute_t<T>>(q[i + k]));
    }
    for (; i < n; ++i) s[0] += static_cast<acc_t>(static_cast<compute_t<T>>(q[i]));
    return (s[0] + s[1]) + (s[2] + s[3]);
  }
}

// Values per block of a split sum, and the output count below which sums are split: both fixed,
// so the result does not depend on the thread count.
constexpr int64_t kSumSplitBlock = 65536;
constexpr int64_t kSumSplitMaxOutputs = 16;

// Sum over one contiguous reduced run of `n_red` values per output, for fewer outputs than threads
// (e.g. a full reduction): blocks of each run are summed in parallel, then added in order.
template <class T>
void reduce_split_sum(const Folder<T>& f, const Tensor& out, const Tensor& in, const Dims& kept, int64_t n_red) {
  using acc_t = typename AccOf<T>::type;
  const char* in_base = static_cast<const char*>(in.data_ptr());
  char* out_base = static_cast<char*>(out.data_ptr());
  const int64_t n_out = prod(kept.sizes), n_blocks = (n_red + kSumSplitBlock - 1) / kSumSplitBlock;
  std::vector<acc_t> partial(n_out * n_blocks);
  const int nt = num_threads_for(n_out * n_red);
#pragma omp parallel for num_threads(nt) schedule(static) collapse(2)
  for (int64_t o = 0; o < n_out; ++o) {
    for (int64_t b = 0; b < n_blocks; ++b) {
      int64_t in_off, out_off;
      offsets(kept, o, in_off, out_off);
      const T* q = reinterpret_cast<const T*>(in_base + in_off) + b * kSumSplitBlock;
      partial[o * n_blocks + b] = sum_run(q, std::min(kSumSplitBlock, n_red - b * kSumSplitBlock));
    }
  }
  for (int64_t o = 0; o < n_out; ++o) {
    int64_t in_off, out_off;
    offsets(kept, o, in_off, out_off);
    acc_t acc = 0;
    for (int64_t b = 0; b < n_blocks; ++b) acc += partial[o * n_blocks + b];
    f.store(out_base + out_off, acc, 0);
  }
}

// Reduced runs up to this long take reduce_inner's short-run loop.
constexpr int64_t kShortRun = 64;

template <class T>
void reduce_inner(const Folder<T>& f, const Tensor& out, const Tensor& in, const Dims& kept, const Dims& red) {
  const char* in_base = static_cast<const char*>(in.data_ptr());
  char* out_base = static_cast<char*>(out.data_ptr());
  const int64_t n_out = prod(kept.sizes), n_red = prod(red.sizes);
  const int nr = static_cast<int>(red.sizes.size());
  const int64_t inner = nr ? red.sizes[nr - 1] : 1;
  const int64_t inner_stride = nr ? red.in_strides[nr - 1] : 0;
  int nt = num_threads_for(n_out * n_red);
  // One short contiguous run per output (a softmax over 16 bins, a box's 4 coordinates): a plain loop
  // per op, chosen once, instead of the per-element fold (sums in the accumulator type, like sum_run).
  if (nr == 1 && inner_stride == sizeof(T) && inner <= kShortRun &&
      (f.op == ReduceOp::Sum || f.op == ReduceOp::Max || f.op == ReduceOp::Min)) {
    using acc_t = typename Folder<T>::acc_t;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t o = 0; o < n_out; ++o) {
      int64_t in_off, out_off;
      offsets(kept, o, in_off, out_off);
      const T* q = reinterpret_cast<const T*>(in_base + in_off);
      acc_t acc = f.init();
      auto value = [q](int64_t i) { return static_cast<acc_t>(static_cast<compute_t<T>>(q[i])); };
      if (f.op == ReduceOp::Sum) {
        for (int64_t i = 0; i < inner; ++i) acc += value(i);
      } else {  // the first largest (smallest) value, NaN if there is one: the fold's result
        bool nan = false;
        if (f.op == ReduceOp::Max) {
          for (int64_t i = 0; i < inner; ++i) acc = value(i) > acc ? value(i) : acc, nan |= Folder<T>::is_nan(value(i));
        } else {
          for (int64_t i = 0; i < inner; ++i) acc = value(i) < acc ? value(i) : acc, nan |= Folder<T>::is_nan(value(i));
        }
        if constexpr (std::is_floating_point_v<acc_t>) {
          if (nan) acc = std::numeric_limits<acc_t>::quiet_NaN();
        }
      }
      f.store(out_base + out_off, acc, -1);
    }
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t o = 0; o < n_out; ++o) {
    int64_t in_off, out_off;
    offsets(kept, o, in_off, out_off);
    auto acc = f.init();
    int64_t best = -1;
    for (int64_t r = 0; r < n_red; r += inner) {
      int64_t roff, unused;
      offsets(red, r, roff, unused);
      const char* p = in_base + in_off + roff;
      if (inner_stride == sizeof(T) && f.op == ReduceOp::Sum) {
        acc += sum_run(reinterpret_cast<const T*>(p), inner);
      } else {
        for (int64_t i = 0; i < inner; ++i) f.fold(acc, *reinterpret_cast<const T*>(p + i * inner_stride), r + i, best);
      }
    }
    f.store(out_base + out_off, acc, best);
  }
}

template <class T>
void reduce_outer(const Folder<T>& f, const Tensor& out, const Tensor& in, const Dims& kept, const Dims& red) {
  // kept's innermost dim is the input's innermost: fold row by row into an accumulator row.
  using acc_t = typename Folder<T>::acc_t;
  const char* in_base = static_cast<const char*>(in.data_ptr());
  char* out_base = static_cast<char*>(out.data_ptr());
  const int nk = static_cast<int>(kept.sizes.size());
  const int64_t row = kept.sizes[nk - 1];
  const int64_t row_in_stride = kept.in_strides[nk - 1], row_out_stride = kept.out_strides[nk - 1];
  Dims outer_kept{{kept.sizes.begin(), kept.sizes.end() - 1},
                  {kept.in_strides.begin(), kept.in_strides.end() - 1},
                  {kept.out_strides.begin(), kept.out_strides.end() - 1}};
  const int64_t n_outer = prod(outer_kept.sizes), n_red = prod(red.sizes);
  int nt = num_threads_for(n_outer * n_red * row);
  // Parallelise over outer kept slices, or over chunks of the row when there is only one slice.
  const int64_t row_chunks = n_outer >= nt ? 1 : nt;
  const int64_t chunk = (row + row_chunks - 1) / row_chunks;
#pragma omp parallel for num_threads(nt) schedule(static) collapse(2)
  for (int64_t o = 0; o < n_outer; ++o) {
    for (int64_t c = 0; c < row_chunks; ++c) {
      int64_t b = c * chunk, e = std::min(row, b + chunk);
      if (b >= e) continue;
      int64_t in_off, out_off;
      offsets(outer_kept, o, in_off, out_off);
      std::vector<acc_t> acc(e - b, f.init());
      for (int64_t r = 0; r < n_red; ++r) {
        int64_t roff, unused;
        offsets(red, r, roff, unused);
        const char* p = in_base + in_off + roff;
        int64_t best = 0;
        for (int64_t i = b; i < e; ++i) f.fold(acc[i - b], *reinterpret_cast<const T*>(p + i * row_in_stride), r, best);
      }
      for (int64_t i = b; i < e; ++i) f.store(out_base + out_off + i * row_out_stride, acc[i - b], 0);
    }
  }
}

void reduce_cpu(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t mask) {
  if (out.numel() == 0) return;
  Dims kept, red;
  split_dims(out, in, mask, kept, red);
  ADEPT_DISPATCH_ALL(in.dtype(), "reduce", [&] {
    Folder<scalar_t> f{op};
    bool arg = op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
    bool inner_reduced = kept.sizes.empty() ||
                         (!red.sizes.empty() && std::abs(red.in_strides.back()) <= std::abs(kept.in_strides.back()));
    const bool one_contiguous_run = red.sizes.size() == 1 && red.in_strides[0] == sizeof(scalar_t);
    if (op == ReduceOp::Sum && one_contiguous_run && prod(kept.sizes) < kSumSplitMaxOutputs &&
        red.sizes[0] >= 2 * kSumSplitBlock) {
      reduce_split_sum(f, out, in, kept, red.sizes[0]);
    } else if (arg || inner_reduced || in.numel() == 0) {
      reduce_inner(f, out, in, kept, red);
    } else {
      reduce_outer(f, out, in, kept, red);
    }
  });
}

}  // namespace

ADEPT_REGISTER_KERNEL(reduce_kernel, CPU, reduce_cpu)

}  // namespace adept::cpu
