// roll, repeat, tile, meshgrid, tril, triu against PyTorch literals (gen/gen_index_shape_expected.py),
// finite-difference gradients, zero-size inputs and error cases.
#include "index_shape_test_util.h"

using namespace adept;
using idx_test::expect_lit;
using idx_test::gradcheck;
using idx_test::lit;

TEST(Roll, MatchesTorch) {
  Tensor x = lit("roll_a_in");
  expect_lit(roll(x, {1, -2}, {0, 1}), "roll_a_2d");
  expect_lit(roll(x, {3}), "roll_a_flat");
  expect_lit(roll(x.t(), {5}, {0}), "roll_a_t");
  Tensor same = roll(x, {3}, {0});  // full turn: a copy equal to x
  EXPECT_TRUE(equal(same, x));
  EXPECT_NE(same.impl()->storage, x.impl()->storage);
  EXPECT_EQ(roll(zeros({0, 3}), {2}, {0}).sizes(), (Shape{0, 3}));
  EXPECT_THROW(roll(x, {1, 2}, {0}), ValueError);
  EXPECT_THROW(roll(x, {1}, {2}), IndexError);
  auto g = gradcheck([](const std::vector<Tensor>& in) { return roll(in[0], {1, -2}, {0, 1}); }, {x});
  expect_lit(g[0], "roll_a_grad0", 1e-10);
}

TEST(RepeatTile, MatchTorch) {
  Tensor x = lit("rep_a_in");
  expect_lit(repeat(x, {2, 1, 2}), "rep_a");
  expect_lit(repeat(x.t(), {1, 3}), "rep_a_t");
  expect_lit(tile(x, {2}), "tile_a");
  expect_lit(tile(x, {2, 1, 2}), "tile_a_more");
  Tensor once = repeat(x, {1, 1});
  EXPECT_NE(once.impl()->storage, x.impl()->storage);
  EXPECT_EQ(repeat(x, {0, 2}).sizes(), (Shape{0, 6}));
  EXPECT_EQ(repeat(zeros({0, 2}), {3, 1}).sizes(), (Shape{0, 2}));
  EXPECT_THROW(repeat(x, {2}), ShapeError);
  EXPECT_THROW(repeat(x, {-1, 1}), ValueError);
  auto g = gradcheck([](const std::vector<Tensor>& in) { return repeat(in[0], {2, 1, 2}); }, {x});
  expect_lit(g[0], "rep_a_grad0", 1e-10);
}

TEST(Meshgrid, IjAndXyMatchTorch) {
  Tensor a = lit("mesh_a"), b = lit("mesh_b");
  auto ij = meshgrid({a, b});
  expect_lit(ij[0], "mesh_ij0");
  expect_lit(ij[1], "mesh_ij1");
  auto xy = meshgrid({a, b}, "xy");
  expect_lit(xy[0], "mesh_xy0");
  expect_lit(xy[1], "mesh_xy1");
  auto z = meshgrid({a, zeros({0}, TensorOptions(kFloat64)), scalar_tensor(1.0, TensorOptions(kFloat64))});
  EXPECT_EQ(z[2].sizes(), (Shape{2, 0, 1}));
  EXPECT_THROW(meshgrid({}), ValueError);
  EXPECT_THROW(meshgrid({a, b}, "yx"), ValueError);
  EXPECT_THROW(meshgrid({zeros({2, 2})}), ShapeError);
  EXPECT_THROW(meshgrid({a, zeros({3})}), DtypeError);
  gradcheck([](const std::vector<Tensor>& in) { return meshgrid({in[0], in[1]}, "xy")[0] * 3.0; }, {a, b});
}

TEST(TrilTriu, MatchTorchBatchedAndTransposed) {
  Tensor x = lit("tri_a_in");
  expect_lit(tril(x), "tril_a");
  expect_lit(tril(x, -1), "tril_a_m1");
  expect_lit(triu(x, 2), "triu_a_2");
  expect_lit(triu(x.transpose(1, 2), 1), "triu_a_t");
  Tensor bools = ones({3, 3}, TensorOptions(kBool));
  EXPECT_EQ(tril(bools).dtype(), kBool);
  EXPECT_EQ(sum(tril(bools)).item<int64_t>(), 6);
  EXPECT_EQ(triu(zeros({2, 0, 3})).sizes(), (Shape{2, 0, 3}));
  EXPECT_THROW(tril(zeros({3})), IndexError);  // as torch
  auto g = gradcheck([](const std::vector<Tensor>& in) { return tril(in[0], 1); }, {x});
  expect_lit(g[0], "tril_a_grad0", 1e-10);
}
