// Type promotion against a table generated from PyTorch (tests/cpp/gen/gen_promotion.py):
// adept::result_type and the dtypes that add/mul actually produce, for every pair of dtypes
// across the three categories (tensors with dims, 0-d tensors, Python scalars).
#include <gtest/gtest.h>

#include "adept/adept.h"

using namespace adept;

namespace {

enum class Cat { Dim, Zero, Scalar };
// Second operand: a dtype (tensor operands) or a scalar kind.
struct K {
  static constexpr int kBool = 0, kUInt8 = 1, kInt32 = 2, kInt64 = 3, kFloat16 = 4, kBFloat16 = 5, kFloat32 = 6,
                       kFloat64 = 7, ScalarBool = 8, ScalarInt = 9, ScalarFloat = 10;
};
struct Row {
  Cat a_cat;
  Dtype a_dtype;
  Cat b_cat;
  int b;
  Dtype result, add, mul;
};

const Row kTable[] = {
#include "data/promotion_table.inc"
};

Tensor make(Cat c, Dtype d) { return c == Cat::Dim ? ones({2}, d) : ones({}, d); }
Scalar scalar_of(int kind) {
  if (kind == K::ScalarBool) return Scalar(true);
  if (kind == K::ScalarInt) return Scalar(int64_t{3});
  return Scalar(2.5);
}
std::string describe(const Row& r) {
  const char* cats[] = {"dim", "0-d", "scalar"};
  std::string b = r.b_cat == Cat::Scalar ? (r.b == K::ScalarBool ? "bool" : r.b == K::ScalarInt ? "int" : "float")
                                         : dtype_name(static_cast<Dtype>(r.b));
  return fmt::format("{} {} with {} {}", cats[static_cast<int>(r.a_cat)], dtype_name(r.a_dtype),
                     cats[static_cast<int>(r.b_cat)], b);
}

}  // namespace

TEST(Promotion, TableCoversAllPairs) {
  // 16 tensor operands x (16 tensor operands + 3 scalar kinds).
  EXPECT_EQ(std::size(kTable), 16u * 19u);
}

TEST(Promotion, ResultTypeMatchesTorch) {
  for (const Row& r : kTable) {
    Tensor a = make(r.a_cat, r.a_dtype);
    Dtype got = r.b_cat == Cat::Scalar ? result_type({a}, {scalar_of(r.b)})
                                       : result_type({a, make(r.b_cat, static_cast<Dtype>(r.b))});
    EXPECT_EQ(dtype_name(got), std::string(dtype_name(r.result))) << describe(r);
  }
}

TEST(Promotion, AddAndMulOutputDtypesMatchTorch) {
  for (const Row& r : kTable) {
    Tensor a = make(r.a_cat, r.a_dtype);
    Tensor sum, prod;
    if (r.b_cat == Cat::Scalar) {
      sum = add(a, scalar_of(r.b));
      prod = mul(a, scalar_of(r.b));
    } else {
      Tensor b = make(r.b_cat, static_cast<Dtype>(r.b));
      sum = add(a, b);
      prod = mul(a, b);
    }
    EXPECT_EQ(dtype_name(sum.dtype()), std::string(dtype_name(r.add))) << "add: " << describe(r);
    EXPECT_EQ(dtype_name(prod.dtype()), std::string(dtype_name(r.mul))) << "mul: " << describe(r);
    EXPECT_EQ(sum.dim(), r.a_cat == Cat::Dim || r.b_cat == Cat::Dim ? 1 : 0) << describe(r);
  }
}

TEST(Promotion, ScalarOnLeftPromotesLikeOnRight) {
  Tensor i = ones({2}, kInt32);
  EXPECT_EQ((2.5 * i).dtype(), kFloat32);
  EXPECT_EQ((2 * i).dtype(), kInt32);
  EXPECT_EQ((1 - ones({2}, kUInt8)).dtype(), kUInt8);
  EXPECT_EQ((1.0 / ones({2}, kInt64)).dtype(), kFloat32);
}

TEST(Promotion, DefaultFloatDtypeDecidesFloatScalars) {
  set_default_float_dtype(kFloat64);
  Dtype d = result_type({ones({2}, kInt64)}, {Scalar(1.5)});
  set_default_float_dtype(kFloat32);
  EXPECT_EQ(d, kFloat64);
  EXPECT_THROW(set_default_float_dtype(kInt32), ValueError);
}

TEST(Promotion, PromoteTypesIsSymmetric) {
  for (int a = 0; a < kNumDtypes; ++a) {
    for (int b = 0; b < kNumDtypes; ++b) {
      EXPECT_EQ(promote_types(static_cast<Dtype>(a), static_cast<Dtype>(b)),
                promote_types(static_cast<Dtype>(b), static_cast<Dtype>(a)));
    }
  }
}

TEST(Promotion, IntegerTrueDivisionGivesDefaultFloat) {
  EXPECT_EQ(div(ones({2}, kInt64), ones({2}, kInt32)).dtype(), kFloat32);
  EXPECT_EQ(div(ones({2}, kUInt8), 2).dtype(), kFloat32);
  EXPECT_EQ(div(ones({2}, kInt64), ones({2}, kInt64), std::string("floor")).dtype(), kInt64);
  EXPECT_EQ(exp(ones({2}, kInt32)).dtype(), kFloat32);
  EXPECT_EQ(sum(ones({2}, kBool)).dtype(), kInt64);
  EXPECT_EQ(sum(ones({2}, kUInt8)).dtype(), kInt64);
  EXPECT_EQ(sum(ones({2}, kFloat16)).dtype(), kFloat16);
}
