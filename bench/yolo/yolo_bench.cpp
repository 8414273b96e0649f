// YOLO11 training-step and inference benchmark (the Adept half of bench/yolo/yolo_vs_torch.py):
// times one configuration per process and prints one JSON line, so ru_maxrss is that configuration's peak.
//   adept_bench_yolo init  --out W.safetensors [--scale n] [--nc 80] [--seed 0]
//   adept_bench_yolo train --inputs I.safetensors [--weights W] [--warmup 2] [--iters 3] [--threads 2] [--lr 0.01]
//   adept_bench_yolo infer --inputs I.safetensors [--weights W] [--warmup 3] [--iters 20] [--threads 2]
// I holds "images" (B, 3, H, W) float32 and, for train, "targets" (N, 6) float32 rows (image, class, cx, cy, w, h).
// Instead of --inputs, `--synthetic BxS` draws uniform images (B, 3, S, S) and 2-8 boxes per image in
// process; with `--vary-targets 1` every step draws a new target table (a different count each step).
// `--device vulkan` runs on the GPU (each phase is timed to the device's completion) and adds the device
// allocator's statistics: peak allocated / reserved and the reserved bytes after every step.
// `--phase-sync 0` waits for the device once per step (as `adept train` does) instead of after every phase.
// `--profile N` (train, vulkan) then runs N more steps under vulkan_profiler_start/stop and adds "profile":
// GPU time per kernel, per op, per layer (model.i, forward and backward) and per layer and kernel, ranked,
// with dispatches, host recording time and wall time per step.
// `--amp 1` (train) runs the step as `adept train amp=True` does: the forward under float16 autocast, the
// loss in float32, GradScaler (scale, unscale, inf check, step, update).
// `--ddp overlap|after` (train, under mpirun) runs the step data-parallel over adept::distributed's MPI group,
// each rank on its own B images: `overlap` as `adept train` does (the Reducer's hooks start each bucket's
// all-reduce during backward), `after` all-reduces the gradients once backward has finished (bucketed the same
// way, phase "allreduce"), so backward's time without communication and the communication's own time are both
// known; rank 0 prints the JSON with every rank's step medians (bench/distributed/ddp_scaling.py drives it).
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adept/adept.h"
#include "adept/distributed.h"
#include "adept/distributed/data_parallel.h"
#include "adept/models/yolo/loss.h"
#include "adept/models/yolo/yolo11.h"
#include "adept/profiler.h"
#include "adept/vulkan.h"

// The OpenBLAS kernel set in use (libadept may have switched it from OpenBLAS's own choice).
extern "C" char* openblas_get_corename(void);

using namespace adept;
using models::yolo::DetectionLoss;
using models::yolo::Yolo11;
using json = nlohmann::json;

namespace {
constexpr const char* kUsage =
    "usage: adept_bench_yolo init --out W.safetensors [--scale n] [--nc 80] [--seed 0]\n"
    "       adept_bench_yolo train|infer --inputs I.safetensors [--weights W.safetensors] [--scale n] [--nc 80]\n"
    "                        [--warmup N] [--iters N] [--threads N] [--lr 0.01] [--device cpu|vulkan]\n"
    "                        [--synthetic BxS] [--vary-targets 0|1] [--phase-sync 0|1] [--profile N] [--amp 0|1]\n"
    "                        [--ddp off|overlap|after]  (train, under mpirun)\n";

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Current resident set (VmRSS) and peak (ru_maxrss), both in MiB.
double current_rss_mib() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return -1;
}
double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // kilobytes on Linux
}
// User + system CPU time of the process (all threads): on a shared machine, steady where wall time is not.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Wall and CPU seconds of the named phases of a step, one entry per timed step.
struct PhaseTimes {
  std::map<std::string, std::vector<double>> wall, cpu;
  Clock::time_point t0;
  double c0 = 0;
  void start() {
    t0 = Clock::now();
    c0 = cpu_seconds();
  }
  /// Records the time since start() (or the last stop) under `name` when `keep`, and restarts.
  void stop(const std::string& name, bool keep) {
    if (keep) {
      wall[name].push_back(seconds_since(t0));
      cpu[name].push_back(cpu_seconds() - c0);
    }
    start();
  }
  static json medians(const std::map<std::string, std::vector<double>>& m) {
    json j;
    for (const auto& [k, v] : m) j[k] = median(v);
    return j;
  }
};

