// Cases of the index family (filled in below).
#include "harness.h"

namespace adept::backend_ops {
void add_index_cases(std::vector<Case>& out) {}
}  // namespace adept::backend_ops
