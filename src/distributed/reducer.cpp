// The gradient Reducer of DistributedDataParallel: buckets, hooks, in-order launches and the end of
// backward (see adept/distributed/data_parallel.h).
#include <algorithm>
#include <map>
#include <tuple>

#include "adept/autograd.h"
#include "adept/distributed.h"
#include "adept/distributed/data_parallel.h"
#include "adept/ops.h"

namespace adept::distributed {

struct Reducer::State : std::enable_shared_from_this<Reducer::State> {
  struct Bucket {
    std::vector<size_t> members;  // parameter indices, in the order they lie in `flat`
    int64_t bytes = 0;
    size_t pending = 0;           // members not ready yet in this backward
    Tensor flat;                  // the gradients, concatenated (being reduced)
    std::shared_ptr<Work> work;
  };

  ReducerOptions options;
  std::vector<Tensor> params;
  std::vector<std::string> names;
  std::vector<uint64_t> hooks;
  std::vector<Bucket> buckets;
  std::vector<size_t> bucket_of;
  std::vector<char> ready, used;
  size_t next_launch = 0;
  bool armed = false, sync = true, callback_queued = false;
  bool reduced = false;  // a backward since the last prepare_for_backward has reduced the gradients

  void reset() {
    for (Bucket& b : buckets) {
      if (b.work) b.work->wait();  // a backward that ended in an error left it running
      b.work = nullptr;
      b.flat = Tensor();
      b.pending = b.members.size();
    }
    std::fill(ready.begin(), ready.end(), 0);
    std::fill(used.begin(), used.end(), 0);
    next_launch = 0;
    callback_queued = false;
    reduced = false;
  }

  void launch(Bucket& b) {
    NoGradGuard no_grad;
    std::vector<Tensor> parts;
    for (size_t i : b.members) {
      Tensor g = params[i].grad();
      parts.push_back(g.defined() ? g.reshape({-1})
                                  : zeros({params[i].numel()}, TensorOptions(params[i].dtype()).set_device(params[i].device())));
    }
    b.flat = parts.size() == 1 ? parts[0].clone() : cat(parts, 0);
    b.work = all_reduce(b.flat, ReduceOp::AVG, /*async_op=*/true);
  }

  // Buckets start in index order on every rank, whatever order their gradients become ready in.
  void launch_ready() {
    while (next_launch < buckets.size() && buckets[next_launch].pending == 0) launch(buckets[next_launch++]);
  }

  void mark_ready(size_t i) {
    if (ready[i]) return;
    ready[i] = 1;
    --buckets[bucket_of[i]].pending;
    launch_ready();
  }

  void on_grad(size_t i) {
    if (!armed) {
      // Another backward through a forward whose gradients were already reduced would leave this rank's
      // gradients unsynchronised (torch: "Expected to mark a variable ready only once").
      ADEPT_CHECK(!reduced, AutogradError,
                  "DistributedDataParallel: parameter {} received a gradient in a second backward through the same "
                  "forward, after the gradients were reduced over the ranks; run a forward through the DDP module "
                  "before each backward (no_sync() for the passes that should only accumulate)",
                  names[i]);
      return;
    }
    if (!callback_queued) {
      callback_queued = true;
      autograd::queue_callback([weak = weak_from_this()] {
        if (auto s = weak.lock()) s->finalize();
      });
    }
    used[i] = 1;
    mark_ready(i);
  }

