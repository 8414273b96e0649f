// adept.nn.Module, nn.Parameter and the containers (Sequential, ModuleList, ModuleDict) bound into
// `_C._nn`, with torch.nn.Module's Python behaviour: attribute assignment registers parameters,
// buffers and children; attribute reads find them; __call__ runs forward.
#include <unordered_set>

#include "nn_module.h"

namespace adept::python {

using nn::Module;
using ModulePtr = std::shared_ptr<Module>;

/// A registered parameter as seen from Python: a Tensor whose type is adept.nn.Parameter.
struct ParameterTensor : Tensor {
  explicit ParameterTensor(const Tensor& t) : Tensor(t) {}
};

nn::IntPair pair_arg(const py::handle& h, const char* what) {
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) return nn::IntPair(h.cast<int64_t>());
  if (py::isinstance<py::sequence>(h) && !py::isinstance<py::str>(h)) {
    auto v = h.cast<std::vector<int64_t>>();
    if (v.size() == 1) return nn::IntPair(v[0]);
    if (v.size() == 2) return nn::IntPair(v[0], v[1]);
  }
  throw py::type_error(std::string(what) + " must be an int or a tuple of 1 or 2 ints, got " + std::string(py::repr(h)));
}

namespace {

constexpr const char* kParamCache = "_adept_parameter_objects";

/// The Module behind `self`; AttributeError when Module.__init__ has not run yet (torch's message).
Module& module_of(const py::handle& self, const char* what) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  auto vh = inst->get_value_and_holder(nullptr, false);
  if (!vh.holder_constructed())
    throw py::attribute_error(std::string("cannot ") + what + " before Module.__init__() call");
  return *vh.value_ptr<Module>();
}

std::string type_name_of(const py::handle& o) { return py::str(py::type::handle_of(o).attr("__name__")); }

/// The Python Parameter object of `self`'s parameter `name` (the same object on every access while
/// the registered tensor is unchanged); None for an absent parameter.
py::object param_object(const py::handle& self, const std::string& name, const Tensor& t) {
  if (!t.defined()) return py::none();
  py::dict d = self.attr("__dict__");
  if (!d.contains(kParamCache)) d[kParamCache] = py::dict();
  py::dict cache = d[kParamCache];
  if (cache.contains(name)) {
    py::object o = cache[py::str(name)];
    if (o.cast<const Tensor&>().is_same(t)) return o;
  }
  py::object o = py::cast(ParameterTensor(t));
  cache[py::str(name)] = o;
  return o;
}

void forget_param_object(const py::handle& self, const std::string& name) {
  py::dict d = self.attr("__dict__");
  if (d.contains(kParamCache)) {
    py::dict cache = d[kParamCache];
    if (cache.contains(name)) PyDict_DelItemString(cache.ptr(), name.c_str());
  }
}

void remove_from_dict(const py::handle& self, const std::string& name) {
  py::dict d = self.attr("__dict__");
  if (d.contains(name)) PyDict_DelItemString(d.ptr(), name.c_str());
}

/// named_parameters in Python terms: (name, Parameter object), walking the Python objects of the
/// submodules so that every parameter keeps its identity.
py::list named_parameters_py(const py::object& self, const std::string& prefix, bool recurse) {
  Module& m = module_of(self, "list parameters");
  std::vector<std::pair<std::string, py::object>> mods;
  if (recurse) {
    for (auto& [name, sub] : m.named_modules(prefix)) mods.emplace_back(name, py::cast(sub));
  } else {
    mods.emplace_back(prefix, self);
  }
  py::list out;
  std::unordered_set<const TensorImpl*> seen;
  for (auto& [mp, obj] : mods) {
    Module& sub = obj.cast<Module&>();
    for (auto& [n, t] : sub.named_parameters("", false)) {
      if (!seen.insert(t.impl()).second) continue;
      out.append(py::make_tuple(mp.empty() ? n : mp + "." + n, param_object(obj, n, t)));
    }
  }
  return out;
}

py::object py_iter(const py::list& l) { return py::reinterpret_steal<py::object>(PyObject_GetIter(l.ptr())); }

