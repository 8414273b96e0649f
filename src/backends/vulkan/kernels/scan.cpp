// Vulkan kernel for inclusive scans, cumsum and cumprod (shaders/scan.comp): one invocation per
// row, in the CPU kernel's sequential order (floats accumulate in float, float64 in double), rows
// longer than the driver's loop limit in chunks that carry the running value between dispatches.
// Integer scans of few long rows (exact in any order: wrap-around addition and multiplication are
// associative) are split into blocks scanned in parallel, then offset by the scan of the block totals.
#include "backends/vulkan/launch.h"
#include "kernels/pointwise.h"
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

// One invocation per row of `dim` (the shader's sequential walk).
void scan_rows(const Tensor& out, const Tensor& in, int64_t dim, bool is_prod) {
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

// `t` with `dim` split into (blocks, len) from position `start` (blocks * len positions).
Tensor blocked(const Tensor& t, int64_t dim, int64_t start, int64_t blocks, int64_t len) {
  Shape sizes = t.sizes(), strides = t.strides();
  const int64_t s = strides[static_cast<size_t>(dim)];
  sizes[static_cast<size_t>(dim)] = len;
  sizes.insert(sizes.begin() + dim, blocks);
  strides.insert(strides.begin() + dim, len * s);
  return restrided(t, sizes, strides, t.storage_offset() + start * s);
}

// Integer scan of long rows: blocks of kBlock positions scanned in parallel (one invocation each), the
// block totals (each block's last value) scanned per row, and block b > 0 combined with total b - 1.
constexpr int64_t kBlock = 64;
void scan_blocked(const Tensor& out, const Tensor& in, int64_t dim, bool is_prod) {
  const int64_t n = in.size(dim), B = n / kBlock, tail = n - B * kBlock;
  scan_rows(blocked(out, dim, 0, B, kBlock), blocked(in, dim, 0, B, kBlock), dim + 1, is_prod);
  if (tail) scan_rows(narrow_view(out, dim, B * kBlock, tail), narrow_view(in, dim, B * kBlock, tail), dim, is_prod);
  // totals (rows..., B): the scan along B of the blocks' last values.
  Tensor last = select_view(blocked(out, dim, 0, B, kBlock), dim + 1, kBlock - 1);
  Tensor totals = kernel_buffer(last.sizes(), out.dtype(), out.device());
  scan_rows(totals, last, dim, is_prod);
  const char* name = is_prod ? "cumprod" : "cumsum";
  const BinaryOp op = is_prod ? BinaryOp::Mul : BinaryOp::Add;
  auto combine = [&](const Tensor& part, const Tensor& total) {  // part (.., k, L) op= total (.., k) over L
    Shape sizes = part.sizes(), strides = total.strides();
    strides.insert(strides.begin() + dim + 1, 0);
    Tensor t = restrided(total, sizes, strides, total.storage_offset());
    binary_kernel().get(out.device(), name)(op, part, part, t);
  };
  if (B > 1) combine(blocked(out, dim, kBlock, B - 1, kBlock), narrow_view(totals, dim, 0, B - 1));
  if (tail) combine(blocked(out, dim, B * kBlock, 1, tail), narrow_view(totals, dim, B - 1, 1));
}

void scan_vk(const Tensor& out, const Tensor& in, int64_t dim, bool is_prod) {
  if (out.numel() == 0) return;
  check_index_range(in, "scan");
  check_index_range(out, "scan");
  const int64_t n = in.size(dim), rows = out.numel() / n;
  const bool exact = in.dtype() == kInt64 || in.dtype() == kInt32;
  if (exact && out.dtype() == in.dtype() && n >= 16 * kBlock && rows < 4096) return scan_blocked(out, in, dim, is_prod);
  scan_rows(out, in, dim, is_prod);
}

}  // namespace

ADEPT_REGISTER_KERNEL(scan_kernel, Vulkan, scan_vk)

}  // namespace adept::vk
