// DataLoader: option checks (torch's wording), passes in the main process or through WorkerPool.
#include "adept/data/dataloader.h"

#include <algorithm>

#include "adept/ops/random.h"
#include "data/worker_pool.h"

namespace adept::data {

Batch fetch_batch(Dataset& dataset, const std::vector<int64_t>& indices, const CollateFn& collate, int worker_id,
                  int num_workers, uint64_t seed, int64_t epoch) {
  std::vector<Sample> samples;
  samples.reserve(indices.size());
  const int64_t n = dataset.size();
  for (int64_t i : indices) {
    detail::set_worker_info(WorkerInfo{worker_id, num_workers, seed, epoch, i});
    ADEPT_CHECK(i >= 0 && i < n, IndexError, "DataLoader: sampler produced index {} for a dataset of size {}", i, n);
    samples.push_back(dataset.get(i));
  }
  // Left set on an exception, so a worker can report the index that failed.
  detail::set_worker_info(WorkerInfo{worker_id, num_workers, seed, epoch, -1});
  Batch b = collate(std::move(samples));
  detail::set_worker_info(std::nullopt);
  return b;
}

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)) {
  const auto& o = options_;
  ADEPT_CHECK(dataset_ != nullptr, ValueError, "DataLoader: dataset is null");
  ADEPT_CHECK(o.num_workers >= 0, ValueError,
              "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  ADEPT_CHECK(o.timeout >= 0, ValueError, "timeout option should be non-negative");
  ADEPT_CHECK(!o.persistent_workers || o.num_workers > 0, ValueError, "persistent_workers option needs num_workers > 0");
  ADEPT_CHECK(o.prefetch_factor >= 1, ValueError, "prefetch_factor option should be >= 1, got {}", o.prefetch_factor);
  ADEPT_CHECK(!(o.sampler && o.shuffle), ValueError, "sampler option is mutually exclusive with shuffle");
  ADEPT_CHECK(o.collate_fn != nullptr, ValueError, "DataLoader: collate_fn is empty");
  seed_ = o.seed ? *o.seed : [] {
    Generator& g = default_generator();
    return detail::mix_seed(g.seed(), static_cast<int64_t>(g.reserve(1)), -3);
  }();
  if (o.batch_sampler) {
    ADEPT_CHECK(o.batch_size == 1 && !o.shuffle && !o.sampler && !o.drop_last, ValueError,
                "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last");
    batch_sampler_ = o.batch_sampler;
  } else {
    std::shared_ptr<Sampler> s = o.sampler;
    if (!s && o.shuffle) s = std::make_shared<RandomSampler>(dataset_->size(), false, std::nullopt, seed_);
    if (!s) s = std::make_shared<SequentialSampler>(dataset_->size());
    batch_sampler_ = std::make_shared<BatchSampler>(s, o.batch_size, o.drop_last);
  }
}

DataLoader::~DataLoader() = default;

void DataLoader::reset() { pool_.reset(); }

void DataLoader::set_start_batch(int64_t start_batch) {
  ADEPT_CHECK(start_batch >= 0, ValueError, "DataLoader.set_start_batch: start_batch must be >= 0, got {}", start_batch);
  start_batch_ = static_cast<size_t>(start_batch);
}

DataLoader::Iterator DataLoader::begin() {
  batches_ = batch_sampler_->batches(epoch_);
  next_batch_ = std::min(start_batch_, batches_.size());
  start_batch_ = 0;
  pass_epoch_ = epoch_++;
  if (options_.num_workers > 0) {
    if (!options_.persistent_workers) pool_.reset();
    if (!pool_) {
      detail::WorkerPoolOptions po;
      po.num_workers = options_.num_workers;
      po.prefetch_factor = options_.prefetch_factor;
      po.timeout = options_.timeout;
      po.seed = seed_;
      po.worker_init = options_.worker_init_fn;
      pool_ = std::make_unique<detail::WorkerPool>(
          [this](const detail::Task& task, int64_t epoch, int worker) {
            return fetch_batch(*dataset_, task.indices, options_.collate_fn, worker, options_.num_workers, seed_, epoch);
          },
          po);
    }
    pool_->start_pass([this]() -> std::optional<detail::Task> {
      if (next_batch_ >= batches_.size()) return std::nullopt;
      return detail::Task{std::move(batches_[next_batch_++]), {}};
    }, pass_epoch_);
  }
  return Iterator(this);
}

bool DataLoader::next(Batch& out) {
  if (!pool_) {
    if (next_batch_ >= batches_.size()) return false;
    try {
      out = fetch_batch(*dataset_, batches_[next_batch_++], options_.collate_fn, -1, 0, seed_, pass_epoch_);
    } catch (...) {
      detail::set_worker_info(std::nullopt);
      throw;
    }
    return true;
  }
  try {
    auto b = pool_->next();
    if (!b) {
      if (!options_.persistent_workers) pool_.reset();
      return false;
    }
    out = std::move(*b);
    return true;
  } catch (...) {
    pool_.reset();  // stop the workers and remove their segments before the error propagates
    throw;
  }
}

DataLoader::Iterator::Iterator(DataLoader* loader) : loader_(loader) {
  if (loader_ && !loader_->next(current_)) loader_ = nullptr;
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  current_ = Batch();
  if (!loader_->next(current_)) loader_ = nullptr;
  return *this;
}

}  // namespace adept::data
