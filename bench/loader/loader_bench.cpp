// DataLoader throughput on a detection dataset: images per second decoded + augmented (mosaic,
// affine, HSV, flip) + collated, for several numbers of worker processes. Writes JSON.
//   adept_bench_loader <data dir or yaml> [--imgsz 640] [--batch 16] [--passes 3] [--workers 0,1,2] [--out f.json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "adept/data.h"
#include "adept/vision/detection_collate.h"
#include "adept/vision/detection_dataset.h"

using namespace adept;

namespace {
constexpr const char* kUsage =
    "usage: adept_bench_loader <data dir or yaml> [--imgsz N] [--batch N] [--passes N] [--workers a,b] [--out F]\n";

int run(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cerr << kUsage;
    return 2;
  }
  std::string data = argv[1], out, workers_arg = "0,1,2";
  int imgsz = 640, batch = 16, passes = 3;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--imgsz") imgsz = std::stoi(v);
    else if (k == "--batch") batch = std::stoi(v);
    else if (k == "--passes") passes = std::stoi(v);
    else if (k == "--workers") workers_arg = v;
    else if (k == "--out") out = v;
  }
  vision::DetectionDatasetOptions dopt;
  dopt.imgsz = imgsz;
  dopt.augment = true;
  auto ds = std::make_shared<vision::DetectionDataset>(data, "train", dopt);
  nlohmann::json result = {{"benchmark", "data_loader"}, {"data", data}, {"images", ds->size()},
                           {"imgsz", imgsz}, {"batch", batch}, {"cores", std::thread::hardware_concurrency()},
                           {"augment", "mosaic+affine+hsv+fliplr (YOLO11 defaults)"}, {"runs", nlohmann::json::array()}};
  std::stringstream ss(workers_arg);
  for (std::string w; std::getline(ss, w, ',');) {
    data::DataLoaderOptions o;
    o.batch_size = batch;
    o.shuffle = true;
    o.seed = 0;
    o.num_workers = std::stoi(w);
    o.persistent_workers = o.num_workers > 0;
    o.collate_fn = vision::detection_collate;
    data::DataLoader loader(ds, o);
    std::vector<double> secs;
    int64_t images = 0;
    for (int p = 0; p < passes; ++p) {
      auto t0 = std::chrono::steady_clock::now();
      images = 0;
      for (data::Batch& b : loader) images += b.at("img").size(0);
      secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    // The first pass includes forking the workers; later passes are the steady state.
    double best = *std::min_element(secs.begin() + (passes > 1 ? 1 : 0), secs.end());
    nlohmann::json run = {{"num_workers", o.num_workers}, {"pass_seconds", secs},
                          {"images_per_second", images / best}, {"first_pass_images_per_second", images / secs[0]}};
    std::cout << run.dump() << std::endl;
    result["runs"].push_back(run);
  }
  if (!out.empty()) std::ofstream(out) << result.dump(2) << "\n";
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // bad numbers, a missing dataset, a negative worker count ...
    std::cerr << "adept_bench_loader: " << e.what() << "\n" << kUsage;
    return 2;
  }
}