/// Module.to(device) / to(dtype) / to(tensor) / to(device, dtype) / keywords, like Tensor.to.
void module_to(Module& m, const py::args& args, const py::kwargs& kw) {
  std::optional<Dtype> dtype;
  std::optional<Device> device;
  auto take = [&](const py::handle& h) {
    if (h.is_none()) return;
    if (py::isinstance<Dtype>(h)) dtype = h.cast<Dtype>();
    else if (py::isinstance<Tensor>(h)) { dtype = h.cast<const Tensor&>().dtype(); device = h.cast<const Tensor&>().device(); }
    else if (py::isinstance<Device>(h) || py::isinstance<py::str>(h)) device = device_arg(h);
    else if (!PyBool_Check(h.ptr())) throw py::type_error(std::string("to() received an invalid argument of type ") + Py_TYPE(h.ptr())->tp_name);
  };
  for (const py::handle& a : args) take(a);
  for (const auto& [k, v] : kw) {
    std::string key = k.cast<std::string>();
    if (key == "dtype" || key == "device" || key == "tensor") take(v);
    else if (key != "non_blocking" && key != "memory_format") throw py::type_error("to() got an unexpected keyword argument '" + key + "'");
  }
  if (dtype && !is_floating_point(*dtype))
    throw py::type_error("nn.Module.to only accepts floating point dtypes, but got desired dtype=" + std::string(dtype_name(*dtype)));
  if (device && dtype) m.to(*device, *dtype);
  else if (device) m.to(*device);
  else if (dtype) m.to(*dtype);
}

void module_setattr(const py::object& self, const std::string& name, const py::object& value) {
  static py::object object_setattr = py::module_::import("builtins").attr("object").attr("__setattr__");
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  auto vh = inst->get_value_and_holder(nullptr, false);
  bool ready = vh.holder_constructed();
  if (py::isinstance<ParameterTensor>(value)) {
    if (!ready) throw py::attribute_error("cannot assign parameters before Module.__init__() call");
    Module& m = *vh.value_ptr<Module>();
    remove_from_dict(self, name);
    if (m.has_buffer(name) || m.has_child(name)) m.unregister(name);
    const Tensor& t = value.cast<const Tensor&>();
    m.register_parameter(name, t, t.requires_grad());
    py::dict d = self.attr("__dict__");
    if (!d.contains(kParamCache)) d[kParamCache] = py::dict();
    d[kParamCache][py::str(name)] = value;
    return;
  }
  if (ready && vh.value_ptr<Module>()->has_parameter(name)) {
    if (!value.is_none())
      throw py::type_error("cannot assign '" + type_name_of(value) + "' as parameter '" + name +
                           "' (adept.nn.Parameter or None expected)");
    vh.value_ptr<Module>()->register_parameter(name, Tensor());
    forget_param_object(self, name);
    return;
  }
  if (py::isinstance<Module>(value)) {
    if (!ready) throw py::attribute_error("cannot assign module before Module.__init__() call");
    Module& m = *vh.value_ptr<Module>();
    remove_from_dict(self, name);
    if (m.has_parameter(name) || m.has_buffer(name)) m.unregister(name);
    m.register_module(name, value.cast<ModulePtr>());
    return;
  }
  if (ready && vh.value_ptr<Module>()->has_child(name)) {
    if (!value.is_none())
      throw py::type_error("cannot assign '" + type_name_of(value) + "' as child module '" + name +
                           "' (adept.nn.Module or None expected)");
    vh.value_ptr<Module>()->register_module(name, ModulePtr());
    return;
  }
  if (ready && vh.value_ptr<Module>()->has_buffer(name)) {
    Module& m = *vh.value_ptr<Module>();
    if (!value.is_none() && !py::isinstance<Tensor>(value))
      throw py::type_error("cannot assign '" + type_name_of(value) + "' as buffer '" + name +
                           "' (adept.Tensor or None expected)");
    m.register_buffer(name, value.is_none() ? Tensor() : value.cast<Tensor>(), m.is_persistent_buffer(name));
    return;
  }
  object_setattr(self, py::str(name), value);
}

py::object module_getattr(const py::object& self, const std::string& name) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  auto vh = inst->get_value_and_holder(nullptr, false);
  if (vh.holder_constructed() && name != kParamCache) {
    Module& m = *vh.value_ptr<Module>();
    if (m.has_parameter(name)) return param_object(self, name, m.parameter(name));
    if (m.has_buffer(name)) return maybe_tensor(m.buffer(name));
    if (m.has_child(name)) {
      ModulePtr c = m.child(name);
      return c ? py::cast(c) : py::none();
    }
  }
  throw py::attribute_error("'" + type_name_of(self) + "' object has no attribute '" + name + "'");
}

