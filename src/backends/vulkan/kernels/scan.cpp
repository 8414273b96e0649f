// Vulkan kernel for inclusive scans, cumsum and cumprod (shaders/scan.comp): one invocation per
// row, in the CPU kernel's sequential order (floats accumulate in float, float64 in double), rows
// longer than the driver's loop limit in chunks that carry the running value between dispatches.
#include "backends/vulkan/launch.h"
#include "kernels/reduce.h"
#include "kernels/tensor_view.h"

namespace adept::vk {
namespace {

// The dtype of the shader's accumulator (ACC) for input dtype d.
Dtype accumulator_dtype(Dtype d) {
  switch (d) {
    case kFloat64: return kFloat64;
    case kFloat32: case kFloat16: case kBFloat16: return kFloat32;
    case kInt64: return kInt64;
    default: return kInt32;
  }
}

void scan_vk(const Tensor& out, const Tensor& in, int64_t dim, bool is_prod) {
  if (out.numel() == 0) return;
  check_index_range(in, "scan");
  check_index_range(out, "scan");
  const int64_t n = in.size(dim);
  const int64_t rows = out.numel() / n;
  std::vector<int32_t> sizes, in_strides, out_strides;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (d == dim || in.size(d) == 1) continue;
    sizes.push_back(static_cast<int32_t>(in.size(d)));
    in_strides.push_back(static_cast<int32_t>(in.stride(d)));
    out_strides.push_back(static_cast<int32_t>(out.stride(d)));
  }
  std::vector<int32_t> meta = {static_cast<int32_t>(sizes.size()), static_cast<int32_t>(in.storage_offset()),
                               static_cast<int32_t>(out.storage_offset()), static_cast<int32_t>(in.stride(dim)),
                               static_cast<int32_t>(out.stride(dim))};
  for (auto* v : {&sizes, &in_strides, &out_strides}) meta.insert(meta.end(), v->begin(), v->end());
  Tensor carry = kernel_buffer({rows}, accumulator_dtype(in.dtype()), out.device());
  Context& ctx = context_of(out);
  const uint32_t limit = ctx.info().loop_iteration_limit;
  const int64_t chunk = limit ? limit / 2 : n;  // half the driver's budget, the rest for the row's offsets
  const Grid2d grid = grid_2d((rows + 255) / 256);
  const std::string shader = "scan_" + dtype_suffix(in.dtype());
  for (int64_t start = 0; start < n; start += chunk) {
    struct Push { uint32_t n_rows, start, len, groups_x; } push{
        static_cast<uint32_t>(rows), static_cast<uint32_t>(start), static_cast<uint32_t>(std::min(chunk, n - start)),
        grid.x};
    launch(ctx, is_prod ? "cumprod" : "cumsum", shader, {is_prod ? 1 : 0}, meta, {&out, &in, &carry}, &push,
           sizeof(push), grid.x, grid.y);
  }
}

}  // namespace

ADEPT_REGISTER_KERNEL(scan_kernel, Vulkan, scan_vk)

}  // namespace adept::vk
