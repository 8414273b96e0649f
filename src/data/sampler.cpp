// Samplers (see include/adept/data/sampler.h); index arithmetic follows torch.utils.data.
#include "adept/data/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "adept/data/dataset.h"
#include "adept/errors.h"
#include "adept/ops/random.h"

namespace adept::data {

namespace {
std::vector<int64_t> to_vector(const Tensor& t) {
  const int64_t* p = t.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + t.numel());
}
}  // namespace

SequentialSampler::SequentialSampler(int64_t n) : n_(n) {
  ADEPT_CHECK(n >= 0, ValueError, "SequentialSampler: the dataset size must be >= 0, got {}", n);
}

std::vector<int64_t> SequentialSampler::indices(int64_t) {
  std::vector<int64_t> out(n_);
  for (int64_t i = 0; i < n_; ++i) out[i] = i;
  return out;
}

RandomSampler::RandomSampler(int64_t n, bool replacement, std::optional<int64_t> num_samples,
                             std::optional<uint64_t> seed)
    : n_(n), num_samples_(num_samples.value_or(n)), replacement_(replacement), seed_(seed) {
  ADEPT_CHECK(n >= 0, ValueError, "RandomSampler: the dataset size must be >= 0, got {}", n);
  ADEPT_CHECK(!num_samples || *num_samples > 0, ValueError,
              "num_samples should be a positive integer value, but got num_samples={}", num_samples.value_or(0));
}

// The generator of pass `epoch`: from (seed, epoch) when seeded, else a fresh draw.
static Generator pass_generator(const std::optional<uint64_t>& seed, int64_t epoch) {
  return Generator(seed ? detail::mix_seed(*seed, epoch, -2) : sample_seed());
}

std::vector<int64_t> RandomSampler::indices(int64_t epoch) {
  Generator g = pass_generator(seed_, epoch);
  if (num_samples_ == 0 || n_ == 0) return {};
  if (replacement_) return to_vector(randint(0, n_, {num_samples_}, {}, &g));
  std::vector<int64_t> out;
  out.reserve(num_samples_);
  for (int64_t k = 0; k < num_samples_ / n_; ++k) {
    auto p = to_vector(randperm(n_, {}, &g));
    out.insert(out.end(), p.begin(), p.end());
  }
  auto last = to_vector(randperm(n_, {}, &g));
  out.insert(out.end(), last.begin(), last.begin() + num_samples_ % n_);
  return out;
}

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement,
                                             std::optional<uint64_t> seed)
    : weights_(std::move(weights)), num_samples_(num_samples), replacement_(replacement), seed_(seed) {
  ADEPT_CHECK(num_samples > 0, ValueError, "num_samples should be a positive integer value, but got num_samples={}",
              num_samples);
  ADEPT_CHECK(!weights_.empty(), ValueError, "WeightedRandomSampler: weights must not be empty");
  int64_t positive = 0;
  for (double w : weights_) {
    ADEPT_CHECK(std::isfinite(w) && w >= 0, ValueError,
                "WeightedRandomSampler: weights must be finite and >= 0, got {}", w);
    positive += w > 0;
  }
  ADEPT_CHECK(positive > 0, ValueError, "WeightedRandomSampler: the weights sum to zero");
  ADEPT_CHECK(replacement || num_samples <= positive, ValueError,
              "WeightedRandomSampler: cannot draw {} samples without replacement from {} positive weights",
              num_samples, positive);
}

std::vector<int64_t> WeightedRandomSampler::indices(int64_t epoch) {
  Generator g = pass_generator(seed_, epoch);
  const int64_t n = static_cast<int64_t>(weights_.size());
  Tensor u = rand({replacement_ ? num_samples_ : n}, kFloat64, &g);
  const double* r = u.data_ptr<double>();
  std::vector<int64_t> out;
  out.reserve(num_samples_);
  if (replacement_) {  // inverse CDF
    std::vector<double> cdf(n);
    std::partial_sum(weights_.begin(), weights_.end(), cdf.begin());
    for (int64_t k = 0; k < num_samples_; ++k) {
      auto it = std::upper_bound(cdf.begin(), cdf.end(), r[k] * cdf.back());
      out.push_back(std::min<int64_t>(it - cdf.begin(), n - 1));
    }
    return out;
  }
  // Without replacement: the smallest keys -log(u) / w (exponential races) give the order in
  // which successive weighted draws without replacement pick the items.
  std::vector<std::pair<double, int64_t>> keys;
  for (int64_t i = 0; i < n; ++i)
    if (weights_[i] > 0) keys.emplace_back(-std::log1p(-r[i]) / weights_[i], i);
  std::partial_sort(keys.begin(), keys.begin() + num_samples_, keys.end());
  for (int64_t k = 0; k < num_samples_; ++k) out.push_back(keys[k].second);
  return out;
}

DistributedSampler::DistributedSampler(int64_t n, int64_t num_replicas, int64_t rank, bool shuffle,
                                       uint64_t seed, bool drop_last)
    : n_(n), num_replicas_(num_replicas), rank_(rank), shuffle_(shuffle), drop_last_(drop_last), seed_(seed) {
  ADEPT_CHECK(n >= 0, ValueError, "DistributedSampler: the dataset size must be >= 0, got {}", n);
  ADEPT_CHECK(num_replicas >= 1, ValueError, "DistributedSampler: num_replicas must be >= 1, got {}", num_replicas);
  ADEPT_CHECK(rank >= 0 && rank < num_replicas, ValueError,
              "Invalid rank {}, rank should be in the interval [0, {}]", rank, num_replicas - 1);
  // Without drop_last the list is padded up to a multiple of num_replicas; with it, cut down.
  num_samples_ = drop_last && n % num_replicas != 0 ? (n - num_replicas + num_replicas - 1) / num_replicas
                                                     : (n + num_replicas - 1) / num_replicas;
  if (num_samples_ < 0) num_samples_ = 0;
}

std::vector<int64_t> DistributedSampler::indices(int64_t) {
  std::vector<int64_t> all;
  if (shuffle_) {
    Generator g(seed_ + static_cast<uint64_t>(epoch_));
    all = to_vector(randperm(n_, {}, &g));
  } else {
    all.resize(n_);
    for (int64_t i = 0; i < n_; ++i) all[i] = i;
  }
  const int64_t total = total_size();
  if (!drop_last_) {
    for (int64_t k = 0; static_cast<int64_t>(all.size()) < total && n_ > 0; ++k) all.push_back(all[k % n_]);
  } else {
    all.resize(total);
  }
  std::vector<int64_t> out;
  for (int64_t i = rank_; i < total; i += num_replicas_) out.push_back(all[i]);
  return out;
}

BatchSampler::BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  ADEPT_CHECK(sampler_ != nullptr, ValueError, "BatchSampler: sampler is null");
  ADEPT_CHECK(batch_size >= 1, ValueError,
              "batch_size should be a positive integer value, but got batch_size={}", batch_size);
}

int64_t BatchSampler::size() const {
  const int64_t n = sampler_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

std::vector<std::vector<int64_t>> BatchSampler::batches(int64_t epoch) {
  std::vector<int64_t> idx = sampler_->indices(epoch);
  std::vector<std::vector<int64_t>> out;
  for (size_t i = 0; i < idx.size(); i += batch_size_) {
    size_t end = std::min(idx.size(), i + static_cast<size_t>(batch_size_));
    if (drop_last_ && end - i < static_cast<size_t>(batch_size_)) break;
    out.emplace_back(idx.begin() + i, idx.begin() + end);
  }
  return out;
}

}  // namespace adept::data
