// adept._C._optim: the optimizers, LR schedulers and ModelEMA. The Python package adept.optim
// wraps them with torch's constructors and the live param_groups view (python/adept/optim/).
#include <pybind11/functional.h>

#include "nn_module.h"

namespace adept::python {

namespace {

using namespace adept::optim;
using OptimizerPtr = std::shared_ptr<Optimizer>;
using SchedulerPtr = std::shared_ptr<LRScheduler>;

py::object option_to_py(const std::string& key, const OptionValue& v) {
  return std::visit(
      [&](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::none();
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          py::list l = py::cast(x);
          // torch keeps betas as a tuple; lists elsewhere (base_lrs, _last_lr).
          if (key == "betas") return py::tuple(l);
          return l;
        } else {
          return py::cast(x);
        }
      },
      v);
}

OptionValue option_from_py(const std::string& key, const py::handle& h) {
  PyObject* o = h.ptr();
  if (h.is_none()) return std::monostate{};
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) return h.cast<int64_t>();
  if (PyFloat_Check(o)) return h.cast<double>();
  if (py::isinstance<py::str>(h)) return h.cast<std::string>();
  if (py::isinstance<Tensor>(h)) {
    const Tensor& t = h.cast<const Tensor&>();
    if (t.numel() == 1) return t.item<double>();
  } else if (py::isinstance<py::sequence>(h)) {
    std::vector<double> out;
    for (const py::handle& e : h) out.push_back(e.cast<double>());
    return out;
  } else if (py::hasattr(h, "__index__") && std::string(Py_TYPE(o)->tp_name).find("bool") == std::string::npos) {
    return h.attr("__index__")().cast<int64_t>();
  } else if (py::hasattr(h, "__float__")) {
    return h.attr("__float__")().cast<double>();
  }
  throw py::type_error("optimizer option '" + key + "' must be None, a bool, a number, a string or a sequence of "
                       "numbers, got " + std::string(py::str(py::type::handle_of(h).attr("__name__"))));
}

py::dict options_to_py(const Options& options) {
  py::dict d;
  for (const auto& [key, value] : options) d[py::str(key)] = option_to_py(key, value);
  return d;
}

Options options_from_py(const py::dict& d) {
  Options out;
  for (const auto& [k, v] : d) {
    const std::string key = py::str(k);
    out[key] = option_from_py(key, v);
  }
  return out;
}

std::vector<Tensor> tensor_list(const py::handle& h, const char* what) {
  if (py::isinstance<Tensor>(h)) return {h.cast<Tensor>()};
  std::vector<Tensor> out;
  for (const py::handle& e : h) {
    if (!py::isinstance<Tensor>(e)) {
      throw py::type_error(std::string(what) + " can only optimize Tensors, but one of the params is " +
                           std::string(py::str(py::type::handle_of(e).attr("__name__"))));
    }
    out.push_back(e.cast<Tensor>());
  }
  return out;
}

/// Groups given as [(params, options dict), ...] by the Python wrapper.
std::vector<ParamGroup> groups_from_py(const py::list& groups) {
  std::vector<ParamGroup> out;
  for (const py::handle& g : groups) {
    auto pair = g.cast<py::tuple>();
    out.push_back({tensor_list(pair[0], "optimizer"), options_from_py(pair[1].cast<py::dict>())});
  }
  return out;
}

ParamGroup& group_at(Optimizer& opt, int64_t i) {
  auto& groups = opt.param_groups();
  if (i < 0 || i >= static_cast<int64_t>(groups.size())) throw py::index_error("param group index out of range");
  return groups[i];
}

py::dict state_to_py(const OptimizerStateDict& sd) {
  py::dict state;
  for (const auto& [index, entries] : sd.state) {
    py::dict e;
    for (const auto& [key, t] : entries) e[py::str(key)] = t;
    state[py::int_(index)] = e;
  }
  py::list groups;
  for (const auto& g : sd.param_groups) {
    py::dict d = options_to_py(g.options);
    d["params"] = py::cast(g.params);
    groups.append(d);
  }
  py::dict out;
  out["state"] = state;
  out["param_groups"] = groups;
  return out;
}

