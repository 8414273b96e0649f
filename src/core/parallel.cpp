// Thread-count control for OpenMP kernels and OpenBLAS.
#include "adept/parallel.h"

#include <cblas.h>
#include <omp.h>

#include "adept/errors.h"

namespace adept {

void set_num_threads(int n) {
  ADEPT_CHECK(n >= 1, ValueError, "set_num_threads: expected a positive number of threads, got {}", n);
  omp_set_num_threads(n);
  openblas_set_num_threads(n);
}

int get_num_threads() { return omp_get_max_threads(); }

}  // namespace adept
