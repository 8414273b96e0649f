// PyTorch-style printing of tensors: Tensor::str() and operator<<. Reproduces torch 1.13's
// `repr(tensor)` (torch/_tensor_str.py) with its default print options, so strings compare equal.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "adept/autograd.h"
#include "adept/ops.h"

namespace adept {
namespace {

// torch's default print options (torch.set_printoptions): precision, threshold, edgeitems, linewidth.
constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kLineWidth = 80;

// Python's '{:.Nf}' and '{:.4e}' (glibc rounds exactly, ties to even, as CPython does; NaN has no sign).
std::string nonfinite(double v) { return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }
std::string fixed(double v, int precision) {
  if (!std::isfinite(v)) return nonfinite(v);
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%.*f", precision, v);
  return buf;
}
std::string sci(double v) {
  if (!std::isfinite(v)) return nonfinite(v);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*e", kPrecision, v);
  return buf;
}

/// Reads elements of a CPU tensor at element offsets (relative to element 0) as double or int64.
class Reader {
 public:
  explicit Reader(const Tensor& t) : base_(static_cast<const char*>(t.data_ptr())), dtype_(t.dtype()) {}
  double real(int64_t off) const {
    double v = 0;
    ADEPT_DISPATCH_ALL(dtype_, "print", [&] {
      v = static_cast<double>(static_cast<compute_t<scalar_t>>(reinterpret_cast<const scalar_t*>(base_)[off]));
    });
    return v;
  }
  int64_t integer(int64_t off) const {
    int64_t v = 0;
    ADEPT_DISPATCH_ALL(dtype_, "print", [&] {
      if constexpr (std::is_integral_v<scalar_t>) v = static_cast<int64_t>(reinterpret_cast<const scalar_t*>(base_)[off]);
    });
    return v;
  }

 private:
  const char* base_;
  Dtype dtype_;
};

/// Per-dim indices shown: all, or the first and last kEdgeItems when summarizing.
std::vector<int64_t> shown_indices(int64_t n, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && n > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
  } else {
    for (int64_t i = 0; i < n; ++i) idx.push_back(i);
  }
  return idx;
}

/// Chooses one width and notation for all shown elements (torch's _Formatter).
class Formatter {
 public:
  Formatter(const Tensor& t, const Reader& r, const std::vector<int64_t>& offsets)
      : floating_(t.is_floating_point()), is_bool_(t.dtype() == kBool), reader_(r) {
    if (!floating_) {
      for (int64_t off : offsets) width_ = std::max<int64_t>(width_, format_raw(off).size());
      return;
    }
    std::vector<double> vals;
    for (int64_t off : offsets) {
      double v = r.real(off);
      if (std::isfinite(v) && v != 0) vals.push_back(v);
    }
    if (vals.empty()) return;
    double mn = INFINITY, mx = 0;
    for (double v : vals) {
      mn = std::min(mn, std::fabs(v));
      mx = std::max(mx, std::fabs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    if (int_mode_) {
      sci_mode_ = mx / mn > 1000. || mx > 1.e8;
    } else {
      sci_mode_ = mx / mn > 1000. || mx > 1.e8 || mn < 1.e-4;
    }
    for (double v : vals) {
      int64_t w = sci_mode_ ? sci(v).size()
                  : int_mode_ ? fixed(v, 0).size() + 1
                              : fixed(v, kPrecision).size();
      width_ = std::max(width_, w);
    }
  }
  int64_t width() const { return width_; }

  /// The element at `off`, left-padded to the common width.
  std::string format(int64_t off) const {
    std::string s = format_raw(off);
    if (static_cast<int64_t>(s.size()) < width_) s.insert(0, width_ - s.size(), ' ');
    return s;
  }

 private:
  std::string format_raw(int64_t off) const {
    if (is_bool_) return reader_.integer(off) ? "True" : "False";
    if (!floating_) return std::to_string(reader_.integer(off));
    double v = reader_.real(off);
    if (sci_mode_) return sci(v);
    if (int_mode_) return std::isfinite(v) ? fixed(v, 0) + "." : fixed(v, 0);
    return fixed(v, kPrecision);
  }

  bool floating_, is_bool_;
  const Reader& reader_;
  bool int_mode_ = true, sci_mode_ = false;
  int64_t width_ = 1;
};

/// Renders sub-tensors recursively (torch's _tensor_str_with_formatter).
class Printer {
 public:
  Printer(const Tensor& t, bool summarize)
      : sizes_(t.sizes()), strides_(t.strides()), summarize_(summarize), reader_(t),
        formatter_(t, reader_, collect_offsets()) {}

  std::string render(int64_t dim, int64_t offset, int64_t indent) const {
    const int64_t nd = static_cast<int64_t>(sizes_.size());
    if (nd == 0) return formatter_.format(offset);
    if (dim == nd - 1) return vector(offset, indent);
    const int64_t n = sizes_[dim];
    std::vector<std::string> slices;
    for (int64_t i : shown_indices(n, summarize_)) {
      if (summarize_ && n > 2 * kEdgeItems && i == n - kEdgeItems) slices.push_back("...");
      slices.push_back(render(dim + 1, offset + i * strides_[dim], indent + 1));
    }
    std::string sep(1, ',');
    sep.append(nd - dim - 1, '\n').append(indent + 1, ' ');
    return bracket(join(slices, sep));
  }

 private:
  std::vector<int64_t> collect_offsets() const {
    std::vector<int64_t> out;
    collect(0, 0, out);
    return out;
  }
  void collect(size_t dim, int64_t offset, std::vector<int64_t>& out) const {
    if (dim == sizes_.size()) { out.push_back(offset); return; }
    for (int64_t i : shown_indices(sizes_[dim], summarize_)) collect(dim + 1, offset + i * strides_[dim], out);
  }

  std::string vector(int64_t offset, int64_t indent) const {
    const int64_t n = sizes_.back(), stride = strides_.back();
    const int64_t per_line = std::max<int64_t>(1, (kLineWidth - indent) / (formatter_.width() + 2));
    std::vector<std::string> items;
    for (int64_t i : shown_indices(n, summarize_)) {
      if (summarize_ && n > 2 * kEdgeItems && i == n - kEdgeItems) items.push_back(" ...");
      items.push_back(formatter_.format(offset + i * stride));
    }
    std::vector<std::string> lines;
    for (size_t i = 0; i < items.size(); i += per_line) {
      std::vector<std::string> line(items.begin() + i, items.begin() + std::min(items.size(), i + per_line));
      lines.push_back(join(line, ", "));
    }
    std::string sep(",\n");
    sep.append(indent + 1, ' ');
    return bracket(join(lines, sep));
  }

  static std::string bracket(std::string s) {
    s.insert(s.begin(), '[');
    s.push_back(']');
    return s;
  }
  static std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string s;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) s += sep;
      s += parts[i];
    }
    return s;
  }

