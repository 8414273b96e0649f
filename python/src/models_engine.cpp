// The YOLO11 engine bound into `_C._models` (the C++ side of adept.models.YOLO): the option table,
// LoadedModel, load_model, and the train / val / predict / export modes with options given as a dict.
#include <memory>

#include "adept/io/safetensors.h"
#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/config.h"
#include "adept/models/yolo/export.h"
#include "adept/models/yolo/predictor.h"
#include "adept/models/yolo/trainer.h"
#include "adept/models/yolo/validator.h"
#include "nn_module.h"

namespace adept::python {

namespace {

using namespace models::yolo;

// One option value as the command line would spell it: bool -> "true"/"false", int -> its digits,
// float -> repr (shortest exact text), str / os.PathLike as is, list/tuple -> comma-joined values,
// None -> "". TypeError naming the key for anything else.
std::string option_text(const std::string& key, const py::handle& v) {
  if (v.is_none()) return "";
  if (PyBool_Check(v.ptr())) return v.ptr() == Py_True ? "true" : "false";
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  // Through plain int / float first: a subclass (IntEnum, numpy.float64) may print otherwise.
  const py::object o = py::reinterpret_borrow<py::object>(v);
  if (py::isinstance<py::int_>(v)) return py::str(py::int_(o)).cast<std::string>();
  if (py::isinstance<py::float_>(v)) return py::repr(py::float_(o)).cast<std::string>();
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    std::string out;
    bool first = true;
    for (const py::handle& item : v) {
      out += (first ? "" : ",") + option_text(key, item);
      first = false;
    }
    return out;
  }
  if (py::hasattr(v, "__fspath__")) return py::module_::import("os").attr("fspath")(v).cast<std::string>();
  if (py::hasattr(v, "__index__")) return py::str(v.attr("__index__")()).cast<std::string>();  // NumPy integers
  throw py::type_error("YOLO option '" + key + "': cannot use a value of type " +
                       py::str(py::type::handle_of(v).attr("__name__")).cast<std::string>() +
                       " (expected bool, int, float, str, path, list or None)");
}

// A Config from {key: value}; a None value leaves the option unset (its default). adept.ValueError for
// an unknown key (pointing to the --help of `modes`, the command the options are for: find_option) or a
// bad value (Config::set).
Config config_from_py(const py::handle& options, unsigned modes = OptionSpec::kAllModes) {
  Config c;
  if (options.is_none()) return c;
  if (!py::isinstance<py::dict>(options))
    throw py::type_error("YOLO options must be a dict of {option: value}, got " +
                         py::str(py::type::handle_of(options).attr("__name__")).cast<std::string>());
  for (auto [k, v] : options.cast<py::dict>()) {
    if (!py::isinstance<py::str>(k)) throw py::type_error("YOLO option names must be strings");
    const std::string key = k.cast<std::string>();
    find_option(key, modes);
    if (!v.is_none()) c.set(key, option_text(key, v));  // None: not given, the option keeps its default
  }
  return c;
}

py::dict config_to_py(const Config& c) {
  py::dict d;
  for (const auto& [k, v] : c.values()) d[py::str(k)] = v;
  return d;
}

// A ValidationResult as a dict: the summary metrics, a per-class table (classes with ground truth)
// and the printable table; names[c] names class c (the class index when names has no entry).
py::dict validation_to_py(const ValidationResult& v, const std::vector<std::string>& names) {
  const DetectionResults& r = v.metrics;
  py::dict d;
  d["map50"] = r.map50;
  d["map50_95"] = r.map50_95;
  d["map75"] = r.map75;
  d["mp"] = r.mp;
  d["mr"] = r.mr;
  d["fitness"] = r.fitness();
  d["best_conf"] = r.best_conf;
  d["images"] = r.images;
  d["instances"] = r.instances;
  py::list per_class;
  for (size_t i = 0; i < r.classes.size(); ++i) {
    const int64_t c = r.classes[i];
    double ap = 0;
    for (double a : r.ap[i]) ap += a;
    py::dict row;
    row["class"] = c;
    row["name"] = c < static_cast<int64_t>(names.size()) ? names[c] : std::to_string(c);
    row["images"] = r.n_images[i];
    row["instances"] = r.n_instances[i];
    row["precision"] = r.precision[i];
    row["recall"] = r.recall[i];
    row["ap50"] = r.ap[i][0];
    row["ap50_95"] = ap / kNumIouThresholds;
    per_class.append(row);
  }
  d["per_class"] = per_class;
  d["loss"] = py::make_tuple(v.loss[0], v.loss[1], v.loss[2]);
  d["seconds"] = v.seconds;
  d["save_dir"] = v.save_dir;  // where the plots went ("" with plots=False)
  d["table"] = r.table(names);
  return d;
}

// The class names a checkpoint was trained with, from its header only.
std::vector<std::string> checkpoint_names(const std::string& path) {
  const auto meta = io::load_metadata(path);
  auto it = meta.find("names");
  if (it == meta.end()) return {};
  return py::module_::import("json").attr("loads")(it->second).cast<std::vector<std::string>>();
}

LoadedModel make_loaded(std::shared_ptr<Yolo11> model, const std::optional<std::vector<std::string>>& names,
                        const std::string& checkpoint, const py::object& train_config) {
  if (!model) throw py::type_error("LoadedModel: model must be a Yolo11, not None");
  LoadedModel m;
  if (names) {
    ADEPT_CHECK(static_cast<int64_t>(names->size()) == model->nc, ValueError,
                "LoadedModel: {} class names given for a model with nc = {}", names->size(), model->nc);
    m.names = *names;
  } else {
    for (int64_t k = 0; k < model->nc; ++k) m.names.push_back("class" + std::to_string(k));
  }
  m.model = std::move(model);
  m.checkpoint = checkpoint;
  m.train_config = config_from_py(train_config);
  return m;
}

// Callbacks that run Python callables with the GIL. The callables live in shared_ptrs so that the
// trainer's copies of the std::functions (made without the GIL) never touch a Python refcount;
// the last owner is the binding's frame, which holds the GIL when it ends.
TrainCallbacks python_callbacks(const py::object& on_batch_end, const py::object& stop_requested) {
  TrainCallbacks cb;
  if (!on_batch_end.is_none()) {
    auto fn = std::make_shared<py::object>(on_batch_end);
    cb.on_batch_end = [fn](int64_t epoch, int64_t batch, const std::array<double, 3>& items) {
      py::gil_scoped_acquire gil;
      (*fn)(epoch, batch, py::make_tuple(items[0], items[1], items[2]));
    };
  }
  if (!stop_requested.is_none()) {
    auto fn = std::make_shared<py::object>(stop_requested);
    cb.stop_requested = [fn]() {
      py::gil_scoped_acquire gil;
      return py::bool_((*fn)()).cast<bool>();
    };
  }
  return cb;
}

py::dict train_py(const py::object& options, LoadedModel* model, const py::object& on_batch_end,
                  const py::object& stop_requested) {
  const Config config = config_from_py(options, OptionSpec::kTrain);
  TrainCallbacks cb = python_callbacks(on_batch_end, stop_requested);
  TrainResult r;
  {
    // Worker processes are forked by the C++ DataLoader from here and run only C++ code, so they
    // need none of Python's fork hooks; SIGINT goes to the trainer's own handler meanwhile.
    py::gil_scoped_release nogil;
    r = train(config, cb, model);
  }
  py::dict d;
  d["save_dir"] = r.save_dir;
  d["last"] = r.last;
  d["best"] = r.best;
  d["epochs"] = r.epochs;
  d["interrupted"] = r.interrupted;
  d["early_stopped"] = r.early_stopped;
  d["best_val"] = r.best_val ? py::object(validation_to_py(*r.best_val, checkpoint_names(r.last))) : py::none();
  return d;
}

py::dict val_py(const py::object& options, const LoadedModel* model) {
  const Config config = config_from_py(options, OptionSpec::kVal);
  std::vector<std::string> names;
  ValidationResult r;
  {
    py::gil_scoped_release nogil;
    if (model) {
      names = model->names;
      r = val(config, model);
    } else {
      const LoadedModel loaded = load_model(config.str("model"));
      names = loaded.names;
      r = val(config, &loaded);
    }
  }
  return validation_to_py(r, names);
}

py::tuple predict_py(const py::object& options, const LoadedModel* model) {
  const Config config = config_from_py(options, OptionSpec::kPredict);
  PredictRun run;
  {
    py::gil_scoped_release nogil;
    run = predict(config, model);
  }
  py::list images;
  for (const ImagePrediction& p : run.predictions) {
    py::dict d;
    d["path"] = p.path;
    d["height"] = p.height;
    d["width"] = p.width;
    d["boxes"] = p.boxes;
    images.append(d);
  }
  return py::make_tuple(run.save_dir, images);
}

std::string export_py(const py::object& options, const LoadedModel* model) {
  const Config config = config_from_py(options, OptionSpec::kExport);
  py::gil_scoped_release nogil;
  return export_model(config, model).path;
}

const char* kind_text(OptionSpec::Kind k) {
  switch (k) {
    case OptionSpec::Kind::Int: return "int";
    case OptionSpec::Kind::Float: return "float";
    case OptionSpec::Kind::Bool: return "bool";
    case OptionSpec::Kind::String: return "str";
  }
  return "";
}

}  // namespace

