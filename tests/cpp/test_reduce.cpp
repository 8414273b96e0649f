// Reductions, softmax and scans: values on small tensors, every dim subset against a naive
// reference (contiguous, permuted and sliced inputs; sizes large enough for the OpenMP paths and
// for both the "inner" and "outer" strategies of the CPU kernel), empty inputs, NaN propagation.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "test_util.h"

using namespace adept;
using namespace adept::testing;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Naive reduction of `x` over `dims` (keepdim shape) with fold f starting from init.
Tensor reference(const Tensor& x, const Shape& dims, double init, const std::function<double(double, double)>& f) {
  Shape out_shape = x.sizes();
  for (int64_t d : dims) out_shape[d] = 1;
  Tensor out = full(out_shape, init, kFloat64);
  Tensor xc = x.to(kFloat64).contiguous();
  auto xv = values(xc);
  std::vector<double> ov = values(out);
  const int64_t nd = x.dim();
  std::vector<int64_t> idx(nd, 0);
  for (size_t lin = 0; lin < xv.size(); ++lin) {
    int64_t rem = static_cast<int64_t>(lin), o = 0, ostride = 1;
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[d] = rem % x.size(d);
      rem /= x.size(d);
    }
    for (int64_t d = nd - 1; d >= 0; --d) {
      o += (out_shape[d] == 1 ? 0 : idx[d]) * ostride;
      ostride *= out_shape[d];
    }
    ov[o] = f(ov[o], xv[lin]);
  }
  return tensor(ov, TensorOptions(kFloat64)).view(out_shape);
}

std::vector<Shape> all_dim_subsets(int64_t nd) {
  std::vector<Shape> r;
  for (int64_t m = 1; m < (1 << nd); ++m) {
    Shape s;
    for (int64_t d = 0; d < nd; ++d) if ((m >> d) & 1) s.push_back(d);
    r.push_back(s);
  }
  return r;
}

double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }
double nan_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }

// Inputs of one shape in three layouts: contiguous, permuted copy permuted back, and a slice.
std::vector<Tensor> layouts(const Tensor& x) {
  std::vector<Tensor> r = {x, noncontig(x)};
  Shape big = x.sizes();
  big.back() *= 2;
  Tensor b = zeros(big, TensorOptions(x.dtype()));
  Tensor s = b.slice(-1, 0, std::nullopt, 2);
  s.copy_(x);
  r.push_back(s);
  return r;
}

void check_against_reference(const Tensor& x, double rtol) {
  for (const Shape& dims : all_dim_subsets(x.dim())) {
    for (const Tensor& in : layouts(x)) {
      std::string ctx = "dims " + shape_str(dims) + " shape " + shape_str(in.sizes()) + " strides " + shape_str(in.strides());
      EXPECT_TRUE(close(sum(in, dims, true).to(kFloat64), reference(in, dims, 0, std::plus<double>()), rtol, 1e-9)) << ctx;
      EXPECT_TRUE(close(amax(in, dims, true).to(kFloat64), reference(in, dims, -kInf, nan_max), 0, 0)) << ctx;
      EXPECT_TRUE(close(amin(in, dims, true).to(kFloat64), reference(in, dims, kInf, nan_min), 0, 0)) << ctx;
      Tensor nz = ne(in, 0);
      EXPECT_TRUE(close(all(nz, dims, true).to(kFloat64),
                        reference(nz, dims, 1, [](double a, double b) { return double(a != 0 && b != 0); }), 0, 0)) << ctx;
      EXPECT_TRUE(close(any(nz, dims, true).to(kFloat64),
                        reference(nz, dims, 0, [](double a, double b) { return double(a != 0 || b != 0); }), 0, 0)) << ctx;
      // Same result without keepdim, with the reduced dims removed.
      Tensor nk = sum(in, dims, false);
      EXPECT_EQ(nk.dim(), in.dim() - static_cast<int64_t>(dims.size())) << ctx;
    }
  }
}

}  // namespace

