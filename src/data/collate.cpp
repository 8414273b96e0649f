// default_collate: stack each key of the samples.
#include "adept/data/collate.h"

#include "adept/errors.h"
#include "adept/ops.h"

namespace adept::data {

Batch default_collate(std::vector<Sample>&& samples) {
  Batch out;
  if (samples.empty()) return out;
  const std::vector<std::string> keys = samples[0].keys();
  for (size_t i = 1; i < samples.size(); ++i)
    ADEPT_CHECK(samples[i].keys() == keys, ValueError,
                "default_collate: sample {} of the batch has keys [{}], sample 0 has [{}]", i,
                fmt::join(samples[i].keys(), ", "), fmt::join(keys, ", "));
  for (const std::string& k : keys) {
    std::vector<Tensor> parts;
    parts.reserve(samples.size());
    for (const Sample& s : samples) parts.push_back(s.at(k));
    out.set(k, stack(parts, 0));
  }
  return out;
}

}  // namespace adept::data
