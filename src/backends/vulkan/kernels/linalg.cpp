// Vulkan kernel for batched matmul (shaders/matmul.comp, matmul_coopmat.comp).
#include <cstdlib>

#include "backends/vulkan/launch.h"
#include "kernels/linalg.h"
#include "kernels/pointwise.h"
#include "kernels/tensor_view.h"

namespace adept::vk {
namespace {

// Row- or column-major with 8-element aligned offset and leading dim (what coopMatLoadNV needs).
bool fragment_loadable(const Tensor& t, bool& col_major, int64_t& ld) {
  int64_t r = t.stride(1), c = t.stride(2);
  if (c == 1 && r % 8 == 0 && r >= t.size(2)) { col_major = false; ld = r; }
  else if (r == 1 && c % 8 == 0 && c >= t.size(1)) { col_major = true; ld = c; }
  else return false;
  return t.storage_offset() % 8 == 0 && (t.size(0) == 1 || t.stride(0) % 8 == 0);
}

// float16 on tensor cores when the device and the operand layouts allow it (see matmul_coopmat.comp).
bool try_coopmat(const Tensor& out, const Tensor& a, const Tensor& b) {
  Context& ctx = context_of(out);
  const int64_t M = out.size(1), N = out.size(2), K = a.size(2);
  if (!ctx.info().cooperative_matrix || out.dtype() != kFloat16 || M % 16 || N % 16 || K % 16) return false;
  bool a_col, b_col, c_col;
  int64_t a_ld, b_ld, c_ld;
  if (!fragment_loadable(a, a_col, a_ld) || !fragment_loadable(b, b_col, b_ld) || !fragment_loadable(out, c_col, c_ld) ||
      c_col) {
    return false;
  }
  std::vector<int32_t> meta;
  for (auto [t, ld] : {std::pair{&a, a_ld}, std::pair{&b, b_ld}, std::pair{&out, c_ld}}) {
    meta.push_back(static_cast<int32_t>(t->storage_offset()));
    meta.push_back(static_cast<int32_t>(t->stride(0)));
    meta.push_back(static_cast<int32_t>(ld));
  }
  struct Push { uint32_t M, N, K, pad; } push{static_cast<uint32_t>(M), static_cast<uint32_t>(N), static_cast<uint32_t>(K), 0};
  // 128-row tiles where there are rows for them and their double-buffered shared tiles fit (at most 2 x 2 x
  // 128 x 40 halves, padded rows), else 64 rows.
  // ADEPT_VK_COOPMAT_TILE_M=64|128 forces one (tile sweeps: bench/vulkan/h200_gemm.sh).
  static const int forced = [] {
    const char* e = std::getenv("ADEPT_VK_COOPMAT_TILE_M");
    return e ? std::atoi(e) : 0;
  }();
  uint32_t bm = M > 64 && ctx.info().max_shared_memory >= 2 * 2 * 128 * 40 * 2 ? 128 : 64;
  if (forced == 64 || (forced == 128 && ctx.info().max_shared_memory >= 2 * 2 * 128 * 40 * 2)) bm = forced;
  const uint32_t gx = (push.N + 127) / 128, gy = (push.M + bm - 1) / bm, gz = static_cast<uint32_t>(out.size(0));
  launch(ctx, "matmul", bm == 128 ? "matmul_coopmat_m128_f16" : "matmul_coopmat_m64_f16", {a_col ? 1 : 0, b_col ? 1 : 0},
         meta, {&out, &a, &b}, &push, sizeof(push), gx, gy, gz);
  return true;
}

// The matmul shader exists for the floating dtypes (float64 needs the device's shaderFloat64).
bool matmul_dtype(int, Dtype d) { return is_floating_point(d); }

void bmm_vk(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (!matmul_dtype(-1, out.dtype())) {
    throw NotImplementedForDevice(fmt::format("matmul: dtype {} is not implemented for device 'vulkan' (the "
                                              "floating dtypes are)", dtype_name(out.dtype())));
  }
  if (out.numel() == 0) return;
  for (const Tensor* t : {&out, &a, &b}) check_index_range(*t, "matmul");
  if (a.size(2) == 0) {
    fill_kernel().get(out.device(), "matmul")(out, 0);
    return;
  }
  // Drivers with a loop limit (llvmpipe) get K in slices, accumulated into `out`.
  const uint32_t limit = context_of(out).info().loop_iteration_limit;
  const int64_t k_max = static_cast<int64_t>(limit) / 64 * 16;  // ~32 loop steps per 16-deep K tile, half budget
  if (limit && a.size(2) > k_max) {
    Tensor part = kernel_buffer(out.sizes(), out.dtype(), out.device());
    for (int64_t k0 = 0; k0 < a.size(2); k0 += k_max) {
      int64_t len = std::min(k_max, a.size(2) - k0);
      bmm_vk(k0 == 0 ? out : part, narrow_view(a, 2, k0, len), narrow_view(b, 1, k0, len));
      if (k0 > 0) binary_kernel().get(out.device(), "matmul")(BinaryOp::Add, out, out, part);
    }
    return;
  }
  if (try_coopmat(out, a, b)) return;
  std::string shader = "matmul_" + dtype_suffix(out.dtype());
  std::vector<int32_t> meta;
  for (const Tensor* t : {&a, &b, &out}) {
    meta.push_back(static_cast<int32_t>(t->storage_offset()));
    for (int d = 0; d < 3; ++d) meta.push_back(static_cast<int32_t>(t->stride(d)));
  }
  // meta order expected by the shader: a(off, sb, sm, sk), b(off, sb, sk, sn), c(off, sb, sm, sn)
  struct Push { uint32_t M, N, K, a_k_major; } push{static_cast<uint32_t>(out.size(1)), static_cast<uint32_t>(out.size(2)),
                                                    static_cast<uint32_t>(a.size(2)), a.stride(2) == 1 ? 1u : 0u};
  static_assert(sizeof(Push) == 16);
  const uint32_t tile = out.dtype() == kFloat64 ? 64 : 128;  // matmul.comp's TM = TN
  uint32_t gx = (push.N + tile - 1) / tile, gy = (push.M + tile - 1) / tile, gz = static_cast<uint32_t>(out.size(0));
  ADEPT_CHECK(gz <= 65535 && gy <= 65535, ValueError, "matmul: batch {} or rows {} too large for one Vulkan dispatch",
              gz, push.M);
  launch(context_of(out), "matmul", shader, {}, meta, {&out, &a, &b}, &push, sizeof(push), gx, gy, gz);
}

}  // namespace

ADEPT_REGISTER_KERNEL_SUPPORTING(bmm_kernel, Vulkan, bmm_vk, matmul_dtype)

}  // namespace adept::vk
