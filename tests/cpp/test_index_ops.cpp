// Index expressions (Tensor::index / index_put_), index/index_put, masked_select, nonzero, sort,
// argsort, topk, unique and one_hot against PyTorch literals (gen/gen_index_shape_expected.py),
// hand-computed values, finite-difference gradients and error cases.
#include "index_shape_test_util.h"

using namespace adept;
using idx_test::expect_lit;
using idx_test::gradcheck;
using idx_test::lit;
using idx_test::longs;

TEST(IndexExpr, BasicIndicesReturnViewMatchingTorch) {
  Tensor x = lit("idx_a_in");
  Tensor y = x.index({Slice(1, None), None, Ellipsis, -2});
  expect_lit(y, "idx_basic_mix");
  EXPECT_EQ(y.impl()->storage, x.impl()->storage);
  Tensor b = lit("idx_b_in");
  Tensor s = b.index({Slice(None, None, 2), Slice(1, None, 3)});
  expect_lit(s, "idx_slice_step");
  EXPECT_EQ(s.impl()->storage, b.impl()->storage);
  Tensor whole = b.index({Ellipsis});
  EXPECT_FALSE(whole.is_same(b));
  EXPECT_EQ(whole.sizes(), b.sizes());
}

TEST(IndexExpr, AdvancedPlacementMatchesTorch) {
  Tensor x = lit("idx_c_in");
  Tensor i2 = longs({0, 2, 3, -1}).view({2, 2});
  expect_lit(x.index({Slice(), i2, longs({1, 3})}), "idx_adjacent");
  expect_lit(x.index({longs({0, 2}), Slice(), longs({1, -1})}), "idx_separated");
  expect_lit(x.index({0, Slice(), longs({1, 2})}), "idx_select_then_adv");
  Tensor m = tensor(std::vector<bool>{true, false, true, true});
  expect_lit(x.index({Slice(), m, longs({0, 2}).view({2, 1})}), "idx_mask_and_int");
  expect_lit(x.index({Ellipsis, longs({-1, 0})}), "idx_ellipsis_neg");
  expect_lit(x.index({longs({0, 1}), None, longs({2, 0})}), "idx_none_between");
  // int32 indices behave like int64; the result is a copy.
  Tensor y = x.index({longs({0, 2}).to(kInt32)});
  EXPECT_NE(y.impl()->storage, x.impl()->storage);
  EXPECT_TRUE(equal(y, x.index({longs({0, 2})})));
}

TEST(IndexExpr, MasksAndBoolScalarsMatchTorch) {
  Tensor m = lit("idx_d_in");
  expect_lit(m.index({gt(m, Scalar(0))}), "idx_mask_full");
  Tensor e = lit("idx_e_in");
  expect_lit(e.index({gt(e.index({Ellipsis, 0}), Scalar(0))}), "idx_mask_partial");
  Tensor f = lit("idx_f_in");
  expect_lit(f.index({None, true, 1}), "idx_bool_scalars");
  expect_lit(f.index({false, Slice(), longs({0})}), "idx_false_adv");
  EXPECT_EQ(f.index({true}).sizes(), (Shape{1, 2, 3}));
  EXPECT_EQ(f.index({tensor(std::vector<bool>{false}).view({})}).sizes(), (Shape{0, 2, 3}));
}

TEST(IndexExpr, NonContiguousExpandedAndZeroSizeInputs) {
  expect_lit(lit("idx_g_in").t().index({longs({1, 3}), Slice(1, None)}), "idx_transposed");
  expect_lit(lit("idx_h_in").expand({3, 4}).index({longs({0, 2}), longs({1, 3})}), "idx_expanded");
  expect_lit(lit("idx_i_in").index({longs({0, 2})}), "idx_zero_size");
  Tensor empty_idx = empty({0}, TensorOptions(kInt64));
  EXPECT_EQ(lit("idx_b_in").index({empty_idx, Slice(1, 3)}).sizes(), (Shape{0, 2}));
  // A 0-d integer tensor acts as an int (a view), as in Python.
  Tensor b = lit("idx_b_in");
  Tensor sel = b.index({tensor(std::vector<int64_t>{2}).view({})});
  EXPECT_EQ(sel.sizes(), (Shape{6}));
  EXPECT_EQ(sel.impl()->storage, b.impl()->storage);
}

