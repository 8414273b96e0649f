// Ops of include/adept/ops/{pointwise,reduce,linalg,shape}.h as module functions and Tensor
// methods with torch's argument names, plus the arithmetic/comparison/bitwise operators.
#include "common.h"

namespace adept::python {

namespace {

/// Runs `op` on the tensor behind `self`, returning `self` (in-place methods return the same object).
template <class F>
py::object inplace(py::object self, F&& op) {
  op(self.cast<Tensor&>());
  return self;
}

/// Writes `result` into `self` for in-place forms without a C++ kernel (//=, %=, &= ...); like
/// PyTorch, the result dtype may not be of a higher category (bool < integer < floating) than self's.
void assign_result(Tensor& self, const Tensor& result, const char* op) {
  auto rank = [](Dtype d) { return d == kBool ? 0 : is_floating_point(d) ? 2 : 1; };
  ADEPT_CHECK(rank(result.dtype()) <= rank(self.dtype()), DtypeError,
              "{}: result type {} can't be cast to the desired output type {}", op, dtype_name(result.dtype()),
              dtype_name(self.dtype()));
  ADEPT_CHECK(result.sizes() == self.sizes(), ShapeError,
              "{}: output with shape {} doesn't match the broadcast shape {}", op, fmt::join(self.sizes(), ", "),
              fmt::join(result.sizes(), ", "));
  self.copy_(result);
}

template <class F>
Tensor visit_operand(const Operand& o, F&& f) {
  return std::visit([&](const auto& v) { return f(v); }, o);
}

using UnaryFn = Tensor (*)(const Tensor&);
using InplaceUnaryFn = Tensor& (*)(Tensor&);
using TensorBinaryFn = Tensor (*)(const Tensor&, const Tensor&);

/// The docstring the op table gives the op `name` (its first row of that name).
const char* table_doc(const std::string& name) {
  static const std::pair<const char*, const char*> docs[] = {
#define ADEPT_UNARY_OP(E, NAME, DTYPES, GRAD, BIND, SCOPE, DOC) {#NAME, DOC},
#define ADEPT_BINARY_OP(E, NAME, DTYPES, GRAD, BIND, DOC) {#NAME, DOC},
#define ADEPT_REDUCE_OP(E, NAME, DTYPES, GRAD, DOC) {#NAME, DOC},
#include "kernels/op_table.def"
  };
  for (const auto& [n, doc] : docs) {
    if (name == n) return doc;
  }
  throw std::logic_error("table_doc: '" + name + "' has no docstring in the op table");
}

void bind_pointwise(py::module_& m, TensorClass& cls) {
  // The pointwise family from the op table (src/kernels/op_table.def): every row's name and
  // docstring; rows bound `Plain` (input), `Compare` (other: tensor or number) and `Bitwise` (other:
  // tensor or integer) are bound here from the table, `Custom` ones by hand below. Aliases bind the
  // same function under another name.
  using CmpT = Tensor (*)(const Tensor&, const Tensor&);
  using CmpS = Tensor (*)(const Tensor&, const Scalar&);
#define Custom(NAME, DOC)
  {
    struct Row { const char* name; UnaryFn fn; const char* doc; };
    const Row rows[] = {
#define Plain(NAME, DOC) {#NAME, static_cast<UnaryFn>(&adept::NAME), DOC},
#define Param(ARG, DEFAULT) ParamSkip
#define ParamSkip(NAME, DOC)
#define ADEPT_UNARY_OP(E, NAME, DTYPES, GRAD, BIND, SCOPE, DOC) BIND(NAME, DOC)
#include "kernels/op_table.def"
#undef Plain
#undef Param
#undef ParamSkip
    };
    for (const Row& row : rows) {
      UnaryFn fn = row.fn;
      def_both(m, cls, row.name, [fn](const Tensor& x) { return fn(x); }, row.doc);
    }
  }
  {
    // Param(arg, default) rows: Param expands to the start of a row that ParamRow completes.
    using ParamFn = Tensor (*)(const Tensor&, double);
    struct Row { const char* arg; double default_value; const char* name; ParamFn fn; const char* doc; };
    const Row rows[] = {
#define Plain(NAME, DOC)
#define Param(ARG, DEFAULT) {#ARG, DEFAULT, ParamRow
#define ParamRow(NAME, DOC) #NAME, static_cast<ParamFn>(&adept::NAME), DOC},
#define ADEPT_UNARY_OP(E, NAME, DTYPES, GRAD, BIND, SCOPE, DOC) BIND(NAME, DOC)
#include "kernels/op_table.def"
#undef Plain
#undef Param
#undef ParamRow
    };
    for (const Row& row : rows) {
      ParamFn fn = row.fn;
      def_both(m, cls, row.name, [fn](const Tensor& x, double v) { return fn(x, v); },
               py::arg(row.arg) = row.default_value, row.doc);
    }
  }
  // The names torch also has in torch.nn.functional (python/adept/nn/functional.py re-exports them).
  py::list functional_ops;
#define Functional(NAME) functional_ops.append(#NAME);
#define Torch(NAME)
#define ADEPT_UNARY_OP(E, NAME, DTYPES, GRAD, BIND, SCOPE, DOC) SCOPE(NAME)
#include "kernels/op_table.def"
#undef Functional
#undef Torch
  m.attr("_functional_ops") = py::tuple(functional_ops);
  {
    enum class Other { Tensor, Integer, TensorOrNumber };
    struct Row { const char* name; TensorBinaryFn fn; CmpS scalar_fn; Other other; const char* doc; };
    const Row rows[] = {
#define Plain(NAME, DOC) {#NAME, static_cast<TensorBinaryFn>(&adept::NAME), nullptr, Other::Tensor, DOC},
#define Bitwise(NAME, DOC) {#NAME, static_cast<TensorBinaryFn>(&adept::NAME), nullptr, Other::Integer, DOC},
#define Compare(NAME, DOC) \
  {#NAME, static_cast<CmpT>(&adept::NAME), static_cast<CmpS>(&adept::NAME), Other::TensorOrNumber, DOC},
#define ADEPT_BINARY_OP(E, NAME, DTYPES, GRAD, BIND, DOC) BIND(NAME, DOC)
#include "kernels/op_table.def"
#undef Plain
#undef Bitwise
#undef Compare
    };
    for (const Row& row : rows) {
      TensorBinaryFn fn = row.fn;
      CmpS sfn = row.scalar_fn;
      if (row.other == Other::TensorOrNumber) {
        def_both(m, cls, row.name, [fn, sfn](const Tensor& a, const Operand& b) {
          if (auto* t = std::get_if<Tensor>(&b)) return fn(a, *t);
          return sfn(a, std::get<Scalar>(b));
        }, py::arg("other"), row.doc);
      } else if (row.other == Other::Integer) {  // bitwise ops take an integer too, as torch
        def_both(m, cls, row.name, [fn](const Tensor& a, const Operand& b) { return fn(a, wrap_operand(a, b)); },
                 py::arg("other"), row.doc);
      } else {
        def_both(m, cls, row.name, [fn](const Tensor& a, const Tensor& b) { return fn(a, b); }, py::arg("other"),
                 row.doc);
      }
    }
  }
#undef Custom
  const std::pair<const char*, InplaceUnaryFn> unary_[] = {
      {"neg_", &neg_}, {"exp_", &exp_}, {"sqrt_", &sqrt_}, {"relu_", &relu_}, {"sigmoid_", &sigmoid_}};
  for (const auto& [name, f] : unary_) {
    InplaceUnaryFn fn = f;
    cls.def(name, [fn](py::object self) { return inplace(self, [&](Tensor& t) { fn(t); }); });
  }

  // Arithmetic with torch's keywords.
  auto add_fn = [](const Tensor& a, const Operand& b, const Scalar& alpha) {
    return visit_operand(b, [&](const auto& v) { return add(a, v, alpha); });
  };
  auto sub_fn = [](const Tensor& a, const Operand& b, const Scalar& alpha) {
    return visit_operand(b, [&](const auto& v) { return sub(a, v, alpha); });
  };
  def_both(m, cls, "add", add_fn, py::arg("other"), py::kw_only(), py::arg("alpha") = 1, table_doc("add"));
  def_both(m, cls, "sub", sub_fn, py::arg("other"), py::kw_only(), py::arg("alpha") = 1, table_doc("sub"));
  auto mul_fn = [](const Tensor& a, const Operand& b) { return visit_operand(b, [&](const auto& v) { return mul(a, v); }); };
  def_both(m, cls, "mul", mul_fn, py::arg("other"), table_doc("mul"));
  auto div_fn = [](const Tensor& a, const Operand& b, const std::optional<std::string>& mode) {
    return visit_operand(b, [&](const auto& v) { return div(a, v, mode); });
  };
  def_both(m, cls, "div", div_fn, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none(),
           table_doc("div"));
  def_both(m, cls, "floor_divide", [](const Tensor& a, const Operand& b) {
    return visit_operand(b, [&](const auto& v) { return floor_divide(a, v); });
  }, py::arg("other"), table_doc("floor_divide"));
  def_both(m, cls, "remainder", [](const Tensor& a, const Operand& b) {
    return visit_operand(b, [&](const auto& v) { return remainder(a, v); });
  }, py::arg("other"), table_doc("remainder"));
  def_both(m, cls, "pow", [](const Tensor& a, const Operand& e) {
    return visit_operand(e, [&](const auto& v) { return pow(a, v); });
  }, py::arg("exponent"), table_doc("pow"));
  m.def("pow", [](const Scalar& a, const Tensor& e) { return pow(a, e); }, py::arg("self"), py::arg("exponent"));
  m.def("rsub", [](const Tensor& a, const Operand& b, const Scalar& alpha) {
    if (auto* t = std::get_if<Tensor>(&b)) return sub(*t, a, alpha);
    return rsub(alpha.to_double() == 1 ? a : mul(a, alpha), std::get<Scalar>(b));
  }, py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1);

  // In-place arithmetic methods.
  cls.def("add_", [](py::object self, const Operand& b, const Scalar& alpha) {
    return inplace(self, [&](Tensor& t) { std::visit([&](const auto& v) { add_(t, v, alpha); }, b); });
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  cls.def("sub_", [](py::object self, const Operand& b, const Scalar& alpha) {
    return inplace(self, [&](Tensor& t) { std::visit([&](const auto& v) { sub_(t, v, alpha); }, b); });
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  cls.def("mul_", [](py::object self, const Operand& b) {
    return inplace(self, [&](Tensor& t) { std::visit([&](const auto& v) { mul_(t, v); }, b); });
  }, py::arg("other"));
  cls.def("div_", [](py::object self, const Operand& b, const std::optional<std::string>& mode) {
    return inplace(self, [&](Tensor& t) {
      if (mode) assign_result(t, visit_operand(b, [&](const auto& v) { return div(t, v, mode); }), "div_");
      else std::visit([&](const auto& v) { div_(t, v); }, b);
    });
  }, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  cls.def("pow_", [](py::object self, const Operand& e) {
    return inplace(self, [&](Tensor& t) {
      if (auto* s = std::get_if<Scalar>(&e)) pow_(t, *s);
      else assign_result(t, pow(t, std::get<Tensor>(e)), "pow_");
    });
  }, py::arg("exponent"));

  // where / clamp / closeness / misc pointwise.
  m.def("where", [](const Tensor& c, const Operand& a, const Operand& b) {
    if (auto* ta = std::get_if<Tensor>(&a)) {
      if (auto* tb = std::get_if<Tensor>(&b)) return where(c, *ta, *tb);
      return where(c, *ta, std::get<Scalar>(b));
    }
    if (auto* tb = std::get_if<Tensor>(&b)) return where(c, std::get<Scalar>(a), *tb);
    const Scalar& sa = std::get<Scalar>(a);
    const Scalar& sb = std::get<Scalar>(b);
    Dtype d = result_type({}, {sa, sb});
    return where(c, scalar_tensor(sa, TensorOptions(d).set_device(c.device())), sb);
  }, py::arg("condition"), py::arg("input"), py::arg("other"));
  cls.def("where", [](const Tensor& self, const Tensor& c, const Operand& other) {
    if (auto* t = std::get_if<Tensor>(&other)) return where(c, self, *t);
    return where(c, self, std::get<Scalar>(other));
  }, py::arg("condition"), py::arg("other"));
  auto clamp_fn = [](const Tensor& x, const py::object& mn, const py::object& mx) {
    if (py::isinstance<Tensor>(mn) || py::isinstance<Tensor>(mx)) {
      auto bound = [&](const py::object& b) {
        if (b.is_none()) return Tensor();
        if (py::isinstance<Tensor>(b)) return b.cast<Tensor>();
        return wrap_operand(x, Operand(b.cast<Scalar>()));
      };
      Tensor lo = bound(mn), hi = bound(mx);
      if (!lo.defined()) return minimum(x, hi);
      if (!hi.defined()) return maximum(x, lo);
      return clamp(x, lo, hi);
    }
    std::optional<Scalar> lo, hi;
    if (!mn.is_none()) lo = mn.cast<Scalar>();
    if (!mx.is_none()) hi = mx.cast<Scalar>();
    return clamp(x, lo, hi);
  };
  def_both(m, cls, "clamp", clamp_fn, py::arg("min") = py::none(), py::arg("max") = py::none(), table_doc("clamp"));
  def_both(m, cls, "clamp_min", [](const Tensor& x, const Scalar& mn) { return clamp(x, mn, std::nullopt); }, py::arg("min"));
  def_both(m, cls, "clamp_max", [](const Tensor& x, const Scalar& mx) { return clamp(x, std::nullopt, mx); }, py::arg("max"));
  for (const char* name : {"clamp_", "clip_"}) {
    cls.def(name, [clamp_fn](py::object self, const py::object& mn, const py::object& mx) {
      return inplace(self, [&](Tensor& t) {
        if (py::isinstance<Tensor>(mn) || py::isinstance<Tensor>(mx)) assign_result(t, clamp_fn(t, mn, mx), "clamp_");
        else clamp_(t, mn.is_none() ? std::nullopt : std::optional<Scalar>(mn.cast<Scalar>()),
                    mx.is_none() ? std::nullopt : std::optional<Scalar>(mx.cast<Scalar>()));
      });
    }, py::arg("min") = py::none(), py::arg("max") = py::none());
  }
  def_both(m, cls, "isclose", &isclose, py::arg("other"), py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8,
           py::arg("equal_nan") = false);
  def_both(m, cls, "allclose", &allclose, py::arg("other"), py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8,
           py::arg("equal_nan") = false);
  def_both(m, cls, "equal", &equal, py::arg("other"));
  def_both(m, cls, "round", [](const Tensor& x, int64_t decimals) { return round(x, decimals); }, py::kw_only(),
           py::arg("decimals") = 0, table_doc("round"));
  def_both(m, cls, "nan_to_num", &nan_to_num, py::arg("nan") = 0.0, py::arg("posinf") = py::none(),
           py::arg("neginf") = py::none(), table_doc("nan_to_num"));
  def_both(m, cls, "gelu", &gelu, py::kw_only(), py::arg("approximate") = "none",
           "GELU (Hendrycks & Gimpel 2016): exact erf form, or the tanh approximation with approximate='tanh'.");
  def_both(m, cls, "softplus", &softplus, py::arg("beta") = 1.0, py::arg("threshold") = 20.0, table_doc("softplus"));
  def_both(m, cls, "masked_fill", [](const Tensor& x, const Tensor& mask, const Operand& v) {
    if (auto* t = std::get_if<Tensor>(&v)) return masked_fill(x, mask, *t);
    return masked_fill(x, mask, std::get<Scalar>(v));
  }, py::arg("mask"), py::arg("value"));
  cls.def("masked_fill_", [](py::object self, const Tensor& mask, const Operand& v) {
    return inplace(self, [&](Tensor& t) {
      if (auto* s = std::get_if<Scalar>(&v)) masked_fill_(t, mask, *s);
      else assign_result(t, masked_fill(t, mask, std::get<Tensor>(v)), "masked_fill_");
    });
  }, py::arg("mask"), py::arg("value"));
  m.def("result_type", [](const Operand& a, const Operand& b) {
    std::vector<Tensor> ts;
    std::vector<Scalar> ss;
    for (const Operand* o : {&a, &b}) {
      if (auto* t = std::get_if<Tensor>(o)) ts.push_back(*t);
      else ss.push_back(std::get<Scalar>(*o));
    }
    return result_type(ts, ss);
  }, py::arg("tensor1"), py::arg("tensor2"));
  m.def("broadcast_shapes", [](const py::args& shapes) {
    Shape out;
    for (const py::handle& s : shapes) {
      out = broadcast_shapes(out, py::isinstance<py::int_>(s) ? Shape{s.cast<int64_t>()} : s.cast<Shape>());
    }
    return py::tuple(py::cast(out));
  });
  m.def("broadcast_tensors", [](const py::args& ts) {
    return py::tuple(py::cast(broadcast_tensors(ts.cast<std::vector<Tensor>>())));
  });
  const std::pair<const char*, const char*> aliases[] = {
#define ADEPT_ALIAS(ALIAS, NAME) {#ALIAS, #NAME},
#include "kernels/op_table.def"
  };
  for (const auto& [alias, name] : aliases) {
    if (py::hasattr(m, name) && !py::hasattr(m, alias)) m.attr(alias) = m.attr(name);
    if (py::hasattr(cls, name) && !py::hasattr(cls, alias)) cls.attr(alias) = cls.attr(name);
  }
}

/// Python operators. Reflected forms handle `number op tensor`; in-place forms modify and return self.
void bind_operators(TensorClass& cls) {
  const auto op = py::is_operator();
  cls.def("__add__", [](const Tensor& a, const Operand& b) { return visit_operand(b, [&](const auto& v) { return add(a, v); }); }, op)
      .def("__radd__", [](const Tensor& a, const Scalar& b) { return add(a, b); }, op)
      .def("__sub__", [](const Tensor& a, const Operand& b) { return visit_operand(b, [&](const auto& v) { return sub(a, v); }); }, op)
      .def("__rsub__", [](const Tensor& a, const Scalar& b) { return rsub(a, b); }, op)
      .def("__mul__", [](const Tensor& a, const Operand& b) { return visit_operand(b, [&](const auto& v) { return mul(a, v); }); }, op)
      .def("__rmul__", [](const Tensor& a, const Scalar& b) { return mul(a, b); }, op)
      .def("__truediv__", [](const Tensor& a, const Operand& b) { return visit_operand(b, [&](const auto& v) { return div(a, v); }); }, op)
      .def("__rtruediv__", [](const Tensor& a, const Scalar& b) { return div(b, a); }, op)
      .def("__floordiv__", [](const Tensor& a, const Operand& b) { return visit_operand(b, [&](const auto& v) { return floor_divide(a, v); }); }, op)
      .def("__rfloordiv__", [](const Tensor& a, const Scalar& b) { return floor_divide(wrap_operand(a, b), a); }, op)
      .def("__mod__", [](const Tensor& a, const Operand& b) { return visit_operand(b, [&](const auto& v) { return remainder(a, v); }); }, op)
      .def("__rmod__", [](const Tensor& a, const Scalar& b) { return remainder(b, a); }, op)
      .def("__pow__", [](const Tensor& a, const Operand& b) { return visit_operand(b, [&](const auto& v) { return pow(a, v); }); }, op)
      .def("__rpow__", [](const Tensor& a, const Scalar& b) { return pow(b, a); }, op)
      .def("__matmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, op)
      .def("__rmatmul__", [](const Tensor& a, const Tensor& b) { return matmul(b, a); }, op)
      .def("__and__", [](const Tensor& a, const Operand& b) { return bitwise_and(a, wrap_operand(a, b)); }, op)
      .def("__rand__", [](const Tensor& a, const Scalar& b) { return bitwise_and(wrap_operand(a, b), a); }, op)
      .def("__or__", [](const Tensor& a, const Operand& b) { return bitwise_or(a, wrap_operand(a, b)); }, op)
      .def("__ror__", [](const Tensor& a, const Scalar& b) { return bitwise_or(wrap_operand(a, b), a); }, op)
      .def("__xor__", [](const Tensor& a, const Operand& b) { return bitwise_xor(a, wrap_operand(a, b)); }, op)
      .def("__rxor__", [](const Tensor& a, const Scalar& b) { return bitwise_xor(wrap_operand(a, b), a); }, op)
      .def("__invert__", [](const Tensor& a) { return bitwise_not(a); })
      .def("__neg__", [](const Tensor& a) { return neg(a); })
      .def("__pos__", [](py::object self) { return self; })
      .def("__abs__", [](const Tensor& a) { return abs(a); });
  using CmpT = Tensor (*)(const Tensor&, const Tensor&);
  using CmpS = Tensor (*)(const Tensor&, const Scalar&);
  const std::tuple<const char*, CmpT, CmpS> cmp[] = {{"__eq__", &eq, &eq}, {"__ne__", &ne, &ne}, {"__lt__", &lt, &lt},
                                                     {"__le__", &le, &le}, {"__gt__", &gt, &gt}, {"__ge__", &ge, &ge}};
  for (const auto& [name, ft, fs] : cmp) {
    CmpT t_ = ft;
    CmpS s_ = fs;
    cls.def(name, [t_, s_](const Tensor& a, const Operand& b) {
      if (auto* t = std::get_if<Tensor>(&b)) return t_(a, *t);
      return s_(a, std::get<Scalar>(b));
    }, op);
  }
  // In place: `x += y` modifies x's storage and keeps the same Python object.
  cls.def("__iadd__", [](py::object self, const Operand& b) {
    return inplace(self, [&](Tensor& t) { std::visit([&](const auto& v) { add_(t, v); }, b); });
  }, op);
  cls.def("__isub__", [](py::object self, const Operand& b) {
    return inplace(self, [&](Tensor& t) { std::visit([&](const auto& v) { sub_(t, v); }, b); });
  }, op);
  cls.def("__imul__", [](py::object self, const Operand& b) {
    return inplace(self, [&](Tensor& t) { std::visit([&](const auto& v) { mul_(t, v); }, b); });
  }, op);
  cls.def("__itruediv__", [](py::object self, const Operand& b) {
    return inplace(self, [&](Tensor& t) { std::visit([&](const auto& v) { div_(t, v); }, b); });
  }, op);
  using Generic = Tensor (*)(const Tensor&, const Operand&);
  const std::pair<const char*, Generic> generic[] = {
      {"__ifloordiv__", [](const Tensor& a, const Operand& b) { return floor_divide(a, wrap_operand(a, b)); }},
      {"__imod__", [](const Tensor& a, const Operand& b) { return remainder(a, wrap_operand(a, b)); }},
      {"__ipow__", [](const Tensor& a, const Operand& b) { return pow(a, wrap_operand(a, b)); }},
      {"__iand__", [](const Tensor& a, const Operand& b) { return bitwise_and(a, wrap_operand(a, b)); }},
      {"__ior__", [](const Tensor& a, const Operand& b) { return bitwise_or(a, wrap_operand(a, b)); }},
      {"__ixor__", [](const Tensor& a, const Operand& b) { return bitwise_xor(a, wrap_operand(a, b)); }}};
  for (const auto& [name, f] : generic) {
    Generic fn = f;
    std::string opname = name;
    cls.def(name, [fn, opname](py::object self, const Operand& b) {
      return inplace(self, [&](Tensor& t) { assign_result(t, fn(t, b), opname.c_str()); });
    }, op);
  }
}

/// `dtype=` of reductions: the input is cast first (torch casts before reducing).
Tensor cast_opt(const Tensor& x, std::optional<Dtype> d) { return d ? x.to(*d) : x; }

void bind_reductions(py::module_& m, TensorClass& cls) {
  def_both(m, cls, "sum", [](const Tensor& x, const py::object& dim, bool keepdim, std::optional<Dtype> dtype) {
    return sum(x, dims_arg(dim), keepdim, dtype);
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none(),
     table_doc("sum"));
  def_both(m, cls, "mean", [](const Tensor& x, const py::object& dim, bool keepdim, std::optional<Dtype> dtype) {
    return mean(cast_opt(x, dtype), dims_arg(dim), keepdim);
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
  def_both(m, cls, "prod", [](const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<Dtype> dtype) {
    return prod(cast_opt(x, dtype), dim, keepdim);
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none(),
     table_doc("prod"));
  using MaxAll = Tensor (*)(const Tensor&);
  using MaxDim = std::tuple<Tensor, Tensor> (*)(const Tensor&, int64_t, bool);
  const std::tuple<const char*, MaxAll, MaxDim, TensorBinaryFn> extremes[] = {
      {"max", &max, &max, &maximum}, {"min", &min, &min, &minimum}};
  for (const auto& [name, all_fn, dim_fn, pair_fn] : extremes) {
    MaxAll fa = all_fn;
    MaxDim fd = dim_fn;
    TensorBinaryFn fp = pair_fn;
    std::string n = name;
    def_both(m, cls, name, [fd, n](const Tensor& x, int64_t dim, bool keepdim) {
      return values_indices(n.c_str(), fd(x, dim, keepdim));
    }, py::arg("dim"), py::arg("keepdim") = false);
    def_both(m, cls, name, [fp](const Tensor& x, const Tensor& o) { return fp(x, o); }, py::arg("other"));
    def_both(m, cls, name, [fa](const Tensor& x) { return fa(x); });
  }
  using Amax = Tensor (*)(const Tensor&, const Shape&, bool);
  const std::pair<const char*, Amax> amaxes[] = {{"amax", &amax}, {"amin", &amin}, {"all", &all}, {"any", &any}};
  for (const auto& [name, f] : amaxes) {
    Amax fn = f;
    def_both(m, cls, name, [fn](const Tensor& x, const py::object& dim, bool keepdim) {
      return fn(x, dims_arg(dim), keepdim);
    }, py::arg("dim") = py::none(), py::arg("keepdim") = false, table_doc(name));
  }
  using ArgFn = Tensor (*)(const Tensor&, std::optional<int64_t>, bool);
  const std::pair<const char*, ArgFn> args[] = {{"argmax", &argmax}, {"argmin", &argmin}};
  for (const auto& [name, f] : args) {
    def_both(m, cls, name, f, py::arg("dim") = py::none(), py::arg("keepdim") = false, table_doc(name));
  }
  using VarFn = Tensor (*)(const Tensor&, const Shape&, int64_t, bool);
  const std::pair<const char*, VarFn> vars[] = {{"var", &var}, {"std", &adept::std}};
  for (const auto& [name, f] : vars) {
    VarFn fn = f;
    // var(dim=None, unbiased=True, keepdim=False, *, correction=None); var(False) means unbiased=False.
    def_both(m, cls, name, [fn](const Tensor& x, const py::object& dim, const py::object& unbiased, bool keepdim,
                                std::optional<int64_t> correction) {
      py::object d = dim, u = unbiased;
      if (PyBool_Check(dim.ptr())) { u = dim; d = py::none(); }
      int64_t corr = correction.value_or(u.is_none() || u.cast<bool>() ? 1 : 0);
      return fn(x, dims_arg(d), corr, keepdim);
    }, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false, py::kw_only(),
       py::arg("correction") = py::none());
  }
  def_both(m, cls, "norm", [](const Tensor& x, const py::object& p, const py::object& dim, bool keepdim,
                              std::optional<Dtype> dtype) {
    double pv = 2;
    if (py::isinstance<py::str>(p)) {
      if (p.cast<std::string>() != "fro") throw py::value_error("norm: only p='fro' is supported among string norms");
    } else if (!p.is_none()) {
      pv = p.cast<double>();
    }
    return norm(cast_opt(x, dtype), pv, dims_arg(dim), keepdim);
  }, py::arg("p") = "fro", py::arg("dim") = py::none(), py::arg("keepdim") = false, py::arg("dtype") = py::none());
  def_both(m, cls, "logsumexp", [](const Tensor& x, const py::object& dim, bool keepdim) {
    return logsumexp(x, dims_arg(dim), keepdim);
  }, py::arg("dim"), py::arg("keepdim") = false);
  using SoftFn = Tensor (*)(const Tensor&, int64_t, std::optional<Dtype>);
  const std::pair<const char*, SoftFn> soft[] = {
      {"softmax", &softmax}, {"log_softmax", &log_softmax}, {"cumsum", &cumsum}, {"cumprod", &cumprod}};
  for (const auto& [name, f] : soft) {
    def_both(m, cls, name, f, py::arg("dim"), py::arg("dtype") = py::none());
  }
}

void bind_linalg(py::module_& m, TensorClass& cls) {
  def_both(m, cls, "matmul", &matmul, py::arg("other"));
  def_both(m, cls, "mm", &mm, py::arg("mat2"));
  def_both(m, cls, "bmm", &bmm, py::arg("mat2"));
  def_both(m, cls, "dot", &dot, py::arg("other"));
  def_both(m, cls, "addmm", &addmm, py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1,
           py::arg("alpha") = 1);
}

void bind_shape(py::module_& m, TensorClass& cls) {
  for (const char* name : {"transpose", "swapaxes", "swapdims"}) {
    def_both(m, cls, name, [](const Tensor& x, int64_t a, int64_t b) { return transpose(x, a, b); }, py::arg("dim0"),
             py::arg("dim1"));
  }
  def_both(m, cls, "movedim", &movedim, py::arg("source"), py::arg("destination"));
  def_both(m, cls, "narrow", &narrow, py::arg("dim"), py::arg("start"), py::arg("length"));
  def_both(m, cls, "select", &select, py::arg("dim"), py::arg("index"));
  def_both(m, cls, "squeeze", &squeeze, py::arg("dim") = py::none());
  def_both(m, cls, "unsqueeze", &unsqueeze, py::arg("dim"));
  def_both(m, cls, "flatten", &flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  def_both(m, cls, "unflatten", &unflatten, py::arg("dim"), py::arg("sizes"));
  def_both(m, cls, "unbind", [](const Tensor& x, int64_t dim) { return py::tuple(py::cast(unbind(x, dim))); },
           py::arg("dim") = 0);
  def_both(m, cls, "chunk", [](const Tensor& x, int64_t c, int64_t dim) { return py::tuple(py::cast(chunk(x, c, dim))); },
           py::arg("chunks"), py::arg("dim") = 0);
  def_both(m, cls, "split", [](const Tensor& x, const py::object& s, int64_t dim) {
    std::vector<Tensor> parts = py::isinstance<py::int_>(s) ? split(x, s.cast<int64_t>(), dim) : split(x, s.cast<Shape>(), dim);
    return py::tuple(py::cast(parts));
  }, py::arg("split_size_or_sections"), py::arg("dim") = 0);
  def_both(m, cls, "as_strided", &as_strided, py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
  def_both(m, cls, "broadcast_to", &expand, py::arg("size"));
  m.def("flip", [](const Tensor& x, const Shape& dims) { return flip(x, dims); }, py::arg("input"), py::arg("dims"));
  cls.def("flip", [](const Tensor& x, const py::args& dims, const py::object& dims_kw) {
    return flip(x, sizes_arg(dims, dims_kw, "dims"));
  }, py::arg("dims") = py::none());
  m.def("cat", &cat, py::arg("tensors"), py::arg("dim") = 0);
  m.def("concat", &cat, py::arg("tensors"), py::arg("dim") = 0);
  m.def("stack", &stack, py::arg("tensors"), py::arg("dim") = 0);
  m.def("pad", &pad, py::arg("input"), py::arg("pad"), py::arg("mode") = "constant", py::arg("value") = 0.0,
        "Pads the last dims: pad = (left_last, right_last, left_prev, ...) (torch.nn.functional.pad).");
}

}  // namespace

void init_ops(py::module_& m, TensorClass& cls) {
  bind_pointwise(m, cls);
  bind_operators(cls);
  bind_reductions(m, cls);
  bind_linalg(m, cls);
  bind_shape(m, cls);
  // In-place fills and copies.
  cls.def("copy_", [](py::object self, const Tensor& src) { return inplace(self, [&](Tensor& t) { t.copy_(src); }); },
          py::arg("src"))
      .def("fill_", [](py::object self, const Operand& v) {
        return inplace(self, [&](Tensor& t) {
          if (auto* s = std::get_if<Scalar>(&v)) { t.fill_(*s); return; }
          const Tensor& vt = std::get<Tensor>(v);
          ADEPT_CHECK(vt.dim() == 0, ValueError, "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions", vt.dim());
          t.copy_(vt);
        });
      }, py::arg("value"))
      .def("zero_", [](py::object self) { return inplace(self, [](Tensor& t) { t.zero_(); }); })
      .def("uniform_", [](py::object self, double from, double to, Generator* g) {
        return inplace(self, [&](Tensor& t) { uniform_(t, from, to, g); });
      }, py::arg("from") = 0.0, py::arg("to") = 1.0, py::kw_only(), py::arg("generator") = py::none())
      .def("normal_", [](py::object self, double mean, double std, Generator* g) {
        return inplace(self, [&](Tensor& t) { normal_(t, mean, std, g); });
      }, py::arg("mean") = 0.0, py::arg("std") = 1.0, py::kw_only(), py::arg("generator") = py::none())
      .def("bernoulli_", [](py::object self, double p, Generator* g) {
        return inplace(self, [&](Tensor& t) { bernoulli_(t, p, g); });
      }, py::arg("p") = 0.5, py::kw_only(), py::arg("generator") = py::none());
}

}  // namespace adept::python
