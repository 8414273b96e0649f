// DataLoader, samplers and worker processes: ordering, determinism, shared-memory lifecycle and
// every failure mode (worker exception, worker killed, timeout, tiny /dev/shm).
#include <dirent.h>
#include <signal.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "adept/adept.h"
#include "adept/data.h"

using namespace adept;
using namespace adept::data;

namespace {

// Names of this process's DataLoader segments still in /dev/shm.
int leftover_segments() {
  const std::string prefix = fmt::format("adept.{}.", getpid());
  int n = 0;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d)) n += std::string(e->d_name).rfind(prefix, 0) == 0;
    closedir(d);
  }
  return n;
}

// Sample i: {"x": [i, i, i] float, "r": a draw seeded by sample_seed(), "pid": the loading process}.
// `fail_at` raises, `kill_at` SIGKILLs the worker, `sleep_at` sleeps 30 s at that index.
struct ToyDataset : Dataset {
  int64_t n;
  int64_t fail_at = -1, kill_at = -1, sleep_at = -1, big = 0;
  explicit ToyDataset(int64_t n) : n(n) {}
  int64_t size() const override { return n; }
  Sample get(int64_t i) override {
    if (i == fail_at) throw ValueError(fmt::format("bad sample {}", i));
    if (i == kill_at && get_worker_info()->id >= 0) raise(SIGKILL);
    if (i == sleep_at) std::this_thread::sleep_for(std::chrono::seconds(30));
    Generator g(sample_seed());
    Sample s;
    s.set("x", full({3 + big}, static_cast<double>(i)));
    s.set("r", rand({2}, {}, &g));
    s.set("pid", full({}, static_cast<double>(getpid()), kInt64));
    return s;
  }
};

std::vector<std::vector<float>> collect(DataLoader& loader, const std::string& key) {
  std::vector<std::vector<float>> out;
  for (Batch& b : loader) {
    Tensor t = b.at(key).to(kFloat32).contiguous();
    out.emplace_back(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
  }
  return out;
}

}  // namespace

TEST(DataSampler, SequentialAndBatchSizes) {
  auto s = std::make_shared<SequentialSampler>(10);
  EXPECT_EQ(s->indices(0), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  BatchSampler keep(s, 3, false), drop(s, 3, true);
  EXPECT_EQ(keep.size(), 4);
  EXPECT_EQ(drop.size(), 3);
  EXPECT_EQ(keep.batches(0).back(), (std::vector<int64_t>{9}));
  EXPECT_EQ(drop.batches(0).back(), (std::vector<int64_t>{6, 7, 8}));
  EXPECT_THROW(BatchSampler(s, 0, false), ValueError);
}

TEST(DataSampler, RandomIsSeededPermutationPerEpoch) {
  RandomSampler a(50, false, std::nullopt, 7), b(50, false, std::nullopt, 7);
  auto e0 = a.indices(0), e1 = a.indices(1);
  EXPECT_EQ(e0, b.indices(0));
  EXPECT_NE(e0, e1);
  std::set<int64_t> uniq(e0.begin(), e0.end());
  EXPECT_EQ(uniq.size(), 50u);
  RandomSampler more(4, false, 10, 1);
  auto m = more.indices(0);
  ASSERT_EQ(m.size(), 10u);
  EXPECT_EQ(std::set<int64_t>(m.begin(), m.begin() + 4).size(), 4u);  // whole permutations first
  RandomSampler repl(5, true, 100, 3);
  for (int64_t i : repl.indices(0)) EXPECT_TRUE(i >= 0 && i < 5);
  EXPECT_THROW(RandomSampler(5, false, 0), ValueError);
}

TEST(DataSampler, WeightedFollowsWeightsAndValidates) {
  WeightedRandomSampler s({0, 1, 3}, 8000, true, 5);
  std::vector<int> count(3);
  for (int64_t i : s.indices(0)) ++count[i];
  EXPECT_EQ(count[0], 0);
  EXPECT_NEAR(count[2] / 8000.0, 0.75, 0.03);
  auto distinct = WeightedRandomSampler({1, 2, 0, 4}, 3, false, 1).indices(0);
  EXPECT_EQ(std::set<int64_t>(distinct.begin(), distinct.end()), (std::set<int64_t>{0, 1, 3}));
  EXPECT_THROW(WeightedRandomSampler({1, 0}, 2, false), ValueError);
  EXPECT_THROW(WeightedRandomSampler({1, -1}, 2), ValueError);
  EXPECT_THROW(WeightedRandomSampler({1, 2}, 0), ValueError);
}

TEST(DataSampler, DistributedSplitsLikeTorch) {
  // torch: DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False)
  // -> [0,3,6,9], [1,4,7,0], [2,5,8,1]; drop_last=True -> [0,3,6], [1,4,7], [2,5,8].
  std::vector<std::vector<int64_t>> pad = {{0, 3, 6, 9}, {1, 4, 7, 0}, {2, 5, 8, 1}}, cut = {{0, 3, 6}, {1, 4, 7}, {2, 5, 8}};
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(DistributedSampler(10, 3, r, false).indices(0), pad[r]);
    EXPECT_EQ(DistributedSampler(10, 3, r, false, 0, true).indices(0), cut[r]);
  }
  // Shuffled: the ranks partition one permutation, which changes with set_epoch.
  std::multiset<int64_t> all;
  for (int r = 0; r < 4; ++r) {
    auto v = DistributedSampler(12, 4, r, true, 5).indices(0);
    all.insert(v.begin(), v.end());
  }
  EXPECT_EQ(all.size(), 12u);
  EXPECT_EQ(std::set<int64_t>(all.begin(), all.end()).size(), 12u);
  DistributedSampler d(12, 4, 0, true, 5);
  auto first = d.indices(0);
  d.set_epoch(1);
  EXPECT_NE(first, d.indices(0));
  EXPECT_THROW(DistributedSampler(10, 3, 3), ValueError);
}

