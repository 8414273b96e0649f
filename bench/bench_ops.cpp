// Memory-bound op benchmarks: "op/<name>/<shape>" with bytes_per_second = (bytes read + written)
// per call, each paired with "memcpy/<traffic/2>" (the same traffic, the ceiling). This op set is
// also the one bench/ops_vs_torch.py times against PyTorch (its fallback reads these timings).
#include <functional>
#include <vector>

#include "bench_util.h"

namespace adept::bench {
namespace {

struct OpCase {
  const char* name;
  int n_inputs;
  int traffic_per_elem;  // bytes moved per input element (float32), reads + writes
  std::function<Tensor(const std::vector<Tensor>&)> run;
};

const std::vector<OpCase>& op_cases() {
  static const std::vector<OpCase> cases = {
      {"add", 2, 12, [](const std::vector<Tensor>& x) { return add(x[0], x[1]); }},
      {"mul", 2, 12, [](const std::vector<Tensor>& x) { return mul(x[0], x[1]); }},
      {"exp", 1, 8, [](const std::vector<Tensor>& x) { return exp(x[0]); }},
      {"sigmoid", 1, 8, [](const std::vector<Tensor>& x) { return sigmoid(x[0]); }},
      {"silu", 1, 8, [](const std::vector<Tensor>& x) { return silu(x[0]); }},
      {"tanh", 1, 8, [](const std::vector<Tensor>& x) { return tanh(x[0]); }},
      {"sum", 1, 4, [](const std::vector<Tensor>& x) { return sum(x[0]); }},
      {"sum_dim0", 1, 4, [](const std::vector<Tensor>& x) { return sum(x[0], {0}); }},
      {"sum_dim-1", 1, 4, [](const std::vector<Tensor>& x) { return sum(x[0], {-1}); }},
      {"softmax_dim-1", 1, 8, [](const std::vector<Tensor>& x) { return softmax(x[0], -1); }},
      {"cat_dim0", 2, 16, [](const std::vector<Tensor>& x) { return cat({x[0], x[1]}, 0); }},
      {"transpose_contiguous", 1, 8, [](const std::vector<Tensor>& x) { return x[0].transpose(0, 1).contiguous(); }},
  };
  return cases;
}

void register_ops() {
  const std::vector<Shape> shapes = {{1024, 1024}, {4096, 4096}};  // 1M and 16M elements
  for (const OpCase& c : op_cases()) {
    for (const Shape& s : shapes) {
      int64_t numel = s[0] * s[1];
      int64_t traffic = c.traffic_per_elem * numel;
      std::string name = std::string("op/") + c.name + "/" + shape_name(s);
      benchmark::RegisterBenchmark(name.c_str(), [&c, s, traffic](benchmark::State& st) {
        std::vector<Tensor> in;
        for (int i = 0; i < c.n_inputs; ++i) in.push_back(randn_seeded(s));
        for (auto _ : st) {
          Tensor out = c.run(in);
          benchmark::DoNotOptimize(out.data_ptr());
        }
        st.SetBytesProcessed(st.iterations() * traffic);
        st.counters["traffic_bytes"] = static_cast<double>(traffic);
      })->UseRealTime()->Unit(benchmark::kMicrosecond);
      register_memcpy(traffic / 2);
    }
  }
}

const bool registered = (register_ops(), true);

}  // namespace
}  // namespace adept::bench