void module_delattr(const py::object& self, const std::string& name) {
  static py::object object_delattr = py::module_::import("builtins").attr("object").attr("__delattr__");
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  auto vh = inst->get_value_and_holder(nullptr, false);
  if (vh.holder_constructed() && vh.value_ptr<Module>()->unregister(name)) {
    forget_param_object(self, name);
    return;
  }
  object_delattr(self, py::str(name));
}

/// torch's add_module: KeyError when `name` is already an attribute (a method, a plain attribute,
/// a parameter or buffer) other than a child module.
void add_module_py(const py::object& self, const std::string& name, const ModulePtr& child) {
  Module& m = module_of(self, "assign module");
  if (!m.has_child(name) && py::hasattr(self, name.c_str()))
    throw py::key_error("attribute '" + name + "' already exists");
  m.register_module(name, child);
}

py::object state_dict_py(Module& m, const std::string& prefix) {
  py::object od = py::module_::import("collections").attr("OrderedDict")();
  // torch prepends `prefix` verbatim (state_dict(prefix="p.") -> "p.0.weight"), unlike the C++
  // API's dotted join.
  for (auto& [k, t] : m.state_dict()) od[py::str(prefix + k)] = t;
  return od;
}

py::object load_state_dict_py(Module& m, const py::object& state, bool strict) {
  static py::object mapping = py::module_::import("collections.abc").attr("Mapping");
  if (!py::isinstance(state, mapping))
    throw py::type_error("Expected state_dict to be dict-like, got " + py::repr(py::type::handle_of(state)).cast<std::string>() + ".");
  nn::StateDict sd;
  for (const py::handle& item : state.attr("items")()) {
    auto kv = item.cast<py::tuple>();
    if (!py::isinstance<py::str>(kv[0]))
      throw py::type_error("load_state_dict: keys must be str, got " + py::repr(kv[0]).cast<std::string>() + " (a " +
                           type_name_of(kv[0]) + ")");
    if (!py::isinstance<Tensor>(kv[1]))
      throw py::type_error("load_state_dict: the value of '" + kv[0].cast<std::string>() + "' is a " +
                           type_name_of(kv[1]) + ", expected an adept.Tensor");
    sd.emplace_back(kv[0].cast<std::string>(), kv[1].cast<Tensor>());
  }
  nn::LoadStateDictResult r = m.load_state_dict(sd, strict);
  py::object nt = py::module_::import("adept._C").attr("_nn").attr("_IncompatibleKeys");
  return nt(py::cast(r.missing_keys), py::cast(r.unexpected_keys));
}

/// A Python slice or int index of a container of length n.
template <class C>
py::object container_getitem(const C& c, const py::object& idx) {
  if (py::isinstance<py::slice>(idx)) {
    py::slice s = idx;
    auto opt = [](const py::object& o) { return o.is_none() ? std::optional<int64_t>() : o.cast<int64_t>(); };
    py::object step = s.attr("step");
    return py::cast(c.slice(opt(s.attr("start")), opt(s.attr("stop")), step.is_none() ? 1 : step.cast<int64_t>()));
  }
  return py::cast(c[idx.cast<int64_t>()]);
}

py::list children_list(const Module& m) {
  py::list out;
  for (auto& c : m.children()) out.append(py::cast(c));
  return out;
}

/// Sequential(*modules) or Sequential(OrderedDict([(name, module), ...])).
template <class S>
S* build_sequential(S* s, const py::args& args) {
  std::unique_ptr<S> owner(s);
  if (args.size() == 1 && py::isinstance(args[0], py::module_::import("collections").attr("OrderedDict"))) {
    for (const py::handle& kv : args[0].attr("items")()) {
      auto t = kv.cast<py::tuple>();
      s->register_module(t[0].cast<std::string>(), t[1].cast<ModulePtr>());
    }
  } else {
    for (const py::handle& a : args) {
      if (!py::isinstance<Module>(a)) throw py::type_error(type_name_of(a) + " is not a Module subclass");
      s->append(a.cast<ModulePtr>());
    }
  }
  return owner.release();
}

