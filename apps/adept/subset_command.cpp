// `adept subset`: writes a class-balanced YOLO-format subset of a YOLO or COCO dataset and prints
// the per-class histogram before and after.
#include <memory>

#include <fmt/format.h>

#include "adept/vision/dataset_config.h"
#include "adept/vision/detection_dataset.h"
#include "adept/vision/subset.h"
#include "commands.h"

namespace adept::app {

namespace {

struct SubsetArgs {
  std::string data, split = "train", out;
  vision::SubsetOptions options;
  bool copy = false, overwrite = false;
};

void run_subset(const SubsetArgs& a) {
  const vision::DatasetConfig config = vision::load_dataset_config(a.data);
  const vision::DetectionDataset dataset(config, a.split);
  const vision::SubsetSelection sel = vision::select_balanced_subset(dataset.labels(), config.nc(), a.options);
  vision::write_yolo_subset(dataset.labels(), sel.indices, config.names, a.out, a.split, a.copy, a.overwrite);

  fmt::print("{}", vision::format_histogram(config.names, sel.before, sel.after));
  auto class_list = [&](const std::vector<int64_t>& ks) {
    std::vector<std::string> s;
    for (int64_t k : ks) s.push_back(fmt::format("{} ({})", config.names[k], sel.after.instances[k]));
    return fmt::format("{}", fmt::join(s, ", "));
  };
  if (!sel.below_min.empty())
    fmt::print("{} classes below min_per_class={} (the data has no more): {}\n", sel.below_min.size(),
               a.options.min_per_class, class_list(sel.below_min));
  if (!sel.over_cap.empty())
    fmt::print("{} classes over max_per_class={} (carried by images their minimum needed): {}\n", sel.over_cap.size(),
               a.options.max_per_class, class_list(sel.over_cap));
  fmt::print("wrote {} images ({} backgrounds) of {} to {}\n", sel.after.total_images, sel.after.backgrounds,
             sel.before.total_images, a.out);
}

}  // namespace

void register_subset_command(CLI::App& app) {
  auto args = std::make_shared<SubsetArgs>();
  CLI::App* cmd = app.add_subcommand(
      "subset",
      "Write a class-balanced subset of a detection dataset (YOLO or COCO JSON) in YOLO format: images visited "
      "rarest class first, each taken when it brings a class below min_per_class closer to it or keeps every class "
      "it holds within max_per_class.");
  cmd->footer(
      "Examples (options as key=value or --key value):\n"
      "  adept subset data=coco128.yaml out=coco128-balanced max_per_class=20 min_per_class=2\n"
      "  adept subset --data path/to/coco --split val --out val-subset --max_per_class 100 --copy\n");
  cmd->add_option("--data", args->data, "dataset YAML or folder (YOLO or COCO JSON labels)")
      ->type_name("PATH")
      ->required();
  cmd->add_option("--out", args->out, "output folder (images/<split>, labels/<split>, data.yaml)")
      ->type_name("DIR")
      ->required();
  cmd->add_option("--split", args->split, "split to take the images from")->type_name("SPLIT")->capture_default_str();
  cmd->add_option("--max_per_class,--max-per-class", args->options.max_per_class,
                  "cap on the instances of each class (-1: no cap)")
      ->capture_default_str();
  cmd->add_option("--min_per_class,--min-per-class", args->options.min_per_class,
                  "instances each class should reach where the data has them")
      ->capture_default_str();
  cmd->add_option("--seed", args->options.seed, "seed of the tie-breaking order")->capture_default_str();
  cmd->add_flag("--copy", args->copy, "copy the images instead of hard-linking them");
  cmd->add_flag("--overwrite", args->overwrite, "replace images/<split> and labels/<split> of an existing output");
  cmd->callback([args] { run_subset(*args); });
}

}  // namespace adept::app
