// Cases of include/adept/ops/linalg.h: matmul in all its ranks, mm, bmm, addmm, dot, with a
// large-K (4096) product and FLOP counts for perf mode.
#include "harness.h"

namespace adept::backend_ops {
namespace {

// GPU matrix products may accumulate in another order (and in float16 on cooperative matrices).
constexpr double kMatmulDeviceTol = 10;

// 2 m n k of an (.., m, k) x (.., k, n) product (batch from the first shape).
double matmul_flops(const std::vector<Shape>& s) {
  const Shape& a = s[0];
  const Shape& b = s[1];
  double batch = 1;
  for (size_t i = 0; i + 2 < a.size(); ++i) batch *= static_cast<double>(a[i]);
  return 2.0 * batch * static_cast<double>(a[a.size() - 2]) * static_cast<double>(a.back()) * static_cast<double>(b.back());
}

Case product(const std::string& op, BinaryFn f) {
  return make_case(op, "", {in({}), in({})}, [f](const Tensors& x) -> Tensors { return {f(x[0], x[1])}; }, kFloat)
      .with_device_tol(kMatmulDeviceTol)
      .with_flops(matmul_flops);
}

}  // namespace

void add_linalg_cases(std::vector<Case>& out) {
  add_family(out, product("matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }).perf({{512, 512}, {512, 512}}),
             {{"main", {{4, 6}, {6, 5}}},
              {"batched_broadcast", {{2, 3, 4, 6}, {6, 5}}},
              {"batch_both", {{2, 1, 3, 4}, {3, 4, 2}}},
              {"vec_vec", {{7}, {7}}},
              {"vec_mat", {{4}, {4, 3}}},
              {"mat_vec", {{3, 4}, {4}}},
              {"large_k", {{2, 4096}, {4096, 3}}},
              // Multiples of 16 (float16 on cooperative matrices where the device has them): partial 128-row
              // and 128-column tiles, a half 32-deep K step, the 64-row tile for few rows.
              {"tiles", {{2, 144, 80}, {2, 80, 160}}},
              {"tiles_few_rows", {{48, 96}, {96, 272}}},
              {"empty_k", {{3, 0}, {0, 2}}},
              {"empty_m", {{0, 4}, {4, 2}}}});
  add_family(out, product("mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }).perf({{1024, 1024}, {1024, 1024}}),
             {{"main", {{5, 7}, {7, 3}}}, {"large_k", {{3, 4096}, {4096, 2}}}});
  add_family(out, product("bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }).perf({{16, 256, 256}, {16, 256, 256}}),
             {{"main", {{3, 4, 5}, {3, 5, 2}}}, {"empty_batch", {{0, 4, 5}, {0, 5, 2}}}});
  add_family(out, product("dot", [](const Tensor& a, const Tensor& b) { return dot(a, b); }),
             {{"main", {{9}, {9}}}, {"large_k", {{4096}, {4096}}}, {"empty", {{0}, {0}}}});
  add_family(out,
             make_case("addmm", "", {in({}), in({}), in({})},
                       [](const Tensors& x) -> Tensors { return {addmm(x[0], x[1], x[2], 0.5, 2)}; }, kFloat)
                 .with_device_tol(kMatmulDeviceTol),
             {{"main", {{4, 3}, {4, 5}, {5, 3}}}, {"broadcast_bias", {{3}, {4, 5}, {5, 3}}}});
}

}  // namespace adept::backend_ops