TEST(IndexExpr, HandComputedValues) {
  Tensor x = arange(12, TensorOptions(kInt64)).view({3, 4});
  EXPECT_EQ(x.index({1, -1}).item<int64_t>(), 7);
  Tensor y = x.index({longs({2, 0}), longs({1, 3})});
  EXPECT_EQ(y.tolist_flat()[0].to_int64(), 9);
  EXPECT_EQ(y.tolist_flat()[1].to_int64(), 3);
  Tensor nz = nonzero(tensor(std::vector<int64_t>{0, 5, 0, 7}).view({2, 2}));
  EXPECT_EQ(nz.sizes(), (Shape{2, 2}));
  std::vector<int64_t> want{0, 1, 1, 1};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(nz.tolist_flat()[i].to_int64(), want[i]);
}

TEST(IndexExpr, ErrorsAreTyped) {
  Tensor x = lit("idx_c_in");
  EXPECT_THROW(x.index({5}), IndexError);
  EXPECT_THROW(x.index({-4}), IndexError);
  EXPECT_THROW(x.index({Slice(), longs({4})}), IndexError);
  EXPECT_THROW(x.index({Slice(), longs({-5})}), IndexError);
  EXPECT_THROW(x.index({0, 0, 0, 0}), IndexError);
  EXPECT_THROW(x.index({Ellipsis, 0, Ellipsis}), IndexError);
  EXPECT_THROW(x.index({tensor(std::vector<bool>{true, false})}), IndexError);  // mask (2) vs dim 3
  EXPECT_THROW(x.index({tensor(std::vector<double>{0.0})}), IndexError);
  EXPECT_THROW(x.index({longs({0, 1}), longs({0, 1, 2})}), IndexError);       // no broadcast
  EXPECT_THROW(x.index({Slice(0, None, 0)}), ValueError);
  EXPECT_THROW(scalar_tensor(1.0).index({0}), IndexError);
  EXPECT_THROW(lit("idx_i_in").index({Slice(), longs({0})}), IndexError);  // index into a size-0 dim
}

TEST(IndexExpr, IndexGradientMatchesTorchAndFiniteDifferences) {
  auto f = [](const std::vector<Tensor>& in) { return in[0].index({longs({0, 2, 0}), Slice(1, None)}); };
  auto g = gradcheck(f, {lit("idx_j_in")});
  expect_lit(g[0], "idx_dup_grad0", 1e-10);
  // Mask read and basic views mixed, through a transposed input.
  gradcheck([](const std::vector<Tensor>& in) {
    Tensor t = in[0].t();  // (4, 3)
    return t.index({Slice(1, None), tensor(std::vector<bool>{true, false, true}), None});
  }, {lit("idx_d_in")});
}

TEST(IndexPut, AssignmentsMatchTorch) {
  Tensor a = lit("put_a_in");
  a.index_put_({gt(a, Scalar(0))}, Scalar(0));
  expect_lit(a, "put_mask_scalar");
  Tensor b = lit("put_b_in");
  b.index_put_({Slice(), Slice(1, None, 2)}, lit("put_b_val"));
  expect_lit(b, "put_slice_tensor");
  Tensor c = lit("put_c_in");
  c.index_put_({longs({0, 2}), Slice(), longs({1, 3})}, lit("put_c_val"));
  expect_lit(c, "put_broadcast");
  expect_lit(index_put(lit("put_d_in"), {longs({0, 1, 0, 4, 0})}, lit("put_d_val"), true), "put_accumulate");
  Tensor e = lit("put_e_in");
  Tensor et = e.t();
  et.index_put_({longs({0, 4}), 1}, lit("put_e_val"));
  expect_lit(e, "put_transposed");
  // Basic-index assignment through a view of a plain tensor writes the base.
  Tensor f = lit("put_f_in");
  Tensor col = f.index({Slice(), 0});
  col.fill_(5);
  expect_lit(f, "put_basic_view");
  Tensor f2 = lit("put_f_in");
  f2.index_put_({Slice(), 0}, Scalar(5));
  expect_lit(f2, "put_basic_view");
}

