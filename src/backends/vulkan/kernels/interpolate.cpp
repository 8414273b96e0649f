// Vulkan kernels of interpolate (kernels/interpolate.h): each resampled axis is one gather pass of
// shaders/resample.comp over a list of (input position, weight) entries per output position, built here
// from the op's taps and uploaded as small device tensors.
// Forward: the width taps, then the height taps, through a float (double for float64) temporary, which
// sums in the CPU kernel's order. Backward: the same passes over the inverted taps (for each input
// position, the (output position, weight) pairs that read it, in output order), height first, so each
// grad_in element is summed by one invocation in a fixed order: deterministic, no atomics.
#include "backends/vulkan/launch.h"
#include "kernels/interpolate.h"
#include "kernels/pointwise.h"
#include "kernels/tensor_view.h"
#include "kernels/transfer.h"

namespace adept::vk {
namespace {

bool float_dtype(int, Dtype d) { return is_floating_point(d); }

// The arithmetic dtype of the passes (the shaders' ACC): float64 for float64, else float32.
Dtype acc_dtype(Dtype d) { return d == kFloat64 ? kFloat64 : kFloat32; }

// One axis as a gather: output position j sums weight[k] * in[src[k]] for k in [offset[j], offset[j + 1]).
struct GatherList {
  int64_t len_in = 0;
  std::vector<int32_t> offset, src;
  std::vector<double> weight;

