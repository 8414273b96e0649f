// Vulkan kernel for batched matmul (shaders/matmul.comp, matmul_coopmat.comp).
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

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
  // The builds of matmul_coopmat.comp (its @build lines) with their shared tiles' bytes (double-buffered,
  // padded rows, either operand orientation): 128 x 256 tiles where they make at least 128 workgroups, 128 x
  // 128 where there are rows for them, else 64 x 128; each only where its shared tiles fit the device.
  struct Tile { const char* shader; uint32_t bm, bn, shared_bytes; };
  static constexpr Tile kWide{"matmul_coopmat_wide_f16", 128, 256, 36864},
      kLarge{"matmul_coopmat_m128_f16", 128, 128, 40960}, kSmall{"matmul_coopmat_m64_f16", 64, 128, 30720};
  const uint32_t shared = ctx.info().max_shared_memory;
  auto workgroups = [&](const Tile& t) {
    return uint64_t{(push.N + t.bn - 1) / t.bn} * ((push.M + t.bm - 1) / t.bm) * static_cast<uint64_t>(out.size(0));
  };
  Tile tile = kSmall;
  if (M > 64 && shared >= kWide.shared_bytes && workgroups(kWide) >= 128) tile = kWide;
  else if (M > 64 && shared >= kLarge.shared_bytes) tile = kLarge;
  // Tuning sweeps (bench/vulkan/h200_gemm_sweep.sh): ADEPT_VK_COOPMAT_TILE=BMxBN forces the build of that tile,
  // or, for another tile, runs the 128 x 128 build's module with that grid: a variant put in its place by
  // ADEPT_VK_SHADER_DIR, without which another tile would compute a wrong product, so it is refused.
  static const std::string forced = [] {
    const char* e = std::getenv("ADEPT_VK_COOPMAT_TILE");
    return std::string(e ? e : "");
  }();
  if (!forced.empty()) {
    // Digits only on both sides of the x (from_chars takes no sign or space).
    auto number = [](std::string_view v, unsigned& out) {
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
      return !v.empty() && ec == std::errc() && end == v.data() + v.size();
    };
    unsigned fm = 0, fn = 0;
    const std::string_view text = forced;
    const size_t x = text.find('x');
    const bool parsed = x != std::string_view::npos && number(text.substr(0, x), fm) &&
                        number(text.substr(x + 1), fn) && fm && fn && fm % 16 == 0 && fn % 16 == 0;
    ADEPT_CHECK(parsed, ValueError, "matmul: ADEPT_VK_COOPMAT_TILE='{}' is not BMxBN with multiples of 16 (the "
                "built-in tiles: 128x256, 128x128, 64x128)", forced);
    const Tile* builtin = nullptr;
    for (const Tile* t : {&kWide, &kLarge, &kSmall}) {
      if (t->bm == fm && t->bn == fn) builtin = t;
    }
    if (builtin) {
      ADEPT_CHECK(shared >= builtin->shared_bytes, ValueError, "matmul: ADEPT_VK_COOPMAT_TILE={} needs {} bytes of "
                  "shared memory; device {} has {}", forced, builtin->shared_bytes, ctx.info().name, shared);
      tile = *builtin;
    } else {
      const char* dir = std::getenv("ADEPT_VK_SHADER_DIR");
      const std::string module = std::string(dir ? dir : "") + "/" + kLarge.shader + ".spv";
      ADEPT_CHECK(dir && *dir && std::filesystem::is_regular_file(module), ValueError,
                  "matmul: ADEPT_VK_COOPMAT_TILE={} is no built-in tile (128x256, 128x128, 64x128); another tile "
                  "needs its variant module as ADEPT_VK_SHADER_DIR/{}.spv (bench/vulkan/gemm_variants.py)", forced,
                  kLarge.shader);
      tile = Tile{kLarge.shader, fm, fn, 0};
    }
  }
  const uint32_t gx = (push.N + tile.bn - 1) / tile.bn, gy = (push.M + tile.bm - 1) / tile.bm;
  launch(ctx, "matmul", tile.shader, {a_col ? 1 : 0, b_col ? 1 : 0}, meta, {&out, &a, &b}, &push, sizeof(push), gx, gy,
         static_cast<uint32_t>(out.size(0)));
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
  // matmul.comp's tiles: 128 x 128 (64 x 64 for float64, whose shared tiles must fit 32 KiB), or 64 x 64
  // (matmul_t64) where 128-tiles would be fewer than 128 workgroups, too few to fill a large GPU.
  // ADEPT_VK_MATMUL_TILE=64|128 forces one (tests and A/B runs).
  static const std::string forced_env = [] {
    const char* e = std::getenv("ADEPT_VK_MATMUL_TILE");
    return std::string(e ? e : "");
  }();
  ADEPT_CHECK(forced_env.empty() || forced_env == "64" || forced_env == "128", ValueError,
              "matmul: ADEPT_VK_MATMUL_TILE='{}' is neither 64 nor 128", forced_env);
  const int forced = forced_env.empty() ? 0 : std::stoi(forced_env);
  const uint32_t gz = static_cast<uint32_t>(out.size(0));
  auto tiles = [&](uint32_t t) { return uint64_t{(push.N + t - 1) / t} * ((push.M + t - 1) / t) * gz; };
  uint32_t tile = out.dtype() == kFloat64 || (forced != 128 && (forced == 64 || tiles(128) < 128)) ? 64 : 128;
  if (tile == 64 && out.dtype() != kFloat64) shader = "matmul_t64_" + dtype_suffix(out.dtype());
  uint32_t gx = (push.N + tile - 1) / tile, gy = (push.M + tile - 1) / tile;
  ADEPT_CHECK(gz <= 65535 && gy <= 65535, ValueError, "matmul: batch {} or rows {} too large for one Vulkan dispatch",
              gz, push.M);
  launch(context_of(out), "matmul", shader, {}, meta, {&out, &a, &b}, &push, sizeof(push), gx, gy, gz);
}

}  // namespace

ADEPT_REGISTER_KERNEL_SUPPORTING(bmm_kernel, Vulkan, bmm_vk, matmul_dtype)

}  // namespace adept::vk