OptimizerStateDict state_from_py(const py::dict& d) {
  OptimizerStateDict sd;
  for (const auto& [k, v] : d["state"].cast<py::dict>()) {
    ParamState& s = sd.state[k.cast<int64_t>()];
    for (const auto& [key, t] : v.cast<py::dict>()) {
      const std::string name = py::str(key);
      if (t.is_none()) continue;  // SGD without momentum: None in torch
      if (py::isinstance<Tensor>(t)) {
        s[name] = t.cast<Tensor>();
      } else if (name == "step" && (py::isinstance<py::int_>(t) || py::isinstance<py::float_>(t)) &&
                 !py::isinstance<py::bool_>(t)) {
        s[name] = scalar_tensor(t.cast<double>(), TensorOptions(kFloat32));  // torch <= 1.11 saved a number
      } else {
        throw py::type_error("load_state_dict: state '" + name + "' of param " + py::str(k).cast<std::string>() +
                             " is a " + py::str(py::type::handle_of(t).attr("__name__")).cast<std::string>() +
                             ", expected a Tensor");
      }
    }
  }
  for (const py::handle& g : d["param_groups"]) {
    py::dict gd = g.cast<py::dict>();
    OptimizerStateDict::Group group;
    for (const auto& [k, v] : gd) {
      const std::string key = py::str(k);
      if (key == "params") {
        group.params = v.cast<std::vector<int64_t>>();
      } else {
        group.options[key] = option_from_py(key, v);
      }
    }
    sd.param_groups.push_back(std::move(group));
  }
  return sd;
}

/// Scheduler state: flat "_schedulers.<i>.<key>" entries (SequentialLR) become torch's list of dicts.
py::dict scheduler_state_to_py(const Options& s) {
  py::dict out;
  std::map<int64_t, Options> nested;
  for (const auto& [key, value] : s) {
    if (key.rfind("_schedulers.", 0) == 0) {
      const size_t dot = key.find('.', 12);
      nested[std::stoll(key.substr(12, dot - 12))][key.substr(dot + 1)] = value;
    } else {
      out[py::str(key)] = option_to_py(key, value);
    }
  }
  if (!nested.empty()) {
    py::list l;
    for (const auto& [i, sub] : nested) l.append(scheduler_state_to_py(sub));
    out["_schedulers"] = l;
  }
  return out;
}

Options scheduler_state_from_py(const py::dict& d) {
  Options out;
  for (const auto& [k, v] : d) {
    const std::string key = py::str(k);
    if (key == "_schedulers") {
      int64_t i = 0;
      for (const py::handle& sub : v) {
        for (auto& [sk, sv] : scheduler_state_from_py(sub.cast<py::dict>())) {
          out["_schedulers." + std::to_string(i) + "." + sk] = sv;
        }
        ++i;
      }
    } else if (key == "milestones" && py::isinstance<py::dict>(v)) {
      std::vector<double> m;  // torch keeps a Counter {milestone: count}
      for (const auto& [mk, count] : v.cast<py::dict>()) {
        for (int64_t c = 0; c < count.cast<int64_t>(); ++c) m.push_back(mk.cast<double>());
      }
      out[key] = m;
    } else if (key != "lr_lambdas") {
      out[key] = option_from_py(key, v);
    }
  }
  return out;
}

nn::StateDict state_dict_from_py(const py::handle& h) {
  nn::StateDict out;
  for (const auto& [k, v] : h.cast<py::dict>()) out.emplace_back(py::str(k), v.cast<Tensor>());
  return out;
}

py::object ordered_state_dict(const nn::StateDict& sd) {
  py::object od = py::module_::import("collections").attr("OrderedDict")();
  for (const auto& [name, t] : sd) od[py::str(name)] = t;
  return od;
}

