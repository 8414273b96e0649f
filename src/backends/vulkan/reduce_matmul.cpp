// Vulkan kernels for reductions over any dims and batched matmul.
#include "backends/vulkan/launch.h"
#include "ops/kernels.h"

namespace adept::vk {
namespace {

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
  std::vector<int32_t> meta = {static_cast<int32_t>(ks.size()), static_cast<int32_t>(rs.size()),
                               static_cast<int32_t>(in.storage_offset()), static_cast<int32_t>(out.storage_offset())};
  for (auto* v : {&ks, &kis, &kos, &rs, &ris}) meta.insert(meta.end(), v->begin(), v->end());
  std::string in_s = dtype_suffix(in.dtype(), "reduce");
  std::string shader;
  if (op == ReduceOp::ArgMax || op == ReduceOp::ArgMin) shader = "reduce_i64idx_" + in_s;
  else if (op == ReduceOp::All || op == ReduceOp::Any) shader = "reduce_u8_" + in_s;
  else shader = "reduce_" + in_s + "_" + in_s;
  if (in_s == "u8" && (op == ReduceOp::All || op == ReduceOp::Any)) shader = "reduce_u8_u8";
  const uint32_t n_out = static_cast<uint32_t>(out.numel());
  const uint32_t gx = std::min<uint32_t>(n_out, 65535), gy = (n_out + gx - 1) / gx;
  struct Push { uint32_t n_out, n_red, groups_x, pad; } push{n_out, static_cast<uint32_t>(n_red), gx, 0};
  static_assert(sizeof(Push) == 16);
  launch(context_of(out), "reduce", shader, {static_cast<int32_t>(op)}, meta, {&out, &in}, &push, sizeof(push), gx, gy);
}

void bmm_vk(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (out.numel() == 0) return;
  for (const Tensor* t : {&out, &a, &b}) check_index_range(*t, "matmul");
  if (a.size(2) == 0) {
    fill_kernel().get(out.device(), "matmul")(out, 0);
    return;
  }
  std::string shader = "matmul_" + dtype_suffix(out.dtype(), "matmul");
  std::vector<int32_t> meta;
  for (const Tensor* t : {&a, &b, &out}) {
    meta.push_back(static_cast<int32_t>(t->storage_offset()));
    for (int d = 0; d < 3; ++d) meta.push_back(static_cast<int32_t>(t->stride(d)));
  }
  // meta order expected by the shader: a(off, sb, sm, sk), b(off, sb, sk, sn), c(off, sb, sm, sn)
  struct Push { uint32_t M, N, K, pad; } push{static_cast<uint32_t>(out.size(1)), static_cast<uint32_t>(out.size(2)),
                                              static_cast<uint32_t>(a.size(2)), 0};
  static_assert(sizeof(Push) == 16);
  uint32_t gx = (push.N + 63) / 64, gy = (push.M + 63) / 64, gz = static_cast<uint32_t>(out.size(0));
  ADEPT_CHECK(gz <= 65535 && gy <= 65535, ValueError, "matmul: batch {} or rows {} too large for one Vulkan dispatch",
              gz, push.M);
  launch(context_of(out), "matmul", shader, {}, meta, {&out, &a, &b}, &push, sizeof(push), gx, gy, gz);
}

}  // namespace

ADEPT_REGISTER_KERNEL(reduce_kernel, Vulkan, reduce_vk)
ADEPT_REGISTER_KERNEL(bmm_kernel, Vulkan, bmm_vk)

}  // namespace adept::vk
