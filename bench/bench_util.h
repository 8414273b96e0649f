// Shared helpers of the op benchmarks: seeded inputs, a parallel memcpy (the bandwidth ceiling)
// and the counter conventions that bench/compare.py reads from the JSON output.
#pragma once
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "adept/ops.h"
#include "adept/tensor.h"

namespace adept::bench {

/// Counter names in the JSON output. `bytes_per_second` is Google Benchmark's own (SetBytesProcessed)
/// and counts bytes read plus bytes written by one call (`traffic_bytes`, per call); `flop_per_second`
/// counts 2*M*N*K per GEMM.
inline constexpr const char* kFlopRate = "flop_per_second";

/// Standard-normal float tensor of `shape` from a fixed seed (the same data on every run).
Tensor randn_seeded(const Shape& shape, Dtype dtype = kFloat32);

/// Copies `bytes` from src to dst split over the OpenMP threads, as the op kernels are: a copy of
/// S bytes moves 2*S bytes (read + write), the ceiling for an op that moves the same traffic.
void parallel_memcpy(void* dst, const void* src, int64_t bytes);

/// Registers "memcpy/<bytes>" once per distinct size (an op of traffic T pairs with memcpy/<T/2>).
void register_memcpy(int64_t bytes);

/// "a x b x c" for names.
std::string shape_name(const Shape& s);

}  // namespace adept::bench