  int64_t len_out() const { return static_cast<int64_t>(offset.size()) - 1; }
  int64_t longest() const {
    int64_t m = 0;
    for (int64_t j = 0; j < len_out(); ++j) m = std::max<int64_t>(m, offset[j + 1] - offset[j]);
    return m;
  }
  // Output position j is input position j with weight 1 (a pass that can be skipped).
  bool identity() const {
    if (len_in != len_out()) return false;
    for (int64_t j = 0; j < len_out(); ++j) {
      if (offset[j + 1] != j + 1 || src[j] != j || weight[j] != 1.0) return false;
    }
    return true;
  }
};

// The taps as they are: output i reads taps t < taps.
GatherList forward_list(const InterpTaps& t, int64_t len_in) {
  GatherList g;
  g.len_in = len_in;
  const int64_t n_out = static_cast<int64_t>(t.index.size()) / t.taps;
  for (int64_t i = 0; i <= n_out; ++i) g.offset.push_back(static_cast<int32_t>(i * t.taps));
  g.src.assign(t.index.begin(), t.index.end());
  g.weight = t.weight;
  return g;
}

// The transposed taps: input position j gets every (output i, tap t) that reads it, ordered by i then t.
GatherList inverse_list(const InterpTaps& t, int64_t len_in) {
  GatherList g;
  const int64_t n_out = static_cast<int64_t>(t.index.size()) / t.taps;
  g.len_in = n_out;
  g.offset.assign(len_in + 1, 0);
  for (int64_t k : t.index) ++g.offset[k + 1];
  for (int64_t j = 0; j < len_in; ++j) g.offset[j + 1] += g.offset[j];
  std::vector<int32_t> fill(g.offset.begin(), g.offset.end() - 1);
  g.src.resize(t.index.size());
  g.weight.resize(t.index.size());
  for (int64_t e = 0; e < static_cast<int64_t>(t.index.size()); ++e) {
    const int32_t k = fill[t.index[e]]++;
    g.src[k] = static_cast<int32_t>(e / t.taps);
    g.weight[k] = t.weight[e];
  }
  return g;
}

template <class T>
Tensor upload(const std::vector<T>& v, Dtype d, Device dev) {
  Tensor t = kernel_buffer({static_cast<int64_t>(v.size())}, d, dev);
  from_host_kernel().get(dev, "interpolate")(t, v.data());
  return t;
}

// out (outer, len_out, inner) = the gather g over in (outer, len_in, inner), both contiguous. A list
// longer than the driver's loop limit allows is taken in several dispatches that accumulate into out,
// through a compute-type buffer when out is a 16-bit float.
void gather_pass(const Tensor& out, const Tensor& in, const GatherList& g, int64_t inner) {
  const Device dev = out.device();
  const Dtype acc = acc_dtype(in.dtype());
  Tensor offset = upload(g.offset, kInt32, dev), src = upload(g.src, kInt32, dev);
  Tensor weight = acc == kFloat64 ? upload(g.weight, kFloat64, dev)
                                  : upload(std::vector<float>(g.weight.begin(), g.weight.end()), kFloat32, dev);
  Context& ctx = context_of(out);
  const int64_t limit = ctx.info().loop_iteration_limit / 2;
  const int64_t longest = std::max<int64_t>(g.longest(), 1);
  const int64_t per_dispatch = limit > 0 ? std::min(limit, longest) : longest;
  const int64_t dispatches = (longest + per_dispatch - 1) / per_dispatch;
  const Tensor sum = dispatches > 1 && out.dtype() != acc ? kernel_buffer(out.sizes(), acc, dev) : out;
  const Grid2d grid = grid_for(out.numel(), "interpolate");
  const std::string shader = "resample_" + dtype_suffix(sum.dtype()) + "_" + dtype_suffix(in.dtype());
  for (int64_t d = 0; d < dispatches; ++d) {
    struct Push { uint32_t n, inner, len_in, len_out, first, count, accumulate, groups_x; } push{
        static_cast<uint32_t>(out.numel()), static_cast<uint32_t>(inner), static_cast<uint32_t>(g.len_in),
        static_cast<uint32_t>(g.len_out()), static_cast<uint32_t>(d * per_dispatch),
        static_cast<uint32_t>(per_dispatch), d > 0 ? 1u : 0u, grid.x};
    static_assert(sizeof(Push) == 32);
    launch(ctx, "interpolate", shader, {}, storage_offsets({&sum, &in}), {&sum, &in, &offset, &src, &weight}, &push,
           sizeof(push), grid.x, grid.y);
  }
  if (!sum.is_same(out)) copy_kernel().get(dev, "interpolate")(out, sum);
}

// out = second(first(in)), first giving `mid` elements of (outer, len, inner) layout; a pass that is the
// identity is skipped.
void two_passes(const Tensor& out, const Tensor& in, const GatherList& first, int64_t first_inner,
                const Shape& mid, const GatherList& second, int64_t second_inner) {
  for (const Tensor* t : {&out, &in}) check_index_range(*t, "interpolate");
  if (!is_floating_point(in.dtype())) {
    throw NotImplementedForDevice(fmt::format("interpolate: dtype {} is not implemented for device 'vulkan'",
                                              dtype_name(in.dtype())));
  }
  if (out.numel() == 0) return;
  const bool skip_first = first.identity(), skip_second = second.identity();
  if (skip_first && skip_second) {
    copy_kernel().get(out.device(), "interpolate")(out, in);
  } else if (skip_first) {
    gather_pass(out, in, second, second_inner);
  } else if (skip_second) {
    gather_pass(out, in, first, first_inner);
  } else {
    Tensor tmp = kernel_buffer(mid, acc_dtype(in.dtype()), in.device());
    gather_pass(tmp, in, first, first_inner);
    gather_pass(out, tmp, second, second_inner);
  }
}

void interpolate_vk(const Tensor& out, const Tensor& in, const InterpTaps& h, const InterpTaps& w) {
  const int64_t P = in.size(0), H = in.size(1), W = in.size(2), Wo = out.size(2);
  two_passes(out, in, forward_list(w, W), 1, {P, H, Wo}, forward_list(h, H), Wo);
}

void interpolate_backward_vk(const Tensor& grad_in, const Tensor& grad_out, const InterpTaps& h,
                             const InterpTaps& w) {
  const int64_t P = grad_in.size(0), H = grad_in.size(1), W = grad_in.size(2), Wo = grad_out.size(2);
  two_passes(grad_in, grad_out, inverse_list(h, H), Wo, {P, H, Wo}, inverse_list(w, W), 1);
}

}  // namespace

ADEPT_REGISTER_KERNEL_SUPPORTING(interpolate_kernel, Vulkan, interpolate_vk, float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(interpolate_backward_kernel, Vulkan, interpolate_backward_vk, float_dtype)

}  // namespace adept::vk
