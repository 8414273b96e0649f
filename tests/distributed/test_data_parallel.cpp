// DistributedDataParallel's Reducer and SyncBatchNorm in a job of two or more ranks, against one process
// computing the whole global batch (every rank computes that reference too, from the same seed).
#include <gtest/gtest.h>

#include "adept/distributed.h"
#include "adept/distributed/data_parallel.h"
#include "adept/distributed/sync_batch_norm.h"
#include "adept/models/yolo/loss.h"
#include "adept/nn/modules.h"
#include "test_util.h"

using namespace adept;
using namespace adept::testing;
namespace dist = adept::distributed;

namespace {

// The global batch: `per_rank` rows per rank, the same on every rank.
Tensor global_batch(int64_t per_rank, const Shape& rest, uint64_t seed) {
  Shape s = {per_rank * dist::get_world_size()};
  s.insert(s.end(), rest.begin(), rest.end());
  return uniform(s, -2, 2, kFloat64, seed);
}

Tensor my_rows(const Tensor& global, int64_t per_rank) { return global.narrow(0, dist::get_rank() * per_rank, per_rank); }

}  // namespace

TEST(SyncBatchNorm, EqualsBatchNormOverTheGlobalBatch) {
  const int64_t per = 3, C = 4;
  for (Shape rest : {Shape{C}, Shape{C, 5}, Shape{C, 2, 3}}) {
    SCOPED_TRACE(shape_str(rest));
    const Tensor xg = global_batch(per, rest, 1);
    const Tensor cg = global_batch(per, rest, 2);  // the loss's weights
    // Reference: BatchNorm over the whole batch in one process.
    std::shared_ptr<nn::BatchNorm> ref;
    if (rest.size() == 3) ref = std::make_shared<nn::BatchNorm2d>(C, 1e-5, 0.1);
    else ref = std::make_shared<nn::BatchNorm1d>(C, 1e-5, 0.1);
    ref->to(kFloat64);
    Tensor xr = xg.clone().requires_grad_();
    const Tensor yr = ref->forward(xr);
    (yr * cg).sum().backward();

    auto sync = std::make_shared<dist::SyncBatchNorm>(C, 1e-5, 0.1);
    sync->to(kFloat64);
    Tensor x = my_rows(xg, per).clone().requires_grad_();
    Tensor y = sync->forward(x);
    EXPECT_TRUE(close(y, my_rows(yr.detach(), per), 1e-9, 1e-9));
    (y * my_rows(cg, per)).sum().backward();
    EXPECT_TRUE(close(x.grad(), my_rows(xr.grad(), per), 1e-9, 1e-9));
    // The affine gradients are this rank's share: their sum over ranks is the whole batch's.
    Tensor gw = sync->parameter("weight").grad().clone(), gb = sync->parameter("bias").grad().clone();
    dist::all_reduce(gw);
    dist::all_reduce(gb);
    EXPECT_TRUE(close(gw, ref->parameter("weight").grad(), 1e-9, 1e-9));
    EXPECT_TRUE(close(gb, ref->parameter("bias").grad(), 1e-9, 1e-9));
    EXPECT_TRUE(close(sync->buffer("running_mean"), ref->buffer("running_mean"), 1e-9, 1e-9));
    EXPECT_TRUE(close(sync->buffer("running_var"), ref->buffer("running_var"), 1e-9, 1e-9));
    // Eval mode is BatchNorm with the running statistics.
    sync->eval();
    ref->eval();
    EXPECT_TRUE(close(sync->forward(x), my_rows(ref->forward(xg), per), 1e-9, 1e-9));
  }
}