std::vector<double> to_vector(const Tensor& t) {
  Tensor c = t.detach().cpu().to(Dtype::Float64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

struct Args {
  std::string mode, inputs, weights, out, scale = "n", device = "cpu", synthetic, ddp = "off";
  int64_t nc = 80, warmup = -1, iters = -1, threads = 2, profile = 0;
  bool phase_sync = true;
  bool vary_targets = false;
  bool amp = false;
  uint64_t seed = 0;
  double lr = 0.01;
};

Args parse(int argc, char** argv) {
  ADEPT_CHECK(argc >= 2 && (argc % 2) == 0, ValueError, "expected a mode and --key value pairs");
  Args a;
  a.mode = argv[1];
  ADEPT_CHECK(a.mode == "init" || a.mode == "train" || a.mode == "infer", ValueError, "unknown mode '{}'", a.mode);
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--inputs") a.inputs = v;
    else if (k == "--weights") a.weights = v;
    else if (k == "--out") a.out = v;
    else if (k == "--scale") a.scale = v;
    else if (k == "--nc") a.nc = std::stoll(v);
    else if (k == "--warmup") a.warmup = std::stoll(v);
    else if (k == "--iters") a.iters = std::stoll(v);
    else if (k == "--threads") a.threads = std::stoll(v);
    else if (k == "--seed") a.seed = std::stoull(v);
    else if (k == "--lr") a.lr = std::stod(v);
    else if (k == "--device") a.device = v;
    else if (k == "--synthetic") a.synthetic = v;
    else if (k == "--vary-targets") a.vary_targets = v != "0";
    else if (k == "--phase-sync") a.phase_sync = v != "0";
    else if (k == "--profile") a.profile = std::stoll(v);
    else if (k == "--amp") a.amp = v != "0";
    else if (k == "--ddp") a.ddp = v;
    else throw ValueError("unknown option " + k);
  }
  if (a.warmup < 0) a.warmup = a.mode == "train" ? 2 : 3;
  if (a.iters < 0) a.iters = a.mode == "train" ? 3 : 20;
  ADEPT_CHECK(a.iters >= 1, ValueError, "--iters must be >= 1");
  ADEPT_CHECK(a.profile >= 0, ValueError, "--profile must be >= 0 (steps), got {}", a.profile);
  ADEPT_CHECK(a.profile == 0 || (a.mode == "train" && a.device.rfind("vulkan", 0) == 0), ValueError,
              "--profile profiles Vulkan training steps: it needs train --device vulkan");
  ADEPT_CHECK(a.mode == "init" ? !a.out.empty() : !a.inputs.empty() || !a.synthetic.empty(), ValueError,
              "missing --out / --inputs / --synthetic");
  return a;
}

std::map<std::string, Tensor> read_tensors(const std::string& path) {
  std::map<std::string, Tensor> m;
  for (auto& [k, v] : io::load_file(path).tensors) m[k] = v;
  return m;
}

// Waits for the device's queued work (phase timings end when the device is done).
void sync(const Device& d) {
#ifdef ADEPT_WITH_VULKAN
  if (!d.is_cpu()) vulkan_synchronize(d.index);
#else
  (void)d;
#endif
}

// 2-8 boxes per image (random classes, sides 4-40% of the image, inside it): (N, 6) rows
// (image, class, cx, cy, w, h), on the CPU as the loader gives them.
Tensor synthetic_targets(int64_t batch, int64_t nc, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<float> rows;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t n = 2 + static_cast<int64_t>(rng() % 7);
    for (int64_t i = 0; i < n; ++i) {
      const double w = 0.04 + 0.36 * u(rng), h = 0.04 + 0.36 * u(rng);
      const double cx = w / 2 + (1 - w) * u(rng), cy = h / 2 + (1 - h) * u(rng);
      for (double v : {static_cast<double>(b), static_cast<double>(rng() % nc), cx, cy, w, h})
        rows.push_back(static_cast<float>(v));
    }
  }
  return from_blob_copy(rows.data(), {static_cast<int64_t>(rows.size() / 6), 6}, kFloat32);
}

// The forward of a training step: maps, under float16 autocast with --amp 1.
std::vector<Tensor> forward_maps(Yolo11& model, const Tensor& images, bool amp) {
  std::optional<AutocastGuard> autocast;
  if (amp) autocast.emplace(images.device().type, kFloat16);
  return model.forward_maps(images);
}

