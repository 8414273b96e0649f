// Data-parallel training over the default process group (adept/distributed.h), as PyTorch's
// DistributedDataParallel does it: every rank holds a replica of the model, parameters and buffers
// start equal (broadcast from rank 0), and each backward averages the gradients across ranks. The
// gradients are reduced in buckets (about 25 MiB, filled in reverse registration order, since
// backward produces the last layers' gradients first, and a small first bucket so that
// communication starts early); a bucket's all-reduce starts from a parameter's post-accumulate-grad
// hook the moment its last gradient is ready, so communication overlaps the rest of backward, and the
// backward pass waits for all of them at its end (autograd::queue_callback).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "adept/nn/module.h"
#include "adept/tensor.h"

namespace adept::distributed {

struct ReducerOptions {
  /// Bucket size in bytes (torch's bucket_cap_mb = 25).
  int64_t bucket_cap_bytes = int64_t{25} << 20;
  /// The first bucket's size (torch's 1 MiB): the last layers' gradients leave early.
  int64_t first_bucket_cap_bytes = int64_t{1} << 20;
  /// Parameters that a forward did not use are found by walking the autograd graph from the forward's
  /// outputs and reduced as zeros; a parameter no rank used keeps its .grad. Without it, a parameter
  /// that gets no gradient is an error at the end of backward.
  bool find_unused_parameters = false;
};

/// Averages the gradients of `parameters` across the ranks of the default process group after each
/// backward that follows a prepare_for_backward() (torch's C++ Reducer). Buckets hold parameters of one
/// dtype and device. Collective: every rank must build its Reducer over the same parameters in the same
/// order and run the same backwards.
class Reducer {
 public:
  /// Registers a post-accumulate-grad hook on every parameter that requires grad. ValueError without a
  /// process group; names are used in error messages.
  Reducer(const std::vector<std::pair<std::string, Tensor>>& named_parameters, ReducerOptions options = {});
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  /// Arms the next backward (call it after each forward whose outputs will be differentiated, with those
  /// outputs). When sync is off (no_sync), the backward only accumulates local gradients.
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  /// Whether the next backwards reduce (false inside no_sync).
  void set_require_sync(bool sync);
  bool require_sync() const;
  /// The parameters (indices into the constructor's list) of each bucket, in launch order.
  std::vector<std::vector<size_t>> bucket_indices() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// Copies rank 0's values of `tensors` into every rank's (one broadcast per dtype and device of the
/// tensors, flattened together). Collective.
void broadcast_coalesced(const std::vector<Tensor>& tensors, int src = 0);

/// Copies rank `src`'s parameters and buffers of `module` into every rank's (torch's DDP does this at
/// construction: _sync_module_states), in one broadcast_coalesced. Collective; every rank's module must have
/// the same parameters and buffers (shapes, dtypes, order).
void broadcast_module_state(const nn::Module& module, int src = 0);

struct DistributedDataParallelOptions {
  ReducerOptions reducer;
  /// Broadcast rank 0's buffers (BatchNorm's running statistics) before each forward with grad mode on.
  bool broadcast_buffers = true;
};

/// Wraps `module` (registered as the child "module", so state_dict keys start with "module." as in
/// torch): at construction rank 0's parameters and buffers are broadcast to every rank; forward() runs
/// the module and arms the Reducer, so the following backward averages the gradients across ranks.
/// Modules whose forward is not single-tensor are called through module() followed by
/// prepare_for_backward(outputs).
class DistributedDataParallel : public nn::Module {
 public:
  explicit DistributedDataParallel(std::shared_ptr<nn::Module> module, DistributedDataParallelOptions options = {});
  Tensor forward(const Tensor& input) override;
  /// Broadcasts the buffers (when broadcast_buffers and grad mode is on); call before a custom forward.
  void sync_buffers();
  /// Arms the Reducer for the backward from `outputs` (when grad mode is on, in train or eval mode, as torch).
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  const std::shared_ptr<nn::Module>& module() const { return module_; }
  Reducer& reducer() { return *reducer_; }

  /// While alive, backwards accumulate gradients locally without communication (torch's no_sync()); the
  /// first backward after it reduces the accumulated gradients.
  class NoSync {
   public:
    explicit NoSync(Reducer& r) : reducer_(r), prev_(r.require_sync()) { r.set_require_sync(false); }
    ~NoSync() { reducer_.set_require_sync(prev_); }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    Reducer& reducer_;
    bool prev_;
  };

 private:
  std::shared_ptr<nn::Module> module_;
  DistributedDataParallelOptions options_;
  std::unique_ptr<Reducer> reducer_;
};

}  // namespace adept::distributed
