// Seeded input values of a case and the non-contiguous layouts they are given in.
#include <algorithm>
#include <limits>

#include "runner.h"

namespace adept::backend_ops {

uint64_t stable_hash(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ULL;
  return h;
}

namespace {

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// Integers uniform on [lo, hi] (int64).
Tensor ints(Generator& g, const Shape& s, int64_t lo, int64_t hi) {
  return randint(lo, hi + 1, s, TensorOptions(kInt64), &g);
}

Tensor floats(Generator& g, const Shape& s, Gen gen) {
  const TensorOptions f64(kFloat64);
  switch (gen) {
    case Gen::Positive: return rand(s, f64, &g) * 2.5 + 0.5;
    case Gen::Nonzero: {
      Tensor sign = where(rand(s, f64, &g) < 0.5, -1.0, ones(s, f64));
      return sign * (rand(s, f64, &g) * 1.5 + 0.5);
    }
    case Gen::Unit: return rand(s, f64, &g) * 1.9 - 0.95;
    case Gen::Small: return rand(s, f64, &g) * 4.0 - 2.0;
    case Gen::Large: return randn(s, f64, &g) * 30.0;
    case Gen::Prob: return rand(s, f64, &g) * 0.9 + 0.05;
    case Gen::Special: {
      const double inf = std::numeric_limits<double>::infinity();
      Tensor specials = tensor(std::vector<double>{std::numeric_limits<double>::quiet_NaN(), inf, -inf, 0.0, -0.0, 1.0},
                               f64);
      Tensor pick = rand(s, f64, &g) < 0.4;
      Tensor which = ints(g, s, 0, 5);
      return where(pick, index(specials, {which}), randn(s, f64, &g));
    }
    case Gen::Ones: return ones(s, f64);
    default: return randn(s, f64, &g);
  }
}

Tensor integers(Generator& g, const Shape& s, Gen gen, Dtype d) {
  const bool u8 = d == kUInt8;
  switch (gen) {
    case Gen::Positive: return ints(g, s, 1, 6);
    case Gen::Nonzero:
      if (u8) return ints(g, s, 1, 6);
      return where(rand(s, kFloat64, &g) < 0.5, -1, ones(s, kInt64)) * ints(g, s, 1, 5);
    case Gen::Unit: return u8 ? ints(g, s, 0, 1) : ints(g, s, -1, 1);
    case Gen::Small: return ints(g, s, 0, 3);
    case Gen::Large: return u8 ? ints(g, s, 0, 255) : ints(g, s, -100, 100);
    case Gen::Ones: return ones(s, kInt64);
    default: return u8 ? ints(g, s, 0, 10) : ints(g, s, -5, 5);
  }
}

Tensor distinct(Generator& g, const Shape& s, Dtype d) {
  const int64_t n = numel_of(s);
  Tensor perm = randperm(n, TensorOptions(kInt64), &g).reshape(s);
  if (is_floating_point(d)) return (perm.to(kFloat64) - static_cast<double>(n / 2)) * 0.25;
  if (d == kUInt8) return remainder(perm, 256);
  if (d == kBool) return perm < n / 2;
  return perm - n / 2;
}

// Indices distinct along `dim`: one prefix of a random permutation of [0, high) per line.
Tensor unique_index(Generator& g, const Shape& s, int dim, int64_t high) {
  const int64_t k = s.empty() ? 1 : s[dim];
  Shape other;
  for (size_t i = 0; i < s.size(); ++i)
    if (static_cast<int>(i) != dim) other.push_back(s[i]);
  const int64_t lines = numel_of(other);
  Tensors rows;
  for (int64_t r = 0; r < lines; ++r) rows.push_back(randperm(high, TensorOptions(kInt64), &g).narrow(0, 0, k));
  Shape moved = other;
  moved.push_back(k);
  Tensor a = lines ? stack(rows).reshape(moved) : zeros(moved, TensorOptions(kInt64));
  return s.empty() ? a.reshape({}) : movedim(a, -1, dim);
}

}  // namespace

Tensors generate_inputs(const Case& c, const std::vector<Shape>& shapes, Dtype dtype, uint64_t seed) {
  Generator g(seed);
  Tensors out;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const Input& in = c.inputs[i];
    const Shape& s = shapes[i];
    const Dtype d = in.dtype.value_or(dtype);
    Tensor v;
    const auto bound = [&]() { return shapes[in.of].empty() ? int64_t{1} : shapes[in.of][in.dim]; };
    switch (in.gen) {
      case Gen::Mask: v = rand(s, kFloat64, &g) < 0.5; break;
      case Gen::Distinct: v = distinct(g, s, d); break;
      case Gen::Index: {
        const int64_t high = bound();
        v = high == 0 ? zeros(s, TensorOptions(kInt64)) : ints(g, s, std::max(in.lo, -high), high - 1);
        break;
      }
      case Gen::UniqueIndex: v = unique_index(g, s, in.dim, bound()); break;
      case Gen::Range: v = ints(g, s, in.lo, in.hi); break;
      default:
        if (d == kBool) v = in.gen == Gen::Nonzero || in.gen == Gen::Ones ? ones(s, kBool) : rand(s, kFloat64, &g) < 0.5;
        else if (is_floating_point(d)) v = floats(g, s, in.gen);
        else v = integers(g, s, in.gen, d);
    }
    out.push_back(v.to(d).contiguous());
  }
  return out;
}

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Transposed: return "transposed";
    case Layout::Permuted: return "permuted";
    case Layout::Stepped: return "stepped";
    case Layout::Expanded: return "expanded";
  }
  return "?";
}

bool layout_applies(Layout l, const Shape& s) {
  switch (l) {
    case Layout::Contiguous: return true;
    case Layout::Transposed: return s.size() >= 2 && s[s.size() - 1] > 1 && s[s.size() - 2] > 1;
    case Layout::Permuted: return s.size() >= 3;
    case Layout::Stepped: return !s.empty();
    case Layout::Expanded: return !s.empty() && s[0] > 1;
  }
  return false;
}

Placed place(const Tensor& v, Layout l) {
  if (!layout_applies(l, v.sizes())) return {v, [](const Tensor& t) { return t; }};
  switch (l) {
    case Layout::Transposed:
      return {v.transpose(-1, -2).contiguous(), [](const Tensor& t) { return t.transpose(-1, -2); }};
    case Layout::Permuted: {
      Shape rev;
      for (int64_t d = v.dim() - 1; d >= 0; --d) rev.push_back(d);
      return {v.permute(rev).contiguous(), [rev](const Tensor& t) { return t.permute(rev); }};
    }
    case Layout::Stepped: {
      Shape wide = v.sizes();
      wide.back() = 2 * wide.back() + 1;
      Tensor base = zeros(wide, TensorOptions(v.dtype()));
      Tensor slot = base.slice(-1, 1, std::nullopt, 2);
      slot.copy_(v);
      return {base, [](const Tensor& t) { return t.slice(-1, 1, std::nullopt, 2); }};
    }
    case Layout::Expanded: {
      Shape s = v.sizes();
      return {v.narrow(0, 0, 1).contiguous(), [s](const Tensor& t) { return t.expand(s); }};
    }
    default: return {v, [](const Tensor& t) { return t; }};
  }
}

}  // namespace adept::backend_ops
