// Collectives of the default process group, run as one MPI job of two or more ranks (ctest starts it with
// mpirun -np 2): every collective against the value each rank computes locally, for every dtype,
// non-contiguous, empty and GPU tensors, asynchronous work overlapping computation, and the errors of
// bad arguments. Faults (timeouts, dead ranks, mismatched collectives) are tested from Python
// (tests/python/test_distributed_faults.py), which checks whole jobs' exit codes and messages.
#include <gtest/gtest.h>

#include "adept/distributed.h"
#include "adept/vulkan.h"
#include "test_util.h"

using namespace adept;
using namespace adept::testing;
namespace dist = adept::distributed;

namespace {

int rank() { return dist::get_rank(); }
int world() { return dist::get_world_size(); }

// The value rank r holds at element i: distinct across ranks and elements.
Tensor contribution(int r, const Shape& shape, Dtype dtype) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  Tensor v = remainder(arange(n, TensorOptions(kFloat64)) * 3 + r * 5 + 1, 7.0) - 2;  // in [-2, 4]
  if (dtype == kUInt8 || dtype == kBool) v = remainder(v + 2, 2.0);
  return v.reshape(shape).to(dtype);
}

const std::vector<Dtype> kDtypes = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kUInt8, kBool};

}  // namespace

TEST(ProcessGroup, RankAndWorld) {
  EXPECT_GE(world(), 2);
  EXPECT_GE(rank(), 0);
  EXPECT_LT(rank(), world());
  EXPECT_GE(dist::get_node_local_rank(), 0);
  EXPECT_TRUE(dist::is_initialized());
}

TEST(ProcessGroup, AllReduceEveryOpAndDtype) {
  for (Dtype dt : kDtypes) {
    for (auto op : {dist::ReduceOp::SUM, dist::ReduceOp::AVG, dist::ReduceOp::PRODUCT, dist::ReduceOp::MIN,
                    dist::ReduceOp::MAX}) {
      if (op == dist::ReduceOp::AVG && !is_floating_point(dt)) continue;
      SCOPED_TRACE(fmt::format("{} {}", dtype_name(dt), dist::reduce_op_name(op)));
      Tensor expected = contribution(0, {3, 4}, dt).to(kFloat64);
      for (int r = 1; r < world(); ++r) {
        Tensor c = contribution(r, {3, 4}, dt).to(kFloat64);
        switch (op) {
          case dist::ReduceOp::SUM:
          case dist::ReduceOp::AVG: expected = expected + c; break;
          case dist::ReduceOp::PRODUCT: expected = expected * c; break;
          case dist::ReduceOp::MIN: expected = minimum(expected, c); break;
          case dist::ReduceOp::MAX: expected = maximum(expected, c); break;
        }
      }
      if (op == dist::ReduceOp::AVG) expected = expected / world();
      if (dt == kBool) expected = expected != 0;  // bool: sum/max are "or", product/min "and"
      Tensor t = contribution(rank(), {3, 4}, dt);
      dist::all_reduce(t, op);
      EXPECT_EQ(t.dtype(), dt);
      EXPECT_TRUE(close(t.to(kFloat64), expected.to(dt).to(kFloat64), 1e-2, 1e-2));
    }
  }
}

TEST(ProcessGroup, AllReduceNonContiguousEmptyAndScalar) {
  Tensor base = contribution(rank(), {4, 3}, kFloat32);
  Tensor t = base.t();  // a transposed view: reduced in place, strides kept
  dist::all_reduce(t);
  Tensor expected = zeros({4, 3});
  for (int r = 0; r < world(); ++r) expected = expected + contribution(r, {4, 3}, kFloat32);
  EXPECT_TRUE(close(base, expected));
  EXPECT_EQ(t.strides(), (Shape{1, 3}));
  Tensor e = empty({0, 5});
  dist::all_reduce(e);
  EXPECT_EQ(e.sizes(), (Shape{0, 5}));
  Tensor s = scalar_tensor(static_cast<double>(rank() + 1));
  dist::all_reduce(s, dist::ReduceOp::MAX);
  EXPECT_EQ(s.item<double>(), world());
}

TEST(ProcessGroup, BroadcastFromEveryRank) {
  for (int src = 0; src < world(); ++src) {
    Tensor t = contribution(rank(), {2, 5}, kInt64);
    dist::broadcast(t, src);
    EXPECT_TRUE(close(t.to(kFloat64), contribution(src, {2, 5}, kFloat64)));
  }
}