TEST(SyncBatchNorm, ConvertSharesTheTensorsAndTheSiLUPathMatches) {
  auto seq = std::make_shared<nn::Sequential>();
  seq->append(std::make_shared<nn::Linear>(3, 4));
  seq->append(std::make_shared<nn::BatchNorm1d>(4));
  const Tensor w = seq->children()[1]->parameter("weight");
  auto converted = dist::convert_sync_batchnorm(seq);
  auto bn = std::dynamic_pointer_cast<dist::SyncBatchNorm>(converted->children()[1]);
  ASSERT_NE(bn, nullptr);
  EXPECT_TRUE(bn->parameter("weight").is_same(w));
  EXPECT_EQ(bn->type_name(), "SyncBatchNorm");
  Tensor x = uniform({2, 4}, -1, 1, kFloat32, 5);
  bn->train();
  EXPECT_TRUE(close(bn->forward_silu(x), silu(bn->forward(x)), 1e-6, 1e-6));
  EXPECT_THROW(bn->forward(ones({1, 4}).narrow(0, 0, 0)), ValueError);  // no values in training on any rank
}

TEST(Reducer, AveragesGradientsInBucketsAndEqualsTheGlobalBatch) {
  const int64_t per = 2;
  manual_seed(7 + dist::get_rank());  // different initial weights per rank: DDP broadcasts rank 0's
  auto net = std::make_shared<nn::Sequential>();
  net->append(std::make_shared<nn::Linear>(5, 16));
  net->append(std::make_shared<nn::ReLU>());
  net->append(std::make_shared<nn::Linear>(16, 3));
  net->to(kFloat64);
  dist::DistributedDataParallelOptions o;
  o.reducer.bucket_cap_bytes = 200;  // several buckets
  o.reducer.first_bucket_cap_bytes = 64;
  dist::DistributedDataParallel ddp(net, o);
  EXPECT_GE(ddp.reducer().bucket_indices().size(), 3u);
  EXPECT_EQ(ddp.reducer().bucket_indices().front().front(), 3u);  // reverse registration order
  // Reference: a copy of rank 0's weights (now everyone's) on the whole batch, mean loss.
  auto ref = std::make_shared<nn::Sequential>();
  ref->append(std::make_shared<nn::Linear>(5, 16));
  ref->append(std::make_shared<nn::ReLU>());
  ref->append(std::make_shared<nn::Linear>(16, 3));
  ref->to(kFloat64);
  ref->load_state_dict(net->state_dict());
  const Tensor xg = global_batch(per, {5}, 3), tg = global_batch(per, {3}, 4);
  square(ref->forward(xg) - tg).mean().backward();
  for (int step = 0; step < 2; ++step) {  // twice: the second backward must reduce again
    net->zero_grad();
    square(ddp.forward(my_rows(xg, per)) - my_rows(tg, per)).mean().backward();
    auto pr = ref->parameters();
    auto pd = net->parameters();
    for (size_t i = 0; i < pd.size(); ++i) EXPECT_TRUE(close(pd[i].grad(), pr[i].grad(), 1e-10, 1e-12)) << i;
  }
  // no_sync: two local backwards accumulate, the next synchronised one reduces the sum.
  net->zero_grad();
  {
    dist::DistributedDataParallel::NoSync guard(ddp.reducer());
    square(ddp.forward(my_rows(xg, per)) - my_rows(tg, per)).mean().backward();
  }
  square(ddp.forward(my_rows(xg, per)) - my_rows(tg, per)).mean().backward();
  auto pr = ref->parameters();
  auto pd = net->parameters();
  for (size_t i = 0; i < pd.size(); ++i) EXPECT_TRUE(close(pd[i].grad(), pr[i].grad() * 2, 1e-10, 1e-12)) << i;
}

TEST(Reducer, FirstBucketHasItsOwnCap) {
  // Float64 Linear(5, 16) -> Linear(16, 3): 640, 128, 384 and 24 bytes. Reverse order with a first bucket of up
  // to 1000 bytes and later ones of 200: {3, 2, 1} (536 bytes), then {0}.
  auto net = std::make_shared<nn::Sequential>();
  net->append(std::make_shared<nn::Linear>(5, 16));
  net->append(std::make_shared<nn::Linear>(16, 3));
  net->to(kFloat64);
  dist::ReducerOptions ro;
  ro.first_bucket_cap_bytes = 1000;
  ro.bucket_cap_bytes = 200;
  dist::Reducer r(net->named_parameters(), ro);
  EXPECT_EQ(r.bucket_indices(), (std::vector<std::vector<size_t>>{{3, 2, 1}, {0}}));
}