void init_models_engine(py::module_& m) {
  py::module_ mm = m.attr("_models").cast<py::module_>();
  mm.def("option_specs", [] {
    py::list out;
    for (const OptionSpec& s : option_specs()) {
      py::dict d;
      d["key"] = s.key;
      d["kind"] = kind_text(s.kind);
      d["default"] = s.default_value;
      d["help"] = s.help;
      out.append(d);
    }
    return out;
  }, "The YOLO options (Ultralytics' names) in table order: key, kind (int/float/bool/str), default text, help.");
  mm.def("check_options", [](const py::object& options) { return config_to_py(config_from_py(options)); },
         py::arg("options"),
         "All option values (as text) after applying `options` to the defaults; adept.ValueError for an unknown key "
         "or a bad value, TypeError for a value of an unusable type.");

  py::class_<LoadedModel>(mm, "LoadedModel", "A YOLO11 model with its class names and the checkpoint it came from.")
      .def(py::init(&make_loaded), py::arg("model"), py::arg("names") = py::none(), py::arg("checkpoint") = "",
           py::arg("train_config") = py::none(),
           "names: one per class (default class0, class1, ...; ValueError for a count other than model.nc); "
           "train_config: the options the model was trained with (dict; default: all defaults).")
      .def_readwrite("model", &LoadedModel::model, "The Yolo11 module.")
      .def_readwrite("names", &LoadedModel::names, "Class names by class id.")
      .def_readwrite("checkpoint", &LoadedModel::checkpoint, "The file it was loaded from ('' for a new model).")
      .def_property(
          "train_config", [](const LoadedModel& l) { return config_to_py(l.train_config); },
          [](LoadedModel& l, const py::object& o) { l.train_config = config_from_py(o); },
          "The options the checkpoint was trained with, {key: text}.");
  mm.def(
      "load_model",
      [](const py::object& spec, int64_t nc) {
        const std::string s = option_text("model", spec);
        py::gil_scoped_release nogil;
        return load_model(s, nc);
      },
      py::arg("spec"), py::arg("nc") = 0,
      "A scale name (yolo11n ... yolo11x, n ... x, yolo11n.yaml): a new model for nc classes (<= 0: 80); or a "
      "checkpoint path: its scale, class names and EMA weights. ValueError for anything else, IOError for an "
      "unreadable checkpoint.");
  mm.def("train", &train_py, py::arg("options"), py::arg("model") = py::none(), py::arg("on_batch_end") = py::none(),
         py::arg("stop_requested") = py::none(),
         "Runs `adept train` with the options dict (trains `model` in place when given; on_batch_end(epoch, batch, "
         "(box, cls, dfl)) after every batch; stop_requested() -> bool polled after every batch). Returns save_dir, "
         "last, best, epochs, interrupted, early_stopped and best_val (the best epoch's metrics or None).");
  mm.def("val", &val_py, py::arg("options"), py::arg("model") = py::none(),
         "Runs `adept val` (on `model` when given). Returns map50, map50_95, map75, mp, mr, fitness, best_conf, "
         "images, instances, per_class, loss, seconds, table.");
  mm.def("predict", &predict_py, py::arg("options"), py::arg("model") = py::none(),
         "Runs `adept predict` (with `model` when given). Returns (save_dir, [{path, height, width, boxes (n, 6) "
         "x1, y1, x2, y2, conf, cls}]).");
  mm.def("export", &export_py, py::arg("options"), py::arg("model") = py::none(),
         "Runs `adept export` (of `model` when given): writes the ONNX model and returns its path.");
}

}  // namespace adept::python
