// What every mode of the YOLO engine sets up from its options: the dataset (the built-in one by
// default), the data loaders, the device and the run folder.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "adept/data/dataloader.h"
#include "adept/device.h"
#include "adept/models/yolo/config.h"
#include "adept/models/yolo/nms.h"
#include "adept/vision/dataset_config.h"
#include "adept/vision/detection_dataset.h"

namespace adept::models::yolo::detail {

/// Whether `data` names the built-in synthetic shapes dataset ("" or "shapes").
bool is_builtin_data(const std::string& data);

/// The dataset `data` names: the built-in one (generated on first use) or a YAML file / folder.
vision::DatasetConfig resolve_data(const std::string& data);

/// The training defaults of the built-in dataset (image size, epochs, warmup, nominal batch ...),
/// applied to the options the user did not set.
void apply_builtin_defaults(Config& config);

/// Worker processes to use: min(workers, CPUs of this machine), as Ultralytics. ValueError when
/// workers < 0.
int loader_workers(int64_t workers);

/// A loader of detection batches (detection_collate) over `dataset`. With `world_size` > 1 it loads
/// rank `rank`'s share of the order one process would load (padded to a multiple of the ranks and split
/// as DistributedSampler splits; set_epoch reshuffles).
std::unique_ptr<data::DataLoader> make_loader(std::shared_ptr<vision::DetectionDataset> dataset, int64_t batch,
                                              int workers, bool shuffle, uint64_t seed, int world_size = 1,
                                              int rank = 0);

/// The `device` option as a Device on which YOLO11 runs: off the CPU, a small yolo11n forward pass
/// is tried there first, so that a backend still lacking one of the model's ops fails before any
/// data is read or a run folder made. ValueError for an unknown device; NotImplementedForDevice
/// naming `mode`, the device and the missing kernel.
Device yolo_device(const std::string& device, const char* mode);

/// The NMS options of `config` (conf, iou, max_det, agnostic_nms; conf "" -> default_conf) for
/// `mode` ("train", "val" or "predict"). ValueError naming the option for conf or iou outside
/// [0, 1] or max_det < 0.
NmsOptions nms_options(const Config& config, double default_conf, bool multi_label, const char* mode);

/// A new run folder <project>/<name or mode>, numbered (<mode>2, <mode>3 ...) when it exists
/// unless exist_ok; created with its parents. IOError when it cannot be created.
std::string make_run_dir(const Config& config, const std::string& mode);

}  // namespace adept::models::yolo::detail