/// ModuleDict(mapping or iterable of (key, module) pairs) / update(...).
template <class D>
D* fill_dict(D* d, const py::object& mods) {
  if (mods.is_none()) return d;
  py::list items = py::hasattr(mods, "items") ? py::list(mods.attr("items")()) : py::list(mods);
  for (const py::handle& kv : items) {
    auto t = kv.cast<py::tuple>();
    if (!py::isinstance<Module>(t[1])) throw py::type_error(type_name_of(t[1]) + " is not a Module subclass");
    d->set(t[0].cast<std::string>(), t[1].cast<ModulePtr>());
  }
  return d;
}

}  // namespace

void init_nn_module(py::module_& m) {
  py::module_ nn = nn_submodule_of(m);
  nn.attr("_IncompatibleKeys") = py::module_::import("collections").attr("namedtuple")(
      "_IncompatibleKeys", py::make_tuple("missing_keys", "unexpected_keys"));

  // ---- Parameter ----
  py::class_<ParameterTensor, Tensor>(nn, "Parameter", py::dynamic_attr(),
                                      "A Tensor registered as a module parameter (torch.nn.Parameter): a leaf that "
                                      "shares data's storage and requires grad.")
      .def(py::init([](const std::optional<Tensor>& data, bool requires_grad) {
             return ParameterTensor(nn::Parameter(data ? *data : empty({0}), requires_grad));
           }),
           py::arg("data") = py::none(), py::arg("requires_grad") = true)
      .def("__repr__", [](const Tensor& t) { return "Parameter containing:\n" + t.str(); });

  // ---- Module ----
  py::class_<Module, PyModule<Module>, ModulePtr> mod(nn, "Module", py::dynamic_attr(),
                                                      "Base class of layers and models (torch.nn.Module).");
  mod.def(py::init([]() { return new Module(); }, []() { return new PyModule<Module>(); }))
      .def("forward", [](const py::object& self, const py::args&, const py::kwargs&) -> py::object {
        std::string msg = "Module [" + type_name_of(self) + "] is missing the required \"forward\" function";
        PyErr_SetString(PyExc_NotImplementedError, msg.c_str());
        throw py::error_already_set();
      })
      .def("__call__", [](const py::object& self, const py::args& args, const py::kwargs& kw) {
        return self.attr("forward")(*args, **kw);
      })
      .def("__setattr__", &module_setattr)
      .def("__getattr__", &module_getattr)
      .def("__delattr__", &module_delattr)
      .def("__repr__", [](const Module& m) { return m.repr(); })
      .def("extra_repr", [](const Module& m) { return m.extra_repr(); })
      .def("_get_name", [](const py::object& self) { return type_name_of(self); })
      .def_property("training", &Module::is_training, &Module::set_training)
      // registration
      .def("register_parameter", [](const py::object& self, const std::string& name, const py::object& param) {
        Module& mm = module_of(self, "assign parameter");
        if (!param.is_none() && !py::isinstance<ParameterTensor>(param))
          throw py::type_error("cannot assign '" + type_name_of(param) + "' object to parameter '" + name +
                               "' (adept.nn.Parameter or None required)");
        if (param.is_none()) { mm.register_parameter(name, Tensor()); forget_param_object(self, name); return; }
        module_setattr(self, name, param);
      }, py::arg("name"), py::arg("param"))
      .def("register_buffer", [](const py::object& self, const std::string& name, const py::object& tensor, bool persistent) {
        Module& mm = module_of(self, "assign buffer");
        if (!tensor.is_none() && !py::isinstance<Tensor>(tensor))
          throw py::type_error("cannot assign '" + type_name_of(tensor) + "' object to buffer '" + name +
                               "' (adept.Tensor or None required)");
        py::dict d = self.attr("__dict__");
        if (d.contains(name)) throw py::key_error("attribute '" + name + "' already exists");
        mm.register_buffer(name, tensor.is_none() ? Tensor() : tensor.cast<Tensor>(), persistent);
      }, py::arg("name"), py::arg("tensor"), py::arg("persistent") = true)
      .def("add_module", &add_module_py, py::arg("name"), py::arg("module"))
      .def("register_module", &add_module_py, py::arg("name"), py::arg("module"))
      .def("get_submodule", [](const py::object& self, const std::string& target) -> py::object {
        if (target.empty()) return self;
        py::object cur = self;
        size_t pos = 0;
        while (pos <= target.size()) {
          size_t dot = target.find('.', pos);
          std::string part = target.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
          Module& cm = cur.cast<Module&>();
          if (!cm.has_child(part) || !cm.child(part))
            throw py::attribute_error(type_name_of(cur) + " has no attribute `" + part + "`");
          cur = py::cast(cm.child(part));
          if (dot == std::string::npos) break;
          pos = dot + 1;
        }
        return cur;
      }, py::arg("target"))
      // traversal
      .def("named_parameters", [](const py::object& self, const std::string& prefix, bool recurse) {
        return py_iter(named_parameters_py(self, prefix, recurse));
      }, py::arg("prefix") = "", py::arg("recurse") = true)
      .def("parameters", [](const py::object& self, bool recurse) {
        py::list out;
        for (const py::handle& kv : named_parameters_py(self, "", recurse)) out.append(kv.cast<py::tuple>()[1]);
        return py_iter(out);
      }, py::arg("recurse") = true)
      .def("named_buffers", [](const Module& mm, const std::string& prefix, bool recurse) {
        return py_iter(py::cast(mm.named_buffers(prefix, recurse)));
      }, py::arg("prefix") = "", py::arg("recurse") = true)
      .def("buffers", [](const Module& mm, bool recurse) { return py_iter(py::cast(mm.buffers(recurse))); },
           py::arg("recurse") = true)
      .def("children", [](const Module& mm) { return py_iter(children_list(mm)); })
      .def("named_children", [](const Module& mm) { return py_iter(py::cast(mm.named_children())); })
      .def("modules", [](Module& mm) { return py_iter(py::cast(mm.modules())); })
      .def("named_modules", [](Module& mm, const py::object& memo, const std::string& prefix, bool remove_duplicate) {
        return py_iter(py::cast(mm.named_modules(prefix)));
      }, py::arg("memo") = py::none(), py::arg("prefix") = "", py::arg("remove_duplicate") = true)
      .def("apply", [](const py::object& self, const py::object& fn) {
        for (const py::handle& c : children_list(self.cast<Module&>())) c.attr("apply")(fn);
        fn(self);
        return self;
      }, py::arg("fn"))
      // modes and state
      .def("train", [](const py::object& self, bool mode) {
        Module& mm = module_of(self, "call train()");
        mm.set_training(mode);
        for (const py::handle& c : children_list(mm)) c.attr("train")(mode);
        return self;
      }, py::arg("mode") = true)
      .def("eval", [](const py::object& self) { return self.attr("train")(false); })
      .def("requires_grad_", [](const py::object& self, bool r) {
        self.cast<Module&>().requires_grad_(r);
        return self;
      }, py::arg("requires_grad") = true)
      .def("zero_grad", [](Module& mm, bool set_to_none) { mm.zero_grad(set_to_none); }, py::arg("set_to_none") = true)
      .def("to", [](const py::object& self, const py::args& args, const py::kwargs& kw) {
        module_to(self.cast<Module&>(), args, kw);
        return self;
      })
      .def("cpu", [](const py::object& self) { self.cast<Module&>().to(kCPU); return self; })
      .def("float", [](const py::object& self) { self.cast<Module&>().to(kFloat32); return self; })
      .def("double", [](const py::object& self) { self.cast<Module&>().to(kFloat64); return self; })
      .def("half", [](const py::object& self) { self.cast<Module&>().to(kFloat16); return self; })
      .def("bfloat16", [](const py::object& self) { self.cast<Module&>().to(kBFloat16); return self; })
      .def("state_dict", [](Module& mm, const py::object& destination, const std::string& prefix, bool keep_vars) {
        py::object sd = state_dict_py(mm, prefix);
        if (destination.is_none()) return sd;
        destination.attr("update")(sd);
        return destination;
      }, py::arg("destination") = py::none(), py::arg("prefix") = "", py::arg("keep_vars") = false)
      .def("load_state_dict", &load_state_dict_py, py::arg("state_dict"), py::arg("strict") = true);

  // ---- containers ----
  py::class_<nn::Sequential, Module, PyModule<nn::Sequential>, std::shared_ptr<nn::Sequential>>(
      nn, "Sequential", py::dynamic_attr(), "Chains its child modules (torch.nn.Sequential).")
      .def(py::init([](const py::args& args) { return build_sequential(new nn::Sequential(), args); },
                    [](const py::args& args) { return build_sequential(new PyModule<nn::Sequential>(), args); }))
      // Chained in Python so that children may pass any object (tuples, dicts...) to the next, as
      // torch; C++ callers use the Tensor-only Sequential::forward.
      .def("forward", [](const nn::Sequential& s, py::object x) {
        for (const py::handle& child : children_list(s)) x = child(x);
        return x;
      }, py::arg("input"))
      .def("__len__", &nn::Sequential::size)
      .def("__getitem__", [](const nn::Sequential& s, const py::object& idx) { return container_getitem(s, idx); })
      .def("__setitem__", [](nn::Sequential& s, int64_t idx, const ModulePtr& v) { s.set(idx, v); })
      .def("__delitem__", [](nn::Sequential& s, int64_t idx) { s.erase(idx); })
      .def("__iter__", [](const nn::Sequential& s) { return py_iter(children_list(s)); })
      .def("append", [](const py::object& self, const ModulePtr& v) {
        self.cast<nn::Sequential&>().append(v);
        return self;
      }, py::arg("module"));

  py::class_<nn::ModuleList, Module, PyModule<nn::ModuleList>, std::shared_ptr<nn::ModuleList>>(
      nn, "ModuleList", py::dynamic_attr(), "A list of registered modules (torch.nn.ModuleList).")
      .def(py::init([](const std::optional<std::vector<ModulePtr>>& mods) { return new nn::ModuleList(mods.value_or(std::vector<ModulePtr>{})); },
                    [](const std::optional<std::vector<ModulePtr>>& mods) {
                      auto* l = new PyModule<nn::ModuleList>();
                      l->extend(mods.value_or(std::vector<ModulePtr>{}));
                      return l;
                    }),
           py::arg("modules") = py::none())
      .def("__len__", &nn::ModuleList::size)
      .def("__getitem__", [](const nn::ModuleList& l, const py::object& idx) { return container_getitem(l, idx); })
      .def("__setitem__", [](nn::ModuleList& l, int64_t idx, const ModulePtr& v) { l.set(idx, v); })
      .def("__delitem__", [](nn::ModuleList& l, int64_t idx) { l.erase(idx); })
      .def("__iter__", [](const nn::ModuleList& l) { return py_iter(children_list(l)); })
      .def("append", [](const py::object& self, const ModulePtr& v) {
        self.cast<nn::ModuleList&>().append(v);
        return self;
      }, py::arg("module"))
      .def("extend", [](const py::object& self, const std::vector<ModulePtr>& v) {
        self.cast<nn::ModuleList&>().extend(v);
        return self;
      }, py::arg("modules"))
      .def("insert", &nn::ModuleList::insert, py::arg("index"), py::arg("module"));

  py::class_<nn::ModuleDict, Module, PyModule<nn::ModuleDict>, std::shared_ptr<nn::ModuleDict>>(
      nn, "ModuleDict", py::dynamic_attr(), "Modules by string key in insertion order (torch.nn.ModuleDict).")
      .def(py::init([](const py::object& mods) { return fill_dict(new nn::ModuleDict(), mods); },
                    [](const py::object& mods) { return fill_dict(new PyModule<nn::ModuleDict>(), mods); }),
           py::arg("modules") = py::none())
      .def("__len__", &nn::ModuleDict::size)
      .def("__getitem__", [](const nn::ModuleDict& d, const std::string& k) {
        if (!d.contains(k)) throw py::key_error(k);
        return d[k];
      })
      .def("__setitem__", &nn::ModuleDict::set)
      .def("__delitem__", [](nn::ModuleDict& d, const std::string& k) {
        if (!d.contains(k)) throw py::key_error(k);
        d.pop(k);
      })
      .def("__contains__", &nn::ModuleDict::contains)
      .def("__iter__", [](const nn::ModuleDict& d) { return py_iter(py::cast(d.keys())); })
      .def("keys", &nn::ModuleDict::keys)
      .def("values", &nn::ModuleDict::values)
      .def("items", &nn::ModuleDict::items)
      .def("pop", [](nn::ModuleDict& d, const std::string& k) {
        if (!d.contains(k)) throw py::key_error(k);
        return d.pop(k);
      }, py::arg("key"))
      .def("clear", &nn::ModuleDict::clear)
      .def("update", [](nn::ModuleDict& d, const py::object& mods) { fill_dict(&d, mods); }, py::arg("modules"));
}

}  // namespace adept::python
