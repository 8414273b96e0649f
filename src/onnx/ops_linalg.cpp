// ONNX Gemm, MatMul, MatMulInteger and Einsum (https://onnx.ai/onnx/operators/onnx__Gemm.html,
// onnx__MatMul.html, onnx__Einsum.html).
#include <algorithm>
#include <cctype>
#include <map>

#include "adept/ops/linalg.h"
#include "adept/ops/pointwise.h"
#include "adept/ops/reduce.h"
#include "adept/ops/shape.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

// Y = alpha * A' B' + beta * C, A' = transA ? A^T : A (2-d), C broadcasting to (M, N).
Out gemm_op(const OpContext& c) {
  Tensor a = c.input(0), b = c.input(1);
  if (c.attr_int("transA", 0)) a = a.t();
  if (c.attr_int("transB", 0)) b = b.t();
  Tensor y = matmul(a, b);
  double alpha = c.attr_float("alpha", 1.0f), beta = c.attr_float("beta", 1.0f);
  if (alpha != 1.0) y = mul(y, alpha);
  if (c.has_input(2) && beta != 0.0) y = add(y, beta == 1.0 ? c.input(2) : mul(c.input(2), beta));
  return {y};
}

Out matmul_op(const OpContext& c) { return {matmul(c.input(0), c.input(1))}; }

// x - zero_point in float64; a zero point per row of A (axis -2) or per column of B (axis -1).
Tensor centered(const OpContext& c, size_t input, size_t zero_point, int64_t axis) {
  Tensor v = c.input(input).to(kFloat64);
  if (!c.has_input(zero_point)) return v;
  Tensor zp = c.input(zero_point).to(kFloat64);
  if (zp.numel() > 1 && axis == -2) zp = zp.unsqueeze(-1);
  return sub(v, zp);
}

// MatMulInteger: (A - a_zero_point) @ (B - b_zero_point) in int32, computed exactly in float64.
Out matmul_integer_op(const OpContext& c) {
  return {matmul(centered(c, 0, 2, -2), centered(c, 1, 3, -1)).to(kInt32)};
}

// ---- Einsum: operands labelled per dim; pairs contracted left to right as one batched matmul each ----

// A tensor with one label per dim (letters as their char code, ellipsis dims as 1000 + position from the
// right, so that ellipses of different ranks broadcast as numpy does).
struct Labelled {
  Tensor t;
  std::vector<int> labels;
};