TEST(Reducer, UnusedParameters) {
  auto a = std::make_shared<nn::Linear>(2, 2), b = std::make_shared<nn::Linear>(2, 2);
  auto net = std::make_shared<nn::Sequential>();
  net->append(a);
  net->append(b);
  dist::ReducerOptions ro;
  {
    dist::Reducer r(net->named_parameters(), ro);
    r.prepare_for_backward({});
    EXPECT_THROW(a->forward(ones({1, 2})).sum().backward(), AutogradError);  // b got no gradient
  }
  ro.find_unused_parameters = true;
  net->zero_grad();
  dist::Reducer r(net->named_parameters(), ro);
  // b is used on rank 0 only: its gradient is rank 0's divided by the world size everywhere.
  Tensor out = a->forward(ones({1, 2}));
  if (dist::get_rank() == 0) out = b->forward(out);
  r.prepare_for_backward({out});
  out.sum().backward();
  EXPECT_TRUE(b->parameter("weight").grad().defined());
  Tensor g = b->parameter("weight").grad().clone();
  Tensor g0 = g.clone();
  dist::broadcast(g0, 0);
  EXPECT_TRUE(close(g, g0));
}

TEST(DetectionLoss, DistributedNormaliserGivesTheGlobalBatchGradient) {
  // Each rank holds images [r*per, (r+1)*per) of one batch; with `distributed` its total's gradient,
  // averaged over the ranks as DDP averages, is the gradient of one process's total over the batch, and
  // the ranks' mean of the items is that process's items.
  const int64_t per = 2, nc = 3, no = 4 * 16 + nc;
  const int64_t B = per * dist::get_world_size();
  std::vector<Tensor> maps;
  for (int64_t s : {8, 4, 2}) maps.push_back(uniform({B, no, s, s}, -2, 2, kFloat32, 20 + s));
  // Targets (image, class, cx, cy, w, h): two boxes in every image.
  std::vector<double> rows;
  for (int64_t i = 0; i < B; ++i) {
    rows.insert(rows.end(), {double(i), double(i % nc), 0.3 + 0.05 * i, 0.4, 0.3, 0.25});
    rows.insert(rows.end(), {double(i), double((i + 1) % nc), 0.7, 0.6 - 0.03 * i, 0.2, 0.4});
  }
  const Tensor targets = tensor(rows, kFloat32).view({2 * B, 6});
  models::yolo::DetectionLoss full_loss(nc);
  std::vector<Tensor> full_maps;
  for (const Tensor& m : maps) full_maps.push_back(m.clone().requires_grad_());
  auto [full, full_items] = full_loss(full_maps, targets);
  full.backward();

  models::yolo::DetectionLoss loss(nc);
  loss.distributed = true;
  const int64_t r = dist::get_rank();
  std::vector<Tensor> mine;
  for (const Tensor& m : maps) mine.push_back(m.narrow(0, r * per, per).clone().requires_grad_());
  const Tensor mask = (targets.select(1, 0) >= double(r * per)) & (targets.select(1, 0) < double((r + 1) * per));
  Tensor local = targets.index({mask}).clone();
  local.select(1, 0).sub_(adept::full({}, double(r * per)));
  auto [total, items] = loss(mine, local);
  total.backward();
  for (size_t k = 0; k < mine.size(); ++k) {
    // DDP averages the ranks' gradients: grad / world each.
    EXPECT_TRUE(close(mine[k].grad() / dist::get_world_size(), full_maps[k].grad().narrow(0, r * per, per), 1e-4, 1e-6));
  }
  Tensor mean_items = items.clone();
  dist::all_reduce(mean_items, dist::ReduceOp::AVG);
  EXPECT_TRUE(close(mean_items, full_items, 1e-5, 1e-6));
}
