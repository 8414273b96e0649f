// Cases of include/adept/ops/creation.h and random.h. Creation ops take an anchor() input that
// carries the device and dtype; deterministic ones compare values, uninitialised ones shape and
// dtype only, random ones shape, dtype and statistics (mean, std).
#include "harness.h"

namespace adept::backend_ops {
namespace {

TensorOptions like(const Tensor& anchor) { return TensorOptions(anchor.dtype()).set_device(anchor.device()); }

void create(std::vector<Case>& out, const std::string& op, const std::string& variant,
            std::function<Tensor(const Tensor&)> f, Dtypes d = kAll, Compare how = Compare::Values) {
  out.push_back(make_case(op, variant, {anchor()}, [f](const Tensors& x) -> Tensors { return {f(x[0])}; }, std::move(d))
                    .with_compare(how)
                    .no_grad());
}

// Ops on an existing tensor (the *_like family, in-place random fills).
void from_input(std::vector<Case>& out, const std::string& op, const std::string& variant, Shape s,
                std::function<Tensor(const Tensor&)> f, Dtypes d, Compare how) {
  out.push_back(make_case(op, variant, {nograd(std::move(s))}, [f](const Tensors& x) -> Tensors { return {f(x[0])}; },
                          std::move(d))
                    .with_compare(how)
                    .with_layouts({})
                    .no_grad());
}

void deterministic(std::vector<Case>& out) {
  create(out, "zeros", "", [](const Tensor& a) { return zeros({2, 3}, like(a)); });
  create(out, "zeros", "empty", [](const Tensor& a) { return zeros({0, 3}, like(a)); });
  create(out, "ones", "", [](const Tensor& a) { return ones({3, 1, 2}, like(a)); });
  create(out, "full", "", [](const Tensor& a) { return full({2, 2}, 3, like(a)); });
  create(out, "full", "0d", [](const Tensor& a) { return full({}, 1, like(a)); });
  create(out, "scalar_tensor", "", [](const Tensor& a) { return scalar_tensor(2, like(a)); });
  create(out, "arange", "", [](const Tensor& a) { return arange(7, like(a)); }, kNum);
  create(out, "arange", "step", [](const Tensor& a) { return arange(1, 12, 3, like(a)); }, kNum);
  create(out, "arange", "float_step", [](const Tensor& a) { return arange(-1.0, 1.0, 0.25, like(a)); }, kFloat);
  create(out, "linspace", "", [](const Tensor& a) { return linspace(-2, 3, 11, like(a)); }, kFloat);
  create(out, "linspace", "one", [](const Tensor& a) { return linspace(1, 5, 1, like(a)); }, kNum);
  create(out, "eye", "", [](const Tensor& a) { return eye(3, std::nullopt, like(a)); });
  create(out, "eye", "rect", [](const Tensor& a) { return eye(2, 4, like(a)); });
  create(out, "tensor", "", [](const Tensor& a) { return tensor(std::vector<double>{1.5, -2, 0.25}, like(a)); }, kFloat);
  create(out, "tensor", "int", [](const Tensor& a) { return tensor(std::vector<int64_t>{3, -1, 7}, like(a)); }, kNum);
  create(out, "from_blob_copy", "", [](const Tensor& a) {
    const float v[6] = {1, 2, 3, -4, 5.5f, 0};
    return from_blob_copy(v, {2, 3}, kFloat32, a.device());
  }, {kFloat32});
  create(out, "empty", "", [](const Tensor& a) { return empty({2, 5}, like(a)); }, kAll, Compare::Meta);
  create(out, "empty_strided", "", [](const Tensor& a) { return empty_strided({2, 3}, {1, 2}, like(a)); }, kAll,
         Compare::Meta);
  from_input(out, "zeros_like", "", {2, 3}, [](const Tensor& x) { return zeros_like(x); }, kAll, Compare::Values);
  from_input(out, "ones_like", "", {2, 3}, [](const Tensor& x) { return ones_like(x); }, kAll, Compare::Values);
  from_input(out, "full_like", "", {2, 3}, [](const Tensor& x) { return full_like(x, 2); }, kAll, Compare::Values);
  from_input(out, "empty_like", "", {2, 3}, [](const Tensor& x) { return empty_like(x); }, kAll, Compare::Meta);
}

void random(std::vector<Case>& out) {
  const Shape s = {64, 64};
  create(out, "rand", "", [s](const Tensor& a) { return rand(s, like(a)); }, kFloat, Compare::Stats);
  create(out, "randn", "", [s](const Tensor& a) { return randn(s, like(a)); }, kFloat, Compare::Stats);
  create(out, "randint", "", [s](const Tensor& a) { return randint(-3, 4, s, like(a)); }, kNum, Compare::Stats);
  // a permutation sorted is arange: exact (sorted on the CPU, so that the case needs no sort kernel)
  create(out, "randperm", "", [](const Tensor& a) { return std::get<0>(sort(randperm(50, like(a)).cpu())); }, {kInt64});
  from_input(out, "uniform_", "", s, [](const Tensor& x) {
    Tensor y = x.clone();
    return uniform_(y, -1, 2);
  }, kFloat, Compare::Stats);
  from_input(out, "normal_", "", s, [](const Tensor& x) {
    Tensor y = x.clone();
    return normal_(y, 1, 2);
  }, kFloat, Compare::Stats);
  from_input(out, "bernoulli_", "", s, [](const Tensor& x) {
    Tensor y = x.clone();
    return bernoulli_(y, 0.3);
  }, kFloat, Compare::Stats);
}

}  // namespace

void add_creation_cases(std::vector<Case>& out) {
  deterministic(out);
  random(out);
}

}  // namespace adept::backend_ops