TEST(IndexPut, InPlaceFreeFunctionAccumulatesDuplicatesAndBumpsVersion) {
  Tensor x = zeros({4}, TensorOptions(kFloat64));
  uint64_t v0 = x._version();
  index_put_(x, {longs({1, 1, 3, 1})}, ones({4}, TensorOptions(kFloat64)), true);
  EXPECT_GT(x._version(), v0);
  std::vector<double> want{0, 3, 0, 1};
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(x.tolist_flat()[i].to_double(), want[i]);
  // A value of another dtype is cast; leading size-1 dims of the value are dropped.
  Tensor y = zeros({2, 3}, TensorOptions(kFloat32));
  y.index_put_({0}, ones({1, 1, 3}, TensorOptions(kInt64)));
  EXPECT_FLOAT_EQ(sum(y).item<float>(), 3.0f);
}

TEST(IndexPut, ErrorsAreTyped) {
  Tensor x = zeros({3, 4});
  EXPECT_THROW(x.index_put_({Slice(), 0}, ones({4})), ShapeError);
  Tensor ex = zeros({3, 1}).expand({3, 4});
  EXPECT_THROW(ex.index_put_({0}, Scalar(1)), ValueError);
  Tensor leaf = zeros({3}).requires_grad_();
  EXPECT_THROW(leaf.index_put_({0}, Scalar(1)), AutogradError);
  EXPECT_THROW(x.index_put_({longs({3})}, Scalar(1)), IndexError);
}

TEST(IndexPut, GradientsMatchTorchAndFiniteDifferences) {
  auto acc = [](const std::vector<Tensor>& in) { return index_put(in[0], {longs({0, 1, 0, 4, 0})}, in[1], true); };
  auto g = gradcheck(acc, {lit("put_d_in"), lit("put_d_val")});
  expect_lit(g[0], "put_acc_grad0", 1e-10);
  expect_lit(g[1], "put_acc_grad1", 1e-10);
  auto rows = [](const std::vector<Tensor>& in) { return index_put(in[0], {longs({3, 1})}, in[1]); };
  g = gradcheck(rows, {lit("put_g_in"), lit("put_g_val")});
  expect_lit(g[0], "put_rows_grad0", 1e-10);
  expect_lit(g[1], "put_rows_grad1", 1e-10);
  // In-place expression assignment on a non-leaf: a broadcast value and a mask.
  gradcheck([](const std::vector<Tensor>& in) {
    Tensor y = in[0] * 2.0;
    y.index_put_({Slice(), Slice(1, None, 2)}, in[1].index({Slice(), Slice(0, 1)}));
    y.index_put_({lt(lit("put_b_in"), Scalar(-0.5))}, in[1].sum());
    return y;
  }, {lit("put_b_in"), lit("put_b_val")});
}

TEST(MaskedSelectNonzero, MatchTorch) {
  Tensor x = lit("msel_a_in");
  Tensor m = lit("msel_a_mask_bool");
  expect_lit(masked_select(x, m), "msel_a");
  auto g = gradcheck([&](const std::vector<Tensor>& in) { return masked_select(in[0], m); }, {x});
  expect_lit(g[0], "msel_a_grad0", 1e-10);
  expect_lit(nonzero(lit("nz_a_in")), "nz_a");
  expect_lit(nonzero(lit("nz_a_in").transpose(0, 2)), "nz_a_t");
  EXPECT_EQ(nonzero(zeros({0, 3})).sizes(), (Shape{0, 2}));
  EXPECT_EQ(nonzero(scalar_tensor(2.0)).sizes(), (Shape{1, 0}));
  EXPECT_EQ(masked_select(scalar_tensor(2.0), tensor(std::vector<bool>{true, false, true})).sizes(), (Shape{2}));
  EXPECT_THROW(masked_select(x, ones({4})), DtypeError);
  EXPECT_THROW(masked_select(x, ones({5}, TensorOptions(kBool))), ShapeError);
}