void bind_optimizers(py::module_& o) {
  py::class_<Optimizer, OptimizerPtr>(o, "Optimizer", py::dynamic_attr(),
                                      "Base of the optimizers (C++ side; use adept.optim).")
      .def("_num_groups", [](Optimizer& opt) { return opt.param_groups().size(); })
      .def("_group_keys", [](Optimizer& opt, int64_t i) {
        std::vector<std::string> keys{"params"};
        for (const auto& [k, v] : group_at(opt, i).options) keys.push_back(k);
        return keys;
      })
      .def("_group_get", [](Optimizer& opt, int64_t i, const std::string& key) -> py::object {
        ParamGroup& g = group_at(opt, i);
        if (key == "params") return py::cast(g.params);
        auto it = g.options.find(key);
        if (it == g.options.end()) throw py::key_error(key);
        return option_to_py(key, it->second);
      })
      .def("_group_set", [](Optimizer& opt, int64_t i, const std::string& key, const py::object& value) {
        ParamGroup& g = group_at(opt, i);
        if (key == "params") {
          g.params = tensor_list(value, "optimizer");
        } else {
          g.options[key] = option_from_py(key, value);
        }
      })
      .def("_group_del", [](Optimizer& opt, int64_t i, const std::string& key) {
        ParamGroup& g = group_at(opt, i);
        if (key == "params" || !g.options.erase(key)) throw py::key_error(key);
      })
      .def("_add_param_group", [](Optimizer& opt, const py::object& params, const py::dict& options) {
        opt.add_param_group({tensor_list(params, "optimizer"), options_from_py(options)});
      })
      .def_property_readonly("defaults", [](Optimizer& opt) { return options_to_py(opt.defaults()); })
      .def("zero_grad", &Optimizer::zero_grad, py::arg("set_to_none") = true,
           "Clears the grads of all params (to None by default, as torch 2.x; zeros otherwise).")
      .def("_step", [](Optimizer& opt) { opt.step(); })
      .def_property_readonly("_step_count", &Optimizer::step_count)
      .def("_state_dict", [](Optimizer& opt) { return state_to_py(opt.state_dict()); })
      .def("_load_state_dict", [](Optimizer& opt, const py::dict& d) { opt.load_state_dict(state_from_py(d)); })
      .def("_param_state", [](Optimizer& opt, const Tensor& p) {
        py::dict d;
        for (const auto& [k, t] : opt.state(p)) d[py::str(k)] = t;
        return d;
      });

  py::class_<SGD, Optimizer, std::shared_ptr<SGD>>(o, "SGD")
      .def(py::init([](const py::list& groups, double lr, double momentum, double dampening, double weight_decay,
                       bool nesterov, bool maximize) {
             return std::make_shared<SGD>(groups_from_py(groups),
                                          SGDOptions{lr, momentum, dampening, weight_decay, nesterov, maximize});
           }),
           py::arg("groups"), py::arg("lr"), py::arg("momentum"), py::arg("dampening"), py::arg("weight_decay"),
           py::arg("nesterov"), py::arg("maximize"));
  auto adam_init = [](auto tag) {
    using T = typename decltype(tag)::type;
    return py::init([](const py::list& groups, double lr, std::pair<double, double> betas, double eps,
                       double weight_decay, bool amsgrad, bool maximize) {
      return std::make_shared<T>(groups_from_py(groups), AdamOptions{lr, betas, eps, weight_decay, amsgrad, maximize});
    });
  };
  py::class_<Adam, Optimizer, std::shared_ptr<Adam>>(o, "Adam")
      .def(adam_init(std::type_identity<Adam>{}), py::arg("groups"), py::arg("lr"), py::arg("betas"), py::arg("eps"),
           py::arg("weight_decay"), py::arg("amsgrad"), py::arg("maximize"));
  py::class_<AdamW, Optimizer, std::shared_ptr<AdamW>>(o, "AdamW")
      .def(adam_init(std::type_identity<AdamW>{}), py::arg("groups"), py::arg("lr"), py::arg("betas"), py::arg("eps"),
           py::arg("weight_decay"), py::arg("amsgrad"), py::arg("maximize"));
}

