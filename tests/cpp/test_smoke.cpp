// First smoke tests of the tensor core; fuller suites live beside it.
#include <gtest/gtest.h>

#include "adept/adept.h"

using namespace adept;

TEST(Smoke, AddBroadcastAndBackward) {
  Tensor a = arange(6, kFloat32).view({2, 3}).requires_grad_();
  Tensor b = tensor(std::vector<float>{1, 2, 3}).requires_grad_();
  Tensor c = (a * b + a).sum();
  c.backward();
  EXPECT_FLOAT_EQ(c.item<float>(), 0 * 1 + 1 * 2 + 2 * 3 + 3 * 1 + 4 * 2 + 5 * 3 + 15);
  EXPECT_FLOAT_EQ(a.grad().select(0, 1).select(0, 2).item<float>(), 4.0f);
  EXPECT_FLOAT_EQ(b.grad().select(0, 0).item<float>(), 3.0f);
}