TEST(Reduce, SmallValues) {
  Tensor x = T({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_TRUE(close(sum(x), scalar_tensor(21.0f)));
  EXPECT_TRUE(close(sum(x, {0}), T({5, 7, 9})));
  EXPECT_TRUE(close(sum(x, {-1}, true), T({6, 15}, {2, 1})));
  EXPECT_TRUE(close(mean(x, {1}), T({2, 5})));
  EXPECT_TRUE(close(prod(x), scalar_tensor(720.0f)));
  EXPECT_TRUE(close(prod(x, 1), T({6, 120})));
  EXPECT_TRUE(close(prod(x, -2, true), T({4, 10, 18}, {1, 3})));
  EXPECT_TRUE(close(max(x), scalar_tensor(6.0f)));
  EXPECT_TRUE(close(min(x), scalar_tensor(1.0f)));
  auto [mv, mi] = max(x, 0);
  EXPECT_TRUE(close(mv, T({4, 5, 6})));
  EXPECT_EQ(ivalues(mi), (std::vector<int64_t>{1, 1, 1}));
  auto [nv, ni] = min(x, 1, true);
  EXPECT_EQ(nv.sizes(), (Shape{2, 1}));
  EXPECT_EQ(ivalues(ni), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(argmax(x).item().to_int64(), 5);
  EXPECT_EQ(argmin(x, 1).sizes(), (Shape{2}));
  EXPECT_EQ(argmax(x, std::nullopt, true).sizes(), (Shape{1, 1}));
  EXPECT_EQ(argmax(T({1, 3, 3, 2})).item().to_int64(), 1);  // first occurrence
  EXPECT_EQ(argmin(T({2, 1, 1})).item().to_int64(), 1);
  EXPECT_TRUE(close(var(x, {1}), T({1, 1})));
  EXPECT_TRUE(close(var(T({1, 2, 4}), {0}, 0), scalar_tensor(14.0f / 9)));
  EXPECT_TRUE(close(adept::std(x), scalar_tensor(static_cast<float>(::std::sqrt(3.5)))));
  EXPECT_TRUE(::std::isnan(adept::std(T({2})).item<double>()));  // one sample, correction 1
  Tensor n = T({1, -2, 0, 3}, {2, 2});
  EXPECT_TRUE(close(norm(n), scalar_tensor(static_cast<float>(::std::sqrt(14.0)))));
  EXPECT_TRUE(close(norm(n, 1), scalar_tensor(6.0f)));
  EXPECT_TRUE(close(norm(n, 0), scalar_tensor(3.0f)));
  EXPECT_TRUE(close(norm(n, kInf), scalar_tensor(3.0f)));
  EXPECT_TRUE(close(norm(n, -kInf), scalar_tensor(0.0f)));
  EXPECT_TRUE(close(norm(n, 3), scalar_tensor(3.3019272f), 1e-6));
  EXPECT_TRUE(close(norm(n, 2, {1}, true), T({::std::sqrt(5.0), 3}, {2, 1})));
  EXPECT_TRUE(close(logsumexp(T({1, 2, 3, 4}, {2, 2}), {1}), T({2.3132617, 4.3132617})));
  EXPECT_TRUE(close(logsumexp(I({1, 2}, kInt32), {0}), scalar_tensor(2.3132617f)));
  EXPECT_TRUE(close(logsumexp(T({-kInf, -kInf}), {0}), scalar_tensor(-kInf)));
  EXPECT_TRUE(close(logsumexp(T({kInf, 1}), {0}), scalar_tensor(kInf)));
  EXPECT_TRUE(close(logsumexp(T({1000, 1000}), {0}), scalar_tensor(1000.6931472f)));  // no overflow
}

TEST(Reduce, DtypesOfResults) {
  EXPECT_EQ(sum(tensor(std::vector<bool>{true, false, true})).item().to_int64(), 2);
  EXPECT_EQ(sum(I({1, 2}, kInt32)).dtype(), kInt64);
  EXPECT_EQ(sum(I({1, 2}, kInt32), {}, false, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(prod(I({200, 2}, kUInt8)).item().to_int64(), 400);  // accumulates in int64
  EXPECT_EQ(prod(I({5})).dtype(), kInt64);
  EXPECT_EQ(amax(I({5, -3}, kInt32)).dtype(), kInt32);
  EXPECT_EQ(amax(I({5, -3}, kInt32)).item().to_int64(), 5);
  EXPECT_EQ(max(tensor(std::vector<bool>{false, true})).item().to_bool(), true);
  EXPECT_THROW(mean(I({1, 2})), DtypeError);
  EXPECT_THROW(var(I({1, 2})), DtypeError);
  EXPECT_EQ(sum(T({1, 2}, kFloat16)).dtype(), kFloat16);
  EXPECT_EQ(cumsum(I({1, 2}, kInt32), 0).dtype(), kInt64);
  EXPECT_EQ(softmax(T({1, 2}), 0, kFloat64).dtype(), kFloat64);
}

TEST(Reduce, DimArgumentErrors) {
  Tensor x = ones({2, 3});
  EXPECT_THROW(sum(x, {2}), IndexError);
  EXPECT_THROW(sum(x, {-3}), IndexError);
  EXPECT_THROW(sum(x, {0, -2}), ValueError);  // repeated dim
  EXPECT_THROW(max(x, 2), IndexError);
  EXPECT_THROW(softmax(x, 2), IndexError);
  EXPECT_THROW(cumsum(x, -3), IndexError);
}

TEST(Reduce, ZeroDimInputs) {
  Tensor s = scalar_tensor(5.0);
  EXPECT_EQ(sum(s).dim(), 0);
  EXPECT_TRUE(close(sum(s, {0}), s));
  EXPECT_TRUE(close(prod(s), s));
  EXPECT_EQ(prod(scalar_tensor(3, kInt32)).dtype(), kInt64);  // as torch.tensor(3).prod()
  EXPECT_EQ(prod(scalar_tensor(3, kInt32), 0).dtype(), kInt64);
  auto [v, i] = max(s, 0);
  EXPECT_EQ(i.item().to_int64(), 0);
  EXPECT_TRUE(close(v, s));
  EXPECT_TRUE(close(softmax(s, 0), scalar_tensor(1.0)));
  EXPECT_TRUE(close(cumsum(s, 0), s));
  EXPECT_EQ(argmax(s).item().to_int64(), 0);
}

TEST(Reduce, EmptyInputsGiveIdentitiesOrRaise) {
  Tensor e = zeros({0, 3});
  EXPECT_TRUE(close(sum(e), scalar_tensor(0.0f)));
  EXPECT_TRUE(close(prod(e), scalar_tensor(1.0f)));
  EXPECT_TRUE(std::isnan(mean(e).item<double>()));
  EXPECT_TRUE(close(sum(e, {0}), T({0, 0, 0})));
  EXPECT_TRUE(close(prod(e, 0), T({1, 1, 1})));
  EXPECT_EQ(sum(e, {1}).sizes(), (Shape{0}));
  EXPECT_EQ(amax(e, {1}).sizes(), (Shape{0}));
  EXPECT_EQ(std::get<0>(min(e, 1)).sizes(), (Shape{0}));
  EXPECT_TRUE(all(e).item<bool>());
  EXPECT_FALSE(any(e).item<bool>());
  EXPECT_TRUE(close(logsumexp(e, {0}), T({-kInf, -kInf, -kInf})));
  EXPECT_TRUE(std::isnan(var(e).item<double>()));
  EXPECT_TRUE(close(norm(e), scalar_tensor(0.0f)));
  EXPECT_TRUE(close(norm(e, kInf), scalar_tensor(0.0f)));
  EXPECT_EQ(softmax(e, 0).sizes(), (Shape{0, 3}));
  EXPECT_EQ(log_softmax(e, 1).sizes(), (Shape{0, 3}));
  EXPECT_EQ(cumsum(e, 0).sizes(), (Shape{0, 3}));
  EXPECT_EQ(cumprod(e, 1).sizes(), (Shape{0, 3}));
  EXPECT_THROW(amax(e), IndexError);
  EXPECT_THROW(amax(e, {0}), IndexError);
  EXPECT_THROW(max(e), IndexError);
  EXPECT_THROW(min(e), IndexError);
  EXPECT_THROW(max(e, 0), IndexError);
  EXPECT_THROW(argmax(e), IndexError);
  EXPECT_THROW(argmin(e, 0), IndexError);
  EXPECT_EQ(argmax(e, 1).sizes(), (Shape{0}));
}

TEST(Reduce, NanPropagation) {
  Tensor x = T({1, kNaN, 3, kNaN});
  EXPECT_TRUE(std::isnan(max(x).item<double>()));
  EXPECT_TRUE(std::isnan(min(x).item<double>()));
  EXPECT_TRUE(std::isnan(sum(x).item<double>()));
  EXPECT_EQ(argmax(x).item().to_int64(), 1);  // first NaN wins
  EXPECT_EQ(argmin(x).item().to_int64(), 1);
  auto [v, i] = max(x.view({2, 2}), 1);
  EXPECT_TRUE(std::isnan(values(v)[0]));
  EXPECT_TRUE(std::isnan(values(v)[1]));
  EXPECT_EQ(ivalues(i), (std::vector<int64_t>{1, 1}));
  // NaN as the first element, and over the outer dim.
  Tensor y = T({kNaN, 1, 2, kNaN, 5, 6}, {3, 2});
  EXPECT_TRUE(close(amax(y, {0}), T({kNaN, kNaN})));
  EXPECT_TRUE(close(amin(y, {1}), T({kNaN, kNaN, 5})));
  EXPECT_EQ(ivalues(argmax(y, 0)), (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(std::isnan(values(softmax(T({1, kNaN}), 0))[0]));
  EXPECT_TRUE(std::isnan(values(cumsum(T({1, kNaN, 2}), 0))[2]));
  EXPECT_TRUE(close(amax(T({-kInf, -kInf})), scalar_tensor(-kInf)));
}

TEST(Reduce, AllDimSubsetsMatchReference) {
  check_against_reference(uniform({3, 4, 5}, -2, 2, kFloat64, 1), 1e-12);
  check_against_reference(uniform({2, 1, 3, 4}, -2, 2, kFloat32, 2), 1e-5);
  check_against_reference(round(uniform({4, 3, 2}, -5, 5, kFloat64, 3)).to(kInt32), 0);
  check_against_reference(uniform({5, 7}, -2, 2, kFloat64, 4).to(kFloat16), 1e-2);
  Tensor with_nan = uniform({3, 4}, -2, 2, kFloat64, 5);
  with_nan.select(0, 1).select(0, 2).fill_(kNaN);
  check_against_reference(with_nan, 1e-12);
}

TEST(Reduce, LargeInputsInnerAndOuterStrategies) {
  // > 100k elements so the OpenMP paths run; reducing dim 0 keeps the innermost dim ("outer"
  // strategy), reducing dim 1 reduces it ("inner").
  Tensor x = uniform({300, 400}, -1, 1, kFloat64, 6);
  for (const Tensor& in : {x, noncontig(x)}) {
    for (const Shape& dims : {Shape{0}, Shape{1}, Shape{0, 1}}) {
      EXPECT_TRUE(close(sum(in, dims, true), reference(in, dims, 0, std::plus<double>()), 1e-10, 1e-10));
      EXPECT_TRUE(close(amax(in, dims, true), reference(in, dims, -kInf, nan_max), 0, 0));
      EXPECT_TRUE(close(prod(in.narrow(0, 0, 3), dims.size() == 1 ? std::optional<int64_t>(dims[0]) : std::nullopt),
                        prod(in.narrow(0, 0, 3).contiguous(), dims.size() == 1 ? std::optional<int64_t>(dims[0]) : std::nullopt)));
    }
    Tensor am = argmax(in, 0);
    Tensor ref_idx = std::get<1>(max(in.contiguous(), 0));
    EXPECT_EQ(ivalues(am), ivalues(ref_idx));
  }
  // float32 sum of many elements accumulates in double.
  Tensor ones32 = ones({1 << 17}, kFloat32);
  EXPECT_EQ(sum(ones32).item<double>(), 131072.0);
  Tensor big = full({1 << 17}, 0.1, kFloat32);
  // Exact sum of the float 0.1f values: 13107.2001953125 (torch gives 13107.2021484375).
  EXPECT_NEAR(sum(big).item<double>(), 13107.2001953125, 13107.2 * 1e-5);
  EXPECT_NEAR(mean(big).item<double>(), 0.1, 1e-6);
  // Outer reduction with one long kept row and a few reduced rows: row chunks in parallel.
  Tensor wide = uniform({3, 120000}, -1, 1, kFloat32, 7);
  EXPECT_TRUE(close(sum(wide, {0}), add(add(wide.select(0, 0), wide.select(0, 1)), wide.select(0, 2)), 1e-5, 1e-6));
  EXPECT_TRUE(close(amin(wide, {0}), minimum(minimum(wide.select(0, 0), wide.select(0, 1)), wide.select(0, 2)), 0, 0));
  Tensor bools = gt(wide, 0.999);
  EXPECT_EQ(any(bools, {0}).sizes(), (Shape{120000}));
  EXPECT_TRUE(close(any(bools, {0}).to(kFloat32), logical_or(logical_or(bools.select(0, 0), bools.select(0, 1)), bools.select(0, 2)).to(kFloat32)));
}

// Short contiguous inner runs (<= 64 values, e.g. a softmax over 16 bins) take their own loop in the
// CPU kernel: against the naive reference for every run length around the limit, float32, float64 and
// int32, with NaN and -inf in some rows, and from enough rows for the OpenMP path.
TEST(Reduce, ShortInnerRunsMatchReference) {
  for (int64_t inner : {1, 2, 3, 4, 7, 16, 63, 64, 65}) {
    for (Dtype dt : {kFloat32, kFloat64}) {
      Tensor x = uniform({3000, inner}, -3, 3, kFloat64, 11 + inner);
      x.select(0, 5).select(0, inner - 1).fill_(kNaN);
      x.select(0, 7).fill_(-kInf);
      if (inner > 2) x.select(0, 9).select(0, 1).fill_(kNaN);
      x = x.to(dt);
      const double tol = dt == kFloat32 ? 1e-5 : 1e-12;
      EXPECT_TRUE(close(sum(x, {1}, true), reference(x, {1}, 0, std::plus<double>()), tol, tol)) << inner;
      EXPECT_TRUE(close(amax(x, {1}, true), reference(x, {1}, -kInf, nan_max), 0, 0)) << inner;
      EXPECT_TRUE(close(amin(x, {1}, true), reference(x, {1}, kInf, nan_min), 0, 0)) << inner;
    }
    Tensor xi = round(uniform({500, inner}, -50, 50, kFloat64, 3)).to(kInt32);
    EXPECT_TRUE(close(sum(xi, {1}, true).to(kFloat64), reference(xi, {1}, 0, std::plus<double>()), 0, 0)) << inner;
    EXPECT_TRUE(close(amax(xi, {1}, true).to(kFloat64), reference(xi, {1}, -kInf, nan_max), 0, 0)) << inner;
  }
}

TEST(Softmax, ValuesStabilityAndDims) {
  Tensor x = T({1, 2, 3, 1000, 1000, 1000}, {2, 3});
  Tensor s = softmax(x, 1);
  EXPECT_TRUE(close(s, T({0.09003057, 0.24472847, 0.66524096, 1.0 / 3, 1.0 / 3, 1.0 / 3}, {2, 3})));
  EXPECT_TRUE(close(log_softmax(x, -1), T({-2.40760596, -1.40760596, -0.40760596, -1.0986123, -1.0986123, -1.0986123}, {2, 3})));
  EXPECT_TRUE(close(sum(softmax(uniform({4, 5, 6}, -3, 3), 1), {1}), ones({4, 6}, kFloat64)));
  Tensor y = uniform({3, 4}, -3, 3, kFloat64, 8);
  EXPECT_TRUE(close(softmax(noncontig(y), 0), softmax(y, 0), 1e-12));
  EXPECT_TRUE(close(log_softmax(y, 0), log(softmax(y, 0)), 1e-12));
  EXPECT_TRUE(close(softmax(T({-kInf, 0}), 0), T({0, 1})));
  EXPECT_THROW(softmax(I({1, 2}), 0), DtypeError);
}

TEST(Scan, CumsumCumprod) {
  Tensor x = T({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_TRUE(close(cumsum(x, 1), T({1, 3, 6, 4, 9, 15}, {2, 3})));
  EXPECT_TRUE(close(cumsum(x, 0), T({1, 2, 3, 5, 7, 9}, {2, 3})));
  EXPECT_TRUE(close(cumprod(x, -1), T({1, 2, 6, 4, 20, 120}, {2, 3})));
  EXPECT_TRUE(close(cumsum(x.t(), 1), T({1, 5, 2, 7, 3, 9}, {3, 2})));
  EXPECT_TRUE(same(cumsum(I({1, 2, 3}, kInt32), 0), I({1, 3, 6})));
  EXPECT_TRUE(same(cumprod(tensor(std::vector<bool>{true, true, false}), 0), I({1, 1, 0})));
  EXPECT_EQ(cumsum(I({1, 2}), 0, kFloat32).dtype(), kFloat32);
  // Long scans, many rows (parallel over rows).
  Tensor big = uniform({2000, 64}, -1, 1, kFloat64, 9);
  Tensor c = cumsum(big, 0);
  EXPECT_TRUE(close(c.select(0, 1999), sum(big, {0}), 1e-10, 1e-10));
  EXPECT_TRUE(close(cumsum(big, 1).select(1, 63), sum(big, {1}), 1e-10, 1e-10));
}