TEST(Sort, ValuesAndIndicesMatchTorch) {
  Tensor x = lit("sort_a_in");
  auto [v, i] = sort(x);
  expect_lit(v, "sort_a_v");
  expect_lit(i, "sort_a_i");
  std::tie(v, i) = sort(x, 0, true);
  expect_lit(v, "sort_a_d0_v");
  expect_lit(i, "sort_a_d0_i");
  std::tie(v, i) = sort(x.t(), -1);
  expect_lit(v, "sort_a_t_v");
  expect_lit(i, "sort_a_t_i");
  Tensor b = lit("sort_b_in");
  std::tie(v, i) = sort(b, -1, false, true);
  expect_lit(v, "sort_b_v");
  expect_lit(i, "sort_b_i");
  std::tie(v, i) = sort(b, -1, true, true);
  expect_lit(v, "sort_b_desc_v");
  expect_lit(i, "sort_b_desc_i");
  Tensor c = lit("sort_c_in");
  std::tie(v, i) = sort(c);
  expect_lit(v, "sort_c_v");
  expect_lit(i, "sort_c_i");
  std::tie(v, i) = sort(c, 0, true);
  expect_lit(v, "sort_c_desc_v");
  expect_lit(i, "sort_c_desc_i");
  expect_lit(argsort(lit("topk_a_in"), 0, true), "argsort_a");
}

TEST(Sort, ZeroSizeZeroDimLargeAndErrors) {
  auto [v, i] = sort(zeros({0, 3}), 0);
  EXPECT_EQ(v.sizes(), (Shape{0, 3}));
  EXPECT_EQ(i.dtype(), kInt64);
  std::tie(v, i) = sort(scalar_tensor(4.0));
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(i.item<int64_t>(), 0);
  EXPECT_THROW(sort(zeros({2, 3}), 2), IndexError);
  // Large enough to run in parallel: every row sorted, indices a permutation giving the values.
  Tensor big = randn({512, 300}, TensorOptions(kFloat32));
  std::tie(v, i) = sort(big, 1);
  EXPECT_TRUE(all(le(v.slice(1, 0, 299), v.slice(1, 1, 300))).item<bool>());
  EXPECT_TRUE(equal(gather(big, 1, i), v));
  Tensor half = big.to(kFloat16);
  std::tie(v, i) = sort(half, 0, true);
  EXPECT_TRUE(all(ge(v.slice(0, 0, 511), v.slice(0, 1, 512))).item<bool>());
}

TEST(Sort, GradientMatchesTorchAndFiniteDifferences) {
  auto g = gradcheck([](const std::vector<Tensor>& in) { return std::get<0>(sort(in[0], 0)); }, {lit("sort_a_in")});
  expect_lit(g[0], "sort_a_grad0", 1e-10);
}

