// Vulkan kernel for reductions over any set of dims (shaders/reduce.comp).
#include "backends/vulkan/launch.h"
#include "kernels/pointwise.h"
#include "kernels/reduce.h"
#include "kernels/tensor_view.h"

namespace adept::vk {
namespace {

void reduce_vk(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t mask);

// Splits a reduction whose per-invocation loop would exceed the driver's loop limit: the largest
// reduced dim is cut into chunks reduced into partials, which are reduced once more.
bool reduce_in_chunks(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t mask, int64_t n_red,
                      int64_t n_red_dims, uint32_t driver_limit) {
  // Each element costs one step of the outer loop and one per reduced dim; keep half the budget.
  const int64_t limit = driver_limit / 2 / (n_red_dims + 1);
  if (driver_limit == 0 || (n_red + 255) / 256 <= limit) return false;
  if (op == ReduceOp::ArgMax || op == ReduceOp::ArgMin) {
    throw NotImplementedForDevice(fmt::format(
        "argmax/argmin over {} elements is not implemented for device '{}' (its driver cuts shader loops after {} "
        "iterations)", n_red, out.device().str(), driver_limit));
  }
  int64_t d = -1;
  for (int64_t k = 0; k < in.dim(); ++k) {
    if (((mask >> k) & 1) && (d < 0 || in.size(k) > in.size(d))) d = k;
  }
  const int64_t rest = n_red / in.size(d);
  const int64_t chunk = std::max<int64_t>(1, static_cast<int64_t>(limit) * 256 / std::max<int64_t>(rest, 1));
  const int64_t n_chunks = (in.size(d) + chunk - 1) / chunk;
  Shape ps = out.sizes();
  ps.insert(ps.begin(), n_chunks);
  Tensor partial = kernel_buffer(ps, out.dtype(), out.device());
  for (int64_t i = 0; i < n_chunks; ++i) {
    int64_t start = i * chunk, len = std::min(chunk, in.size(d) - start);
    reduce_vk(op, select_view(partial, 0, i), narrow_view(in, d, start, len), mask);
  }
  reduce_vk(op, unsqueeze_view(out, 0), partial, 1);
  return true;
}

// Few outputs over many elements: one workgroup per output would leave the GPU nearly idle (a full sum
// of a (16, 8400, 80) tensor ran on one workgroup for 3.7 ms on an H200). Instead one dispatch reduces
// `chunks` consecutive ranges of each output's reduced elements into partials of the output's dtype laid
// out (chunks, out...), and a second reduction folds them in order: fixed split, so results are
// deterministic. Arg ops (an index per partial) and half dtypes (partials would round to 16 bits) keep
// the single pass. Returns the number of chunks (1: no split).
int64_t parallel_chunks(ReduceOp op, Dtype dtype, int64_t n_out, int64_t n_red, int64_t n_red_dims,
                        uint32_t driver_limit) {
  if (op == ReduceOp::ArgMax || op == ReduceOp::ArgMin || dtype == kFloat16 || dtype == kBFloat16) return 1;
  constexpr int64_t kTargetGroups = 2048, kMinChunk = 4096;
  if (n_out >= kTargetGroups / 2 || n_red < 4 * kMinChunk) return 1;
  int64_t chunks = std::min((kTargetGroups + n_out - 1) / n_out, n_red / kMinChunk);
  int64_t len = (n_red + chunks - 1) / chunks;
  if (driver_limit) {  // each invocation loops len / 256 times over (n_red_dims + 1) loops: half the budget
    const int64_t max_len = std::max<int64_t>(256, static_cast<int64_t>(driver_limit) / 2 / (n_red_dims + 1) * 256);
    len = std::min(len, max_len);
  }
  return (n_red + len - 1) / len;
}

void reduce_vk(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t mask) {
  if (out.numel() == 0) return;
  check_index_range(in, "reduce");
  // meta: [nk, nr, in_off, out_off, kept sizes, kept in-strides, kept out-strides, red sizes, red in-strides]
  std::vector<int32_t> ks, kis, kos, rs, ris;
  int64_t n_red = 1;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if ((mask >> d) & 1) {
      rs.push_back(static_cast<int32_t>(in.size(d)));
      ris.push_back(static_cast<int32_t>(in.stride(d)));
      n_red *= in.size(d);
    } else {
      ks.push_back(static_cast<int32_t>(in.size(d)));
      kis.push_back(static_cast<int32_t>(in.stride(d)));
      kos.push_back(static_cast<int32_t>(out.stride(d)));
    }
  }
  Context& ctx = context_of(out);
  const uint32_t n_out = static_cast<uint32_t>(out.numel());
  const uint32_t limit = ctx.info().loop_iteration_limit;
  // Short reductions with many outputs: one invocation per output instead of one workgroup.
  const bool per_thread = n_red <= 64 && n_out >= 1024;
  const int64_t chunks =
      per_thread ? 1 : parallel_chunks(op, in.dtype(), n_out, n_red, static_cast<int64_t>(rs.size()), limit);
  Tensor partial;  // (chunks, out...) when split
  if (chunks > 1) {
    Shape ps = out.sizes();
    ps.insert(ps.begin(), chunks);
    partial = kernel_buffer(ps, out.dtype(), out.device());
    kos.clear();
    const Tensor first = select_view(partial, 0, 0);
    for (int64_t d = 0; d < in.dim(); ++d) {
      if (!((mask >> d) & 1)) kos.push_back(static_cast<int32_t>(first.stride(d)));
    }
  } else if (!per_thread && reduce_in_chunks(op, out, in, mask, n_red, static_cast<int64_t>(rs.size()), limit)) {
    return;
  }
  const Tensor& dst = chunks > 1 ? partial : out;
  std::vector<int32_t> meta = {static_cast<int32_t>(ks.size()), static_cast<int32_t>(rs.size()),
                               static_cast<int32_t>(in.storage_offset()), static_cast<int32_t>(dst.storage_offset())};
  for (auto* v : {&ks, &kis, &kos, &rs, &ris}) meta.insert(meta.end(), v->begin(), v->end());
  const std::string in_s = dtype_suffix(in.dtype());
  std::string shader;
  if (op == ReduceOp::ArgMax || op == ReduceOp::ArgMin) shader = "reduce_idx_i64_" + in_s;
  else if (op == ReduceOp::All || op == ReduceOp::Any) shader = "reduce_bool_" + in_s;
  else shader = "reduce_" + in_s + "_" + in_s;
  const uint32_t groups = per_thread ? (n_out + 255) / 256 : n_out * static_cast<uint32_t>(chunks);
  const uint32_t gx = std::min<uint32_t>(groups, 65535), gy = (groups + gx - 1) / gx;
  const auto chunk_len = static_cast<uint32_t>(chunks > 1 ? (n_red + chunks - 1) / chunks : n_red);
  struct Push { uint32_t n_out, n_red, groups_x, chunk_len; } push{n_out, static_cast<uint32_t>(n_red), gx, chunk_len};
  static_assert(sizeof(Push) == 16);
  launch(ctx, "reduce", shader, {static_cast<int32_t>(op), per_thread ? 1 : 0}, meta, {&dst, &in}, &push,
         sizeof(push), gx, gy);
  if (chunks > 1) reduce_vk(op, unsqueeze_view(out, 0), partial, 1);
}

}  // namespace

ADEPT_REGISTER_KERNEL(reduce_kernel, Vulkan, reduce_vk)

}  // namespace adept::vk
