// Cases of include/adept/ops/shape.h and the tensor copy methods: views (view, reshape, permute,
// narrow, expand, squeeze, split ...), joins (cat, stack), copying rearrangements (flip, roll,
// repeat, tile, pad, tril/triu) and contiguous/clone/to.
#include "harness.h"

namespace adept::backend_ops {
namespace {

using Fn1 = std::function<Tensor(const Tensor&)>;
using FnN = std::function<Tensors(const Tensor&)>;

// One-input shape op returning one tensor, every dtype.
void shape1(std::vector<Case>& out, const std::string& op, const std::string& variant, Shape s, Fn1 f,
            Dtypes d = kAll) {
  out.push_back(make_case(op, variant, {in(std::move(s))}, [f](const Tensors& x) -> Tensors { return {f(x[0])}; },
                          std::move(d)));
}

// One-input op returning several tensors (split, chunk, unbind).
void shape_n(std::vector<Case>& out, const std::string& op, const std::string& variant, Shape s, FnN f) {
  out.push_back(make_case(op, variant, {in(std::move(s))}, [f](const Tensors& x) { return f(x[0]); }, kAll));
}

void views(std::vector<Case>& out) {
  // view needs compatible strides: contiguous input only
  out.push_back(make_case("view", "", {in({2, 3, 4})}, [](const Tensors& x) -> Tensors { return {x[0].view({4, -1})}; }, kAll)
                    .with_layouts({}));
  shape1(out, "reshape", "", {2, 3, 4}, [](const Tensor& x) { return reshape(x, {6, 4}); });
  shape1(out, "reshape", "empty", {0, 3}, [](const Tensor& x) { return reshape(x, {3, 1, 0}); });
  shape1(out, "reshape", "0d", {}, [](const Tensor& x) { return reshape(x, {1, 1}); });
  shape1(out, "permute", "", {2, 3, 4}, [](const Tensor& x) { return permute(x, {2, 0, 1}); });
  shape1(out, "transpose", "", {2, 3, 4}, [](const Tensor& x) { return transpose(x, 0, -1); });
  shape1(out, "t", "", {3, 5}, [](const Tensor& x) { return x.t(); });
  shape1(out, "movedim", "", {2, 3, 4}, [](const Tensor& x) { return movedim(x, 0, 2); });
  shape1(out, "narrow", "", {4, 5}, [](const Tensor& x) { return narrow(x, 1, 1, 3); });
  shape1(out, "select", "", {3, 4}, [](const Tensor& x) { return select(x, 1, -2); });
  shape1(out, "slice", "", {4, 7}, [](const Tensor& x) { return slice(x, 1, 1, std::nullopt, 3); });
  shape1(out, "slice", "empty", {4, 7}, [](const Tensor& x) { return slice(x, 0, 3, 1); });
  shape1(out, "expand", "", {3, 1}, [](const Tensor& x) { return expand(x, {2, 3, 4}); });
  shape1(out, "expand", "keep", {1, 4}, [](const Tensor& x) { return expand(x, {3, -1}); });
  shape1(out, "squeeze", "", {3, 1, 4}, [](const Tensor& x) { return squeeze(x); });
  shape1(out, "squeeze", "dim", {1, 3, 1}, [](const Tensor& x) { return squeeze(x, -1); });
  shape1(out, "unsqueeze", "", {3, 4}, [](const Tensor& x) { return unsqueeze(x, 1); });
  shape1(out, "unsqueeze", "0d", {}, [](const Tensor& x) { return unsqueeze(x, 0); });
  shape1(out, "flatten", "", {2, 3, 4}, [](const Tensor& x) { return flatten(x); });
  shape1(out, "flatten", "range", {2, 3, 4, 2}, [](const Tensor& x) { return flatten(x, 1, 2); });
  shape1(out, "unflatten", "", {3, 8}, [](const Tensor& x) { return unflatten(x, 1, {2, -1}); });
  shape1(out, "as_strided", "", {4, 5}, [](const Tensor& x) { return as_strided(x.contiguous(), {3, 3}, {5, 2}, 1); });
  shape_n(out, "unbind", "", {3, 4}, [](const Tensor& x) { return unbind(x, 1); });
  shape_n(out, "chunk", "", {5, 4}, [](const Tensor& x) { return chunk(x, 2, 0); });
  shape_n(out, "split", "", {7, 3}, [](const Tensor& x) { return split(x, 3, 0); });
  shape_n(out, "split", "sizes", {3, 6}, [](const Tensor& x) { return split(x, {1, 0, 5}, 1); });
}

void joins(std::vector<Case>& out) {
  const auto join = [&](const std::string& op, const std::string& variant, std::vector<Input> inputs,
                        std::function<Tensor(const Tensors&)> f) {
    out.push_back(make_case(op, variant, std::move(inputs), [f](const Tensors& x) -> Tensors { return {f(x)}; }, kAll));
  };
  join("cat", "", {in({2, 3}), in({4, 3}), in({1, 3})}, [](const Tensors& x) { return cat(x, 0); });
  join("cat", "dim1", {in({2, 3, 2}), in({2, 1, 2})}, [](const Tensors& x) { return cat(x, -2); });
  join("cat", "skip_empty_1d", {in({2, 3}), in({0}), in({1, 3})}, [](const Tensors& x) { return cat(x, 0); });
  join("cat", "promote", {in({2, 3}), fixed({1, 3}, kFloat64)}, [](const Tensors& x) { return cat(x, 0); });
  join("stack", "", {in({2, 3}), in({2, 3}), in({2, 3})}, [](const Tensors& x) { return stack(x, 1); });
  join("stack", "0d", {in({}), in({})}, [](const Tensors& x) { return stack(x); });
  out.push_back(make_case("meshgrid", "", {in({3}), in({4})},
                          [](const Tensors& x) { return meshgrid(x, "ij"); }, kAll));
  out.push_back(make_case("meshgrid", "xy", {in({3}), in({4}), in({2})},
                          [](const Tensors& x) { return meshgrid(x, "xy"); }, kAll));
}

void rearrangements(std::vector<Case>& out) {
  shape1(out, "flip", "", {3, 4, 2}, [](const Tensor& x) { return flip(x, {0, -1}); });
  shape1(out, "roll", "", {3, 4}, [](const Tensor& x) { return roll(x, {1, -2}, {0, 1}); });
  shape1(out, "roll", "flat", {3, 4}, [](const Tensor& x) { return roll(x, {5}); });
  shape1(out, "repeat", "", {2, 3}, [](const Tensor& x) { return repeat(x, {2, 1, 2}); });
  shape1(out, "tile", "", {2, 3}, [](const Tensor& x) { return tile(x, {2}); });
  shape1(out, "tril", "", {4, 5}, [](const Tensor& x) { return tril(x, 1); });
  shape1(out, "triu", "", {2, 4, 4}, [](const Tensor& x) { return triu(x, -1); });
  shape1(out, "pad", "", {2, 3, 4}, [](const Tensor& x) { return pad(x, {1, 2, 0, 1}, "constant", 0.5); });
  shape1(out, "pad", "crop", {3, 5}, [](const Tensor& x) { return pad(x, {-1, 1}); });
  for (const char* mode : {"reflect", "replicate", "circular"})
    shape1(out, "pad", mode, {1, 2, 4, 5}, [mode](const Tensor& x) { return pad(x, {2, 1, 1, 2}, mode); }, kFloat);
}

void copies(std::vector<Case>& out) {
  shape1(out, "contiguous", "", {3, 4, 5}, [](const Tensor& x) { return x.contiguous(); });
  shape1(out, "clone", "", {3, 4}, [](const Tensor& x) { return x.clone(); });
  // positive values: a negative float converted to uint8 is undefined
  for (Dtype target : {kFloat32, kFloat16, kInt32, kInt64, kBool, kFloat64, kBFloat16, kUInt8})
    out.push_back(make_case("to", std::string("dtype_") + dtype_name(target), {in({3, 4}, Gen::Positive)},
                            [target](const Tensors& x) -> Tensors { return {x[0].to(target)}; }, kAll));
}

}  // namespace

void add_shape_cases(std::vector<Case>& out) {
  views(out);
  joins(out);
  rearrangements(out);
  copies(out);
}

}  // namespace adept::backend_ops
