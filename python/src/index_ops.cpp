// Ops of include/adept/ops/index.h (gather/scatter, index_*, masks, nonzero, unique, sort/topk,
// one_hot) and the copying shape ops roll/repeat/tile/meshgrid/tril/triu.
#include "common.h"

namespace adept::python {

namespace {

std::vector<Tensor> index_list(const py::handle& indices) {
  std::vector<Tensor> out;
  for (const py::handle& h : indices) out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  return out;
}

void bind_gather_scatter(py::module_& m, TensorClass& cls) {
  def_both(m, cls, "gather", &gather, py::arg("dim"), py::arg("index"));
  def_both(m, cls, "scatter", [](const Tensor& x, int64_t dim, const Tensor& index, const Operand& src) {
    if (auto* t = std::get_if<Tensor>(&src)) return scatter(x, dim, index, *t);
    return scatter(x, dim, index, std::get<Scalar>(src));
  }, py::arg("dim"), py::arg("index"), py::arg("src"));
  def_both(m, cls, "scatter_add", &scatter_add, py::arg("dim"), py::arg("index"), py::arg("src"));
  cls.def("scatter_", [](py::object self, int64_t dim, const Tensor& index, const Operand& src) {
    Tensor& t = self.cast<Tensor&>();
    if (auto* s = std::get_if<Tensor>(&src)) scatter_(t, dim, index, *s);
    else t.copy_(scatter(t, dim, index, std::get<Scalar>(src)));
    return self;
  }, py::arg("dim"), py::arg("index"), py::arg("src"));
  cls.def("scatter_add_", [](py::object self, int64_t dim, const Tensor& index, const Tensor& src) {
    scatter_add_(self.cast<Tensor&>(), dim, index, src);
    return self;
  }, py::arg("dim"), py::arg("index"), py::arg("src"));
  def_both(m, cls, "index_select", &index_select, py::arg("dim"), py::arg("index"));
  def_both(m, cls, "index_add", &index_add, py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(),
           py::arg("alpha") = 1);
  cls.def("index_add_", [](py::object self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
    index_add_(self.cast<Tensor&>(), dim, index, source, alpha);
    return self;
  }, py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1);
}

void bind_masks_and_sorting(py::module_& m, TensorClass& cls) {
  def_both(m, cls, "index_put", [](const Tensor& x, const py::tuple& indices, const Tensor& values, bool acc) {
    return index_put(x, index_list(indices), values, acc);
  }, py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
  cls.def("index_put_", [](py::object self, const py::tuple& indices, const Tensor& values, bool acc) {
    index_put_(self.cast<Tensor&>(), index_list(indices), values, acc);
    return self;
  }, py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
  def_both(m, cls, "masked_select", &masked_select, py::arg("mask"));
  def_both(m, cls, "nonzero", [](const Tensor& x, bool as_tuple) -> py::object {
    Tensor nz = nonzero(x);
    if (!as_tuple) return py::cast(nz);
    return py::tuple(py::cast(x.dim() == 0 ? std::vector<Tensor>{nz.flatten()} : nz.unbind(1)));
  }, py::kw_only(), py::arg("as_tuple") = false);
  m.def("where", [](const Tensor& c) { return py::tuple(py::cast(nonzero(c).unbind(1))); }, py::arg("condition"));
  def_both(m, cls, "unique", [](const Tensor& x, bool sorted, bool inv, bool counts, std::optional<int64_t> dim) -> py::object {
    auto [values, inverse, cnt] = unique(x, sorted, inv, counts, dim);
    if (!inv && !counts) return py::cast(values);
    py::list out;
    out.append(values);
    if (inv) out.append(inverse);
    if (counts) out.append(cnt);
    return py::tuple(out);
  }, py::arg("sorted") = true, py::arg("return_inverse") = false, py::arg("return_counts") = false,
     py::arg("dim") = py::none());
  def_both(m, cls, "sort", [](const Tensor& x, int64_t dim, bool descending, bool stable) {
    return values_indices("sort", sort(x, dim, descending, stable));
  }, py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
  def_both(m, cls, "argsort", &argsort, py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(),
           py::arg("stable") = false);
  def_both(m, cls, "topk", [](const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
    return values_indices("topk", topk(x, k, dim, largest, sorted));
  }, py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted") = true);
  m.def("one_hot", &one_hot, py::arg("tensor"), py::arg("num_classes") = -1,
        "(..., num_classes) int64 one-hot encoding (torch.nn.functional.one_hot).");
}

void bind_shape_copies(py::module_& m, TensorClass& cls) {
  def_both(m, cls, "roll", [](const Tensor& x, const py::object& shifts, const py::object& dims) {
    return roll(x, dims_arg(shifts), dims_arg(dims));
  }, py::arg("shifts"), py::arg("dims") = py::none());
  cls.def("repeat", [](const Tensor& x, const py::args& sizes) { return repeat(x, sizes_arg(sizes, py::none(), "repeat")); });
  def_both(m, cls, "tile", [](const Tensor& x, const Shape& dims) { return tile(x, dims); }, py::arg("dims"));
  def_both(m, cls, "tril", &tril, py::arg("diagonal") = 0);
  def_both(m, cls, "triu", &triu, py::arg("diagonal") = 0);
  m.def("meshgrid", [](const py::args& tensors, const std::string& indexing) {
    std::vector<Tensor> ts = tensors.size() == 1 && !py::isinstance<Tensor>(tensors[0])
                                 ? tensors[0].cast<std::vector<Tensor>>()
                                 : tensors.cast<std::vector<Tensor>>();
    return py::tuple(py::cast(meshgrid(ts, indexing)));
  }, py::arg("indexing") = "ij");
}

}  // namespace

void init_index_ops(py::module_& m, TensorClass& cls) {
  bind_gather_scatter(m, cls);
  bind_masks_and_sorting(m, cls);
  bind_shape_copies(m, cls);
}

}  // namespace adept::python
