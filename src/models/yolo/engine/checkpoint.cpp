// YOLO11 training checkpoints as safetensors files, and models by scale name or checkpoint.
#include "adept/models/yolo/checkpoint.h"

#include <filesystem>
#include <cstring>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "adept/errors.h"
#include "adept/io/safetensors.h"

namespace adept::models::yolo {

namespace {

constexpr const char* kFormat = "adept.yolo11.checkpoint/1";

void add_prefixed(std::vector<std::pair<std::string, Tensor>>& out, const std::string& prefix, const nn::StateDict& sd) {
  for (const auto& [k, t] : sd) out.emplace_back(prefix + k, t);
}

const std::string& meta(const std::map<std::string, std::string>& m, const std::string& key, const std::string& path) {
  auto it = m.find(key);
  ADEPT_CHECK(it != m.end(), ValueError, "checkpoint {}: metadata '{}' is missing", path, key);
  return it->second;
}

int64_t meta_int(const std::map<std::string, std::string>& m, const std::string& key, const std::string& path) {
  const std::string& s = meta(m, key, path);
  try {
    size_t used = 0;
    const long long v = std::stoll(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  throw ValueError(fmt::format("checkpoint {}: metadata '{}' = '{}' is not an integer", path, key, s));
}

double meta_double(const std::map<std::string, std::string>& m, const std::string& key, const std::string& path) {
  const std::string& s = meta(m, key, path);
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  throw ValueError(fmt::format("checkpoint {}: metadata '{}' = '{}' is not a number", path, key, s));
}

// Exact text of a double (round-trips through stod).
std::string exact(double v) { return fmt::format("{:.17g}", v); }

std::string scale_of(const std::string& spec) {
  std::string s = spec;
  if (s.rfind("yolo11", 0) == 0) s = s.substr(6);
  if (s.size() > 5 && s.substr(s.size() - 5) == ".yaml") s = s.substr(0, s.size() - 5);
  return s;
}

}  // namespace

void save_checkpoint(const TrainCheckpoint& c, const std::string& path) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  add_prefixed(tensors, "model.", c.model);
  add_prefixed(tensors, "ema.", c.ema);
  add_prefixed(tensors, "grad.", c.grads);
  const optim::FlatOptimizerState opt = optim::flatten_state_dict(c.optimizer);
  for (const auto& [k, t] : opt.tensors) tensors.emplace_back("optimizer." + k, t);

  std::map<std::string, std::string> m;
  m["format"] = kFormat;
  m["config"] = c.config.to_json();
  m["names"] = nlohmann::json(c.names).dump();
  m["scale"] = c.scale;
  m["nc"] = std::to_string(c.names.size());
  m["ema_updates"] = std::to_string(c.ema_updates);
  m["optimizer"] = c.optimizer_name;
  m["optimizer_groups"] = opt.json;
  m["scheduler"] = optim::options_to_json(c.scheduler);
  if (!c.grad_scaler.empty()) m["grad_scaler"] = optim::options_to_json(c.grad_scaler);
  m["epoch"] = std::to_string(c.epoch);
  m["batch"] = std::to_string(c.batch);
  m["last_opt_step"] = std::to_string(c.last_opt_step);
  m["best_fitness"] = exact(c.best_fitness);
  m["best_epoch"] = std::to_string(c.best_epoch);
  m["loss_sum"] = nlohmann::json({exact(c.loss_sum[0]), exact(c.loss_sum[1]), exact(c.loss_sum[2])}).dump();
  m["nonfinite_streak"] = std::to_string(c.nonfinite_streak);
  m["world_size"] = std::to_string(c.world_size);
  m["rng_seed"] = std::to_string(c.rng_seed);
  m["rng_offset"] = std::to_string(c.rng_offset);
  io::save_file(tensors, path, m);
}

TrainCheckpoint load_checkpoint(const std::string& path) {
  io::SafetensorsFile f = io::load_file(path);
  const auto& m = f.metadata;
  auto format = m.find("format");
  ADEPT_CHECK(format != m.end() && format->second == kFormat, ValueError,
              "{} is not an Adept YOLO11 checkpoint (metadata 'format' should be '{}')", path, kFormat);
  TrainCheckpoint c;
  c.config = Config::from_json(meta(m, "config", path));
  try {
    c.names = nlohmann::json::parse(meta(m, "names", path)).get<std::vector<std::string>>();
    const auto sums = nlohmann::json::parse(meta(m, "loss_sum", path)).get<std::vector<std::string>>();
    ADEPT_CHECK(sums.size() == 3, ValueError, "checkpoint {}: loss_sum must hold 3 values", path);
    for (int i = 0; i < 3; ++i) c.loss_sum[i] = std::stod(sums[i]);
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(fmt::format("checkpoint {}: malformed metadata ({})", path, e.what()));
  }
  c.scale = meta(m, "scale", path);
  c.ema_updates = meta_int(m, "ema_updates", path);
  c.optimizer_name = meta(m, "optimizer", path);
  c.scheduler = optim::options_from_json(meta(m, "scheduler", path));
  if (auto gs = m.find("grad_scaler"); gs != m.end()) c.grad_scaler = optim::options_from_json(gs->second);
  c.epoch = meta_int(m, "epoch", path);
  c.batch = meta_int(m, "batch", path);
  c.last_opt_step = meta_int(m, "last_opt_step", path);
  c.best_fitness = meta_double(m, "best_fitness", path);
  c.best_epoch = meta_int(m, "best_epoch", path);
  c.nonfinite_streak = meta_int(m, "nonfinite_streak", path);
  c.world_size = m.count("world_size") ? meta_int(m, "world_size", path) : 1;  // older checkpoints: one process
  c.rng_seed = static_cast<uint64_t>(std::stoull(meta(m, "rng_seed", path)));
  c.rng_offset = static_cast<uint64_t>(std::stoull(meta(m, "rng_offset", path)));

  std::vector<std::pair<std::string, Tensor>> opt_tensors;
  for (auto& [name, t] : f.tensors) {
    auto strip = [&](const char* prefix) { return name.rfind(prefix, 0) == 0 ? name.substr(std::strlen(prefix)) : ""; };
    if (name.rfind("model.", 0) == 0) c.model.emplace_back(strip("model."), t);
    else if (name.rfind("ema.", 0) == 0) c.ema.emplace_back(strip("ema."), t);
    else if (name.rfind("grad.", 0) == 0) c.grads.emplace_back(strip("grad."), t);
    else if (name.rfind("optimizer.", 0) == 0) opt_tensors.emplace_back(strip("optimizer."), t);
    else throw ValueError(fmt::format("checkpoint {}: unexpected tensor '{}'", path, name));
  }
  c.optimizer = optim::unflatten_state_dict(opt_tensors, meta(m, "optimizer_groups", path));
  return c;
}

bool is_checkpoint_spec(const std::string& spec) {
  const std::string s = scale_of(spec);
  if (s == "n" || s == "s" || s == "m" || s == "l" || s == "x") return false;
  return std::filesystem::path(spec).extension() == ".safetensors" || std::filesystem::exists(spec);
}

LoadedModel load_model(const std::string& spec, int64_t nc) {
  LoadedModel out;
  if (!is_checkpoint_spec(spec)) {
    const std::string s = scale_of(spec);
    ADEPT_CHECK(s == "n" || s == "s" || s == "m" || s == "l" || s == "x", ValueError,
                "model '{}' is neither a YOLO11 scale (yolo11n, yolo11s, yolo11m, yolo11l, yolo11x) nor an existing "
                "checkpoint file",
                spec);
    if (nc <= 0) nc = 80;
    out.model = std::make_shared<Yolo11>(s, nc);
    for (int64_t k = 0; k < nc; ++k) out.names.push_back(fmt::format("class{}", k));
    return out;
  }
  ADEPT_CHECK(!std::filesystem::is_directory(spec), IOError,
              "model {} is a folder: give a checkpoint file, e.g. {}", spec,
              (std::filesystem::path(spec) / "weights" / "best.safetensors").string());
  ADEPT_CHECK(std::filesystem::is_regular_file(spec), IOError, "model checkpoint {} does not exist", spec);
  TrainCheckpoint c = load_checkpoint(spec);
  out.model = std::make_shared<Yolo11>(c.scale, static_cast<int64_t>(c.names.size()));
  out.model->load_state_dict(c.ema.empty() ? c.model : c.ema);
  out.names = c.names;
  out.checkpoint = spec;
  out.train_config = c.config;
  return out;
}

}  // namespace adept::models::yolo
