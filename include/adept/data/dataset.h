// Map-style datasets (torch.utils.data.Dataset): a size and random access by index.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>

#include "adept/data/tensor_dict.h"

namespace adept::data {

/// A map-style dataset: `size()` samples, `get(i)` for 0 <= i < size(). A DataLoader may call
/// `get` from worker processes (forked copies of this object), so `get` must not rely on state
/// that another call changes; randomness should come from `sample_seed()`, which makes
/// augmentation independent of the number of workers.
class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  virtual Sample get(int64_t index) = 0;
};

/// What a DataLoader is fetching on this thread (torch.utils.data.get_worker_info, extended with
/// the sample being loaded). `id` is -1 in the main process (num_workers = 0).
struct WorkerInfo {
  int id = -1;
  int num_workers = 0;
  uint64_t seed = 0;   ///< the loader's base seed
  int64_t epoch = 0;   ///< how many passes the loader started before this one
  int64_t index = -1;  ///< the dataset index being fetched
};

/// The WorkerInfo of the sample being fetched on this thread, or nullopt outside a DataLoader.
std::optional<WorkerInfo> get_worker_info();

/// A 64-bit seed mixed from (loader seed, epoch, sample index) for the sample being fetched;
/// outside a DataLoader, a draw from the default generator. The same sample gets the same seed
/// whatever the number of workers.
uint64_t sample_seed();

namespace detail {
/// Sets (or clears, with nullopt) this thread's WorkerInfo; used by the DataLoader.
void set_worker_info(std::optional<WorkerInfo> info);
/// The seed of sample `index` in `epoch` of a loader seeded with `seed` (SplitMix64 mixing).
uint64_t mix_seed(uint64_t seed, int64_t epoch, int64_t index);
}  // namespace detail

}  // namespace adept::data
