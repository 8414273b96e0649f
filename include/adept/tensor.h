// Tensor: a cheap, shared handle to an N-d strided view of a Storage, with autograd state.
//
// Conventions (stated once): sizes and strides are in elements, dim 0 is the outermost; strides
// may be 0 (broadcast) and any dim may be 0 (empty tensor). Negative dims count from the end.
// Methods are thin wrappers over the free functions in `adept/ops.h`, which document shapes,
// dtypes and errors.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adept/device.h"
#include "adept/dtype.h"
#include "adept/errors.h"
#include "adept/scalar.h"
#include "adept/storage.h"

namespace adept {

using Shape = std::vector<int64_t>;
/// Resolves a negative `dim` against rank `ndim`; IndexError naming `op` when out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op = "dim");
class Tensor;
namespace autograd { class Node; }

/// Autograd state of a tensor (absent for tensors that never took part in autograd).
struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  std::shared_ptr<Tensor> grad;                   // accumulated gradient (leaves, retain_grad)
  std::shared_ptr<autograd::Node> grad_fn;        // the node that produced this tensor (non-leaf)
  std::weak_ptr<autograd::Node> grad_accumulator; // AccumulateGrad node of a leaf
  uint32_t output_nr = 0;                         // which output of grad_fn this is
  /// Hooks run after a backward accumulated into `grad` (leaves only), by registration id.
  std::vector<std::pair<uint64_t, std::function<void(const Tensor&)>>> post_accumulate_grad_hooks;
};

/// The shared state behind a Tensor handle.
struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape sizes;
  Shape strides;
  int64_t storage_offset = 0;
  Dtype dtype = kFloat32;
  std::unique_ptr<AutogradMeta> autograd;
  bool is_view = false;
  /// Differentiable views: the root tensor this one views (never itself a view_base holder) and
  /// the storage version at which this view's autograd history was last derived from the base's.
  /// An in-place write to the base or to another view bumps the version; the view's history is
  /// then re-derived from the base (see autograd::refresh_view).
  std::shared_ptr<TensorImpl> view_base;
  uint64_t view_version = 0;

  int64_t numel() const;
  bool is_contiguous() const;
  void* data() const;  // pointer to element 0 (storage data + offset); null for empty storage
};

