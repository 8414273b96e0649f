// Random tensors from a Philox4x32-10 counter-based generator (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11). Element i of a draw uses counter block (offset + i), so
// results depend only on (seed, offset), never on the thread count.
#include "adept/ops/random.h"

#include <cmath>
#include <numbers>

#include "kernels/random.h"
#include "ops/helpers.h"

namespace adept {
namespace {

struct Block { uint32_t v[4]; };

inline void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

Block philox(uint64_t seed, uint64_t counter) {
  uint32_t c[4] = {static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0, 0};
  uint32_t k[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  for (int r = 0; r < 10; ++r) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(0xD2511F53u, c[0], hi0, lo0);
    mulhilo(0xCD9E8D57u, c[2], hi1, lo1);
    uint32_t n[4] = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
    c[0] = n[0]; c[1] = n[1]; c[2] = n[2]; c[3] = n[3];
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
  return {{c[0], c[1], c[2], c[3]}};
}

// Uniform double in [0, 1) with 53 random bits.
inline double u01(uint32_t a, uint32_t b) {
  uint64_t x = (static_cast<uint64_t>(a) << 21) ^ (b >> 11);
  return static_cast<double>(x & ((1ULL << 53) - 1)) * (1.0 / 9007199254740992.0);
}

Generator& gen_or_default(Generator* g) { return g ? *g : default_generator(); }

// randint's value of element (counter) block `b`.
int64_t draw_integer(const RandomDraw& d, const Block& b) {
  const uint64_t r = (static_cast<uint64_t>(b.v[0]) << 32) | b.v[1];
  return d.low + static_cast<int64_t>(r % d.range);
}

// The value of element (counter) block `b` under `d` (see kernels/random.h).
double draw_value(const RandomDraw& d, const Block& b) {
  switch (d.kind) {
    case RandomDraw::Kind::Uniform: return d.a + (d.b - d.a) * u01(b.v[0], b.v[1]);
    case RandomDraw::Kind::Bernoulli: return u01(b.v[0], b.v[1]) < d.a ? 1.0 : 0.0;
    case RandomDraw::Kind::Normal: break;
    case RandomDraw::Kind::Integer: return static_cast<double>(draw_integer(d, b));
  }
  const double u1 = 1.0 - u01(b.v[0], b.v[1]);  // (0, 1]
  const double u2 = u01(b.v[2], b.v[3]);
  return d.a + d.b * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// Fills `t` with draw `d` from the next numel counters of the generator: on the device when it has a
// random kernel, else into a float64 CPU buffer converted into `t`.
void fill_random(Tensor& t, Generator* g, RandomDraw d) {
  const int64_t n = t.numel();
  if (n == 0) return;
  Generator& gen = gen_or_default(g);
  d.seed = gen.seed();
  d.offset = gen.reserve(static_cast<uint64_t>(n));
  if (!t.device().is_cpu() && random_kernel().supports(t.device().type, 0, t.dtype())) {
    random_kernel().get(t.device(), "random")(t, d);
    return;
  }
  NoGradGuard ng;
  if (d.kind == RandomDraw::Kind::Integer) {  // exact int64 values
    Tensor buf = empty({n}, TensorOptions(kInt64));
    int64_t* p = buf.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) p[i] = draw_integer(d, philox(d.seed, d.offset + static_cast<uint64_t>(i)));
    t.copy_(buf.view(t.sizes()));
    return;
  }
  Tensor buf = empty({n}, TensorOptions(kFloat64));
  double* p = buf.data_ptr<double>();
#pragma omp parallel for if (n > 65536) schedule(static)
  for (int64_t i = 0; i < n; ++i) p[i] = draw_value(d, philox(d.seed, d.offset + static_cast<uint64_t>(i)));
  t.copy_(buf.view(t.sizes()));
  if (d.half_open && t.dtype() != kFloat64) {
    // Rounding to a 16-bit/32-bit float can produce exactly 1.0; keep the range half-open.
    Tensor one = ge(t, 1.0);
    if (any(one).item().to_bool()) masked_fill_(t, one, 0.0);
  }
}

Tensor make(const Shape& shape, const TensorOptions& o, Dtype def) {
  TensorOptions oo = o;
  if (!oo.dtype) oo.dtype = def;
  oo.requires_grad = false;
  return empty(shape, oo);
}

Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad) t.requires_grad_(true);
  return t;
}

}  // namespace

Generator& default_generator() {
  static Generator g;
  return g;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

Tensor& uniform_(Tensor& t, double from, double to, Generator* g) {
  check_inplace(t, "uniform_");
  ADEPT_CHECK(from <= to, ValueError, "uniform_: expects to return a [from, to) range, but found from={} > to={}", from, to);
  ADEPT_CHECK(t.is_floating_point(), DtypeError, "uniform_: not implemented for '{}'", dtype_name(t.dtype()));
  fill_random(t, g, {RandomDraw::Kind::Uniform, from, to});
  return t;
}

Tensor& normal_(Tensor& t, double mean, double std, Generator* g) {
  check_inplace(t, "normal_");
  ADEPT_CHECK(std >= 0, ValueError, "normal_: expects std >= 0.0, but found std {}", std);
  ADEPT_CHECK(t.is_floating_point(), DtypeError, "normal_: not implemented for '{}'", dtype_name(t.dtype()));
  fill_random(t, g, {RandomDraw::Kind::Normal, mean, std});
  return t;
}

Tensor& bernoulli_(Tensor& t, double p, Generator* g) {
  check_inplace(t, "bernoulli_");
  ADEPT_CHECK(p >= 0 && p <= 1, ValueError, "bernoulli_: expects p to be in [0, 1], but got p={}", p);
  fill_random(t, g, {RandomDraw::Kind::Bernoulli, p});
  return t;
}

Tensor rand(const Shape& shape, const TensorOptions& o, Generator* g) {
  Tensor t = make(shape, o, default_float_dtype());
  RandomDraw d{RandomDraw::Kind::Uniform, 0, 1};
  d.half_open = true;
  fill_random(t, g, d);
  return finish(t, o);
}

Tensor randn(const Shape& shape, const TensorOptions& o, Generator* g) {
  Tensor t = make(shape, o, default_float_dtype());
  normal_(t, 0, 1, g);
  return finish(t, o);
}

Tensor randint(int64_t low, int64_t high, const Shape& shape, const TensorOptions& o, Generator* g) {
  ADEPT_CHECK(low < high, ValueError, "randint: expects 'from' to be less than 'to', but got from={} >= to={}", low, high);
  Tensor t = make(shape, o, kInt64);
  RandomDraw d;
  d.kind = RandomDraw::Kind::Integer;
  d.low = low;
  d.range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  fill_random(t, g, d);
  return t;
}

Tensor randperm(int64_t n, const TensorOptions& o, Generator* g) {
  ADEPT_CHECK(n >= 0, ValueError, "randperm: n must be non-negative, got {}", n);
  Tensor buf = arange(n, TensorOptions(kInt64));
  int64_t* p = buf.data_ptr<int64_t>();
  if (n > 1) {
    Generator& gen = gen_or_default(g);
    uint64_t seed = gen.seed(), base = gen.reserve(static_cast<uint64_t>(n));
    for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
      Block b = philox(seed, base + static_cast<uint64_t>(i));
      uint64_t r = (static_cast<uint64_t>(b.v[0]) << 32) | b.v[1];
      std::swap(p[i], p[r % static_cast<uint64_t>(i + 1)]);
    }
  }
  return buf.to(o.device, o.dtype.value_or(kInt64));
}

}  // namespace adept
