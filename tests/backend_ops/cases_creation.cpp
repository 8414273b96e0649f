// Cases of the creation family (filled in below).
#include "harness.h"

namespace adept::backend_ops {
void add_creation_cases(std::vector<Case>& out) {}
}  // namespace adept::backend_ops
