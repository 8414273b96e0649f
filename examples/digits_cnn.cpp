// The digits CNN of examples/digits_cnn.py, written against the C++ API: the same data split,
// model, recipe (SGD with Nesterov momentum and weight decay, cosine schedule, cross-entropy) and
// batch order, so its accuracy can be compared with PyTorch's on the same recipe.
//
// Usage: adept_digits_cnn [--data digits.csv.gz] [--epochs 15] [--min-accuracy A]
// The data is scikit-learn's bundled copy of the UCI digits (1797 rows of 64 pixels 0..16 and a
// label); --min-accuracy makes the exit status 1 when the final test accuracy is below A (CTest).
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "adept/adept.h"
#include "adept/nn.h"
#include "adept/optim.h"

using namespace adept;
namespace F = adept::nn::functional;

namespace {

struct Digits {
  std::vector<float> pixels;  // (N, 64) in [0, 1]
  std::vector<int64_t> labels;
};

Digits load_digits(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw Error("digits_cnn: cannot open " + path);
  std::string text;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
  gzclose(f);
  Digits d;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<double> row;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) row.push_back(std::stod(cell));
    if (row.size() != 65) throw Error("digits_cnn: expected 65 values per row in " + path);
    for (int i = 0; i < 64; ++i) d.pixels.push_back(static_cast<float>(row[i] / 16.0));
    d.labels.push_back(static_cast<int64_t>(row[64]));
  }
  return d;
}

/// Rows `idx` of the data as a (len, 1, 8, 8) image batch and a (len) label tensor.
std::pair<Tensor, Tensor> batch(const Digits& d, const std::vector<int64_t>& idx) {
  const auto n = static_cast<int64_t>(idx.size());
  Tensor x = empty({n, 1, 8, 8});
  Tensor y = empty({n}, TensorOptions(kInt64));
  for (int64_t i = 0; i < n; ++i) {
    std::copy_n(d.pixels.begin() + idx[i] * 64, 64, x.data_ptr<float>() + i * 64);
    y.data_ptr<int64_t>()[i] = d.labels[idx[i]];
  }
  return {x, y};
}

std::shared_ptr<nn::Sequential> build_model() {
  using namespace adept::nn;
  return std::make_shared<Sequential>(std::vector<ModulePtr>{
      std::make_shared<Conv2d>(1, 16, 3, 1, 1), std::make_shared<BatchNorm2d>(16), std::make_shared<ReLU>(),
      std::make_shared<MaxPool2d>(2),
      std::make_shared<Conv2d>(16, 32, 3, 1, 1), std::make_shared<BatchNorm2d>(32), std::make_shared<ReLU>(),
      std::make_shared<MaxPool2d>(2),
      std::make_shared<Flatten>(), std::make_shared<Linear>(32 * 2 * 2, 10)});
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";
  int epochs = 15;
  double min_accuracy = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--data") data = argv[i + 1];
    else if (a == "--epochs") epochs = std::stoi(argv[i + 1]);
    else if (a == "--min-accuracy") min_accuracy = std::stod(argv[i + 1]);
    else { std::fprintf(stderr, "unknown option %s\n", a.c_str()); return 2; }
  }
  const Digits d = load_digits(data);
  // An 80/20 split and per-epoch shuffles from fixed seeds.
  std::vector<int64_t> order(d.labels.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(0);
  std::shuffle(order.begin(), order.end(), rng);
  const size_t n_train = order.size() * 8 / 10;
  std::vector<int64_t> train_idx(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n_train));
  std::vector<int64_t> test_idx(order.begin() + static_cast<std::ptrdiff_t>(n_train), order.end());
  auto [x_test, y_test] = batch(d, test_idx);

  manual_seed(0);
  auto model = build_model();
  optim::SGD opt(model->parameters(), {.lr = 0.05, .momentum = 0.9, .weight_decay = 5e-4, .nesterov = true});
  optim::CosineAnnealingLR sched(opt, epochs);
  const int64_t batch_size = 64;
  double accuracy = 0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    auto t0 = std::chrono::steady_clock::now();
    model->train();
    std::shuffle(train_idx.begin(), train_idx.end(), rng);
    double loss_sum = 0;
    int steps = 0;
    for (size_t i = 0; i < train_idx.size(); i += batch_size) {
      std::vector<int64_t> idx(train_idx.begin() + static_cast<std::ptrdiff_t>(i),
                               train_idx.begin() + static_cast<std::ptrdiff_t>(std::min(i + batch_size, train_idx.size())));
      auto [xb, yb] = batch(d, idx);
      Tensor loss = F::cross_entropy(model->forward(xb), yb);
      opt.zero_grad();
      loss.backward();
      opt.step();
      loss_sum += loss.item<double>();
      ++steps;
    }
    sched.step();
    model->eval();
    {
      NoGradGuard no_grad;
      accuracy = eq(model->forward(x_test).argmax(1), y_test).to(kFloat32).mean().item<double>();
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("epoch %3d  loss %.4f  test accuracy %.4f  (%.2f s)\n", epoch + 1, loss_sum / steps, accuracy, secs);
  }
  std::printf("final test accuracy %.4f\n", accuracy);
  if (min_accuracy >= 0 && accuracy < min_accuracy) {
    std::fprintf(stderr, "test accuracy %.4f is below the required %.4f\n", accuracy, min_accuracy);
    return 1;
  }
  return 0;
}