  Shape sizes_, strides_;
  bool summarize_;
  Reader reader_;
  Formatter formatter_;
};

std::string tuple_str(const Shape& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ", ";
    r += std::to_string(s[i]);
  }
  return r + (s.size() == 1 ? ",)" : ")");
}

/// Appends ", suffix" items, wrapping to a new line past the line width (torch's _add_suffixes).
std::string add_suffixes(const std::string& body, const std::vector<std::string>& suffixes, int64_t indent) {
  std::string out = body;
  size_t nl = body.rfind('\n');
  int64_t last_line_len = static_cast<int64_t>(body.size()) - (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const std::string& s : suffixes) {
    const int64_t len = static_cast<int64_t>(s.size());
    if (last_line_len + len + 2 > kLineWidth) {
      out.append(",\n").append(indent, ' ').append(s);
      last_line_len = indent + len;
    } else {
      out += ", " + s;
      last_line_len += len + 2;
    }
  }
  return out + ")";
}

}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  if (!device().is_cpu()) suffixes.push_back("device='" + device().str() + "'");

  const std::string dtype_suffix = std::string("dtype=torch.") + dtype_name(dtype());
  std::string body;
  if (numel() == 0) {
    if (dim() != 1) suffixes.push_back("size=" + tuple_str(sizes()));
    if (dtype() != default_float_dtype()) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    const Dtype d = dtype();
    if (d != default_float_dtype() && d != kInt64 && d != kBool) suffixes.push_back(dtype_suffix);
    NoGradGuard no_grad;
    Tensor host = detach().cpu();
    if (d == kFloat16 || d == kBFloat16) host = host.to(kFloat32);
    Printer printer(host, numel() > kThreshold);
    body = printer.render(0, 0, indent);
  }
  if (auto fn = grad_fn()) {
    suffixes.push_back("grad_fn=<" + autograd::node_name(*fn) + ">");
  } else if (requires_grad()) {
    suffixes.push_back("requires_grad=True");
  }
  return add_suffixes(prefix + body, suffixes, indent);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

}  // namespace adept