TEST(ProcessGroup, AllGatherAndReduceScatter) {
  Tensor in = contribution(rank(), {2, 3}, kFloat32);
  std::vector<Tensor> outs;
  for (int r = 0; r < world(); ++r) outs.push_back(full({2, 3}, -9.0));
  dist::all_gather(outs, in);
  for (int r = 0; r < world(); ++r) EXPECT_TRUE(close(outs[r], contribution(r, {2, 3}, kFloat32)));

  Tensor stacked = empty({2 * world(), 3});
  dist::all_gather_into_tensor(stacked, in);
  for (int r = 0; r < world(); ++r) EXPECT_TRUE(close(stacked.narrow(0, 2 * r, 2), contribution(r, {2, 3}, kFloat32)));

  // reduce_scatter: rank r receives the sum over ranks q of inputs_q[r].
  std::vector<Tensor> inputs;
  for (int r = 0; r < world(); ++r) inputs.push_back(contribution(rank() * 10 + r, {3}, kFloat64));
  Tensor out = empty({3}, TensorOptions(kFloat64));
  dist::reduce_scatter(out, inputs);
  Tensor expected = zeros({3}, TensorOptions(kFloat64));
  for (int q = 0; q < world(); ++q) expected = expected + contribution(q * 10 + rank(), {3}, kFloat64);
  EXPECT_TRUE(close(out, expected));

  Tensor flat = cat(inputs, 0);
  Tensor out2 = empty({3}, TensorOptions(kFloat64));
  dist::reduce_scatter_tensor(out2, flat, dist::ReduceOp::AVG);
  EXPECT_TRUE(close(out2, expected / world()));
}

TEST(ProcessGroup, AsyncWorkOverlapsComputation) {
  std::vector<Tensor> ts;
  std::vector<std::shared_ptr<dist::Work>> works;
  for (int i = 0; i < 4; ++i) {
    ts.push_back(full({1000}, static_cast<double>(rank() + i)));
    works.push_back(dist::all_reduce(ts.back(), dist::ReduceOp::SUM, /*async_op=*/true));
    ASSERT_NE(works.back(), nullptr);
  }
  Tensor busy = matmul(ones({64, 64}), ones({64, 64}));  // the caller computes meanwhile
  EXPECT_EQ(busy.index({0, 0}).item<double>(), 64);
  double base = world() * (world() - 1) / 2.0;
  for (int i = 0; i < 4; ++i) {
    works[i]->wait();
    works[i]->wait();  // again: a no-op
    EXPECT_TRUE(works[i]->is_completed());
    EXPECT_TRUE(close(ts[i], full({1000}, base + world() * i)));
  }
  auto b = dist::barrier(true);
  b->wait();
}

TEST(ProcessGroup, GradientTensorsReduceOutsideAutograd) {
  Tensor w = contribution(rank(), {4}, kFloat32).requires_grad_();
  dist::all_reduce(w);  // a leaf that requires grad: written as data, like torch
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
}

TEST(ProcessGroup, VulkanTensorsAreStagedThroughTheHost) {
  if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  Tensor t = contribution(rank(), {5, 7}, kFloat32).to(Device("vulkan"));
  dist::all_reduce(t, dist::ReduceOp::AVG);
  EXPECT_TRUE(t.device() == Device("vulkan"));
  Tensor expected = zeros({5, 7});
  for (int r = 0; r < world(); ++r) expected = expected + contribution(r, {5, 7}, kFloat32);
  EXPECT_TRUE(close(t.cpu(), expected / world(), 1e-6));
  Tensor h = contribution(rank(), {9}, kFloat16).to(Device("vulkan"));
  dist::broadcast(h, world() - 1);
  EXPECT_TRUE(close(h.cpu().to(kFloat32), contribution(world() - 1, {9}, kFloat32)));
}

TEST(ProcessGroup, BadArgumentsRaiseBeforeAnyCommunication) {
  Tensor i = ones({3}, TensorOptions(kInt64));
  EXPECT_THROW(dist::all_reduce(i, dist::ReduceOp::AVG), ValueError);
  Tensor f = ones({3});
  EXPECT_THROW(dist::broadcast(f, world()), ValueError);
  EXPECT_THROW(dist::broadcast(f, -1), ValueError);
  std::vector<Tensor> one = {ones({3})};
  EXPECT_THROW(dist::all_gather(one, f), ValueError);
  std::vector<Tensor> wrong(world(), ones({4}));
  EXPECT_THROW(dist::all_gather(wrong, f), ValueError);
  Tensor small = ones({2});
  EXPECT_THROW(dist::all_gather_into_tensor(small, f), ValueError);
  EXPECT_THROW(dist::reduce_scatter_tensor(f, small), ValueError);
  EXPECT_THROW(dist::init_process_group("mpi"), ValueError);   // twice
  EXPECT_THROW(dist::init_process_group("nccl"), ValueError);  // not a backend here
  // The group still works after the errors: nothing was sent.
  Tensor t = ones({2});
  dist::all_reduce(t);
  EXPECT_TRUE(close(t, full({2}, static_cast<double>(world()))));
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  dist::init_process_group("mpi", std::chrono::seconds(120));
  int rc = RUN_ALL_TESTS();
  // Every rank must know the others passed: a failure on one rank fails the job.
  Tensor failed = scalar_tensor(static_cast<double>(rc != 0));
  dist::all_reduce(failed, dist::ReduceOp::MAX);
  dist::destroy_process_group();
  return failed.item<double>() != 0 ? 1 : 0;
}
