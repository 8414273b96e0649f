// Picks OpenBLAS's kernels for CPUs that its runtime detection does not know.
//
// Debian 12's OpenBLAS 0.3.21 (a DYNAMIC_ARCH build) identifies the CPU by its family/model number;
// newer Intel models (e.g. model 207, Emerald Rapids) are unknown to it and get the generic
// "Prescott" SSE3 kernels, which run GEMM 3-5x slower than its AVX-512 ones on the same machine.
// OpenBLAS's documented override is the OPENBLAS_CORETYPE environment variable, read when the
// library initialises — before any code of ours runs. So, at load time, when the user set no
// OPENBLAS_CORETYPE and OpenBLAS fell back to Prescott although the CPU has AVX-512 (or AVX2+FMA),
// we set the variable and re-run OpenBLAS's kernel selection through its exported
// gotoblas_dynamic_quit/gotoblas_dynamic_init pair (the same code path the variable takes at
// start-up). No BLAS call has happened yet at that point.
#include <strings.h>

#include <cstdlib>

extern "C" {
char* openblas_get_corename(void);
void gotoblas_dynamic_init(void);
void gotoblas_dynamic_quit(void);
}

namespace adept::cpu {
namespace {

const char* better_coretype() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")) {
    return "SkylakeX";
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

[[maybe_unused]] const bool openblas_coretype_fixed = [] {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return false;
  const char* core = openblas_get_corename();
  if (core == nullptr || strcasecmp(core, "prescott") != 0) return false;
  const char* better = better_coretype();
  if (better == nullptr) return false;
  setenv("OPENBLAS_CORETYPE", better, 0);
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
  return true;
}();

}  // namespace
}  // namespace adept::cpu