/// One component of a C++ index expression: x.index({Slice(1, None, 2), Ellipsis, None, 3, mask}).
struct None_t {
  // Lets None stand for an absent slice bound anywhere: Slice(1, None, 2).
  constexpr operator std::optional<int64_t>() const { return std::nullopt; }  // NOLINT
};
inline constexpr None_t None{};
struct Ellipsis_t {};
inline constexpr Ellipsis_t Ellipsis{};
struct Slice {
  std::optional<int64_t> start, stop, step;
  Slice(std::optional<int64_t> a = std::nullopt, std::optional<int64_t> b = std::nullopt,
        std::optional<int64_t> c = std::nullopt)
      : start(a), stop(b), step(c) {}
  Slice(None_t, std::optional<int64_t> b = std::nullopt, std::optional<int64_t> c = std::nullopt)
      : stop(b), step(c) {}
};
class TensorIndex;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- metadata ----
  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  const Shape& sizes() const { return checked()->sizes; }
  const Shape& shape() const { return sizes(); }
  const Shape& strides() const { return checked()->strides; }
  /// The size / stride of dim `dim` (negative counts from the end); IndexError for a dim outside
  /// [-dim(), dim()), and for any dim of a 0-d tensor (PyTorch's rule).
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(sizes().size()); }
  int64_t ndim() const { return dim(); }
  int64_t numel() const { return checked()->numel(); }
  int64_t storage_offset() const { return checked()->storage_offset; }
  Dtype dtype() const { return checked()->dtype; }
  Device device() const { return checked()->storage->device(); }
  size_t element_size() const { return adept::element_size(dtype()); }
  bool is_contiguous() const { return checked()->is_contiguous(); }
  bool is_floating_point() const { return adept::is_floating_point(dtype()); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  void* data_ptr() const { return checked()->data(); }
  template <class T> T* data_ptr() const;
  /// Version of the storage, bumped by each in-place write (shared by all views).
  uint64_t _version() const { return checked()->storage->version(); }

  // ---- autograd ----
  bool requires_grad() const;
  Tensor& requires_grad_(bool r = true);
  /// The accumulated gradient (undefined Tensor when none).
  Tensor grad() const;
  void set_grad(const Tensor& g);
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  void retain_grad();
  bool retains_grad() const;
  /// Registers `hook(tensor)`, run each time a backward (not autograd::grad) has accumulated a
  /// gradient into this leaf's `.grad`, after the accumulation, in registration order
  /// (torch.Tensor.register_post_accumulate_grad_hook; DistributedDataParallel starts a bucket's
  /// all-reduce from it). Returns an id for remove_post_accumulate_grad_hook. AutogradError when the
  /// tensor does not require grad or is not a leaf.
  uint64_t register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook);
  /// Removes the hook `id` returned by register_post_accumulate_grad_hook (no-op when already removed).
  void remove_post_accumulate_grad_hook(uint64_t id);
  /// Backpropagates from this tensor; `gradient` defaults to ones for a one-element tensor.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false,
                bool create_graph = false) const;
  Tensor detach() const;
  Tensor& detach_();

  // ---- conversion and copies ----
  Tensor to(Dtype dtype, bool copy = false) const;
  Tensor to(Device device, bool copy = false) const;
  Tensor to(Device device, Dtype dtype, bool copy = false) const;
  Tensor cpu() const { return to(kCPU); }
  Tensor clone() const;
  Tensor contiguous() const;
  Scalar item() const;
  template <class T> T item() const { return item().to<T>(); }
  std::string str() const;  // PyTorch-like printing
  Tensor& copy_(const Tensor& src);
  Tensor& fill_(const Scalar& v);
  Tensor& zero_();

  // ---- views ----
  Tensor view(const Shape& shape) const;
  Tensor reshape(const Shape& shape) const;
  Tensor permute(const Shape& dims) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor t() const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step = 1) const;
  Tensor expand(const Shape& shape) const;
  Tensor expand_as(const Tensor& o) const { return expand(o.sizes()); }
  Tensor broadcast_to(const Shape& shape) const { return expand(shape); }
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, const Shape& sizes) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(const Shape& split_sizes, int64_t dim = 0) const;
  Tensor as_strided(const Shape& size, const Shape& stride, std::optional<int64_t> storage_offset = std::nullopt) const;

  // ---- indexing ----
  Tensor index(const std::vector<TensorIndex>& indices) const;
  Tensor& index_put_(const std::vector<TensorIndex>& indices, const Tensor& value);
  Tensor& index_put_(const std::vector<TensorIndex>& indices, const Scalar& value);

  // ---- arithmetic (see ops.h) ----
  Tensor add(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& o) const;
  Tensor div(const Tensor& o) const;
  Tensor pow(const Tensor& o) const;
  Tensor pow(const Scalar& e) const;
  Tensor& add_(const Tensor& o, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& o);
  Tensor& sub_(const Tensor& o, const Scalar& alpha = 1);
  Tensor& mul_(const Tensor& o);
  Tensor& mul_(const Scalar& o);
  Tensor& div_(const Tensor& o);
  Tensor& div_(const Scalar& o);
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max);
  Tensor neg() const;
  Tensor abs() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor tanh() const;

  // ---- reductions ----
  Tensor sum() const;
  Tensor sum(const Shape& dims, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(const Shape& dims, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;

  Tensor matmul(const Tensor& o) const;
  std::vector<Scalar> tolist_flat() const;  // elements in row-major order

 private:
  TensorImpl* checked() const;
  std::shared_ptr<TensorImpl> impl_;
};

/// A component of an index expression; see Tensor::index.
class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Slice, Boolean, Tensor };
  TensorIndex(None_t) : kind_(Kind::None) {}                         // NOLINT
  TensorIndex(Ellipsis_t) : kind_(Kind::Ellipsis) {}                 // NOLINT
  TensorIndex(int64_t i) : kind_(Kind::Integer), integer_(i) {}      // NOLINT
  TensorIndex(int i) : kind_(Kind::Integer), integer_(i) {}          // NOLINT
  TensorIndex(bool b) : kind_(Kind::Boolean), boolean_(b) {}         // NOLINT
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}            // NOLINT
  TensorIndex(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}  // NOLINT
  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
};

template <class T> T* Tensor::data_ptr() const {
  ADEPT_CHECK(DtypeOf<T>::value == dtype(), DtypeError, "data_ptr: tensor has dtype {}, requested {}",
              dtype_name(dtype()), dtype_name(DtypeOf<T>::value));
  return static_cast<T*>(data_ptr());
}

// Operators follow Python/PyTorch semantics (`/` is true division).
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator~(const Tensor& a);

std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace adept