#ifdef ADEPT_WITH_VULKAN
// Sums device time, host time and counts of profile rows grouped by `key`, largest device time first.
json rank(const VulkanProfile& p, double steps, const std::function<std::string(const VulkanProfileRow&)>& key,
          size_t top) {
  std::map<std::string, std::array<double, 3>> sums;
  for (const auto& row : p.rows) {
    auto& s = sums[key(row)];
    s[0] += row.device_ms;
    s[1] += static_cast<double>(row.count);
    s[2] += row.host_ms;
  }
  std::vector<std::pair<std::string, std::array<double, 3>>> v(sums.begin(), sums.end());
  std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.second[0] > y.second[0]; });
  json out = json::array();
  for (size_t i = 0; i < v.size() && i < top; ++i) {
    out.push_back({{"name", v[i].first}, {"device_ms_per_step", v[i].second[0] / steps},
                   {"share", p.device_ms > 0 ? v[i].second[0] / p.device_ms : 0.0},
                   {"dispatches_per_step", v[i].second[1] / steps}, {"host_ms_per_step", v[i].second[2] / steps}});
  }
  return out;
}

// The layer of a profile label: its first component ("model.2 C3k2/..." -> "model.2 C3k2").
std::string layer_of(const std::string& scope) {
  const size_t slash = scope.find('/');
  return scope.empty() ? "(unlabelled)" : scope.substr(0, slash);
}

// `n` training steps under the Vulkan profiler, one device wait per step.
json profile_steps(Yolo11& model, const DetectionLoss& criterion, optim::SGD& opt, optim::GradScaler& scaler, bool amp,
                   const Tensor& images, const Tensor& targets, int64_t n) {
  const Device dev = images.device();
  std::vector<double> wall, host;
  vulkan_profiler_start(dev.index);
  for (int64_t it = 0; it < n; ++it) {
    const auto t0 = Clock::now();
    {
      profiler::RecordFunction label("zero_grad");
      opt.zero_grad();
    }
    std::vector<Tensor> maps = forward_maps(model, images, amp);
    auto [loss, items] = criterion(maps, targets);
    scaler.scale(loss).backward();
    {
      profiler::RecordFunction label("optimizer.step");
      scaler.step(opt);
      scaler.update();
    }
    host.push_back(seconds_since(t0));
    sync(dev);
    wall.push_back(seconds_since(t0));
  }
  const VulkanProfile p = vulkan_profiler_stop(dev.index);
  const double steps = static_cast<double>(n);
  auto direction = [](const VulkanProfileRow& r) { return std::string(r.backward ? " backward" : " forward"); };
  return {{"steps", n}, {"wall_ms_per_step", 1e3 * median(wall)}, {"host_record_ms_per_step", 1e3 * median(host)},
          {"device_busy_ms_per_step", p.device_ms / steps}, {"host_dispatch_ms_per_step", p.host_ms / steps},
          {"dispatches_per_step", static_cast<double>(p.dispatches) / steps},
          {"copies_per_step", static_cast<double>(p.copies) / steps},
          {"batches_per_step", static_cast<double>(p.batches) / steps},
          {"by_kernel", rank(p, steps, [](const VulkanProfileRow& r) { return r.kernel; }, 60)},
          {"by_op", rank(p, steps, [&](const VulkanProfileRow& r) { return r.op + direction(r); }, 60)},
          {"by_layer", rank(p, steps, [&](const VulkanProfileRow& r) { return layer_of(r.scope) + direction(r); }, 80)},
          {"by_layer_kernel",
           rank(p, steps, [&](const VulkanProfileRow& r) { return layer_of(r.scope) + direction(r) + " " + r.kernel; },
                80)}};
}
#endif

// `--ddp after`: each bucket of gradients (the Reducer's buckets, in its launch order) averaged over the ranks once
// backward has finished, through one flat buffer per bucket.
void all_reduce_after_backward(const std::vector<std::vector<size_t>>& buckets, const std::vector<Tensor>& params) {
  for (const std::vector<size_t>& bucket : buckets) {
    std::vector<Tensor> flat;
    for (size_t i : bucket) flat.push_back(params[i].grad().reshape({-1}));
    Tensor buffer = cat(flat);
    distributed::all_reduce(buffer, distributed::ReduceOp::AVG);
    int64_t offset = 0;
    for (size_t i : bucket) {
      Tensor g = params[i].grad();
      g.copy_(buffer.narrow(0, offset, g.numel()).view(g.sizes()));
      offset += g.numel();
    }
  }
}