void bind_schedulers(py::module_& o) {
  py::class_<LRScheduler, SchedulerPtr>(o, "LRScheduler", py::dynamic_attr(),
                                        "Base of the LR schedulers (torch.optim.lr_scheduler._LRScheduler).")
      .def("step", [](LRScheduler& s, std::optional<int64_t> epoch) { s.step(epoch); }, py::arg("epoch") = py::none())
      .def("get_last_lr", &LRScheduler::get_last_lr)
      .def_property_readonly("base_lrs", &LRScheduler::base_lrs)
      .def_property_readonly("last_epoch", &LRScheduler::last_epoch)
      .def("state_dict", [](const LRScheduler& s) { return scheduler_state_to_py(s.state_dict()); })
      .def("load_state_dict", [](LRScheduler& s, const py::dict& d) { s.load_state_dict(scheduler_state_from_py(d)); },
           py::arg("state_dict"));

  // keep_alive<1, 2>: the scheduler keeps its optimizer alive (it refers to it).
  py::class_<LambdaLR, LRScheduler, std::shared_ptr<LambdaLR>>(o, "LambdaLR")
      .def(py::init([](Optimizer& opt, const py::object& lr_lambda, int64_t last_epoch) {
             std::vector<LambdaLR::Lambda> fns;
             if (PyCallable_Check(lr_lambda.ptr())) {
               fns.assign(opt.param_groups().size(), lr_lambda.cast<LambdaLR::Lambda>());
             } else {
               for (const py::handle& f : lr_lambda) fns.push_back(f.cast<LambdaLR::Lambda>());
             }
             return std::make_shared<LambdaLR>(opt, std::move(fns), last_epoch);
           }),
           py::arg("optimizer"), py::arg("lr_lambda"), py::arg("last_epoch") = -1, py::keep_alive<1, 2>());
  py::class_<StepLR, LRScheduler, std::shared_ptr<StepLR>>(o, "StepLR")
      .def(py::init<Optimizer&, int64_t, double, int64_t>(), py::arg("optimizer"), py::arg("step_size"),
           py::arg("gamma") = 0.1, py::arg("last_epoch") = -1, py::keep_alive<1, 2>());
  py::class_<MultiStepLR, LRScheduler, std::shared_ptr<MultiStepLR>>(o, "MultiStepLR")
      .def(py::init<Optimizer&, std::vector<int64_t>, double, int64_t>(), py::arg("optimizer"), py::arg("milestones"),
           py::arg("gamma") = 0.1, py::arg("last_epoch") = -1, py::keep_alive<1, 2>());
  py::class_<ConstantLR, LRScheduler, std::shared_ptr<ConstantLR>>(o, "ConstantLR")
      .def(py::init<Optimizer&, double, int64_t, int64_t>(), py::arg("optimizer"), py::arg("factor") = 1.0 / 3,
           py::arg("total_iters") = 5, py::arg("last_epoch") = -1, py::keep_alive<1, 2>());
  py::class_<LinearLR, LRScheduler, std::shared_ptr<LinearLR>>(o, "LinearLR")
      .def(py::init<Optimizer&, double, double, int64_t, int64_t>(), py::arg("optimizer"),
           py::arg("start_factor") = 1.0 / 3, py::arg("end_factor") = 1.0, py::arg("total_iters") = 5,
           py::arg("last_epoch") = -1, py::keep_alive<1, 2>());
  py::class_<ExponentialLR, LRScheduler, std::shared_ptr<ExponentialLR>>(o, "ExponentialLR")
      .def(py::init<Optimizer&, double, int64_t>(), py::arg("optimizer"), py::arg("gamma"), py::arg("last_epoch") = -1,
           py::keep_alive<1, 2>());
  py::class_<CosineAnnealingLR, LRScheduler, std::shared_ptr<CosineAnnealingLR>>(o, "CosineAnnealingLR")
      .def(py::init<Optimizer&, int64_t, double, int64_t>(), py::arg("optimizer"), py::arg("T_max"),
           py::arg("eta_min") = 0.0, py::arg("last_epoch") = -1, py::keep_alive<1, 2>());
  py::class_<SequentialLR, LRScheduler, std::shared_ptr<SequentialLR>>(o, "SequentialLR")
      .def(py::init<Optimizer&, std::vector<SchedulerPtr>, std::vector<int64_t>, int64_t>(), py::arg("optimizer"),
           py::arg("schedulers"), py::arg("milestones"), py::arg("last_epoch") = -1, py::keep_alive<1, 2>(),
           py::keep_alive<1, 3>())
      .def("step", [](SequentialLR& s) { s.step(); });
}

void bind_ema(py::module_& o) {
  py::class_<ModelEMA>(o, "ModelEMA",
                       "Exponential moving average of a model's state dict with Ultralytics' warm-up decay "
                       "d = decay * (1 - exp(-updates / tau)).")
      .def(py::init<const nn::Module&, double, double, int64_t>(), py::arg("model"), py::arg("decay") = 0.9999,
           py::arg("tau") = 2000.0, py::arg("updates") = 0)
      .def(py::init([](const py::dict& state, double decay, double tau, int64_t updates) {
             return ModelEMA(state_dict_from_py(state), decay, tau, updates);
           }),
           py::arg("model"), py::arg("decay") = 0.9999, py::arg("tau") = 2000.0, py::arg("updates") = 0)
      .def("update", py::overload_cast<const nn::Module&>(&ModelEMA::update), py::arg("model"))
      .def("update", [](ModelEMA& e, const py::dict& state) { e.update(state_dict_from_py(state)); }, py::arg("model"))
      .def("decay_at", &ModelEMA::decay_at, py::arg("updates"))
      .def_property_readonly("updates", &ModelEMA::updates)
      .def_property_readonly("decay", &ModelEMA::decay)
      .def_property_readonly("tau", &ModelEMA::tau)
      .def("state_dict", [](const ModelEMA& e) { return ordered_state_dict(e.state_dict()); })
      .def("copy_to", &ModelEMA::copy_to, py::arg("model"))
      .def("load_state_dict", [](ModelEMA& e, const py::dict& state, int64_t updates) {
             e.load_state_dict(state_dict_from_py(state), updates);
           }, py::arg("state_dict"), py::arg("updates"));
}

}  // namespace

void init_optim(py::module_& m) {
  py::module_ o = m.def_submodule("_optim", "Optimizers, LR schedulers and ModelEMA (C++ side; use adept.optim).");
  bind_optimizers(o);
  bind_schedulers(o);
  bind_ema(o);
}

}  // namespace adept::python
