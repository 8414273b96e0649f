// Creation ops: empty/zeros/ones/full/arange/linspace/eye and host-buffer construction.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/helpers.h"

namespace adept {
namespace {

Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad) t.requires_grad_(true);
  return t;
}

void check_sizes(const Shape& shape, const char* op) {
  for (int64_t s : shape) {
    ADEPT_CHECK(s >= 0, ValueError, "{}: negative dimension {} in size {}", op, s, shape_str(shape));
  }
}

}  // namespace

Tensor empty_strided(const Shape& shape, const Shape& strides, const TensorOptions& o) {
  check_sizes(shape, "empty_strided");
  ADEPT_CHECK(shape.size() == strides.size(), ShapeError, "empty_strided: size {} and stride {} differ in length",
              shape_str(shape), shape_str(strides));
  Dtype dtype = o.dtype.value_or(default_float_dtype());
  int64_t extent = 1;  // elements needed: 1 + sum((size-1)*stride)
  bool empty_t = false;
  bool overflow = false;
  int64_t numel = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) empty_t = true;
    int64_t term;
    overflow |= __builtin_mul_overflow(shape[d] > 0 ? shape[d] - 1 : 0, strides[d] < 0 ? -strides[d] : strides[d], &term);
    overflow |= __builtin_add_overflow(extent, term, &extent);
    overflow |= __builtin_mul_overflow(numel, shape[d], &numel);
  }
  int64_t nbytes = 0;
  overflow |= __builtin_mul_overflow(extent, static_cast<int64_t>(element_size(dtype)), &nbytes);
  ADEPT_CHECK(empty_t || !overflow, ValueError,
              "empty_strided: storage size calculation overflowed with sizes={} and strides={} (dtype {})",
              shape_str(shape), shape_str(strides), dtype_name(dtype));
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = Storage::allocate(empty_t ? 0 : static_cast<size_t>(nbytes), o.device);
  impl->sizes = shape;
  impl->strides = strides;
  impl->dtype = dtype;
  return finish(Tensor(impl), o);
}

Tensor empty(const Shape& shape, const TensorOptions& o) {
  check_sizes(shape, "empty");
  Shape strides(shape.size());
  int64_t s = 1;
  bool overflow = false;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    overflow |= __builtin_mul_overflow(s, std::max<int64_t>(shape[d], 1), &s);
  }
  bool has_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
  ADEPT_CHECK(!overflow || has_zero, ValueError, "empty: storage size calculation overflowed with sizes={}",
              shape_str(shape));
  return empty_strided(shape, strides, o);
}

Tensor full(const Shape& shape, const Scalar& value, const TensorOptions& o) {
  TensorOptions oo = o;
  if (!oo.dtype) oo.dtype = value.dtype();
  oo.requires_grad = false;
  Tensor t = empty(shape, oo);
  fill_kernel().get(t.device(), "full")(t, value);
  return finish(t, o);
}

Tensor zeros(const Shape& shape, const TensorOptions& o) {
  TensorOptions oo = o;
  if (!oo.dtype) oo.dtype = default_float_dtype();
  return full(shape, 0, oo);
}

Tensor ones(const Shape& shape, const TensorOptions& o) {
  TensorOptions oo = o;
  if (!oo.dtype) oo.dtype = default_float_dtype();
  return full(shape, 1, oo);
}

static TensorOptions like(const Tensor& t, const TensorOptions& o) {
  TensorOptions r = o;
  if (!r.dtype) r.dtype = t.dtype();
  if (r.device.is_cpu() && !t.device().is_cpu()) r.device = t.device();
  return r;
}

Tensor empty_like(const Tensor& t, const TensorOptions& o) { return empty(t.sizes(), like(t, o)); }
Tensor zeros_like(const Tensor& t, const TensorOptions& o) { return full(t.sizes(), 0, like(t, o)); }
Tensor ones_like(const Tensor& t, const TensorOptions& o) { return full(t.sizes(), 1, like(t, o)); }
Tensor full_like(const Tensor& t, const Scalar& v, const TensorOptions& o) { return full(t.sizes(), v, like(t, o)); }

Tensor scalar_tensor(const Scalar& value, const TensorOptions& o) { return full({}, value, o); }

