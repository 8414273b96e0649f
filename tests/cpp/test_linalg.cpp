// matmul/mm/bmm/addmm/dot against a naive float64 reference: every rank combination (1-d
// operands, broadcast batch dims), transposed and sliced operands, K = 0 and M/N = 0,
// float16/bfloat16/float32/float64, and shape/dtype errors.
#include <gtest/gtest.h>

#include "test_util.h"

using namespace adept;
using namespace adept::testing;

namespace {

// Naive matmul of (..., M, K) x (..., K, N) with broadcast batch dims; 1-d rules as torch.
Tensor ref_matmul(const Tensor& a_in, const Tensor& b_in) {
  Tensor a = a_in.to(kFloat64), b = b_in.to(kFloat64);
  bool a1 = a.dim() == 1, b1 = b.dim() == 1;
  if (a1) a = a.unsqueeze(0);
  if (b1) b = b.unsqueeze(1);
  const int64_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
  Shape ba(a.sizes().begin(), a.sizes().end() - 2), bb(b.sizes().begin(), b.sizes().end() - 2);
  Shape batch = broadcast_shapes(ba, bb);
  Shape ea = batch, eb = batch;
  ea.insert(ea.end(), {M, K});
  eb.insert(eb.end(), {K, N});
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  auto av = values(a.expand(ea).contiguous()), bv = values(b.expand(eb).contiguous());
  std::vector<double> out(nb * M * N, 0.0);
  for (int64_t i = 0; i < nb; ++i)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += av[(i * M + m) * K + k] * bv[(i * K + k) * N + n];
        out[(i * M + m) * N + n] = s;
      }
  Shape os = batch;
  os.insert(os.end(), {M, N});
  Tensor r = tensor(out, TensorOptions(kFloat64)).view(os);
  if (a1) r = r.squeeze(-2);
  if (b1) r = r.squeeze(-1);
  return r;
}

uint64_t g_seed = 500;
Tensor rnd(const Shape& s, Dtype d = kFloat32) { return uniform(s, -1, 1, kFloat64, g_seed++).to(d); }

}  // namespace

TEST(Matmul, AllRankCombinations) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{3}, {3}},          {{3}, {3, 4}},          {{2, 3}, {3}},          {{2, 3}, {3, 4}},
      {{5, 2, 3}, {3}},    {{3}, {5, 3, 4}},       {{5, 2, 3}, {3, 4}},    {{2, 3}, {5, 3, 4}},
      {{5, 2, 3}, {5, 3, 4}}, {{5, 1, 2, 3}, {6, 3, 4}}, {{1, 2, 3}, {4, 3, 2}}, {{2, 1, 2, 3}, {1, 3, 3, 1}},
      {{7, 1}, {1, 6}},    {{1, 7}, {7, 1}},
  };
  for (Dtype d : {kFloat32, kFloat64}) {
    for (const auto& [sa, sb] : shapes) {
      Tensor a = rnd(sa, d), b = rnd(sb, d);
      Tensor out = matmul(a, b);
      Tensor ref = ref_matmul(a, b);
      EXPECT_EQ(out.dtype(), d);
      EXPECT_TRUE(close(out.to(kFloat64), ref, d == kFloat64 ? 1e-12 : 1e-5, 1e-6))
          << shape_str(sa) << " @ " << shape_str(sb) << " " << dtype_name(d);
    }
  }
  EXPECT_EQ(matmul(rnd({3}), rnd({3})).dim(), 0);
}

TEST(Matmul, TransposedAndSlicedOperands) {
  Tensor a = rnd({4, 3}), b = rnd({5, 4});
  EXPECT_TRUE(close(matmul(a.t(), b.t()).to(kFloat64), ref_matmul(a.t(), b.t()), 1e-5, 1e-6));
  Tensor big = rnd({6, 8});
  Tensor s1 = big.slice(1, 0, std::nullopt, 2);  // column stride 2: not a BLAS layout
  Tensor s2 = big.narrow(0, 1, 4);               // row-major with ld 8
  EXPECT_TRUE(close(matmul(s1, s2).to(kFloat64), ref_matmul(s1, s2), 1e-5, 1e-6));
  Tensor bt = rnd({3, 4, 5}).transpose(1, 2);    // batched, transposed inner
  Tensor at = rnd({3, 2, 5});
  EXPECT_TRUE(close(matmul(at, bt).to(kFloat64), ref_matmul(at, bt), 1e-5, 1e-6));
  Tensor perm = rnd({4, 3, 2}).permute({1, 2, 0});  // (3, 2, 4): batch stride not outermost
  Tensor rhs = rnd({4, 2});
  EXPECT_TRUE(close(matmul(perm, rhs).to(kFloat64), ref_matmul(perm, rhs), 1e-5, 1e-6));
  Tensor e = rnd({1, 3}).expand({4, 3});         // stride-0 rows
  Tensor w = rnd({3, 2});
  EXPECT_TRUE(close(matmul(e, w).to(kFloat64), ref_matmul(e, w), 1e-5, 1e-6));
  Tensor batch_expand = rnd({2, 3}).expand({4, 2, 3});  // stride-0 batch
  EXPECT_TRUE(close(matmul(batch_expand, w).to(kFloat64), ref_matmul(batch_expand, w), 1e-5, 1e-6));
}

