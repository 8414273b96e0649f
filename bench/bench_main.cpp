// adept_bench entry point: records the machine and thread count in the JSON context, then runs.
#include <omp.h>

#include <fstream>
#include <string>

#include "adept/parallel.h"
#include "bench_util.h"

namespace {

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("adept_num_threads", std::to_string(adept::get_num_threads()));
  benchmark::AddCustomContext("omp_procs", std::to_string(omp_get_num_procs()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