TEST(Topk, MatchesTorch) {
  Tensor x = lit("topk_a_in");
  auto [v, i] = topk(x, 3, 1);
  expect_lit(v, "topk_a_v");
  expect_lit(i, "topk_a_i");
  std::tie(v, i) = topk(x, 2, 0, false);
  expect_lit(v, "topk_a_small_v");
  expect_lit(i, "topk_a_small_i");
  std::tie(v, i) = topk(x.t(), 2, -1);
  expect_lit(v, "topk_a_t_v");
  expect_lit(i, "topk_a_t_i");
  std::tie(v, i) = topk(x, 0, 1);
  EXPECT_EQ(v.sizes(), (Shape{4, 0}));
  std::tie(v, i) = topk(scalar_tensor(3.0), 1);
  EXPECT_EQ(v.item<double>(), 3.0);
  EXPECT_THROW(topk(x, 7, 1), IndexError);
  EXPECT_THROW(topk(x, -1, 1), IndexError);
  auto g = gradcheck([](const std::vector<Tensor>& in) { return std::get<0>(topk(in[0], 3, 1)); }, {x});
  expect_lit(g[0], "topk_a_grad0", 1e-10);
}

TEST(Unique, MatchesTorch) {
  auto [u, inv, cnt] = unique(lit("uniq_a_in"), true, true, true);
  expect_lit(u, "uniq_a_v");
  expect_lit(inv, "uniq_a_inv");
  expect_lit(cnt, "uniq_a_cnt");
  Tensor b = lit("uniq_b_in");
  std::tie(u, inv, cnt) = unique(b, true, true, true, 0);
  expect_lit(u, "uniq_b_d0_v");
  expect_lit(inv, "uniq_b_d0_inv");
  expect_lit(cnt, "uniq_b_d0_cnt");
  std::tie(u, inv, cnt) = unique(b, true, true, true, -1);
  expect_lit(u, "uniq_b_d1_v");
  expect_lit(inv, "uniq_b_d1_inv");
  expect_lit(cnt, "uniq_b_d1_cnt");
  std::tie(u, inv, cnt) = unique(zeros({0}), true, true, true);
  EXPECT_EQ(u.numel(), 0);
  EXPECT_EQ(cnt.numel(), 0);
  // Non-contiguous input: same as its contiguous copy.
  Tensor t = lit("uniq_a_in").t();
  EXPECT_TRUE(equal(std::get<1>(unique(t, true, true)), std::get<1>(unique(t.contiguous(), true, true))));
}

TEST(OneHot, MatchesTorchAndRaises) {
  Tensor x = lit("onehot_in");
  expect_lit(one_hot(x), "onehot_auto");
  expect_lit(one_hot(x, 5), "onehot_5");
  EXPECT_EQ(one_hot(empty({0}, TensorOptions(kInt64)), 3).sizes(), (Shape{0, 3}));
  EXPECT_THROW(one_hot(longs({-1, 2})), ValueError);
  EXPECT_THROW(one_hot(longs({1, 4}), 3), ValueError);
  EXPECT_THROW(one_hot(empty({0}, TensorOptions(kInt64))), ValueError);
  EXPECT_THROW(one_hot(zeros({2})), DtypeError);
}

TEST(IndexLarge, ParallelKernelsAgreeWithReferenceOps) {
  // Sizes above the parallel grain, so the OpenMP paths run.
  Tensor x = randn({300, 400}, TensorOptions(kFloat32));
  Tensor mask = gt(x, Scalar(0.3));
  Tensor nz = nonzero(mask);
  EXPECT_EQ(nz.size(0), sum(mask).item<int64_t>());
  Tensor rows = nz.select(1, 0), cols = nz.select(1, 1);
  EXPECT_TRUE(all(gt(x.index({rows, cols}), Scalar(0.3))).item<bool>());
  // Row-major order: linear positions strictly increase.
  Tensor lin = rows * 400 + cols;
  EXPECT_TRUE(all(lt(lin.slice(0, 0, lin.size(0) - 1), lin.slice(0, 1, lin.size(0)))).item<bool>());
  EXPECT_TRUE(equal(masked_select(x, mask), x.index({mask})));
  Tensor perm = argsort(randn({400}), 0);
  EXPECT_TRUE(equal(x.t().index({perm}), index_select(x.t(), 0, perm)));
  Tensor y = x.clone();
  y.index_put_({mask}, Scalar(0.0));
  EXPECT_TRUE(equal(y, where(mask, zeros({}), x)));
}
