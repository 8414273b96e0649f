// Thread count of Adept's CPU kernels and of OpenBLAS (its OpenMP build shares our pool).
#pragma once

namespace adept {

/// Sets the number of threads used by CPU kernels and GEMM (torch.set_num_threads).
/// Throws ValueError when n < 1. The default is OMP_NUM_THREADS, else the number of cores.
void set_num_threads(int n);
/// The number of threads CPU kernels use (torch.get_num_threads).
int get_num_threads();

}  // namespace adept