TEST(DataLoaderOptions, InvalidCombinationsRaise) {
  auto ds = std::make_shared<ToyDataset>(4);
  DataLoaderOptions o;
  o.num_workers = -1;
  EXPECT_THROW(DataLoader(ds, o), ValueError);
  o = {};
  o.persistent_workers = true;
  EXPECT_THROW(DataLoader(ds, o), ValueError);
  o = {};
  o.shuffle = true;
  o.sampler = std::make_shared<SequentialSampler>(4);
  EXPECT_THROW(DataLoader(ds, o), ValueError);
  o = {};
  o.batch_sampler = std::make_shared<BatchSampler>(std::make_shared<SequentialSampler>(4), 2, false);
  o.batch_size = 3;
  EXPECT_THROW(DataLoader(ds, o), ValueError);
}

TEST(DataLoaderWorkers, SameBatchesInSameOrderForAnyNumberOfWorkers) {
  auto ds = std::make_shared<ToyDataset>(23);
  std::vector<std::vector<float>> ref_x, ref_r;
  for (int workers : {0, 1, 3}) {
    DataLoaderOptions o;
    o.batch_size = 4;
    o.shuffle = true;
    o.seed = 11;
    o.num_workers = workers;
    DataLoader loader(ds, o);
    EXPECT_EQ(loader.size(), 6);
    auto x = collect(loader, "x");
    loader.set_epoch(0);
    auto r = collect(loader, "r");
    ASSERT_EQ(x.size(), 6u);
    EXPECT_EQ(x.back().size(), 9u);  // 23 = 5 * 4 + 3
    if (workers == 0) {
      ref_x = x;
      ref_r = r;
    } else {
      EXPECT_EQ(x, ref_x) << workers << " workers";
      EXPECT_EQ(r, ref_r) << workers << " workers";
    }
  }
  EXPECT_EQ(leftover_segments(), 0);
}

// Resuming an interrupted epoch: the pass started at batch k yields exactly the batches k.. of
// the full pass (same samples, same seeds), for the main process and workers; the next pass is whole.
TEST(DataLoaderWorkers, StartBatchResumesAnEpochWhereItStopped) {
  auto ds = std::make_shared<ToyDataset>(23);
  for (int workers : {0, 2}) {
    DataLoaderOptions o;
    o.batch_size = 4;
    o.shuffle = true;
    o.seed = 5;
    o.num_workers = workers;
    DataLoader loader(ds, o);
    loader.set_epoch(3);
    const auto full_r = collect(loader, "r");
    loader.set_epoch(3);
    loader.set_start_batch(4);
    const auto tail_r = collect(loader, "r");
    ASSERT_EQ(tail_r.size(), 2u) << workers;
    EXPECT_EQ(tail_r[0], full_r[4]);
    EXPECT_EQ(tail_r[1], full_r[5]);
    loader.set_epoch(3);
    EXPECT_EQ(collect(loader, "r"), full_r) << "the start applies to one pass only";
    loader.set_start_batch(99);
    EXPECT_TRUE(collect(loader, "r").empty());
  }
  DataLoader loader(ds, {});
  EXPECT_THROW(loader.set_start_batch(-1), ValueError);
}

