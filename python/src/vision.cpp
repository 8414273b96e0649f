// Bindings of the detection datasets (adept::vision) into the submodule `adept._C._vision`;
// python/adept/vision/ re-exports them as adept.vision.
#include "adept/vision/dataset_config.h"
#include "adept/vision/detection_collate.h"
#include "adept/vision/detection_dataset.h"
#include "adept/vision/synthetic_shapes.h"
#include "common.h"

namespace adept::python {

namespace {

// A path argument: str or os.PathLike.
std::string path_arg(const py::handle& p) { return py::module_::import("os").attr("fspath")(p).cast<std::string>(); }

// Ultralytics hyper-parameter keywords (hsv_h=..., mosaic=...) -> AugmentOptions; TypeError for others.
vision::AugmentOptions hyp_from_kwargs(const py::kwargs& kw) {
  vision::AugmentOptions o;
  const std::pair<const char*, double*> fields[] = {
      {"hsv_h", &o.hsv_h},       {"hsv_s", &o.hsv_s},   {"hsv_v", &o.hsv_v}, {"degrees", &o.degrees},
      {"translate", &o.translate}, {"scale", &o.scale}, {"shear", &o.shear}, {"perspective", &o.perspective},
      {"flipud", &o.flipud},     {"fliplr", &o.fliplr}, {"mosaic", &o.mosaic}};
  for (auto [k, v] : kw) {
    const std::string key = py::cast<std::string>(k);
    auto it = std::find_if(std::begin(fields), std::end(fields), [&](const auto& f) { return key == f.first; });
    if (it == std::end(fields)) throw py::type_error("DetectionDataset() got an unexpected keyword argument '" + key + "'");
    *it->second = py::cast<double>(v);
  }
  return o;
}

const char* kind_name(vision::SplitSource::Kind k) {
  switch (k) {
    case vision::SplitSource::Kind::ImageDir: return "dir";
    case vision::SplitSource::Kind::ImageList: return "list";
    case vision::SplitSource::Kind::ImageFile: return "image";
    case vision::SplitSource::Kind::CocoJson: return "coco";
  }
  return "?";
}

py::dict config_dict(const vision::DatasetConfig& c) {
  py::dict d;
  d["source"] = c.source;
  d["path"] = c.root;
  d["names"] = c.names;
  d["nc"] = c.nc();
  for (const auto& [split, sources] : c.splits) {
    py::list l;
    for (const auto& s : sources) {
      py::dict e;
      e["kind"] = kind_name(s.kind);
      e["path"] = s.path;
      if (s.kind == vision::SplitSource::Kind::CocoJson) e["images"] = s.images_dir;
      l.append(e);
    }
    d[py::str(split)] = l;
  }
  return d;
}

py::dict labels_dict(const vision::ImageLabels& l) {
  const auto n = static_cast<int64_t>(l.boxes.size());
  Tensor cls = empty({n, 1}, kFloat32), bboxes = empty({n, 4}, kFloat32);
  for (int64_t k = 0; k < n; ++k) {
    const vision::BoxLabel& b = l.boxes[static_cast<size_t>(k)];
    cls.data_ptr<float>()[k] = static_cast<float>(b.cls);
    float* o = bboxes.data_ptr<float>() + 4 * k;
    o[0] = b.cx, o[1] = b.cy, o[2] = b.w, o[3] = b.h;
  }
  py::dict d;
  d["im_file"] = l.im_file;
  d["shape"] = py::make_tuple(l.height, l.width);
  d["cls"] = cls;
  d["bboxes"] = bboxes;
  return d;
}

py::dict summary_dict(const vision::ScanSummary& s) {
  py::dict d;
  d["images"] = s.images;
  d["backgrounds"] = s.backgrounds;
  d["boxes"] = s.boxes;
  d["corrupt"] = s.corrupt;
  d["bad_lines"] = s.bad_lines;
  d["duplicates"] = s.duplicates;
  d["warnings"] = s.warnings;
  d["from_cache"] = s.from_cache;
  d["cache_file"] = s.cache_file;
  d["seconds"] = s.seconds;
  return d;
}

}  // namespace

void init_vision(py::module_& m) {
  py::module_ v = m.def_submodule("_vision", "Detection datasets and collation (adept::vision); use adept.vision.");

  v.def("load_dataset_config", [](const py::object& path) { return config_dict(vision::load_dataset_config(path_arg(path))); },
        py::arg("path"),
        "Reads an Ultralytics-style dataset YAML (or a dataset folder) into a dict: source, path, names, nc and, "
        "per split, a list of {kind, path[, images]}.");

  using vision::DetectionDataset;
  py::class_<DetectionDataset, data::Dataset, std::shared_ptr<DetectionDataset>>(v, "DetectionDataset")
      .def(py::init([](const py::object& data, const std::string& split, int imgsz, bool augment, int stride,
                       const py::kwargs& hyp) {
             vision::DetectionDatasetOptions o;
             o.imgsz = imgsz;
             o.augment = augment;
             o.stride = stride;
             o.hyp = hyp_from_kwargs(hyp);
             const std::string path = path_arg(data);
             py::gil_scoped_release nogil;
             return std::make_shared<DetectionDataset>(path, split, o);
           }),
           py::arg("data"), py::arg("split") = "train", py::arg("imgsz") = 640, py::arg("augment") = false,
           py::arg("stride") = 32)
      .def("close_mosaic", &DetectionDataset::close_mosaic)
      .def("set_mosaic", &DetectionDataset::set_mosaic, py::arg("on"))
      .def_property_readonly("mosaic", &DetectionDataset::mosaic)
      .def_property_readonly("im_files", &DetectionDataset::im_files)
      .def_property_readonly("names", &DetectionDataset::names)
      .def_property_readonly("split", &DetectionDataset::split)
      .def_property_readonly("imgsz", [](const DetectionDataset& d) { return d.options().imgsz; })
      .def_property_readonly("augment", [](const DetectionDataset& d) { return d.options().augment; })
      .def_property_readonly("labels",
                             [](const DetectionDataset& d) {
                               py::list l;
                               for (const auto& x : d.labels()) l.append(labels_dict(x));
                               return l;
                             })
      .def_property_readonly("summary", [](const DetectionDataset& d) { return summary_dict(d.summary()); })
      .def("__repr__", [](const DetectionDataset& d) {
        return fmt::format("DetectionDataset('{}', split='{}', imgsz={}, augment={}, images={})", d.config().source,
                           d.split(), d.options().imgsz, d.options().augment ? "True" : "False", d.size());
      });

  v.def(
      "detection_collate",
      [](const py::list& samples) {
        std::vector<data::Sample> s;
        for (const auto& x : samples) s.push_back(tensor_dict_from_py(x));
        return tensor_dict_to_py(vision::detection_collate(s));
      },
      py::arg("samples"),
      "Collates DetectionDataset samples: img (B, 3, H, W) uint8, targets (N, 6) = (batch_idx, cls, cx, cy, w, h), "
      "ori_shape (B, 2), ratio_pad (B, 3), index (B,).");
  v.def("to_float_image", &vision::to_float_image, py::arg("images"), "uint8 images -> float32 / 255, on the batch's device (CPU: Vulkan has no uint8 yet).");

  // The built-in synthetic shapes dataset (include/adept/vision/synthetic_shapes.h). Its options are
  // keyword arguments with the C++ defaults.
  const vision::SyntheticShapesOptions d;
  auto shapes_options = [](const py::kwargs& kw) {
    vision::SyntheticShapesOptions o;
    for (const auto& [key, value] : kw) {
      const auto k = key.cast<std::string>();
      if (k == "train_images") o.train_images = value.cast<int64_t>();
      else if (k == "val_images") o.val_images = value.cast<int64_t>();
      else if (k == "imgsz") o.imgsz = value.cast<int>();
      else if (k == "seed") o.seed = value.cast<uint64_t>();
      else if (k == "max_objects") o.max_objects = value.cast<int>();
      else if (k == "min_size") o.min_size = value.cast<double>();
      else if (k == "max_size") o.max_size = value.cast<double>();
      else if (k == "clutter") o.clutter = value.cast<double>();
      else
        throw ValueError(fmt::format("synthetic shapes: unknown option '{}' (expected train_images, val_images, imgsz, "
                                     "seed, max_objects, min_size, max_size, clutter)", k));
    }
    return o;
  };
  const std::string options_doc = fmt::format(
      "Options (keywords): train_images={}, val_images={}, imgsz={}, seed={}, max_objects={}, min_size={}, "
      "max_size={}, clutter={} (include/adept/vision/synthetic_shapes.h).",
      d.train_images, d.val_images, d.imgsz, d.seed, d.max_objects, d.min_size, d.max_size, d.clutter);
  v.def("synthetic_shapes_names", &vision::synthetic_shapes_names, "The class names of the built-in shapes dataset.");
  v.def("default_synthetic_shapes_root", &vision::default_synthetic_shapes_root,
        "Where the built-in shapes dataset lives ($ADEPT_DATASETS_DIR, $XDG_CACHE_HOME or ~/.cache).");
  v.def(
      "ensure_synthetic_shapes",
      [shapes_options](const py::object& root, const py::kwargs& kw) {
        const std::string r = root.is_none() ? "" : path_arg(root);
        const auto o = shapes_options(kw);
        py::gil_scoped_release nogil;
        return vision::ensure_synthetic_shapes(r, o);
      },
      py::arg("root") = py::none(),
      ("Generates the built-in shapes dataset under root (default: default_synthetic_shapes_root()) unless it is "
       "there and complete; returns the path of its data.yaml. " + options_doc).c_str());
  v.def(
      "synthetic_shapes_image",
      [shapes_options](const std::string& split, int64_t index, const py::kwargs& kw) {
        const vision::LabeledImage li = vision::synthetic_shapes_image(shapes_options(kw), split, index);
        py::dict out;
        out["image"] = li.image;
        out["boxes"] = li.boxes;
        out["cls"] = li.cls;
        return out;
      },
      py::arg("split"), py::arg("index"),
      ("One image of the built-in shapes dataset before JPEG encoding: image (H, W, 3) uint8 BGR, boxes (n, 4) "
       "float32 x1, y1, x2, y2 pixels, cls (n,) float32. " + options_doc).c_str());
}

}  // namespace adept::python
