// The case model of adept_test_backend_ops (see main.cpp for what the harness does): a Case names
// an op, its inputs (shape, dtype, value generator), the function that runs it, the dtypes and
// layouts it runs with and its tolerances. The case files (cases_*.cpp) fill the table with the
// builders declared here.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "adept/adept.h"

namespace adept::backend_ops {

using Tensors = std::vector<Tensor>;
using CaseFn = std::function<Tensors(const Tensors&)>;
using Dtypes = std::vector<Dtype>;

// Dtype sets; the first entry is the one edge shapes and layouts run with.
inline const Dtypes kFloat = {kFloat32, kFloat64, kFloat16, kBFloat16};
inline const Dtypes kF32F64 = {kFloat32, kFloat64};
inline const Dtypes kInt = {kInt32, kInt64, kUInt8};
inline const Dtypes kNum = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kUInt8};
inline const Dtypes kAll = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kUInt8, kBool};
inline const Dtypes kIntBool = {kInt32, kInt64, kUInt8, kBool};

/// How an input's values are drawn (seeded, on the CPU, in float64 or int64, then cast; so every
/// value is exactly representable in the dtype under test and in float64).
enum class Gen {
  Normal,       // N(0, 1); ints uniform in [-5, 5] (uint8 [0, 10]); bool p = 0.5
  Positive,     // U(0.5, 3); ints [1, 6]
  Nonzero,      // +-U(0.5, 2); ints +-[1, 5] (uint8 [1, 6]); bool true
  Unit,         // U(-0.95, 0.95); ints [-1, 1]
  Small,        // U(-2, 2); ints [0, 3] (exponents)
  Large,        // 30 N(0, 1); ints [-100, 100] (uint8 [0, 255])
  Prob,         // U(0.05, 0.95) (probabilities)
  Distinct,     // a permutation scaled by 0.25 (no ties: sort, topk, argmax, max pooling)
  Special,      // N(0, 1) with 40% NaN, +-inf, +-0, 1
  Mask,         // bool, p = 0.5
  Index,        // integers in [lo, shapes[of][dim]) (lo < 0 exercises negative indices)
  UniqueIndex,  // distinct along `dim` of this input, in [0, shapes[of][dim]) (scatter targets)
  Range,        // integers in [lo, hi]
  Ones,         // 1 (grad-free placeholders)
};

/// One tensor input of a case.
struct Input {
  Shape shape;
  Gen gen = Gen::Normal;
  std::optional<Dtype> dtype;  // a fixed dtype; nullopt = the case's dtype
  bool grad = true;            // requires_grad in backward/gradcheck modes (when floating)
  bool layouts = true;         // layout variants apply to it
  int of = 0, dim = 0;         // Index / UniqueIndex: the bound is inputs[of].shape[dim]
  int64_t lo = 0, hi = 0;      // Index: lower bound; Range: [lo, hi]
};

/// A plain input (case dtype, differentiable).
inline Input in(Shape s, Gen g = Gen::Normal) { return {std::move(s), g}; }
/// An input of a fixed dtype (differentiable when floating).
inline Input fixed(Shape s, Dtype d, Gen g = Gen::Normal) {
  Input i{std::move(s), g, d};
  return i;
}
/// A bool mask.
inline Input mask(Shape s) { return {std::move(s), Gen::Mask, kBool, false}; }
/// int64 indices in [lo, inputs[of].shape[dim]).
inline Input idx(Shape s, int of = 0, int dim = 0, int64_t lo = 0, Dtype d = kInt64) {
  return {std::move(s), Gen::Index, d, false, true, of, dim, lo};
}
/// int64 indices distinct along `dim` of this input, in [0, inputs[of].shape[dim]).
inline Input uidx(Shape s, int of = 0, int dim = 0) { return {std::move(s), Gen::UniqueIndex, kInt64, false, false, of, dim}; }
/// Integers in [lo, hi] of dtype d (class targets ...).
inline Input range(Shape s, int64_t lo, int64_t hi, Dtype d = kInt64) {
  return {std::move(s), Gen::Range, d, false, false, 0, 0, lo, hi};
}
/// A 0-d tensor of the case dtype that only carries the device and dtype into creation ops.
inline Input anchor() { return {{}, Gen::Ones, std::nullopt, false, false}; }
/// A grad-free input of the case dtype.
inline Input nograd(Shape s, Gen g = Gen::Normal) { return {std::move(s), g, std::nullopt, false}; }

/// Non-contiguous layouts an input is given in (the values stay those of the contiguous run,
/// except `Expanded`, whose rows all repeat row 0).
enum class Layout {
  Contiguous,
  Transposed,  // last two dims swapped in memory (>= 2-d)
  Permuted,    // all dims reversed in memory (>= 3-d)
  Stepped,     // every other element of a wider buffer along the last dim (>= 1-d)
  Expanded,    // dim 0 broadcast from one row (stride 0; dim 0 > 1)
};
const char* layout_name(Layout l);
inline const std::vector<Layout> kViewLayouts = {Layout::Transposed, Layout::Permuted, Layout::Stepped, Layout::Expanded};