TEST(DataLoaderWorkers, HeldBatchesAreNeverOverwrittenAndReleasedOnesAreReused) {
  auto ds = std::make_shared<ToyDataset>(40);
  DataLoaderOptions o;
  o.batch_size = 2;
  o.num_workers = 2;
  DataLoader loader(ds, o);
  std::vector<Batch> held;
  for (Batch& b : loader) held.push_back(b);
  for (size_t k = 0; k < held.size(); ++k)
    EXPECT_EQ(held[k].at("x").select(0, 1).select(0, 0).item<float>(), static_cast<float>(2 * k + 1));
  held.clear();
  std::set<void*> addresses;
  int batches = 0;
  for (Batch& b : loader) {
    addresses.insert(b.at("x").data_ptr());
    ++batches;
  }
  EXPECT_EQ(batches, 20);
  EXPECT_LE(addresses.size(), 2u * (o.prefetch_factor + 2));  // segments come back once released
  EXPECT_EQ(leftover_segments(), 0);
}

TEST(DataLoaderWorkers, PersistentWorkersKeepTheirProcesses) {
  auto ds = std::make_shared<ToyDataset>(8);
  for (bool persistent : {false, true}) {
    DataLoaderOptions o;
    o.batch_size = 8;
    o.num_workers = 1;
    o.persistent_workers = persistent;
    DataLoader loader(ds, o);
    auto p0 = collect(loader, "pid"), p1 = collect(loader, "pid");
    EXPECT_NE(p0[0][0], static_cast<float>(getpid()));
    EXPECT_EQ(p0[0][0] == p1[0][0], persistent);
  }
}

