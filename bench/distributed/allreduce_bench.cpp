// All-reduce bandwidth against message size, under mpirun (the Adept half of bench/distributed/
// allreduce.py; torch_allreduce.py times torch.distributed's gloo on the same sizes):
//   mpirun -np N adept_bench_allreduce [--impl adept|mpi] [--device cpu|vulkan] [--min-bytes 4096]
//                                      [--max-bytes 268435456] [--iters 20] [--warmup 3]
// --impl adept times adept::distributed::all_reduce (SUM, float32, the communication thread and the arrival
// notices included; with --device vulkan the tensor lives on the GPU and is staged through the host);
// --impl mpi times MPI_Allreduce on a host buffer from the main thread, Open MPI alone: the ceiling.
// Sizes go from --min-bytes to --max-bytes by factors of 4. Rank 0 prints one JSON line: per size the median
// and best seconds over --iters (after a barrier each), the algorithm bandwidth (bytes / s) and the bus
// bandwidth (algbw * 2 (N - 1) / N, what each rank's link carries in a ring all-reduce, as nccl-tests reports).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adept/adept.h"
#include "adept/distributed.h"

using namespace adept;
using json = nlohmann::json;

namespace {
constexpr const char* kUsage =
    "usage: mpirun -np N adept_bench_allreduce [--impl adept|mpi] [--device cpu|vulkan] [--min-bytes B]\n"
    "                                          [--max-bytes B] [--iters N] [--warmup N]\n";

struct Args {
  std::string impl = "adept", device = "cpu";
  int64_t min_bytes = 4096, max_bytes = int64_t{256} << 20, iters = 20, warmup = 3;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    ADEPT_CHECK(i + 1 < argc, ValueError, "option {} needs a value", k);
    const std::string v = argv[i + 1];
    if (k == "--impl") a.impl = v;
    else if (k == "--device") a.device = v;
    else if (k == "--min-bytes") a.min_bytes = std::stoll(v);
    else if (k == "--max-bytes") a.max_bytes = std::stoll(v);
    else if (k == "--iters") a.iters = std::stoll(v);
    else if (k == "--warmup") a.warmup = std::stoll(v);
    else throw ValueError("unknown option " + k);
  }
  ADEPT_CHECK(a.impl == "adept" || a.impl == "mpi", ValueError, "--impl expects adept or mpi, got '{}'", a.impl);
  ADEPT_CHECK(a.impl == "adept" || a.device == "cpu", ValueError, "--impl mpi times host buffers only");
  ADEPT_CHECK(a.min_bytes >= 4 && a.min_bytes <= a.max_bytes && a.iters >= 1, ValueError,
              "need 4 <= --min-bytes <= --max-bytes and --iters >= 1");
  return a;
}

using Clock = std::chrono::steady_clock;

// Seconds of each timed call of `reduce` (after `warmup` untimed ones), each started after a barrier.
template <class Reduce, class Barrier>
std::vector<double> time_calls(const Args& a, Reduce reduce, Barrier barrier) {
  std::vector<double> t;
  for (int64_t it = 0; it < a.warmup + a.iters; ++it) {
    barrier();
    const auto t0 = Clock::now();
    reduce();
    if (it >= a.warmup) t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return t;
}

// One size's row; `t` are the seconds of every rank's calls, the slowest rank per call counting.
json row(int64_t bytes, std::vector<double> t, int world) {
  std::sort(t.begin(), t.end());
  const double med = t[t.size() / 2], algbw = static_cast<double>(bytes) / med;
  return {{"bytes", bytes},
          {"median_seconds", med},
          {"best_seconds", t.front()},
          {"algbw_bytes_per_second", algbw},
          {"busbw_bytes_per_second", algbw * 2.0 * (world - 1) / world}};
}

int run(int argc, char** argv) {
  if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::cerr << kUsage;
    return 2;
  }
  const Args a = parse(argc, argv);
  int rank = 0, world = 1;
  json sizes = json::array();
  if (a.impl == "mpi") {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    for (int64_t bytes = a.min_bytes; bytes <= a.max_bytes; bytes *= 4) {
      std::vector<float> buf(static_cast<size_t>(bytes / 4), 1.0f);
      std::vector<double> t = time_calls(
          a, [&] { MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(buf.size()), MPI_FLOAT, MPI_SUM,
                                 MPI_COMM_WORLD); },
          [] { MPI_Barrier(MPI_COMM_WORLD); });
      // The slowest rank of each call: a MAX all-reduce of the per-call times.
      MPI_Allreduce(MPI_IN_PLACE, t.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      sizes.push_back(row(bytes, t, world));
    }
    MPI_Finalize();
  } else {
    distributed::init_process_group("mpi");
    rank = distributed::get_rank();
    world = distributed::get_world_size();
    const Device dev(a.device);
    for (int64_t bytes = a.min_bytes; bytes <= a.max_bytes; bytes *= 4) {
      Tensor buf = ones({bytes / 4}, dev);
      std::vector<double> t = time_calls(
          a,
          [&] {
            distributed::all_reduce(buf);
            if (!dev.is_cpu()) buf.narrow(0, 0, 1).cpu();  // the upload has completed
          },
          [] { distributed::barrier(); });
      Tensor times = tensor(t, Dtype::Float64);
      distributed::all_reduce(times, distributed::ReduceOp::MAX);
      const double* p = times.data_ptr<double>();
      sizes.push_back(row(bytes, std::vector<double>(p, p + times.numel()), world));
    }
    distributed::destroy_process_group();
  }
  if (rank == 0) {
    std::cout << json{{"framework", "adept"}, {"impl", a.impl}, {"device", a.device}, {"world_size", world},
                      {"dtype", "float32"}, {"op", "sum"}, {"iters", a.iters}, {"sizes", sizes}}
                     .dump()
              << std::endl;
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "adept_bench_allreduce: " << e.what() << "\n" << kUsage;
    return 2;
  }
}
