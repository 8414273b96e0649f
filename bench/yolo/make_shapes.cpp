// Generates a variant of the built-in shapes dataset, for tuning its defaults with `adept train`
// (bench/README.md, "Built-in data"):
//
//   adept_bench_make_shapes ROOT [train_images=N] [val_images=N] [imgsz=N] [seed=N]
//                                [max_objects=N] [min_size=F] [max_size=F] [clutter=F]
//
// prints the path of the data.yaml it wrote (or found complete) under ROOT. Unknown keys and bad
// values exit with status 2 and a message.
#include <cstdio>
#include <string>

#include "adept/errors.h"
#include "adept/vision/synthetic_shapes.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ROOT [key=value ...]\n", argv[0]);
    return 2;
  }
  adept::vision::SyntheticShapesOptions o;
  try {
    for (int i = 2; i < argc; ++i) {
      const std::string arg = argv[i];
      const size_t eq = arg.find('=');
      const std::string key = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
      if (key == "train_images") o.train_images = std::stoll(value);
      else if (key == "val_images") o.val_images = std::stoll(value);
      else if (key == "imgsz") o.imgsz = std::stoi(value);
      else if (key == "seed") o.seed = std::stoull(value);
      else if (key == "max_objects") o.max_objects = std::stoi(value);
      else if (key == "min_size") o.min_size = std::stod(value);
      else if (key == "max_size") o.max_size = std::stod(value);
      else if (key == "clutter") o.clutter = std::stod(value);
      else throw adept::ValueError("unknown option '" + arg + "'");
    }
    std::printf("%s\n", adept::vision::ensure_synthetic_shapes(argv[1], o).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "adept_bench_make_shapes: %s\n", e.what());
    return 2;
  }
  return 0;
}
