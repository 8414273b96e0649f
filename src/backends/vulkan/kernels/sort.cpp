// Vulkan kernel for sort / top-k along the last dim (shaders/sort.comp): a bitonic network over
// (key, position) entries, which makes the order stable and total (NaN the largest). Rows padded to
// P <= 2048 entries sort in shared memory in one dispatch; longer rows go through scratch buffers:
// blocks of 2048 sorted in shared memory, then for each merge stage k the steps of distance >= 2048
// one dispatch each and the shorter ones in shared memory. top-k sorts the whole row and writes
// the first k slots.
#include <limits>

#include "backends/vulkan/launch.h"
#include "kernels/reduce.h"
#include "kernels/tensor_view.h"

namespace adept::vk {
namespace {

constexpr int64_t kBlock = 2048;  // entries per workgroup in shared memory (BLOCK in sort.comp)
constexpr uint32_t kDescending = 1, kLoadInput = 2, kWriteOutput = 4;

struct SortPush {
  uint32_t n_rows, len, p, topk;
  uint32_t k_first, k_last, j_first, flags;
  uint32_t groups_x;
};

void sort_vk(const Tensor& values, const Tensor& indices, const Tensor& in, bool descending, int64_t topk) {
  const int64_t len = in.size(-1);
  if (values.numel() == 0 || len == 0) return;
  for (const Tensor* t : {&values, &indices, &in}) check_index_range(*t, "sort");
  const int64_t rows = in.numel() / len;
  int64_t p = 1;
  while (p < len) p *= 2;
  ADEPT_CHECK(rows * p < std::numeric_limits<int32_t>::max(), ValueError,
              "sort: {} rows of {} elements are too many for the Vulkan backend's 32-bit indexing", rows, len);
  Context& ctx = context_of(in);
  const bool key64 = in.dtype() == kFloat64 || in.dtype() == kInt64;
  const uint32_t shared_bytes = static_cast<uint32_t>(kBlock) * (key64 ? 12 : 8);
  if (ctx.info().max_shared_memory < shared_bytes) {
    throw NotImplementedForDevice(fmt::format("sort: needs {} bytes of shared memory, device '{}' has {}", shared_bytes,
                                              in.device().str(), ctx.info().max_shared_memory));
  }
  // meta: [nd, offsets (in, values, indices), last-dim strides, row sizes, row strides of in, values, indices]
  const Tensor* ops[3] = {&in, &values, &indices};
  std::vector<int32_t> meta(7), sizes;
  std::vector<int32_t> strides[3];
  for (int k = 0; k < 3; ++k) {
    meta[1 + k] = static_cast<int32_t>(ops[k]->storage_offset());
    meta[4 + k] = static_cast<int32_t>(ops[k]->stride(-1));
  }
  for (int64_t d = 0; d + 1 < in.dim(); ++d) {
    if (in.size(d) == 1) continue;
    sizes.push_back(static_cast<int32_t>(in.size(d)));
    for (int k = 0; k < 3; ++k) strides[k].push_back(static_cast<int32_t>(ops[k]->stride(d)));
  }
  meta[0] = static_cast<int32_t>(sizes.size());
  meta.insert(meta.end(), sizes.begin(), sizes.end());
  for (auto& s : strides) meta.insert(meta.end(), s.begin(), s.end());

  const std::string shader = "sort_" + dtype_suffix(in.dtype());
  const Grid2d blocks = grid_2d((rows * p + kBlock - 1) / kBlock), pairs = grid_2d((rows * p / 2 + 255) / 256);
  SortPush push{static_cast<uint32_t>(rows), static_cast<uint32_t>(len), static_cast<uint32_t>(p),
                static_cast<uint32_t>(topk > 0 ? topk : len), 2, static_cast<uint32_t>(std::min(p, kBlock)), 1,
                kLoadInput | (descending ? kDescending : 0)};
  auto run = [&](int mode, const Tensor& keys, const Tensor& positions) {
    const Grid2d& g = mode == 0 ? blocks : pairs;
    push.groups_x = g.x;
    launch(ctx, "sort", shader, {mode}, meta, {&values, &indices, &in, &keys, &positions}, &push, sizeof(push), g.x,
           g.y);
  };
  if (p <= kBlock) {  // whole rows in shared memory; the scratch bindings are unused
    push.flags |= kWriteOutput;
    run(0, indices, indices);
    return;
  }
  Tensor keys = kernel_buffer({rows * p}, key64 ? kInt64 : kInt32, in.device());
  Tensor positions = kernel_buffer({rows * p}, kInt32, in.device());
  run(0, keys, positions);
  for (int64_t k = 2 * kBlock; k <= p; k *= 2) {
    push.k_first = push.k_last = static_cast<uint32_t>(k);
    for (int64_t j = k / 2; j >= kBlock; j /= 2) {
      push.j_first = static_cast<uint32_t>(j);
      run(1, keys, positions);
    }
    push.j_first = static_cast<uint32_t>(kBlock / 2);
    push.flags = k == p ? kWriteOutput : 0;
    run(0, keys, positions);
  }
}

}  // namespace

ADEPT_REGISTER_KERNEL(sort_kernel, Vulkan, sort_vk)

}  // namespace adept::vk
