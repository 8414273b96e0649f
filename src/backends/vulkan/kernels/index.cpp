// Vulkan kernels of the index family: gather, scatter, advanced-index read and write, nonzero
// (shaders/index_read.comp, index_links.comp + index_put.comp, index_nonzero.comp + index_scan.comp).
// Reads are one offset-read shader. Writes (scatter, index_put) are deterministic and follow the CPU's
// order: every destination element is written by one invocation, "=" takes the last value aimed at it and
// "+=" sums them in increasing position order (see shaders/index_put.glsl).
#include <algorithm>
#include <limits>

#include "backends/vulkan/launch.h"
#include "kernels/index.h"
#include "kernels/pointwise.h"
#include "kernels/tensor_view.h"

namespace adept::vk {
namespace {

// Throws ValueError when the storage of `t` has more elements than the shaders' 32-bit indexing
// reaches (offset reads and writes may touch any element of it).
void check_storage_range(const Tensor& t, const char* op) {
  const size_t elems = t.impl()->storage->nbytes() / t.element_size();
  ADEPT_CHECK(elems < static_cast<size_t>(std::numeric_limits<int32_t>::max()), ValueError,
              "{}: a storage of {} elements is too large for the Vulkan backend's 32-bit indexing", op, elems);
}

// out[p] = src[src(p) + offset[p] * mul] (gather with mul = the dim's stride; advanced index with 1).
void read_vk(const char* op, const Tensor& out, const Tensor& src, const Tensor& offset, int64_t mul) {
  if (out.numel() == 0) return;
  check_storage_range(src, op);
  ElementwisePush push;
  push.a[0] = static_cast<uint32_t>(static_cast<int32_t>(mul));
  launch_elementwise(op, "index_read_" + dtype_suffix(out.dtype()), {}, {&out, &src, &offset}, push);
}

// self[self(p) + offset[p] * mul] (=, +=) values[p] over one shape P, in the two passes of
// shaders/index_put.glsl. Positions can collide only across the dims where self's stride is 0.
void put_vk(const char* op, const Tensor& self, const Tensor& values, const Tensor& offset, int64_t mul,
            bool accumulate) {
  if (self.numel() == 0) return;
  check_storage_range(self, op);
  check_index_range(values, op);
  check_index_range(offset, op);
  // I dims (self stride 0), R dims; K: the R dims along which the offsets vary (links depend on them).
  std::vector<int32_t> is, ivs, ios, rs, rss, rvs, ros, ks, kos;
  int64_t n_i = 1, n_r = 1, n_k = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int32_t s = static_cast<int32_t>(self.size(d));
    if (s == 1) continue;
    if (self.stride(d) == 0) {
      is.push_back(s);
      ivs.push_back(static_cast<int32_t>(values.stride(d)));
      ios.push_back(static_cast<int32_t>(offset.stride(d)));
      n_i *= s;
    } else {
      rs.push_back(s);
      rss.push_back(static_cast<int32_t>(self.stride(d)));
      rvs.push_back(static_cast<int32_t>(values.stride(d)));
      ros.push_back(static_cast<int32_t>(offset.stride(d)));
      n_r *= s;
      if (offset.stride(d) != 0) {
        ks.push_back(s);
        kos.push_back(static_cast<int32_t>(offset.stride(d)));
        n_k *= s;
      }
    }
  }
  Context& ctx = context_of(self);
  const int32_t ni = static_cast<int32_t>(is.size()), nr = static_cast<int32_t>(rs.size());
  // Segments of index positions: each pass walks at most one segment, ni + 1 loop steps per position.
  const int64_t limit = ctx.info().loop_iteration_limit;
  const int64_t seg_max = limit ? std::max<int64_t>(1, limit / 2 / (ni + 1)) : n_i;
  const int64_t seg_len = std::min(seg_max, n_i);
  Tensor links = kernel_buffer({n_k * seg_len}, kInt32, self.device());
  std::vector<int32_t> link_meta = {ni, static_cast<int32_t>(ks.size()), static_cast<int32_t>(offset.storage_offset())};
  for (auto* v : {&is, &ios, &ks, &kos}) link_meta.insert(link_meta.end(), v->begin(), v->end());
  // The write pass's metadata for a segment of `seg` positions, whose links lie at keyed coordinate * seg.
  auto put_meta = [&](int64_t seg) {
    std::vector<int32_t> rls(rs.size(), 0);  // link strides: the K dims' row-major strides times seg, 0 elsewhere
    for (int64_t d = nr - 1, stride = seg; d >= 0; --d) {
      if (ros[d] == 0) continue;
      rls[d] = static_cast<int32_t>(stride);
      stride *= rs[d];
    }
    std::vector<int32_t> m = {ni, nr, static_cast<int32_t>(self.storage_offset()),
                              static_cast<int32_t>(values.storage_offset()), static_cast<int32_t>(offset.storage_offset())};
    for (auto* v : {&is, &ivs, &ios, &rs, &rss, &rvs, &ros, &rls}) m.insert(m.end(), v->begin(), v->end());
    return m;
  };
  const std::string shader = "index_put_" + dtype_suffix(self.dtype());
  const std::vector<int32_t> spec = {accumulate ? 1 : 0};
  struct Push { uint32_t s0, seg, n, groups_x; int32_t mul; };
  static_assert(sizeof(Push) == 20);
  for (int64_t s0 = 0; s0 < n_i; s0 += seg_len) {
    const int64_t seg = std::min(seg_len, n_i - s0);
    const Grid2d gl = grid_for(n_k * seg, op), gp = grid_for(n_r * seg, op);
    Push pl{static_cast<uint32_t>(s0), static_cast<uint32_t>(seg), static_cast<uint32_t>(n_k * seg), gl.x,
            static_cast<int32_t>(mul)};
    launch(ctx, op, "index_links_i64", spec, link_meta, {&links, &offset}, &pl, sizeof(pl), gl.x, gl.y);
    Push pp = pl;
    pp.n = static_cast<uint32_t>(n_r * seg);
    pp.groups_x = gp.x;
    launch(ctx, op, shader, spec, put_meta(seg), {&self, &values, &offset, &links}, &pp, sizeof(pp), gp.x, gp.y);
  }
}

// `t` restrided to `shape` with stride 0 along dim: its element at coordinate 0 of dim.
Tensor along_dim_view(const Tensor& t, const Shape& shape, int64_t dim) {
  Shape strides = t.strides();
  strides[dim] = 0;
  return restrided(t, shape, strides, t.storage_offset());
}

void gather_vk(const Tensor& out, const Tensor& x, int64_t dim, const Tensor& index) {
  if (x.dim() == 0) {
    read_vk("gather", out, restrided(x, out.sizes(), Shape(out.dim(), 0), x.storage_offset()), index, 0);
    return;
  }
  read_vk("gather", out, along_dim_view(x, out.sizes(), dim), index, x.stride(dim));
}

void scatter_vk(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  if (index.numel() == 0) return;
  if (self.dim() == 0) {  // as the CPU kernel: src's one element is written (added) once
    const Tensor src0 = restrided(src, {}, {}, src.storage_offset());
    if (add) binary_kernel().get(self.device(), "scatter_add")(BinaryOp::Add, self, self, src0);
    else copy_kernel().get(self.device(), "scatter")(self, src0);
    return;
  }
  put_vk(add ? "scatter_add" : "scatter", along_dim_view(self, index.sizes(), dim), src, index, self.stride(dim), add);
}

void index_vk(const Tensor& out, const Tensor& src, const Tensor& offset) { read_vk("index", out, src, offset, 1); }

void index_put_vk(const Tensor& self, const Tensor& values, const Tensor& offset, bool accumulate) {
  put_vk("index_put", self, values, offset, 1, accumulate);
}

// Block counts, their prefix sums, then the coordinates (see shaders/index_nonzero.comp).
void nonzero_vk(const Tensor& out, const Tensor& in) {
  if (in.numel() == 0 || out.size(0) == 0) return;
  const Tensor x = contiguous_buffer(in);
  const Tensor o = out.is_contiguous() ? out : kernel_buffer(out.sizes(), kInt64, out.device());
  check_index_range(x, "nonzero");
  check_index_range(o, "nonzero");
  Context& ctx = context_of(out);
  const int64_t nd = in.dim(), numel = in.numel();
  // Each block costs an invocation about block * (ndim + 2) loop steps; the scan 2 * blocks / 256.
  const int64_t limit = ctx.info().loop_iteration_limit;
  const int64_t block = limit ? std::clamp<int64_t>(limit / 2 / (nd + 2), 1, 1024) : 1024;
  const int64_t blocks = (numel + block - 1) / block;
  if (limit && 2 * ((blocks + 255) / 256) > limit / 2) {
    throw NotImplementedForDevice(fmt::format("nonzero: {} elements of {} dims are not implemented for device '{}' "
                                              "(its driver cuts shader loops after {} iterations)",
                                              numel, nd, out.device().str(), limit));
  }
  Tensor counts = kernel_buffer({blocks}, kInt32, out.device());
  std::vector<int32_t> meta = {static_cast<int32_t>(nd), static_cast<int32_t>(x.storage_offset()),
                               static_cast<int32_t>(o.storage_offset())};
  for (int64_t s : in.sizes()) meta.push_back(static_cast<int32_t>(s));
  const Grid2d g = grid_for(blocks, "nonzero");
  struct Push { uint32_t numel, block, blocks, groups_x, rows; } push{
      static_cast<uint32_t>(numel), static_cast<uint32_t>(block), static_cast<uint32_t>(blocks), g.x,
      static_cast<uint32_t>(out.size(0))};
  const std::string s = dtype_suffix(in.dtype());
  launch(ctx, "nonzero", "nonzero_count_" + s, {}, meta, {&counts, &x}, &push, sizeof(push), g.x, g.y);
  const uint32_t n = static_cast<uint32_t>(blocks);
  launch(ctx, "nonzero", "index_scan_i32", {}, {0}, {&counts}, &n, sizeof(n), 1);
  launch(ctx, "nonzero", "nonzero_write_" + s, {}, meta, {&o, &x, &counts}, &push, sizeof(push), g.x, g.y);
  if (!o.is_same(out)) copy_kernel().get(out.device(), "nonzero")(out, o);
}

}  // namespace

ADEPT_REGISTER_KERNEL(gather_kernel, Vulkan, gather_vk)
ADEPT_REGISTER_KERNEL(scatter_kernel, Vulkan, scatter_vk)
ADEPT_REGISTER_KERNEL(index_kernel, Vulkan, index_vk)
ADEPT_REGISTER_KERNEL(index_put_kernel, Vulkan, index_put_vk)
ADEPT_REGISTER_KERNEL(nonzero_kernel, Vulkan, nonzero_vk)

}  // namespace adept::vk
