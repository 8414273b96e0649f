// Python indexing: x[idx] and x[idx] = v. Basic indices (ints, slices with step, None, Ellipsis)
// become views through select/slice/unsqueeze; boolean masks and integer tensors/lists use
// Tensor::index / Tensor::index_put_ (advanced indexing, which copies).
#include "common.h"

namespace adept::python {

namespace {

/// The components of a Python index, and whether any is advanced.
struct ParsedIndex {
  std::vector<TensorIndex> items;
  bool advanced = false;
};

std::optional<int64_t> slice_part(const py::handle& slice, const char* attr) {
  py::object v = slice.attr(attr);
  if (v.is_none()) return std::nullopt;
  return v.attr("__index__")().cast<int64_t>();
}

TensorIndex parse_one(const py::handle& h, ParsedIndex& out) {
  if (h.is_none()) return None;
  if (h.ptr() == Py_Ellipsis) return Ellipsis;
  if (PyBool_Check(h.ptr())) { out.advanced = true; return TensorIndex(h.cast<bool>()); }
  if (PySlice_Check(h.ptr())) {
    std::optional<int64_t> step = slice_part(h, "step");
    if (step && *step <= 0) throw adept::ValueError("step must be greater than zero");
    return Slice(slice_part(h, "start"), slice_part(h, "stop"), step.value_or(1));
  }
  if (py::isinstance<Tensor>(h)) { out.advanced = true; return TensorIndex(h.cast<Tensor>()); }
  if (PyLong_Check(h.ptr())) return TensorIndex(h.cast<int64_t>());
  if (py::isinstance<py::list>(h) || is_ndarray(h)) {
    out.advanced = true;
    return TensorIndex(tensor_from_data(h, std::nullopt, std::nullopt, false));
  }
  if (py::hasattr(h, "__index__")) return TensorIndex(h.attr("__index__")().cast<int64_t>());
  throw py::type_error(std::string("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                                   "Variables are valid indices (got ") + Py_TYPE(h.ptr())->tp_name + ")");
}

ParsedIndex parse(const py::handle& index) {
  ParsedIndex out;
  if (py::isinstance<py::tuple>(index)) {
    for (const py::handle& h : index) out.items.push_back(parse_one(h, out));
  } else {
    out.items.push_back(parse_one(index, out));
  }
  return out;
}

/// Applies basic indices as views.
Tensor basic_index(const Tensor& self, const std::vector<TensorIndex>& items) {
  int64_t consumed = 0;
  bool seen_ellipsis = false;
  for (const TensorIndex& it : items) {
    if (it.kind() == TensorIndex::Kind::Integer || it.kind() == TensorIndex::Kind::Slice) ++consumed;
    if (it.kind() == TensorIndex::Kind::Ellipsis) {
      if (seen_ellipsis) throw adept::IndexError("an index can only have a single ellipsis ('...')");
      seen_ellipsis = true;
    }
  }
  ADEPT_CHECK(consumed <= self.dim(), IndexError, "too many indices for tensor of dimension {}", self.dim());
  Tensor r = expand(self, self.sizes());  // an alias view, so x[...] never returns x itself
  int64_t dim = 0;
  for (const TensorIndex& it : items) {
    switch (it.kind()) {
      case TensorIndex::Kind::None: r = unsqueeze(r, dim++); break;
      case TensorIndex::Kind::Ellipsis: dim += self.dim() - consumed; break;
      case TensorIndex::Kind::Integer: r = select(r, dim, it.integer()); break;
      case TensorIndex::Kind::Slice: {
        const Slice& s = it.slice();
        r = slice(r, dim++, s.start, s.stop, s.step.value_or(1));
        break;
      }
      default: throw adept::Error("basic_index: unexpected advanced index");
    }
  }
  return r;
}

Tensor getitem(const Tensor& self, const py::handle& index) {
  ParsedIndex p = parse(index);
  return p.advanced ? self.index(p.items) : basic_index(self, p.items);
}

void setitem(Tensor& self, const py::handle& index, const py::handle& value) {
  ParsedIndex p = parse(index);
  py::detail::make_caster<Scalar> sc;
  const bool is_scalar = !py::isinstance<Tensor>(value) && sc.load(value, true);
  if (p.advanced) {
    if (is_scalar) self.index_put_(p.items, py::detail::cast_op<Scalar>(sc));
    else self.index_put_(p.items, py::isinstance<Tensor>(value) ? value.cast<Tensor>()
                                                                : tensor_from_data(value, self.dtype(), self.device(), false));
    return;
  }
  Tensor view = basic_index(self, p.items);
  if (is_scalar) view.fill_(py::detail::cast_op<Scalar>(sc));
  else view.copy_(py::isinstance<Tensor>(value) ? value.cast<Tensor>() : tensor_from_data(value, self.dtype(), self.device(), false));
}

}  // namespace

void init_indexing(TensorClass& cls) {
  cls.def("__getitem__", &getitem, py::arg("index"));
  cls.def("__setitem__", &setitem, py::arg("index"), py::arg("value"));
}

}  // namespace adept::python