enum class Compare {
  Values,  // same dtype, shape and values (within tolerance; ints and bools exactly; NaN where NaN)
  Meta,    // same dtype and shape (uninitialised results)
  Stats,   // same dtype and shape, mean and std within 0.1 (random ops)
};

/// An environment variable set while a case's op runs on one device type (never around the CPU
/// reference): how cases pick a backend's algorithm (ADEPT_CONV_ALGO).
struct EnvSetting {
  std::string name, value;
  DeviceType device;
};

/// One row of the op table.
struct Case {
  std::string op;              // the public function name as PyTorch spells it ("max_pool2d")
  std::string label;           // "op/variant", unique
  std::vector<Input> inputs;
  CaseFn fn;                   // runs the op with the public C++ API
  Dtypes dtypes;               // every dtype runs contiguous; dtypes[0] also runs `layouts`
  std::vector<Layout> layouts;  // extra layouts (those that apply to no input are dropped)
  bool grad = true;            // differentiable: backward and gradcheck modes run it
  bool gradcheck = true;       // smooth at random points, so finite differences apply
  Compare compare = Compare::Values;
  double tol = 1;              // multiplier of the per-dtype tolerance
  double device_tol = 1;       // extra multiplier on non-CPU backends (transcendentals, reductions)
  bool ref_f64 = true;         // CPU row: reference = op on float64 copies (false: same dtype, contiguous)
  std::vector<Shape> perf_shapes;  // input shapes of perf mode (empty: not timed)
  std::function<double(const std::vector<Shape>&)> flops;  // perf: FLOPs of one call (GFLOP/s)
  std::vector<EnvSetting> env;  // set around the op under test (forward and backward) on their device

  Case& no_grad() { grad = false; return *this; }
  Case& no_gradcheck() { gradcheck = false; return *this; }
  Case& with_tol(double t) { tol = t; return *this; }
  Case& with_device_tol(double t) { device_tol = t; return *this; }
  Case& same_dtype_ref() { ref_f64 = false; return *this; }
  Case& with_compare(Compare c) { compare = c; return *this; }
  Case& with_layouts(std::vector<Layout> l) { layouts = std::move(l); return *this; }
  Case& perf(std::vector<Shape> s) { perf_shapes = std::move(s); return *this; }
  Case& with_flops(std::function<double(const std::vector<Shape>&)> f) { flops = std::move(f); return *this; }
  Case& with_env(std::string name, std::string value, DeviceType device) {
    env.push_back({std::move(name), std::move(value), device});
    return *this;
  }
};

/// A case with the view layouts on by default.
Case make_case(std::string op, std::string variant, std::vector<Input> inputs, CaseFn fn, Dtypes dtypes);

/// Named input shapes for one variant of a family ("main", "broadcast", "empty", "0d" ...).
struct ShapeSet {
  std::string name;
  std::vector<Shape> shapes;
};
/// One case per shape set from `proto` (whose input shapes are replaced): the first set keeps
/// proto's dtypes and layouts, the others (edge shapes) run with dtypes[0], contiguous only.
void add_family(std::vector<Case>& out, const Case& proto, const std::vector<ShapeSet>& sets);

/// Elementwise families shared by the case files: unary x -> f(x) and binary (x, y) -> f(x, y)
/// on the standard shape sets (main, 3-d, zero-size, 0-d; binary also broadcast and scalar-like).
using UnaryFn = std::function<Tensor(const Tensor&)>;
using BinaryFn = std::function<Tensor(const Tensor&, const Tensor&)>;
Case unary_proto(std::string op, std::string variant, UnaryFn f, Dtypes d, Gen g = Gen::Normal);
Case binary_proto(std::string op, std::string variant, BinaryFn f, Dtypes d, Gen a = Gen::Normal, Gen b = Gen::Normal);
const std::vector<ShapeSet>& unary_shapes();
const std::vector<ShapeSet>& binary_shapes();

/// The case files: each appends its family's cases.
void add_pointwise_cases(std::vector<Case>& out);
void add_reduce_cases(std::vector<Case>& out);
void add_linalg_cases(std::vector<Case>& out);
void add_shape_cases(std::vector<Case>& out);
void add_index_cases(std::vector<Case>& out);
void add_creation_cases(std::vector<Case>& out);
void add_nn_cases(std::vector<Case>& out);
void add_optim_cases(std::vector<Case>& out);

/// All cases, in table order (op names as the coverage table lists them).
std::vector<Case> all_cases();

}  // namespace adept::backend_ops
