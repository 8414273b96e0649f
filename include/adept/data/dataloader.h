// DataLoader: batches from a Dataset, in the main process (num_workers = 0) or in worker
// processes whose batches arrive through POSIX shared memory (torch.utils.data.DataLoader).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adept/data/collate.h"
#include "adept/data/dataset.h"
#include "adept/data/sampler.h"
#include "adept/errors.h"

namespace adept::data {

/// A worker process failed: it raised while loading a sample (the message names the worker,
/// the sample index and the original error), died (killed by a signal, exited), or did not
/// answer within `timeout` (Python: RuntimeError, or the worker's own exception type).
class DataLoaderWorkerError : public Error {
 public:
  DataLoaderWorkerError(std::string message, int worker_id, int64_t index, std::string original_type = {},
                        std::string original_message = {}, std::string payload = {})
      : Error(std::move(message)), worker_id(worker_id), index(index), original_type(std::move(original_type)),
        original_message(std::move(original_message)), payload(std::move(payload)) {}
  int worker_id;              ///< which worker (0-based)
  int64_t index;              ///< the dataset index being loaded, -1 if none (collate, startup, death)
  std::string original_type;  ///< e.g. "ValueError", "adept::IOError"; empty for a death or timeout
  std::string original_message;
  std::string payload;        ///< opaque bytes from the worker (Python: the pickled exception type)
};

struct DataLoaderOptions {
  int64_t batch_size = 1;
  bool shuffle = false;     ///< RandomSampler seeded by `seed` (reshuffled each pass)
  bool drop_last = false;
  std::shared_ptr<Sampler> sampler;              ///< excludes shuffle
  std::shared_ptr<BatchSampler> batch_sampler;   ///< excludes batch_size, shuffle, sampler, drop_last
  CollateFn collate_fn = default_collate;
  int num_workers = 0;      ///< 0: load in the main process; N: N worker processes
  int prefetch_factor = 2;  ///< batches queued per worker
  bool persistent_workers = false;  ///< keep the workers between passes
  double timeout = 0;       ///< seconds to wait for one batch from a worker; 0 waits forever
  /// Base seed of shuffling and of data::sample_seed() (per (seed, epoch, index)); drawn from the
  /// default generator when the loader is built if not given.
  std::optional<uint64_t> seed;
  /// Runs in each worker process after it starts, with the worker id.
  std::function<void(int)> worker_init_fn;
};

namespace detail { class WorkerPool; }

/// Iterate with `for (Batch& b : loader)`; each `begin()` starts a pass (epoch 0, 1, ...).
/// Batches come in sampler order whatever num_workers is. Workers are forked when a pass starts
/// (once, with persistent_workers) and run single-threaded; they must not use a GPU device.
/// Errors: ValueError for invalid option combinations (as torch words them); a worker's failure
/// or death, or a timeout, is a DataLoaderWorkerError; no shared-memory segment outlives the
/// loader or its pass, whatever ends it.
class DataLoader {
 public:
  DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options = {});
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  /// Batches per pass (len(loader)).
  int64_t size() const { return batch_sampler_->size(); }
  /// The epoch the next pass gets; set it to resume a run at a given epoch.
  int64_t epoch() const { return epoch_; }
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  /// Makes the next pass start at batch `start_batch` of its epoch's order (the batches before it
  /// are neither loaded nor yielded): resuming an interrupted epoch. Applies to one pass only.
  /// ValueError when start_batch is negative.
  void set_start_batch(int64_t start_batch);
  uint64_t seed() const { return seed_; }
  const DataLoaderOptions& options() const { return options_; }
  const std::shared_ptr<Dataset>& dataset() const { return dataset_; }
  /// Stops the worker processes now (a later pass starts new ones, which see the dataset's
  /// current state, e.g. after close_mosaic).
  void reset();

  class Iterator {
   public:
    Batch& operator*() { return current_; }
    Batch* operator->() { return &current_; }
    Iterator& operator++();
    bool operator!=(const Iterator& o) const { return loader_ != o.loader_; }

   private:
    friend class DataLoader;
    explicit Iterator(DataLoader* loader);
    DataLoader* loader_;  // null at the end
    Batch current_;
  };
  Iterator begin();
  Iterator end() { return Iterator(nullptr); }

 private:
  bool next(Batch& out);

  std::shared_ptr<Dataset> dataset_;
  DataLoaderOptions options_;
  std::shared_ptr<BatchSampler> batch_sampler_;
  uint64_t seed_;
  int64_t epoch_ = 0;
  // The running pass.
  std::vector<std::vector<int64_t>> batches_;
  size_t next_batch_ = 0;
  size_t start_batch_ = 0;
  int64_t pass_epoch_ = 0;
  std::unique_ptr<detail::WorkerPool> pool_;
};

/// Loads the samples `indices` of `dataset` and collates them, as a worker does: each get() runs
/// with WorkerInfo {worker_id, num_workers, seed, epoch, index}.
Batch fetch_batch(Dataset& dataset, const std::vector<int64_t>& indices, const CollateFn& collate, int worker_id,
                  int num_workers, uint64_t seed, int64_t epoch);

}  // namespace adept::data