bool has(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::vector<int> parse_term(const std::string& term, int64_t rank) {
  std::vector<int> labels;
  size_t dots = term.find("...");
  int64_t letters = static_cast<int64_t>(term.size()) - (dots == std::string::npos ? 0 : 3);
  ADEPT_CHECK(dots != std::string::npos ? letters <= rank : letters == rank, ValueError,
              "Einsum: term '{}' does not match an operand of rank {}", term, rank);
  for (size_t i = 0; i < term.size(); ++i) {
    if (i == dots) {
      for (int64_t j = rank - letters; j > 0; --j) labels.push_back(1000 + static_cast<int>(j));
      i += 2;
      continue;
    }
    ADEPT_CHECK(std::isalpha(static_cast<unsigned char>(term[i])), ValueError,
                "Einsum: label '{}' in term '{}' is not a letter (labels are a-z, A-Z, or one '...')", term[i], term);
    labels.push_back(term[i]);
  }
  return labels;
}

// Sums `a` over its labels not in `keep`.
Labelled sum_out(Labelled a, const std::vector<int>& keep) {
  Shape dims;
  std::vector<int> labels;
  for (size_t i = 0; i < a.labels.size(); ++i) {
    if (has(keep, a.labels[i])) labels.push_back(a.labels[i]);
    else dims.push_back(static_cast<int64_t>(i));
  }
  if (!dims.empty()) a.t = sum(a.t, dims);
  a.labels = labels;
  return a;
}

// a and b contracted over their shared labels not in `keep`: one (batch, left, k) x (batch, k, right) matmul.
Labelled contract(Labelled a, Labelled b, const std::vector<int>& keep) {
  std::vector<int> keep_a = keep, keep_b = keep;
  keep_a.insert(keep_a.end(), b.labels.begin(), b.labels.end());
  keep_b.insert(keep_b.end(), a.labels.begin(), a.labels.end());
  a = sum_out(a, keep_a);
  b = sum_out(b, keep_b);
  std::vector<int> batch, left, inner, right;
  for (int l : a.labels) (has(b.labels, l) ? (has(keep, l) ? batch : inner) : left).push_back(l);
  for (int l : b.labels)
    if (!has(a.labels, l)) right.push_back(l);
  auto size_of = [](const Labelled& x, int l) {
    auto it = std::find(x.labels.begin(), x.labels.end(), l);
    return it == x.labels.end() ? int64_t{1} : x.t.size(it - x.labels.begin());
  };
  // Arrange x as `order` (labels it lacks become broadcast dims of size 1), then expand shared dims.
  auto arrange = [&](const Labelled& x, const std::vector<int>& order, const Labelled& other) {
    Shape perm, shape, expanded;
    for (int l : order)
      if (has(x.labels, l)) perm.push_back(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin());
    Tensor t = permute(x.t, perm);
    for (int l : order) {
      shape.push_back(size_of(x, l));
      expanded.push_back(has(other.labels, l) ? std::max(size_of(x, l), size_of(other, l)) : size_of(x, l));
    }
    return expand(t.reshape(shape), expanded);
  };
  auto product = [&](const std::vector<int>& ls) {
    int64_t p = 1;
    for (int l : ls) p *= std::max(size_of(a, l), size_of(b, l));
    return p;
  };
  std::vector<int> order_a = batch, order_b = batch;
  order_a.insert(order_a.end(), left.begin(), left.end());
  order_a.insert(order_a.end(), inner.begin(), inner.end());
  order_b.insert(order_b.end(), inner.begin(), inner.end());
  order_b.insert(order_b.end(), right.begin(), right.end());
  int64_t nb = product(batch), nl = product(left), nk = product(inner), nr = product(right);
  Tensor y = matmul(arrange(a, order_a, b).reshape({nb, nl, nk}), arrange(b, order_b, a).reshape({nb, nk, nr}));
  Labelled out;
  out.labels = batch;
  out.labels.insert(out.labels.end(), left.begin(), left.end());
  out.labels.insert(out.labels.end(), right.begin(), right.end());
  Shape shape;
  for (int l : out.labels) shape.push_back(std::max(size_of(a, l), size_of(b, l)));
  out.t = y.reshape(shape);
  return out;
}

// The equation without spaces.
std::string einsum_equation(const OpContext& c) {
  std::string eq;
  for (char ch : c.attr_string("equation", "")) if (ch != ' ') eq += ch;
  return eq;
}

// Load-time check: no label repeated within one operand's term (a diagonal, as in "ii->i"; not implemented).
std::optional<std::string> einsum_check(const OpContext& c) {
  std::string eq = einsum_equation(c);
  std::string lhs = eq.substr(0, eq.find("->"));
  for (size_t start = 0; start <= lhs.size();) {
    size_t comma = std::min(lhs.find(',', start), lhs.size());
    std::string term = lhs.substr(start, comma - start);
    std::sort(term.begin(), term.end());
    auto twice = std::adjacent_find(term.begin(), term.end(), [](char a, char b) { return a == b && a != '.'; });
    if (twice != term.end())
      return fmt::format("equation '{}' repeats label '{}' within one operand (a diagonal)", eq, *twice);
    start = comma + 1;
  }
  return std::nullopt;
}

Out einsum_op(const OpContext& c) {
  std::string eq = einsum_equation(c);
  std::vector<Tensor> xs = c.inputs();
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<Labelled> ops;
  size_t start = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    size_t comma = lhs.find(',', start);
    ADEPT_CHECK((comma == std::string::npos) == (i + 1 == xs.size()), ValueError,
                "Einsum: equation '{}' must have one input term per operand ({} operands)", eq, xs.size());
    ops.push_back({xs[i], parse_term(lhs.substr(start, comma - start), xs[i].dim())});
    start = comma + 1;
  }
  std::vector<int> output;
  if (arrow != std::string::npos) {
    int64_t ellipsis = 0;
    for (const auto& o : ops)
      for (int l : o.labels) ellipsis = std::max<int64_t>(ellipsis, l >= 1000 ? l - 1000 : 0);
    std::string rhs = eq.substr(arrow + 2);
    output = parse_term(rhs, static_cast<int64_t>(rhs.size()) - (rhs.find("...") == std::string::npos ? 0 : 3) +
                                 (rhs.find("...") == std::string::npos ? 0 : ellipsis));
  } else {  // implicit output: ellipsis dims, then the labels used once, alphabetically
    std::map<int, int> count;
    for (const auto& o : ops)
      for (int l : o.labels) ++count[l];
    for (auto it = count.rbegin(); it != count.rend(); ++it)
      if (it->first >= 1000) output.push_back(it->first);
    for (const auto& [l, n] : count)
      if (l < 1000 && n == 1) output.push_back(l);
  }
  Labelled acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    std::vector<int> keep = output;
    for (size_t j = i + 1; j < ops.size(); ++j) keep.insert(keep.end(), ops[j].labels.begin(), ops[j].labels.end());
    acc = contract(acc, ops[i], keep);
  }
  acc = sum_out(acc, output);
  Shape perm;
  for (int l : output) {
    auto it = std::find(acc.labels.begin(), acc.labels.end(), l);
    ADEPT_CHECK(it != acc.labels.end(), ValueError, "Einsum: output label '{}' of '{}' appears in no input term",
                l < 1000 ? std::string(1, static_cast<char>(l)) : std::string("..."), eq);
    perm.push_back(it - acc.labels.begin());
  }
  return {perm.empty() ? acc.t : permute(acc.t, perm)};
}

}  // namespace

void register_linalg_ops(OpRegistry& r) {
  r.add("Gemm", 7, {gemm_op});
  r.add("MatMul", 1, {matmul_op});
  r.add("Einsum", 12, {einsum_op, einsum_check});
  r.add("MatMulInteger", 10, {matmul_integer_op, nullptr, {{2, InputRole::Config}, {3, InputRole::Config}}});
}

}  // namespace adept::onnx::detail