// Training step as a trainer runs it: zero_grad, train-mode forward, DetectionLoss, backward,
// SGD with Nesterov momentum and weight decay. Times each phase of every step.
json bench_train(Yolo11& model, const Tensor& images, Tensor targets, const Args& a, json r) {
  const Device dev = images.device();
  std::mt19937_64 rng(a.seed + 1);
  json reserved = json::array();
  std::vector<Tensor> params;
  for (const Tensor& p : model.parameters()) {
    if (p.requires_grad()) params.push_back(p);
  }
  optim::SGDOptions o;
  o.lr = a.lr;
  o.momentum = 0.937;
  o.nesterov = true;
  o.weight_decay = 5e-4;
  optim::SGD opt(params, o);
  optim::GradScalerOptions so;
  so.enabled = a.amp;
  optim::GradScaler scaler(so);
  r["amp"] = a.amp;
  DetectionLoss criterion(model);
  model.train();
  // Data-parallel (--ddp): the Reducer, armed every step (overlap) or only its buckets used after backward
  // (after), and rank 0's weights everywhere; the loss's normaliser is summed over the ranks as in training.
  std::unique_ptr<distributed::Reducer> reducer;
  std::vector<Tensor> named_params;
  if (a.ddp != "off") {
    const auto named = model.named_parameters();
    reducer = std::make_unique<distributed::Reducer>(named);  // checks that every rank has the same parameters
    for (const auto& np : named) named_params.push_back(np.second);
    distributed::broadcast_module_state(model, 0);
    criterion.distributed = true;
    r["world_size"] = distributed::get_world_size();
    r["ddp"] = a.ddp;
  }
  r["baseline_rss_mib"] = current_rss_mib();
  r["baseline_peak_rss_mib"] = peak_rss_mib();

  PhaseTimes phases;
  std::vector<double> steps, cpu;
  json losses = json::array();
  for (int64_t it = 0; it < a.warmup + a.iters; ++it) {
    const bool timed = it >= a.warmup;
    const auto t0 = Clock::now();
    const double c0 = cpu_seconds();
    if (a.vary_targets && it > 0) targets = synthetic_targets(images.size(0), a.nc, rng);
    phases.start();
    // With --phase-sync 0 the phases are only timed on the host (the device catches up at the step's end).
    auto phase_end = [&](const char* name) {
      if (a.phase_sync) sync(dev);
      phases.stop(name, timed);
    };
    opt.zero_grad();
    std::vector<Tensor> maps = forward_maps(model, images, a.amp);
    phase_end("forward");  // zero_grad included
    auto [loss, items] = criterion(maps, targets);
    phase_end("loss");
    if (a.ddp == "overlap") reducer->prepare_for_backward({loss});
    scaler.scale(loss).backward();
    phase_end("backward");
    if (a.ddp == "after") {
      all_reduce_after_backward(reducer->bucket_indices(), named_params);
      phase_end("allreduce");
    }
    scaler.step(opt);  // opt.step() without --amp
    scaler.update();
    if (!a.phase_sync) phases.stop("host_step", timed);
    sync(dev);
    phases.stop(a.phase_sync ? "optimizer" : "device_wait", timed);
    losses.push_back(to_vector(items));
#ifdef ADEPT_WITH_VULKAN
    if (!dev.is_cpu()) reserved.push_back(vulkan_memory_stats(dev.index).reserved);
#endif
    if (!timed) continue;
    steps.push_back(seconds_since(t0));
    cpu.push_back(cpu_seconds() - c0);
  }
  const double batch = static_cast<double>(images.size(0));
  if (reducer) {  // every rank's median step and phases, for rank 0's JSON
    const int64_t world = distributed::get_world_size();
    Tensor mine = tensor(std::vector<double>{median(steps), median(phases.wall["backward"])});
    Tensor all = zeros({2 * world}, mine.dtype());
    distributed::all_gather_into_tensor(all, mine);
    json per_rank = json::array();
    for (int64_t i = 0; i < world; ++i) per_rank.push_back(to_vector(all.narrow(0, 2 * i, 2)));
    r["rank_step_and_backward_median_seconds"] = per_rank;
    r["global_images_per_second"] = batch * static_cast<double>(world) / median(steps);
  }
  r["step_seconds"] = steps;
  r["step_cpu_seconds"] = cpu;
  r["images_per_second"] = batch / median(steps);
  r["best_images_per_second"] = batch / *std::min_element(steps.begin(), steps.end());
  r["phase_median_seconds"] = phases.medians(phases.wall);
  r["phase_median_cpu_seconds"] = phases.medians(phases.cpu);
  r["loss_items"] = losses;  // box, cls, dfl (with gains) of every step, warmup included
#ifdef ADEPT_WITH_VULKAN
  if (!dev.is_cpu()) {
    const VulkanMemoryStats m = vulkan_memory_stats(dev.index);
    r["device_memory"] = {{"peak_allocated_bytes", m.peak}, {"peak_reserved_bytes", m.peak_reserved},
                          {"device_allocations", m.device_allocations}, {"fragmentation", m.fragmentation},
                          {"reserved_bytes_per_step", reserved}};
    if (a.profile > 0) r["profile"] = profile_steps(model, criterion, opt, scaler, a.amp, images, targets, a.profile);
    if (a.amp) r["final_loss_scale"] = scaler.get_scale();
  }
#endif
  return r;
}

