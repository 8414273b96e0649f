// Cases of include/adept/ops/reduce.h: sum/mean/prod, max/min and arg-reductions, var/std/norm,
// logsumexp, all/any, softmax/log_softmax and the cumulative ops, including a large-K (4096)
// reduction.
#include "harness.h"

namespace adept::backend_ops {
namespace {

// GPU reductions may sum in another order.
constexpr double kReduceDeviceTol = 10;

// Shapes of reductions over the last dim or all dims: 3-d, large K, zero-size, 0-d.
const std::vector<ShapeSet> kAllShapes = {{"main", {{3, 4, 5}}}, {"large_k", {{4, 4096}}}, {"empty", {{0, 3}}}, {"0d", {{}}}};
const std::vector<ShapeSet> kNonEmpty = {{"main", {{3, 4, 5}}}, {"large_k", {{4, 4096}}}, {"0d", {{}}}};
const std::vector<ShapeSet> kMain = {{"main", {{3, 4, 5}}}};

void reduce(std::vector<Case>& out, const std::string& op, const std::string& variant, UnaryFn f, Dtypes d, Gen g,
            const std::vector<ShapeSet>& sets, bool grad = true) {
  Case c = make_case(op, variant, {in({}, g)}, [f](const Tensors& x) -> Tensors { return {f(x[0])}; }, std::move(d))
               .with_device_tol(kReduceDeviceTol)
               .perf({{64, 128, 128}});
  if (!grad) c.no_grad();
  add_family(out, c, sets);
}

// Ops returning (values, indices).
void reduce2(std::vector<Case>& out, const std::string& op, const std::string& variant,
             std::function<std::tuple<Tensor, Tensor>(const Tensor&)> f, Dtypes d, const std::vector<ShapeSet>& sets) {
  Case c = make_case(op, variant, {in({}, Gen::Distinct)},
                     [f](const Tensors& x) -> Tensors {
                       auto [v, i] = f(x[0]);
                       return {v, i};
                     },
                     std::move(d))
               .perf({{64, 128, 128}});
  add_family(out, c, sets);
}

}  // namespace

void add_reduce_cases(std::vector<Case>& out) {
  reduce(out, "sum", "", [](const Tensor& x) { return sum(x); }, kAll, Gen::Normal, kAllShapes);
  reduce(out, "sum", "dim", [](const Tensor& x) { return sum(x, {-1}); }, kAll, Gen::Normal, kAllShapes);
  reduce(out, "sum", "dims_keepdim", [](const Tensor& x) { return sum(x, {0, 2}, true); }, kAll, Gen::Normal, kMain);
  reduce(out, "sum", "dtype", [](const Tensor& x) { return sum(x, {1}, false, kFloat32); }, kNum, Gen::Normal, kMain);
  reduce(out, "mean", "", [](const Tensor& x) { return mean(x); }, kFloat, Gen::Normal, kAllShapes);
  reduce(out, "mean", "dim", [](const Tensor& x) { return mean(x, {-1}); }, kFloat, Gen::Normal, kNonEmpty);
  reduce(out, "mean", "dims_keepdim", [](const Tensor& x) { return mean(x, {0, -1}, true); }, kFloat, Gen::Normal, kMain);
  reduce(out, "prod", "", [](const Tensor& x) { return prod(x); }, kNum, Gen::Unit,
         {{"main", {{3, 4, 5}}}, {"empty", {{0, 3}}}, {"0d", {{}}}});
  reduce(out, "prod", "dim", [](const Tensor& x) { return prod(x, 1); }, kNum, Gen::Unit, {{"main", {{3, 4, 5}}}, {"empty", {{0, 3}}}});
  reduce(out, "prod", "keepdim", [](const Tensor& x) { return prod(x, -1, true); }, kNum, Gen::Unit, kMain);
  // max/min/arg-reductions on distinct values (no ties)
  reduce(out, "max", "", [](const Tensor& x) { return max(x); }, kNum, Gen::Distinct, kNonEmpty);
  reduce(out, "min", "", [](const Tensor& x) { return min(x); }, kNum, Gen::Distinct, kNonEmpty);
  reduce2(out, "max", "dim", [](const Tensor& x) { return max(x, 1); }, kNum, {{"main", {{3, 4, 5}}}, {"large_k", {{4, 4096}}}});
  reduce2(out, "min", "dim_keepdim", [](const Tensor& x) { return min(x, -1, true); }, kNum, kMain);
  reduce(out, "amax", "", [](const Tensor& x) { return amax(x, {-1}); }, kNum, Gen::Distinct, kNonEmpty);
  reduce(out, "amax", "dims_keepdim", [](const Tensor& x) { return amax(x, {0, 2}, true); }, kNum, Gen::Distinct, kMain);
  reduce(out, "amin", "", [](const Tensor& x) { return amin(x, {1}); }, kNum, Gen::Distinct, kMain);
  reduce(out, "argmax", "", [](const Tensor& x) { return argmax(x); }, kNum, Gen::Distinct, kNonEmpty, false);
  reduce(out, "argmax", "dim", [](const Tensor& x) { return argmax(x, -1, true); }, kNum, Gen::Distinct, kMain, false);
  reduce(out, "argmin", "", [](const Tensor& x) { return argmin(x); }, kNum, Gen::Distinct, kNonEmpty, false);
  reduce(out, "argmin", "dim", [](const Tensor& x) { return argmin(x, 1); }, kNum, Gen::Distinct, kMain, false);
  // statistics and norms
  reduce(out, "var", "", [](const Tensor& x) { return var(x, {-1}); }, kFloat, Gen::Normal,
         {{"main", {{3, 4, 5}}}, {"large_k", {{4, 4096}}}});
  reduce(out, "var", "biased_dims", [](const Tensor& x) { return var(x, {0, 2}, 0, true); }, kFloat, Gen::Normal, kMain);
  reduce(out, "std", "", [](const Tensor& x) { return adept::std(x, {-1}); }, kFloat, Gen::Normal, kMain);
  reduce(out, "std", "all", [](const Tensor& x) { return adept::std(x); }, kFloat, Gen::Normal, kMain);
  reduce(out, "norm", "", [](const Tensor& x) { return norm(x); }, kFloat, Gen::Normal, kNonEmpty);
  reduce(out, "norm", "p1_dim", [](const Tensor& x) { return norm(x, 1, {-1}); }, kFloat, Gen::Normal, kMain);
  reduce(out, "norm", "p3_keepdim", [](const Tensor& x) { return norm(x, 3, {1}, true); }, kFloat, Gen::Normal, kMain);
  reduce(out, "norm", "inf", [](const Tensor& x) { return norm(x, INFINITY, {-1}); }, kFloat, Gen::Distinct, kMain);
  reduce(out, "norm", "p0", [](const Tensor& x) { return norm(x, 0, {-1}); }, kFloat, Gen::Small, kMain, false);
  reduce(out, "logsumexp", "", [](const Tensor& x) { return logsumexp(x, {-1}); }, kFloat, Gen::Normal,
         {{"main", {{3, 4, 5}}}, {"large_k", {{4, 4096}}}});
  reduce(out, "logsumexp", "dims_keepdim", [](const Tensor& x) { return logsumexp(x, {0, 1}, true); }, kFloat, Gen::Large,
         kMain);
  reduce(out, "all", "", [](const Tensor& x) { return all(x); }, kAll, Gen::Small, kAllShapes, false);
  reduce(out, "all", "dim", [](const Tensor& x) { return all(x, {-1}, true); }, kAll, Gen::Small, kMain, false);
  reduce(out, "any", "", [](const Tensor& x) { return any(x); }, kAll, Gen::Small, kAllShapes, false);
  reduce(out, "any", "dims", [](const Tensor& x) { return any(x, {0, 2}); }, kAll, Gen::Small, kMain, false);
  // softmax family
  reduce(out, "softmax", "", [](const Tensor& x) { return softmax(x, -1); }, kFloat, Gen::Large,
         {{"main", {{3, 4, 5}}}, {"large_k", {{4, 4096}}}, {"empty", {{0, 3}}}, {"0d", {{}}}});
  reduce(out, "softmax", "dim0", [](const Tensor& x) { return softmax(x, 0); }, kFloat, Gen::Normal, kMain);
  reduce(out, "softmax", "dtype", [](const Tensor& x) { return softmax(x, 1, kFloat32); }, kFloat, Gen::Normal, kMain);
  reduce(out, "log_softmax", "", [](const Tensor& x) { return log_softmax(x, -1); }, kFloat, Gen::Large,
         {{"main", {{3, 4, 5}}}, {"large_k", {{4, 4096}}}});
  reduce(out, "log_softmax", "dim1", [](const Tensor& x) { return log_softmax(x, 1); }, kFloat, Gen::Normal, kMain);
  // Many short rows (one invocation per row on Vulkan), and rows with NaN / +-inf.
  for (const char* op : {"softmax", "log_softmax"}) {
    const bool log = std::string(op) == "log_softmax";
    reduce(out, op, "short_rows", [log](const Tensor& x) { return log ? log_softmax(x, -1) : softmax(x, -1); }, kFloat,
           Gen::Normal, {{"main", {{1100, 6}}}, {"dim0", {{6, 1100}}}});
    reduce(out, op, "special", [log](const Tensor& x) { return log ? log_softmax(x, 1) : softmax(x, 1); }, kFloat,
           Gen::Special, {{"main", {{3, 8}}}, {"short_rows", {{1100, 8}}}}, false);
  }
  // cumulative
  reduce(out, "cumsum", "", [](const Tensor& x) { return cumsum(x, -1); }, kNum, Gen::Normal,
         {{"main", {{3, 4, 5}}}, {"large_k", {{2, 4096}}}, {"whole_blocks", {{3, 1024}}}, {"empty", {{0, 3}}},
          {"0d", {{}}}});
  reduce(out, "cumsum", "dim0_dtype", [](const Tensor& x) { return cumsum(x, 0, kFloat32); }, kNum, Gen::Normal, kMain);
  // rows longer than lavapipe's loop limit, scanned in chunks that carry the running value (one
  // dtype per accumulator type; along a strided dim for cumprod)
  reduce(out, "cumsum", "long", [](const Tensor& x) { return cumsum(x, -1, x.dtype()); }, {kFloat32, kFloat64, kInt32, kInt64},
         Gen::Normal, {{"main", {{2, 33000}}}});
  reduce(out, "cumprod", "", [](const Tensor& x) { return cumprod(x, 1); }, kNum, Gen::Unit,
         {{"main", {{3, 4, 5}}}, {"long_dim1", {{2, 33000, 2}}}});
}

}  // namespace adept::backend_ops