Tensor arange(const Scalar& end, const TensorOptions& o) { return arange(0, end, 1, o); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& o) {
  bool all_int = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point();
  Dtype dtype = o.dtype.value_or(all_int ? kInt64 : default_float_dtype());
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  ADEPT_CHECK(st != 0, ValueError, "arange: step must be nonzero");
  ADEPT_CHECK(std::isfinite(s) && std::isfinite(e), ValueError, "arange: unsupported range: {} -> {}", s, e);
  ADEPT_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), ValueError,
              "arange: upper bound and larger bound inconsistent with step sign (start={}, end={}, step={})", s, e, st);
  int64_t n = 0;
  if (all_int) {
    // In 128 bits: end - start may pass int64 (-2**62 .. 2**62 by 2**61 has 4 elements).
    const __int128 count =
        (static_cast<__int128>(end.to_int64()) - start.to_int64() + step.to_int64() - (st > 0 ? 1 : -1)) /
        step.to_int64();
    ADEPT_CHECK(count <= std::numeric_limits<int64_t>::max(), ValueError,
                "arange: invalid size, possible overflow (start={}, end={}, step={})", start.to_int64(),
                end.to_int64(), step.to_int64());
    n = static_cast<int64_t>(count);
  } else {
    ADEPT_CHECK((e - s) / st < 9.2e18, ValueError, "arange: invalid size, possible overflow (start={}, end={}, step={})",
                s, e, st);
    n = static_cast<int64_t>(std::ceil((e - s) / st));
  }
  n = std::max<int64_t>(n, 0);
  Tensor t64 = empty({n}, TensorOptions(all_int ? kInt64 : kFloat64));
  if (all_int) {
    // Stepped, not start + i * step: every value lies in [start, end), a product may not (signed overflow).
    int64_t* p = t64.data_ptr<int64_t>();
    const int64_t step64 = step.to_int64();
    int64_t v = start.to_int64();
    for (int64_t i = 0; i < n; ++i, v += i < n ? step64 : 0) p[i] = v;
  } else {
    double* p = t64.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i) p[i] = s + static_cast<double>(i) * st;
  }
  Tensor r = t64.to(o.device, dtype);
  return finish(r, o);
}

Tensor linspace(double start, double end, int64_t steps, const TensorOptions& o) {
  ADEPT_CHECK(steps >= 0, ValueError, "linspace: number of steps must be non-negative, got {}", steps);
  Tensor t = empty({steps}, TensorOptions(kFloat64));
  double* p = t.data_ptr<double>();
  double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0;
  // Symmetric evaluation from both ends, as PyTorch does, so the last value is exactly `end`.
  int64_t half = steps / 2;
  for (int64_t i = 0; i < steps; ++i) p[i] = i < half ? start + step * i : end - step * (steps - i - 1);
  if (steps == 1) p[0] = start;  // torch.linspace(a, b, 1) == [a]
  Tensor r = t.to(o.device, o.dtype.value_or(default_float_dtype()));
  return finish(r, o);
}

Tensor eye(int64_t n, std::optional<int64_t> m_opt, const TensorOptions& o) {
  int64_t m = m_opt.value_or(n);
  ADEPT_CHECK(n >= 0 && m >= 0, ValueError, "eye: n and m must be non-negative, got n={} m={}", n, m);
  TensorOptions oo = o;
  oo.requires_grad = false;
  Tensor t = zeros({n, m}, oo);
  if (std::min(n, m) > 0) {
    Tensor diag = t.as_strided({std::min(n, m)}, {m + 1}, 0);
    diag.fill_(1);
  }
  return finish(t, o);
}

Tensor from_blob_copy(const void* data, const Shape& shape, Dtype dtype, Device device) {
  Tensor t = empty(shape, TensorOptions(dtype).set_device(device));
  if (t.numel() > 0) from_host_kernel().get(device, "from_blob")(t, data);
  return t;
}

template <class T, class V>
static Tensor from_vector(const std::vector<V>& values, Dtype natural, const TensorOptions& o) {
  std::vector<T> buf(values.begin(), values.end());
  Tensor t = from_blob_copy(buf.data(), {static_cast<int64_t>(buf.size())}, natural);
  Tensor r = t.to(o.device, o.dtype.value_or(natural));
  return finish(r, o);
}

Tensor tensor(const std::vector<double>& v, const TensorOptions& o) {
  return from_vector<double>(v, kFloat64, TensorOptions(o).set_dtype(o.dtype.value_or(default_float_dtype())));
}
Tensor tensor(const std::vector<float>& v, const TensorOptions& o) { return from_vector<float>(v, kFloat32, o); }
Tensor tensor(const std::vector<int64_t>& v, const TensorOptions& o) { return from_vector<int64_t>(v, kInt64, o); }
Tensor tensor(const std::vector<bool>& v, const TensorOptions& o) {
  std::vector<uint8_t> b(v.begin(), v.end());
  Tensor t = from_blob_copy(b.data(), {static_cast<int64_t>(b.size())}, kBool);
  Tensor r = t.to(o.device, o.dtype.value_or(kBool));
  return finish(r, o);
}

}  // namespace adept
