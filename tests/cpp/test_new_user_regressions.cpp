// Regressions found by trying to break the API as a new user: sizes whose element or byte counts
// overflow, an overlapping copy_ source, random fills of a leaf that requires grad.
#include <gtest/gtest.h>

#include "adept/adept.h"

using namespace adept;

TEST(SizeLimits, OverflowingShapesRaiseInsteadOfAllocatingTooLittle) {
  EXPECT_THROW(empty({int64_t{1} << 62}), ValueError);
  EXPECT_THROW(zeros({int64_t{1} << 31, int64_t{1} << 31, 4}), ValueError);
  EXPECT_THROW(arange(0.0, 1e300, 1e-300), ValueError);
  EXPECT_THROW(ones({1}).expand({-2}), ShapeError);
  EXPECT_EQ(empty({0, int64_t{1} << 62}).numel(), 0);  // empty tensors never allocate
}

TEST(CopyInPlace, SourceOverlappingTheDestinationIsReadBeforeWriting) {
  Tensor x = arange(4, kFloat32).reshape({2, 2});
  x.copy_(x.t());
  EXPECT_TRUE(equal(x, tensor(std::vector<float>{0, 2, 1, 3}).reshape({2, 2})));
}

TEST(SizeLimits, RandomFillOfALeafThatRequiresGradRaises) {
  Tensor x = ones({3}).requires_grad_();
  EXPECT_THROW(uniform_(x), AutogradError);
  EXPECT_THROW(normal_(x), AutogradError);
  NoGradGuard ng;  // initialisation under no_grad is allowed
  uniform_(x);
  EXPECT_TRUE(x.requires_grad());
}
