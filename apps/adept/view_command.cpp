// `adept view`: the loss and metric curves of training runs as an interactive page (Chart.js),
// written as one self-contained HTML file or served on localhost with live refresh.
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adept/errors.h"
#include "commands.h"
#include "view/page.h"
#include "view/run_folders.h"
#include "view/server.h"
#include "view/view_data.h"

namespace adept::app {

namespace {

struct ViewArgs {
  std::vector<std::string> folders;
  std::string out;
  bool serve = false;
  view::ServeOptions server;
};

void run_view(const ViewArgs& a) {
  ADEPT_CHECK(!a.folders.empty(), ValueError,
              "view: give one or more run folders, e.g. `adept view runs/detect/train` (see adept view --help)");
  const std::vector<view::RunFolder> runs = view::find_run_folders(a.folders);
  if (!a.serve || !a.out.empty()) {
    const std::string out = a.out.empty() ? (std::filesystem::path(runs.front().path) / "view.html").string() : a.out;
    std::vector<std::string> warnings;
    const std::string data = view::view_data_json(runs, &warnings);
    for (const std::string& w : warnings) fmt::print(stderr, "adept view: warning: {}\n", w);
    view::write_page(out, view::viewer_page(data, false));
    std::vector<std::string> names;
    for (const view::RunFolder& r : runs) names.push_back(r.name);
    fmt::print("{} run{} ({}): wrote {}\n", runs.size(), runs.size() == 1 ? "" : "s", fmt::join(names, ", "), out);
  }
  if (a.serve) {
    const std::vector<std::string> folders = a.folders;
    view::serve([folders] { return view::find_run_folders(folders); }, a.server);
  }
}

}  // namespace

void register_view_command(CLI::App& app) {
  auto args = std::make_shared<ViewArgs>();
  CLI::App* cmd = app.add_subcommand(
      "view",
      "Plot the loss and metric curves of training runs (batches.csv per batch, results.csv per epoch) on an "
      "interactive page: runs overlaid, smoothing, epoch boundaries, log scale, zoom by dragging a range. Writes one "
      "self-contained HTML file that opens offline, or with --serve serves the page on localhost, redrawing as the "
      "runs train.\n"
      "A folder is a run when it holds batches.csv or results.csv; otherwise the runs in its subfolders (two "
      "levels down) are shown.\n"
      "Examples:\n"
      "  adept view runs/detect/train                      writes runs/detect/train/view.html\n"
      "  adept view runs/detect --serve                    every run of runs/detect, live at http://127.0.0.1:6006/\n"
      "  adept view runs/detect/a runs/detect/b --out cmp.html");
  cmd->add_option("folders", args->folders, "run folders, or folders of runs (one or more)");
  cmd->add_option("--out", args->out,
                  "the HTML file to write (default: view.html in the first run's folder; with --serve, only written "
                  "when given)");
  cmd->add_flag("--serve", args->serve, "serve the page on localhost and refresh it while the runs train");
  cmd->add_option("--port", args->server.port, "the port of --serve (0: any free port)")->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--poll_ms,--poll-ms", args->server.poll_ms, "how often the served page checks for new data (ms)")
      ->capture_default_str()
      ->check(CLI::Range(100, 3600000));
  cmd->callback([args] { run_view(*args); });
}

}  // namespace adept::app