// Eval-mode forward under no-grad giving the decoded (B, 4 + nc, A) predictions.
json bench_infer(Yolo11& model, const Tensor& images, const Args& a, json r) {
  model.eval();
  NoGradGuard no_grad;
  r["baseline_rss_mib"] = current_rss_mib();
  r["baseline_peak_rss_mib"] = peak_rss_mib();
  std::vector<double> times, cpu;
  Tensor out;
  for (int64_t it = 0; it < a.warmup + a.iters; ++it) {
    auto t0 = Clock::now();
    const double c0 = cpu_seconds();
    out = model.forward(images);
    if (it < a.warmup) continue;
    times.push_back(seconds_since(t0));
    cpu.push_back(cpu_seconds() - c0);
  }
  r["output_shape"] = out.sizes();
  r["output_checksum"] = out.to(Dtype::Float64).sum().item<double>();
  r["run_seconds"] = times;
  r["run_cpu_seconds"] = cpu;
  r["median_ms"] = 1e3 * median(times);
  r["best_ms"] = 1e3 * *std::min_element(times.begin(), times.end());
  return r;
}

int run(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cerr << kUsage;
    return 2;
  }
  Args a = parse(argc, argv);
  set_num_threads(static_cast<int>(a.threads));
  ADEPT_CHECK(a.ddp == "off" || a.ddp == "overlap" || a.ddp == "after", ValueError,
              "--ddp expects off, overlap or after, got '{}'", a.ddp);
  ADEPT_CHECK(a.ddp == "off" || a.mode == "train", ValueError, "--ddp needs train");
  if (a.ddp != "off") {
    distributed::init_process_group("mpi");
    a.seed += static_cast<uint64_t>(distributed::get_rank());  // each rank draws its own images and boxes
  }
  manual_seed(a.seed);
  Yolo11 model(a.scale, a.nc);
  if (a.mode == "init") {
    io::save_file(model.state_dict(), a.out, {{"scale", a.scale}, {"nc", std::to_string(a.nc)}});
    return 0;
  }
  if (!a.weights.empty()) model.load_state_dict(io::load_file(a.weights).tensors);
  std::map<std::string, Tensor> in;
  if (a.synthetic.empty()) {
    in = read_tensors(a.inputs);
  } else {
    const size_t x = a.synthetic.find('x');
    ADEPT_CHECK(x != std::string::npos, ValueError, "--synthetic expects BxS (e.g. 16x640), got '{}'", a.synthetic);
    const int64_t b = std::stoll(a.synthetic.substr(0, x)), sz = std::stoll(a.synthetic.substr(x + 1));
    std::mt19937_64 rng(a.seed);
    in["images"] = rand({b, 3, sz, sz});
    in["targets"] = synthetic_targets(b, a.nc, rng);
  }
  ADEPT_CHECK(in.count("images"), ValueError, "{} has no 'images' tensor", a.inputs);
  const Device dev(a.device);
  model.to(dev);
  const Tensor images = in["images"].to(dev);
  json r = {{"framework", "adept"}, {"mode", a.mode}, {"scale", a.scale}, {"nc", a.nc},
            {"batch", images.size(0)}, {"imgsz", {images.size(2), images.size(3)}}, {"threads", get_num_threads()},
            {"warmup", a.warmup}, {"iters", a.iters}, {"openblas_core", openblas_get_corename()},
            {"device", dev.str()}};
  if (a.mode == "train") {
    ADEPT_CHECK(in.count("targets"), ValueError, "{} has no 'targets' tensor", a.inputs);
    r["targets"] = in["targets"].size(0);
    r = bench_train(model, images, in["targets"], a, r);
  } else {
    r = bench_infer(model, images, a, r);
  }
  r["peak_rss_mib"] = peak_rss_mib();
  const CpuCacheStats cache = cpu_cache_stats();
  r["cpu_cache"] = {{"hits", cache.hits}, {"misses", cache.misses}, {"cached_mib", cache.cached / 1048576.0},
                    {"limit_mib", cache.limit / 1048576.0}};
  if (a.ddp != "off") {
    const bool first = distributed::get_rank() == 0;
    distributed::destroy_process_group();
    if (!first) return 0;
  }
  std::cout << r.dump() << std::endl;
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // bad options, missing files, a failing step
    std::cerr << "adept_bench_yolo: " << e.what() << "\n" << kUsage;
    return 2;
  }
}
