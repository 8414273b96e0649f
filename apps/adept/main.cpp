// The `adept` command-line tool: registers the subcommands and turns errors into messages.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "adept/distributed.h"
#include "adept/errors.h"
#include "adept/vulkan.h"
#include "commands.h"
#include "key_value_args.h"

int main(int argc, char** argv) {
  // OpenMP threads that spin while they wait steal the cores from the data-loader worker processes
  // (5x slower training steps measured on a busy 2-core machine), so the tool runs with a passive
  // wait policy unless the user chose one. The OpenMP runtime reads it when it loads, before
  // main(): set it and restart the program once.
  if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT")) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    execv("/proc/self/exe", argv);  // returns only on failure: continue with the active policy
  }
  CLI::App app{"Adept: deep-learning tools (arguments as --key value or Ultralytics-style key=value)", "adept"};
  app.require_subcommand(1);
  adept::app::register_yolo_commands(app);
  adept::app::register_subset_command(app);
  adept::app::register_view_command(app);

  const std::vector<std::string> args = adept::app::rewrite_key_value_args(argc, argv, adept::app::is_yolo_flag);
  // A first word that is no subcommand: CLI11 would only say that a subcommand is required.
  std::string names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (args.size() > 1 && sub->check_name(args[1]));
  }
  if (args.size() > 1 && !args[1].empty() && args[1][0] != '-' && !known) {
    std::fprintf(stderr, "adept: error: unknown command '%s'; the commands are %s (adept --help)\n", args[1].c_str(),
                 names.c_str());
    return 1;
  }
  std::vector<const char*> cargs;
  for (const std::string& a : args) cargs.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::ParseError& e) {
    adept::distributed::destroy_process_group();  // e.g. an interrupted data-parallel run: exit 130 together
    return app.exit(e);
  } catch (const std::exception& e) {
#ifdef ADEPT_WITH_VULKAN
    adept::vulkan_wait_idle();  // no driver exit handlers under work still in flight
#endif
    // In a data-parallel run the other ranks may wait for this one in a collective: end them all.
    if (adept::distributed::is_initialized()) {
      adept::distributed::abort(1, "adept: error on rank " + std::to_string(adept::distributed::get_rank()) + ": " +
                                       e.what() + " (aborting every rank of the job)");
    }
    std::fprintf(stderr, "adept: error: %s\n", e.what());
    return 1;
  }
  adept::distributed::destroy_process_group();  // a data-parallel run's ranks finish together
  return 0;
}