  void finalize() {
    armed = false;
    std::vector<std::string> missing;
    for (size_t i = 0; i < params.size(); ++i) {
      if (!ready[i]) missing.push_back(fmt::format("{} (index {})", names[i], i));
    }
    if (!missing.empty() && !options.find_unused_parameters) {
      for (Bucket& b : buckets) {
        if (b.work) b.work->wait();
        b.work = nullptr;
      }
      throw AutogradError(fmt::format(
          "DistributedDataParallel: parameters that did not receive a gradient in this backward on rank {}: {}. "
          "Either pass find_unused_parameters=True, or make sure every parameter takes part in the loss.",
          get_rank(), fmt::join(missing, ", ")));
    }
    // With find_unused_parameters: a parameter reachable from the outputs that still got no gradient.
    for (size_t i = 0; i < params.size(); ++i) mark_ready(i);
    Tensor used_anywhere;
    std::shared_ptr<Work> used_work;
    if (options.find_unused_parameters) {
      std::vector<int64_t> flags(used.begin(), used.end());
      used_anywhere = tensor(flags);
      used_work = all_reduce(used_anywhere, ReduceOp::MAX, /*async_op=*/true);
    }
    NoGradGuard no_grad;
    for (Bucket& b : buckets) {
      b.work->wait();
      b.work = nullptr;
    }
    std::vector<char> unused_everywhere(params.size(), 0);
    if (used_work) {
      used_work->wait();
      const int64_t* flag = used_anywhere.data_ptr<int64_t>();
      for (size_t i = 0; i < params.size(); ++i) unused_everywhere[i] = flag[i] == 0;
    }
    for (Bucket& b : buckets) {
      int64_t offset = 0;
      for (size_t i : b.members) {
        Tensor& p = params[i];
        const int64_t n = p.numel();
        if (unused_everywhere[i]) {
          offset += n;
          continue;  // no rank used it: its .grad stays as it was
        }
        Tensor slice = b.flat.narrow(0, offset, n).view(p.sizes());
        Tensor g = p.grad();
        if (g.defined()) {
          g.copy_(slice);
        } else {
          p.set_grad(slice.clone());
        }
        offset += n;
      }
      b.flat = Tensor();
    }
    callback_queued = false;
    reduced = true;
  }
};

namespace {

// torch's _verify_param_shape_across_processes: every rank has the same parameters (count, shapes and dtypes of
// those that require grad), checked with one all-gather before any bucket is reduced, so that a different model
// on one rank is an error naming it rather than a mismatched all-reduce at the first backward.
void verify_same_parameters(const std::vector<Tensor>& params) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over (dtype, rank, sizes) of each parameter
  auto mix = [&h](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull; };
  for (const Tensor& p : params) {
    mix(static_cast<int64_t>(p.dtype()));
    mix(p.dim());
    for (int64_t d : p.sizes()) mix(d);
  }
  const int64_t mine_count = static_cast<int64_t>(params.size()), mine_hash = static_cast<int64_t>(h >> 1);
  const int world = get_world_size();
  Tensor all = zeros({2 * static_cast<int64_t>(world)}, kInt64);
  all_gather_into_tensor(all, tensor(std::vector<int64_t>{mine_count, mine_hash}));
  const int64_t* v = all.data_ptr<int64_t>();
  for (int r = 0; r < world; ++r) {
    if (v[2 * r] == mine_count && v[2 * r + 1] == mine_hash) continue;
    throw ValueError(fmt::format(
        "DistributedDataParallel: every rank must wrap the same model, but rank {} has {} parameters that require "
        "grad and rank {} has {}{}",
        get_rank(), mine_count, r, v[2 * r], v[2 * r] == mine_count ? ", with other shapes or dtypes" : ""));
  }
}

}  // namespace

Reducer::Reducer(const std::vector<std::pair<std::string, Tensor>>& named_parameters, ReducerOptions options)
    : state_(std::make_shared<State>()) {
  ADEPT_CHECK(is_initialized(), ValueError,
              "DistributedDataParallel: Default process group has not been initialized, please make sure to call "
              "init_process_group.");
  ADEPT_CHECK(options.bucket_cap_bytes > 0 && options.first_bucket_cap_bytes > 0, ValueError,
              "DistributedDataParallel: bucket sizes must be positive, got {} and {} bytes", options.bucket_cap_bytes,
              options.first_bucket_cap_bytes);
  State& s = *state_;
  s.options = options;
  for (const auto& [name, p] : named_parameters) {
    if (!p.defined() || !p.requires_grad()) continue;
    ADEPT_CHECK(p.is_leaf(), ValueError, "DistributedDataParallel: parameter {} is not a leaf tensor", name);
    s.params.push_back(p);
    s.names.push_back(name);
  }
  verify_same_parameters(s.params);
  // Buckets in reverse registration order, one open bucket per (dtype, device).
  std::map<std::tuple<int, int, int>, size_t> open;
  s.bucket_of.resize(s.params.size());
  for (size_t k = s.params.size(); k-- > 0;) {
    const Tensor& p = s.params[k];
    const auto key = std::make_tuple(static_cast<int>(p.dtype()), static_cast<int>(p.device().type), p.device().index);
    const int64_t bytes = p.numel() * static_cast<int64_t>(element_size(p.dtype()));
    auto it = open.find(key);
    // The first bucket (the last layers' gradients, ready first) holds up to first_bucket_cap_bytes.
    const int64_t cap =
        it != open.end() && it->second == 0 ? options.first_bucket_cap_bytes : options.bucket_cap_bytes;
    if (it == open.end() || (s.buckets[it->second].bytes > 0 && s.buckets[it->second].bytes + bytes > cap)) {
      s.buckets.emplace_back();
      open[key] = s.buckets.size() - 1;
      it = open.find(key);
    }
    State::Bucket& b = s.buckets[it->second];
    b.members.push_back(k);
    b.bytes += bytes;
    s.bucket_of[k] = it->second;
  }
  s.ready.assign(s.params.size(), 0);
  s.used.assign(s.params.size(), 0);
  s.reset();
  std::weak_ptr<State> weak = state_;
  for (size_t i = 0; i < s.params.size(); ++i) {
    s.hooks.push_back(s.params[i].register_post_accumulate_grad_hook([weak, i](const Tensor&) {
      if (auto st = weak.lock()) st->on_grad(i);
    }));
  }
}

