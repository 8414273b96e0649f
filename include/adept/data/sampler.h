// Samplers: which dataset indices one pass of a DataLoader visits, in which order, and how they
// are grouped into batches (torch.utils.data.{Sequential,Random,Batch,Distributed}Sampler).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace adept::data {

/// The indices of one pass. `epoch` counts the passes of the loader that asks (0, 1, ...);
/// samplers that shuffle use it, with their seed, so a pass can be reproduced (e.g. on resume).
class Sampler {
 public:
  virtual ~Sampler() = default;
  /// How many indices a pass yields (len(sampler)).
  virtual int64_t size() const = 0;
  virtual std::vector<int64_t> indices(int64_t epoch) = 0;
};

/// 0, 1, ..., n - 1. ValueError if n < 0.
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t n);
  int64_t size() const override { return n_; }
  std::vector<int64_t> indices(int64_t epoch) override;

 private:
  int64_t n_;
};

/// A random permutation of 0..n-1 per pass (several concatenated permutations, the last one cut,
/// when num_samples > n), or num_samples draws with replacement. The permutation of pass e comes
/// from a generator seeded by (seed, e); without a seed, each pass draws a fresh seed from the
/// default generator (as torch does without `generator`). ValueError for n < 0 or num_samples <= 0.
class RandomSampler : public Sampler {
 public:
  RandomSampler(int64_t n, bool replacement = false, std::optional<int64_t> num_samples = std::nullopt,
                std::optional<uint64_t> seed = std::nullopt);
  int64_t size() const override { return num_samples_; }
  std::vector<int64_t> indices(int64_t epoch) override;

 private:
  int64_t n_, num_samples_;
  bool replacement_;
  std::optional<uint64_t> seed_;
};

/// num_samples indices drawn with probability proportional to `weights` (torch's
/// WeightedRandomSampler), with or without replacement; seeded per pass like RandomSampler.
/// ValueError for an empty or non-finite/negative weight list, num_samples <= 0, or (without
/// replacement) num_samples above the number of positive weights.
class WeightedRandomSampler : public Sampler {
 public:
  WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement = true,
                        std::optional<uint64_t> seed = std::nullopt);
  int64_t size() const override { return num_samples_; }
  std::vector<int64_t> indices(int64_t epoch) override;

 private:
  std::vector<double> weights_;
  int64_t num_samples_;
  bool replacement_;
  std::optional<uint64_t> seed_;
};

/// The share of rank `rank` among `num_replicas` processes (torch's DistributedSampler): the
/// (optionally shuffled, seeded by seed + set_epoch value) index list is padded by repeating its
/// start to a multiple of num_replicas (or cut, with drop_last), and rank r takes positions
/// r, r + R, r + 2R ... The loader's epoch is ignored: call set_epoch before each pass, as with
/// torch. ValueError when rank is outside [0, num_replicas - 1] or num_replicas < 1.
class DistributedSampler : public Sampler {
 public:
  DistributedSampler(int64_t n, int64_t num_replicas, int64_t rank, bool shuffle = true,
                     uint64_t seed = 0, bool drop_last = false);
  int64_t size() const override { return num_samples_; }
  std::vector<int64_t> indices(int64_t epoch) override;
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t epoch() const { return epoch_; }
  int64_t total_size() const { return num_samples_ * num_replicas_; }

 private:
  int64_t n_, num_replicas_, rank_, num_samples_, epoch_ = 0;
  bool shuffle_, drop_last_;
  uint64_t seed_;
};

/// Groups a sampler's indices into batches of batch_size (the last one smaller unless drop_last).
/// ValueError if batch_size < 1.
class BatchSampler {
 public:
  BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, bool drop_last);
  /// Number of batches per pass (len(batch_sampler)).
  int64_t size() const;
  std::vector<std::vector<int64_t>> batches(int64_t epoch);
  int64_t batch_size() const { return batch_size_; }
  bool drop_last() const { return drop_last_; }
  const std::shared_ptr<Sampler>& sampler() const { return sampler_; }

 private:
  std::shared_ptr<Sampler> sampler_;
  int64_t batch_size_;
  bool drop_last_;
};

}  // namespace adept::data