TEST(Matmul, EmptyDims) {
  Tensor out = matmul(zeros({2, 0}), zeros({0, 3}));  // K = 0: zeros, not garbage
  EXPECT_EQ(out.sizes(), (Shape{2, 3}));
  EXPECT_TRUE(same(out, zeros({2, 3})));
  EXPECT_TRUE(same(matmul(empty({4, 2, 0}), empty({4, 0, 3})), zeros({4, 2, 3})));
  EXPECT_TRUE(same(matmul(zeros({0}), zeros({0})), zeros({})));
  EXPECT_EQ(matmul(zeros({0, 3}), zeros({3, 5})).sizes(), (Shape{0, 5}));
  EXPECT_EQ(matmul(zeros({2, 3}), zeros({3, 0})).sizes(), (Shape{2, 0}));
  EXPECT_EQ(matmul(zeros({0, 2, 3}), zeros({3, 4})).sizes(), (Shape{0, 2, 4}));
  EXPECT_EQ(matmul(zeros({0, 2, 3}), zeros({1, 3, 4})).sizes(), (Shape{0, 2, 4}));
  EXPECT_TRUE(same(matmul(zeros({2, 0}, kFloat16), zeros({0, 3}, kFloat16)), zeros({2, 3}, kFloat16)));
  // Gradients through K = 0 are zero-sized / zero.
  Tensor a = zeros({2, 0}, kFloat64).requires_grad_(), b = zeros({0, 3}, kFloat64).requires_grad_();
  matmul(a, b).sum().backward();
  EXPECT_EQ(a.grad().sizes(), (Shape{2, 0}));
}

TEST(Matmul, SixteenBitAndDoubleDtypes) {
  for (Dtype d : {kFloat16, kBFloat16}) {
    Tensor a = rnd({3, 5, 7}, d), b = rnd({7, 4}, d);
    Tensor out = matmul(a, b);
    EXPECT_EQ(out.dtype(), d);
    // Computed in float32 from the 16-bit values, rounded once.
    EXPECT_TRUE(same(out, ref_matmul(a, b).to(kFloat32).to(d)) ||
                close(out.to(kFloat64), ref_matmul(a, b), d == kFloat16 ? 2e-3 : 1e-2, 1e-3)) << dtype_name(d);
    EXPECT_TRUE(close(matmul(a.select(0, 1), b).to(kFloat64), ref_matmul(a.select(0, 1), b), 1e-2, 1e-2));
  }
  Tensor a = rnd({4, 4}, kFloat64);
  EXPECT_TRUE(close(mm(a, a), ref_matmul(a, a), 1e-13, 1e-14));
}

TEST(Matmul, MmBmmDotAddmm) {
  Tensor a = rnd({2, 3}), b = rnd({3, 4});
  EXPECT_TRUE(close(mm(a, b).to(kFloat64), ref_matmul(a, b), 1e-5, 1e-6));
  Tensor x = rnd({3, 2, 3}), y = rnd({3, 3, 2});
  EXPECT_TRUE(close(bmm(x, y).to(kFloat64), ref_matmul(x, y), 1e-5, 1e-6));
  Tensor u = rnd({5}), v = rnd({5});
  EXPECT_TRUE(close(dot(u, v).to(kFloat64), ref_matmul(u, v), 1e-5, 1e-6));
  Tensor c = rnd({4});
  EXPECT_TRUE(close(addmm(c, a, b, 0.5, 2).to(kFloat64), ref_matmul(a, b) * 2 + c.to(kFloat64) * 0.5, 1e-5, 1e-6));
  Tensor nan_in = full({2, 4}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(close(addmm(nan_in, a, b, 0).to(kFloat64), ref_matmul(a, b), 1e-5, 1e-6));  // beta=0 ignores NaN
  EXPECT_TRUE(close(a.matmul(b).to(kFloat64), ref_matmul(a, b), 1e-5, 1e-6));
}

TEST(Matmul, Errors) {
  EXPECT_THROW(matmul(ones({2, 3}), ones({2, 3})), ShapeError);
  EXPECT_THROW(matmul(ones({3}), ones({4})), ShapeError);
  EXPECT_THROW(matmul(ones({}), ones({3})), ShapeError);
  EXPECT_THROW(matmul(ones({2, 2, 3}), ones({3, 3, 2})), ShapeError);  // batch 2 vs 3
  EXPECT_THROW(matmul(ones({2, 3}), ones({3, 2}, kFloat64)), DtypeError);
  EXPECT_THROW(matmul(ones({2, 3}, kBool), ones({3, 2}, kBool)), DtypeError);
  EXPECT_THROW(mm(ones({2, 3, 1}), ones({3, 2})), ShapeError);
  EXPECT_THROW(mm(ones({2, 3}), ones({2, 3})), ShapeError);
  EXPECT_THROW(bmm(ones({2, 2, 3}), ones({3, 3, 2})), ShapeError);
  EXPECT_THROW(bmm(ones({2, 3}), ones({3, 2})), ShapeError);
  EXPECT_THROW(dot(ones({3}), ones({2})), ShapeError);
  EXPECT_THROW(dot(ones({3, 1}), ones({3, 1})), ShapeError);
  EXPECT_THROW(addmm(ones({3, 3}), ones({2, 3}), ones({3, 2})), ShapeError);
  try {
    mm(ones({2, 3}), ones({4, 5}));
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("2x3 and 4x5"), std::string::npos) << e.what();
  }
}

TEST(Matmul, LargeGemmMatchesReference) {
  Tensor a = rnd({64, 96}), b = rnd({96, 80});
  EXPECT_TRUE(close(matmul(a, b).to(kFloat64), ref_matmul(a, b), 1e-4, 1e-5));
}
