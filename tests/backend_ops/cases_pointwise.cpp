// Cases of include/adept/ops/pointwise.h: arithmetic, comparisons, logic, where/clamp, unary math,
// activations, special values and the in-place forms.
#include "harness.h"

namespace adept::backend_ops {
namespace {

// Looser tolerance of GPU transcendental functions (fast approximations are allowed there).
constexpr double kTranscendental = 10;

using Tweak = std::function<void(Case&)>;

void unary(std::vector<Case>& out, const std::string& op, const std::string& variant, UnaryFn f, Dtypes d,
           Gen g = Gen::Normal, const Tweak& tweak = {}) {
  Case c = unary_proto(op, variant, std::move(f), std::move(d), g);
  if (tweak) tweak(c);
  add_family(out, c, unary_shapes());
}

void binary(std::vector<Case>& out, const std::string& op, const std::string& variant, BinaryFn f, Dtypes d,
            Gen a = Gen::Normal, Gen b = Gen::Normal, const Tweak& tweak = {}) {
  Case c = binary_proto(op, variant, std::move(f), std::move(d), a, b);
  if (tweak) tweak(c);
  add_family(out, c, binary_shapes());
}

const Tweak no_grad = [](Case& c) { c.no_grad(); };
const Tweak transcendental = [](Case& c) { c.with_device_tol(kTranscendental); };

void arithmetic(std::vector<Case>& out) {
  binary(out, "add", "", [](const Tensor& a, const Tensor& b) { return add(a, b); }, kAll);
  binary(out, "add", "alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, 2); }, kNum);
  binary(out, "sub", "", [](const Tensor& a, const Tensor& b) { return sub(a, b); }, kNum);
  binary(out, "sub", "alpha", [](const Tensor& a, const Tensor& b) { return sub(a, b, 0.5); }, kFloat);
  binary(out, "mul", "", [](const Tensor& a, const Tensor& b) { return mul(a, b); }, kAll);
  binary(out, "div", "", [](const Tensor& a, const Tensor& b) { return div(a, b); }, kNum, Gen::Normal, Gen::Nonzero);
  binary(out, "div", "floor", [](const Tensor& a, const Tensor& b) { return div(a, b, "floor"); }, kNum, Gen::Large,
         Gen::Nonzero, [](Case& c) { c.same_dtype_ref(); });
  binary(out, "div", "trunc", [](const Tensor& a, const Tensor& b) { return div(a, b, "trunc"); }, kNum, Gen::Large,
         Gen::Nonzero, [](Case& c) { c.same_dtype_ref(); });
  binary(out, "floor_divide", "", [](const Tensor& a, const Tensor& b) { return floor_divide(a, b); }, kNum, Gen::Large,
         Gen::Nonzero, [](Case& c) { c.no_grad().same_dtype_ref(); });
  // remainder cancels: its error is relative to the dividend, not to the result
  const Tweak cancelling = [](Case& c) { c.same_dtype_ref().with_device_tol(kTranscendental); };
  binary(out, "remainder", "", [](const Tensor& a, const Tensor& b) { return remainder(a, b); }, kNum, Gen::Large,
         Gen::Nonzero, cancelling);
  binary(out, "pow", "", [](const Tensor& a, const Tensor& b) { return pow(a, b); }, kNum, Gen::Positive, Gen::Small,
         transcendental);
  binary(out, "maximum", "", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, kAll);
  binary(out, "minimum", "", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, kAll);
  binary(out, "maximum", "nan", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, kFloat, Gen::Special,
         Gen::Special, no_grad);
  binary(out, "minimum", "nan", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, kFloat, Gen::Special,
         Gen::Special, no_grad);
  binary(out, "atan2", "", [](const Tensor& a, const Tensor& b) { return atan2(a, b); }, kNum, Gen::Normal, Gen::Nonzero,
         transcendental);
  // with Python scalars (the scalar category of type promotion)
  unary(out, "add", "scalar", [](const Tensor& x) { return add(x, 2); }, kAll);
  unary(out, "add", "scalar_float", [](const Tensor& x) { return x + 2.5; }, kAll);
  unary(out, "sub", "scalar", [](const Tensor& x) { return sub(x, 1.5); }, kNum);
  unary(out, "rsub", "", [](const Tensor& x) { return rsub(x, 2); }, kNum);
  unary(out, "mul", "scalar", [](const Tensor& x) { return mul(x, 3); }, kAll);
  unary(out, "div", "scalar", [](const Tensor& x) { return div(x, 4); }, kNum);
  unary(out, "div", "scalar_floor", [](const Tensor& x) { return div(x, 3, "floor"); }, kNum, Gen::Large,
        [](Case& c) { c.same_dtype_ref(); });
  unary(out, "div", "scalar_numerator", [](const Tensor& x) { return div(2.0, x); }, kNum, Gen::Nonzero);
  unary(out, "floor_divide", "scalar", [](const Tensor& x) { return floor_divide(x, -2); }, kNum, Gen::Large,
        [](Case& c) { c.no_grad().same_dtype_ref(); });
  unary(out, "remainder", "scalar", [](const Tensor& x) { return remainder(x, -2.5); }, kNum, Gen::Large, cancelling);
  unary(out, "remainder", "scalar_dividend", [](const Tensor& x) { return remainder(7, x); }, kNum, Gen::Nonzero,
        [](Case& c) { c.no_grad().same_dtype_ref(); });
  unary(out, "pow", "scalar", [](const Tensor& x) { return pow(x, 2); }, kNum);
  unary(out, "pow", "scalar_sqrt", [](const Tensor& x) { return pow(x, 0.5); }, kFloat, Gen::Positive, transcendental);
  unary(out, "pow", "scalar_neg", [](const Tensor& x) { return pow(x, -2); }, kFloat, Gen::Nonzero, transcendental);
  unary(out, "pow", "scalar_base", [](const Tensor& x) { return pow(1.5, x); }, kNum, Gen::Small, transcendental);
}

void comparisons_and_logic(std::vector<Case>& out) {
  struct Cmp {
    const char* name;
    BinaryFn tensor;
    UnaryFn scalar;  // against the Python scalar 0.5
  };
  const std::vector<Cmp> cmp = {
      {"eq", [](const Tensor& a, const Tensor& b) { return eq(a, b); }, [](const Tensor& a) { return eq(a, 0.5); }},
      {"ne", [](const Tensor& a, const Tensor& b) { return ne(a, b); }, [](const Tensor& a) { return ne(a, 0.5); }},
      {"lt", [](const Tensor& a, const Tensor& b) { return lt(a, b); }, [](const Tensor& a) { return lt(a, 0.5); }},
      {"le", [](const Tensor& a, const Tensor& b) { return le(a, b); }, [](const Tensor& a) { return le(a, 0.5); }},
      {"gt", [](const Tensor& a, const Tensor& b) { return gt(a, b); }, [](const Tensor& a) { return gt(a, 0.5); }},
      {"ge", [](const Tensor& a, const Tensor& b) { return ge(a, b); }, [](const Tensor& a) { return ge(a, 0.5); }}};
  for (const Cmp& c : cmp) {
    binary(out, c.name, "", c.tensor, kAll, Gen::Small, Gen::Small);  // small ints: many equal pairs
    unary(out, c.name, "scalar", c.scalar, kAll);
  }
  const std::vector<std::pair<const char*, BinaryFn>> logic = {
      {"logical_and", [](const Tensor& a, const Tensor& b) { return logical_and(a, b); }},
      {"logical_or", [](const Tensor& a, const Tensor& b) { return logical_or(a, b); }},
      {"logical_xor", [](const Tensor& a, const Tensor& b) { return logical_xor(a, b); }}};
  for (const auto& [name, f] : logic) binary(out, name, "", f, kAll, Gen::Small, Gen::Small);
  unary(out, "logical_not", "", [](const Tensor& x) { return logical_not(x); }, kAll, Gen::Small);
  const std::vector<std::pair<const char*, BinaryFn>> bits = {
      {"bitwise_and", [](const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }},
      {"bitwise_or", [](const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }},
      {"bitwise_xor", [](const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }}};
  for (const auto& [name, f] : bits) binary(out, name, "", f, kIntBool, Gen::Large, Gen::Large);
  unary(out, "bitwise_not", "", [](const Tensor& x) { return bitwise_not(x); }, kIntBool, Gen::Large);
  binary(out, "isclose", "", [](const Tensor& a, const Tensor& b) { return isclose(a, b, 0.5, 0.5); }, kNum);
  binary(out, "isclose", "nan", [](const Tensor& a, const Tensor& b) { return isclose(a, b, 1e-5, 1e-8, true); }, kFloat,
         Gen::Special, Gen::Special);
  const auto flag = [](bool b) { return scalar_tensor(b); };
  out.push_back(make_case("allclose", "", {in({3, 4}), in({3, 4})},
                          [flag](const Tensors& x) -> Tensors {
                            return {flag(allclose(x[0], x[0] + x[1] * 1e-9)), flag(allclose(x[0], x[1]))};
                          },
                          kF32F64)
                    .no_grad());
  out.push_back(make_case("equal", "", {in({3, 4}), in({3, 4})},
                          [flag](const Tensors& x) -> Tensors { return {flag(equal(x[0], x[1])), flag(equal(x[0], x[0]))}; },
                          kAll)
                    .no_grad());
}

void where_clamp(std::vector<Case>& out) {
  Case w = make_case("where", "", {mask({}), in({}), in({})},
                     [](const Tensors& x) -> Tensors { return {where(x[0], x[1], x[2])}; }, kAll)
               .perf({{1 << 20}, {1 << 20}, {1 << 20}});
  add_family(out, w,
             {{"main", {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}}},
              {"broadcast", {{3, 1}, {1, 4}, {3, 4}}},
              {"empty", {{0, 4}, {0, 4}, {4}}},
              {"0d", {{}, {2, 3}, {2, 3}}}});
  add_family(out,
             make_case("where", "scalar_other", {mask({}), in({})},
                       [](const Tensors& x) -> Tensors { return {where(x[0], x[1], 0.0)}; }, kAll),
             {{"main", {{3, 4}, {3, 4}}}, {"broadcast", {{3, 1}, {4}}}});
  add_family(out,
             make_case("where", "scalar_self", {mask({}), in({})},
                       [](const Tensors& x) -> Tensors { return {where(x[0], 2, x[1])}; }, kAll),
             {{"main", {{3, 4}, {3, 4}}}, {"empty", {{0, 1}, {4}}}});
  unary(out, "clamp", "", [](const Tensor& x) { return clamp(x, -0.5, 0.5); }, kNum);
  unary(out, "clamp", "min", [](const Tensor& x) { return clamp(x, 0.25, std::nullopt); }, kNum);
  unary(out, "clamp", "max", [](const Tensor& x) { return clamp(x, std::nullopt, -0.25); }, kNum);
  unary(out, "clamp", "int_bounds", [](const Tensor& x) { return clamp(x, -2, 3); }, kNum, Gen::Large);
  // One-sided integer bounds (the other side is infinite) and bounds past the dtype's range.
  unary(out, "clamp", "int_min_only", [](const Tensor& x) { return clamp(x, 1, std::nullopt); }, kNum, Gen::Large);
  unary(out, "clamp", "int_max_only", [](const Tensor& x) { return clamp(x, std::nullopt, 2); }, kNum, Gen::Large);
  unary(out, "clamp", "int_huge_bounds", [](const Tensor& x) { return clamp(x, -(int64_t{1} << 40), int64_t{1} << 40); },
        kNum, Gen::Large);
  unary(out, "clamp", "nan", [](const Tensor& x) { return clamp(x, -0.5, 0.5); }, kFloat, Gen::Special, no_grad);
  add_family(out,
             make_case("clamp", "tensor", {in({}), in({}), in({})},
                       [](const Tensors& x) -> Tensors { return {clamp(x[0], x[1], x[2])}; }, kFloat),
             {{"main", {{3, 4}, {3, 4}, {3, 4}}}, {"broadcast", {{3, 4}, {4}, {3, 1}}}, {"empty", {{0, 4}, {4}, {}}}});
}

void unary_math(std::vector<Case>& out) {
  struct U {
    const char* name;
    UnaryFn f;
    Dtypes d;
    Gen g;
    bool transcendental;
  };
  const std::vector<U> ops = {
      {"neg", [](const Tensor& x) { return neg(x); }, kNum, Gen::Normal, false},
      {"abs", [](const Tensor& x) { return abs(x); }, kNum, Gen::Normal, false},
      {"sign", [](const Tensor& x) { return sign(x); }, kAll, Gen::Normal, false},
      {"floor", [](const Tensor& x) { return floor(x); }, kNum, Gen::Large, false},
      {"ceil", [](const Tensor& x) { return ceil(x); }, kNum, Gen::Large, false},
      {"trunc", [](const Tensor& x) { return trunc(x); }, kNum, Gen::Large, false},
      {"round", [](const Tensor& x) { return round(x); }, kNum, Gen::Large, false},
      {"square", [](const Tensor& x) { return square(x); }, kNum, Gen::Normal, false},
      {"reciprocal", [](const Tensor& x) { return reciprocal(x); }, kAll, Gen::Nonzero, false},
      {"exp", [](const Tensor& x) { return exp(x); }, kAll, Gen::Normal, true},
      {"exp2", [](const Tensor& x) { return exp2(x); }, kAll, Gen::Normal, true},
      {"expm1", [](const Tensor& x) { return expm1(x); }, kAll, Gen::Normal, true},
      {"log", [](const Tensor& x) { return log(x); }, kAll, Gen::Positive, true},
      {"log2", [](const Tensor& x) { return log2(x); }, kAll, Gen::Positive, true},
      {"log1p", [](const Tensor& x) { return log1p(x); }, kAll, Gen::Positive, true},
      {"sqrt", [](const Tensor& x) { return sqrt(x); }, kAll, Gen::Positive, true},
      {"rsqrt", [](const Tensor& x) { return rsqrt(x); }, kAll, Gen::Positive, true},
      {"sin", [](const Tensor& x) { return sin(x); }, kAll, Gen::Normal, true},
      {"cos", [](const Tensor& x) { return cos(x); }, kAll, Gen::Normal, true},
      {"tan", [](const Tensor& x) { return tan(x); }, kAll, Gen::Unit, true},
      {"atan", [](const Tensor& x) { return atan(x); }, kAll, Gen::Normal, true},
      {"tanh", [](const Tensor& x) { return tanh(x); }, kAll, Gen::Normal, true},
      {"sigmoid", [](const Tensor& x) { return sigmoid(x); }, kAll, Gen::Large, true},
      {"relu", [](const Tensor& x) { return relu(x); }, kNum, Gen::Normal, false},
      {"silu", [](const Tensor& x) { return silu(x); }, kFloat, Gen::Large, true},
      {"softplus", [](const Tensor& x) { return softplus(x); }, kFloat, Gen::Large, true},
      {"leaky_relu", [](const Tensor& x) { return leaky_relu(x, 0.2); }, kFloat, Gen::Normal, false},
      {"erf", [](const Tensor& x) { return erf(x); }, kAll, Gen::Normal, true},
      {"logsigmoid", [](const Tensor& x) { return logsigmoid(x); }, kFloat, Gen::Large, true},
      {"hardshrink", [](const Tensor& x) { return hardshrink(x); }, kFloat, Gen::Normal, false},
  };
  for (const U& u : ops) unary(out, u.name, "", u.f, u.d, u.g, u.transcendental ? transcendental : Tweak{});
  unary(out, "round", "decimals", [](const Tensor& x) { return round(x, 1); }, kFloat, Gen::Large,
        [](Case& c) { c.same_dtype_ref(); });
  unary(out, "gelu", "", [](const Tensor& x) { return gelu(x); }, kFloat, Gen::Large, transcendental);
  unary(out, "gelu", "tanh", [](const Tensor& x) { return gelu(x, "tanh"); }, kFloat, Gen::Large, transcendental);
  // U(-2, 2) straddles +-1.25 (random values never land on the kinks, so gradcheck applies); the
  // boundary variant puts values exactly on +-lambd (multiples of 0.25; hardshrink(+-lambd) = 0).
  unary(out, "hardshrink", "lambd", [](const Tensor& x) { return hardshrink(x, 1.25); }, kFloat, Gen::Small);
  unary(out, "hardshrink", "boundary", [](const Tensor& x) { return hardshrink(round(x * 2) * 0.25, 0.5); }, kFloat,
        Gen::Small, no_grad);
  unary(out, "softplus", "beta", [](const Tensor& x) { return softplus(x, 2, 5); }, kFloat, Gen::Large, transcendental);
  unary(out, "log", "special", [](const Tensor& x) { return log(x); }, kFloat, Gen::Special, no_grad);
  unary(out, "sqrt", "negative", [](const Tensor& x) { return sqrt(x); }, kFloat, Gen::Normal, no_grad);
  unary(out, "abs", "special", [](const Tensor& x) { return abs(x); }, kFloat, Gen::Special, no_grad);
  for (const auto& [name, f] : std::vector<std::pair<const char*, UnaryFn>>{
           {"isnan", [](const Tensor& x) { return isnan(x); }},
           {"isinf", [](const Tensor& x) { return isinf(x); }},
           {"isfinite", [](const Tensor& x) { return isfinite(x); }},
           {"isposinf", [](const Tensor& x) { return isposinf(x); }},
           {"isneginf", [](const Tensor& x) { return isneginf(x); }}})
    unary(out, name, "", f, kAll, Gen::Special);
  unary(out, "nan_to_num", "", [](const Tensor& x) { return nan_to_num(x, 1.0, 2.0, -3.0); }, kAll, Gen::Special);
  unary(out, "nan_to_num", "defaults", [](const Tensor& x) { return nan_to_num(x); }, kAll, Gen::Special,
        [](Case& c) { c.same_dtype_ref(); });  // the default posinf is the dtype's largest value
}

// In-place forms run on a clone, so that the inputs stay leaves and gradients flow through the clone.
void inplace(std::vector<Case>& out) {
  const std::vector<ShapeSet> sets = {{"main", {{3, 4}, {3, 4}}}, {"broadcast", {{3, 4}, {4}}}, {"empty", {{0, 4}, {4}}},
                                      {"0d_other", {{2, 3}, {}}}};
  const auto bin = [&](const char* op, std::function<void(Tensor&, const Tensor&)> f, Dtypes d, Gen b = Gen::Normal) {
    add_family(out,
               make_case(op, "", {in({}), in({}, b)},
                         [f](const Tensors& x) -> Tensors {
                           Tensor y = x[0].clone();
                           f(y, x[1]);
                           return {y};
                         },
                         std::move(d)),
               sets);
  };
  bin("add_", [](Tensor& y, const Tensor& b) { add_(y, b); }, kAll);
  bin("sub_", [](Tensor& y, const Tensor& b) { sub_(y, b, 3); }, kNum);
  bin("mul_", [](Tensor& y, const Tensor& b) { mul_(y, b); }, kAll);
  bin("div_", [](Tensor& y, const Tensor& b) { div_(y, b); }, kFloat, Gen::Nonzero);
  bin("copy_", [](Tensor& y, const Tensor& b) { copy_(y, b); }, kAll);
  for (Dtype src : {kFloat32, kFloat16, kInt32})
    add_family(out,
               make_case("copy_", std::string("from_") + dtype_name(src), {in({}), fixed({}, src)},
                         [](const Tensors& x) -> Tensors {
                           Tensor y = x[0].clone();
                           copy_(y, x[1]);
                           return {y};
                         },
                         kAll),
               {{"main", {{3, 4}, {3, 4}}}, {"broadcast", {{3, 4}, {4}}}});
  const auto un = [&](const char* op, const char* variant, std::function<void(Tensor&)> f, Dtypes d,
                      Gen g = Gen::Normal) {
    unary(out, op, variant, [f](const Tensor& x) {
      Tensor y = x.clone();
      f(y);
      return y;
    }, std::move(d), g);
  };
  un("add_", "scalar", [](Tensor& y) { add_(y, 2); }, kNum);
  un("mul_", "scalar", [](Tensor& y) { mul_(y, 3); }, kNum);
  un("div_", "scalar", [](Tensor& y) { div_(y, 4); }, kFloat);
  un("pow_", "", [](Tensor& y) { pow_(y, 2); }, kNum);
  un("clamp_", "", [](Tensor& y) { clamp_(y, -1, 2); }, kNum);
  un("neg_", "", [](Tensor& y) { neg_(y); }, kNum);
  un("exp_", "", [](Tensor& y) { exp_(y); }, kFloat);
  un("sqrt_", "", [](Tensor& y) { sqrt_(y); }, kFloat, Gen::Positive);
  un("relu_", "", [](Tensor& y) { relu_(y); }, kNum);
  un("sigmoid_", "", [](Tensor& y) { sigmoid_(y); }, kFloat);
  un("fill_", "", [](Tensor& y) { y.fill_(2.5); }, kAll);
  un("zero_", "", [](Tensor& y) { y.zero_(); }, kAll);
  const std::vector<ShapeSet> mask_sets = {{"main", {{3, 4}, {3, 4}}}, {"broadcast", {{3, 4}, {4}}},
                                           {"empty", {{0, 4}, {4}}}};
  add_family(out,
             make_case("masked_fill_", "", {in({}), mask({})},
                       [](const Tensors& x) -> Tensors {
                         Tensor y = x[0].clone();
                         masked_fill_(y, x[1], 0.5);
                         return {y};
                       },
                       kAll),
             mask_sets);
  add_family(out,
             make_case("masked_fill", "", {in({}), mask({})},
                       [](const Tensors& x) -> Tensors { return {masked_fill(x[0], x[1], -1.5)}; }, kAll),
             mask_sets);
  add_family(out,
             make_case("masked_fill", "tensor_value", {in({}), mask({}), in({})},
                       [](const Tensors& x) -> Tensors { return {masked_fill(x[0], x[1], x[2])}; }, kFloat),
             {{"main", {{3, 4}, {3, 4}, {}}}});
}

void broadcasting(std::vector<Case>& out) {
  out.push_back(make_case("broadcast_tensors", "", {in({3, 1}), in({1, 4}), in({4})},
                          [](const Tensors& x) -> Tensors { return broadcast_tensors(x); }, kAll));
  out.push_back(make_case("broadcast_shapes", "", {anchor()},
                          [](const Tensors& x) -> Tensors {
                            // the broadcast shape as a tensor of that shape
                            return {zeros(broadcast_shapes({3, 1, 4}, {2, 1}), TensorOptions(x[0].dtype()).set_device(x[0].device()))};
                          },
                          kAll)
                    .no_grad());
  out.push_back(make_case("result_type", "", {in({2}), fixed({}, kFloat64), fixed({2}, kInt32)},
                          [](const Tensors& x) -> Tensors {
                            // the promoted dtype as a 0-d tensor of that dtype
                            return {zeros({}, TensorOptions(result_type(x, {2.5})).set_device(x[0].device()))};
                          },
                          kNum)
                    .no_grad());
}

}  // namespace

void add_pointwise_cases(std::vector<Case>& out) {
  arithmetic(out);
  comparisons_and_logic(out);
  where_clamp(out);
  unary_math(out);
  inplace(out);
  broadcasting(out);
}

}  // namespace adept::backend_ops