Reducer::~Reducer() {
  State& s = *state_;
  for (size_t i = 0; i < s.params.size(); ++i) s.params[i].remove_post_accumulate_grad_hook(s.hooks[i]);
  for (auto& b : s.buckets) {
    if (b.work) b.work->wait();
  }
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  State& s = *state_;
  s.reset();
  s.armed = s.sync;
  if (!s.armed || !s.options.find_unused_parameters) return;
  // Parameters the outputs do not depend on will get no gradient: they are ready now (as zeros).
  std::vector<Tensor> reached = autograd::reachable_leaves(outputs);
  std::vector<const TensorImpl*> reach;
  for (const Tensor& t : reached) reach.push_back(t.impl());
  std::sort(reach.begin(), reach.end());
  for (size_t i = 0; i < s.params.size(); ++i) {
    if (!std::binary_search(reach.begin(), reach.end(), s.params[i].impl())) s.mark_ready(i);
  }
}

void Reducer::set_require_sync(bool sync) { state_->sync = sync; }
bool Reducer::require_sync() const { return state_->sync; }

std::vector<std::vector<size_t>> Reducer::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const auto& b : state_->buckets) out.push_back(b.members);
  return out;
}

void broadcast_coalesced(const std::vector<Tensor>& tensors, int src) {
  NoGradGuard no_grad;
  std::map<std::tuple<int, int, int>, std::vector<Tensor>> groups;
  std::vector<std::tuple<int, int, int>> order;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    const auto key = std::make_tuple(static_cast<int>(t.dtype()), static_cast<int>(t.device().type), t.device().index);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(t);
  }
  for (const auto& key : order) {
    std::vector<Tensor>& group = groups[key];
    std::vector<Tensor> parts;
    for (const Tensor& t : group) parts.push_back(t.reshape({-1}));
    Tensor flat = cat(parts, 0);
    broadcast(flat, src);
    int64_t offset = 0;
    for (Tensor& t : group) {
      t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

void broadcast_module_state(const nn::Module& module, int src) {
  std::vector<Tensor> state = module.parameters();
  for (const Tensor& b : module.buffers()) state.push_back(b);
  broadcast_coalesced(state, src);
}

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<nn::Module> module,
                                                 DistributedDataParallelOptions options)
    : nn::Module("DistributedDataParallel"), module_(std::move(module)), options_(options) {
  ADEPT_CHECK(module_ != nullptr, ValueError, "DistributedDataParallel: the module is null");
  register_module("module", module_);
  reducer_ = std::make_unique<Reducer>(module_->named_parameters(), options.reducer);
  broadcast_module_state(*module_, 0);
}

void DistributedDataParallel::sync_buffers() {
  if (!options_.broadcast_buffers || !is_grad_enabled() || get_world_size() == 1) return;
  broadcast_coalesced(module_->buffers(), 0);
}

void DistributedDataParallel::prepare_for_backward(const std::vector<Tensor>& outputs) {
  if (is_grad_enabled()) reducer_->prepare_for_backward(outputs);  // as torch: eval mode too (frozen BN)
}

Tensor DistributedDataParallel::forward(const Tensor& input) {
  sync_buffers();
  Tensor out = module_->forward(input);
  prepare_for_backward({out});
  return out;
}

}  // namespace adept::distributed
