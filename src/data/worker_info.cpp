// The per-thread record of the sample a DataLoader is fetching, and the seeds derived from it.
#include <optional>

#include "adept/data/dataset.h"
#include "adept/ops/random.h"

namespace adept::data {

namespace {
thread_local std::optional<WorkerInfo> current;

// SplitMix64's finaliser (Steele et al., "Fast splittable pseudorandom number generators", 2014).
uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

std::optional<WorkerInfo> get_worker_info() { return current; }

uint64_t sample_seed() {
  if (current) return detail::mix_seed(current->seed, current->epoch, current->index);
  Generator& g = default_generator();
  return detail::mix_seed(g.seed(), static_cast<int64_t>(g.reserve(1)), -1);
}

namespace detail {
void set_worker_info(std::optional<WorkerInfo> info) { current = info; }

uint64_t mix_seed(uint64_t seed, int64_t epoch, int64_t index) {
  return splitmix(splitmix(splitmix(seed) ^ static_cast<uint64_t>(epoch)) ^ static_cast<uint64_t>(index));
}
}  // namespace detail

}  // namespace adept::data