TEST(DataLoaderWorkers, WorkerExceptionNamesWorkerAndSample) {
  auto ds = std::make_shared<ToyDataset>(12);
  ds->fail_at = 7;
  DataLoaderOptions o;
  o.batch_size = 2;
  o.num_workers = 2;
  DataLoader loader(ds, o);
  try {
    for (Batch& b : loader) (void)b;
    FAIL() << "no error";
  } catch (const DataLoaderWorkerError& e) {
    EXPECT_EQ(e.worker_id, 1);  // batch 3 = samples 6, 7 goes to worker 3 mod 2
    EXPECT_EQ(e.index, 7);
    EXPECT_NE(std::string(e.what()).find("bad sample 7"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("worker 1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(leftover_segments(), 0);
  // The loader starts fresh workers on the next pass.
  ds->fail_at = -1;
  EXPECT_EQ(collect(loader, "x").size(), 6u);
}

TEST(DataLoaderWorkers, KilledWorkerIsReportedQuickly) {
  auto ds = std::make_shared<ToyDataset>(12);
  ds->kill_at = 5;
  DataLoaderOptions o;
  o.batch_size = 2;
  o.num_workers = 2;
  DataLoader loader(ds, o);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    for (Batch& b : loader) (void)b;
    FAIL() << "no error";
  } catch (const DataLoaderWorkerError& e) {
    EXPECT_NE(std::string(e.what()).find("signal 9"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15.0);
  EXPECT_EQ(leftover_segments(), 0);
}

TEST(DataLoaderWorkers, DeathOfAnotherWorkerIsReportedWhileWaiting) {
  // Batch 0 (worker 0) takes 30 s; worker 1 dies meanwhile: reported without waiting for worker 0.
  auto ds = std::make_shared<ToyDataset>(4);
  ds->sleep_at = 0;
  ds->kill_at = 1;
  DataLoaderOptions o;
  o.num_workers = 2;
  DataLoader loader(ds, o);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    collect(loader, "x");
    FAIL() << "no error";
  } catch (const DataLoaderWorkerError& e) {
    EXPECT_EQ(e.worker_id, 1);
    EXPECT_NE(std::string(e.what()).find("signal 9"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15.0);
  EXPECT_EQ(leftover_segments(), 0);
}

TEST(DataLoaderWorkers, TimeoutRaises) {
  auto ds = std::make_shared<ToyDataset>(4);
  ds->sleep_at = 1;
  DataLoaderOptions o;
  o.num_workers = 1;
  o.timeout = 0.5;
  DataLoader loader(ds, o);
  EXPECT_THROW(collect(loader, "x"), DataLoaderWorkerError);
  EXPECT_EQ(leftover_segments(), 0);
}

TEST(DataLoaderWorkers, WorkerInitFnRunsInWorkerAndItsErrorsAreReported) {
  auto ds = std::make_shared<ToyDataset>(4);
  DataLoaderOptions o;
  o.num_workers = 2;
  o.worker_init_fn = [](int id) {
    if (id == 1) throw ValueError("init failed");
  };
  DataLoader loader(ds, o);
  try {
    collect(loader, "x");
    FAIL() << "no error";
  } catch (const DataLoaderWorkerError& e) {
    EXPECT_NE(std::string(e.what()).find("init failed"), std::string::npos) << e.what();
    EXPECT_EQ(e.worker_id, 1);
  }
  EXPECT_EQ(leftover_segments(), 0);
}

TEST(DataLoaderWorkers, TinyDevShmIsAClearError) {
  // In a child with its own mount namespace and a 256 KiB /dev/shm (needs CAP_SYS_ADMIN).
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", "/dev/shm", "tmpfs", 0, "size=256k") != 0)
      _exit(77);
    auto ds = std::make_shared<ToyDataset>(4);
    ds->big = 1 << 20;  // 4 MiB per sample
    DataLoaderOptions o;
    o.num_workers = 1;
    DataLoader loader(ds, o);
    try {
      collect(loader, "x");
    } catch (const DataLoaderWorkerError& e) {
      const std::string m = e.what();
      _exit(m.find("/dev/shm is too small") != std::string::npos && m.find("shm-size") != std::string::npos &&
                    leftover_segments() == 0
                ? 0
                : 2);
    }
    _exit(3);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot mount a private tmpfs here (no CAP_SYS_ADMIN)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(DataLoaderWorkers, MainProcessKilledByCtrlCLeavesNoSegmentAndNoWorker) {
  // Orphaned workers are reparented to this process (subreaper), so we can see them exit.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    auto ds = std::make_shared<ToyDataset>(64);
    ds->big = 1 << 16;
    DataLoaderOptions o;
    o.num_workers = 2;
    o.batch_size = 4;
    DataLoader loader(ds, o);
    for (;;)
      for (Batch& b : loader) (void)b;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
  // The workers see their connection close and exit, removing any segment they still named.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  bool workers_left = true;
  while (std::chrono::steady_clock::now() < deadline) {
    int st = 0;
    pid_t r = waitpid(-1, &st, WNOHANG);
    if (r < 0 && errno == ECHILD) {
      workers_left = false;
      break;
    }
    if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  EXPECT_FALSE(workers_left);
  const std::string prefix = fmt::format("adept.{}.", pid);
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d)) EXPECT_NE(std::string(e->d_name).rfind(prefix, 0), 0u) << e->d_name;
    closedir(d);
  }
}

TEST(DataLoaderInProcess, WorkerInfoAndSampleSeed) {
  EXPECT_FALSE(get_worker_info().has_value());
  struct Probe : Dataset {
    int64_t size() const override { return 3; }
    Sample get(int64_t i) override {
      auto info = get_worker_info();
      return Sample{{"id", full({}, info->id)}, {"index", full({}, static_cast<double>(info->index))}};
    }
  };
  DataLoaderOptions o;
  o.batch_size = 3;
  DataLoader loader(std::make_shared<Probe>(), o);
  for (Batch& b : loader) {
    EXPECT_EQ(b.at("id").select(0, 0).item<float>(), -1.f);
    EXPECT_EQ(b.at("index").select(0, 2).item<float>(), 2.f);
  }
  EXPECT_FALSE(get_worker_info().has_value());
}

#ifdef ADEPT_WITH_VULKAN
TEST(DataLoaderWorkers, GpuUseInAWorkerIsAnError) {
  struct GpuDataset : Dataset {
    int64_t size() const override { return 2; }
    Sample get(int64_t i) override { return Sample{{"x", zeros({2}, Device("vulkan:0"))}}; }
  };
  DataLoaderOptions o;
  o.num_workers = 1;
  DataLoader loader(std::make_shared<GpuDataset>(), o);
  try {
    for (Batch& b : loader) (void)b;
    FAIL() << "no error";
  } catch (const DataLoaderWorkerError& e) {
    EXPECT_NE(std::string(e.what()).find("must not use a GPU"), std::string::npos) << e.what();
  }
  EXPECT_EQ(leftover_segments(), 0);
}
#endif
