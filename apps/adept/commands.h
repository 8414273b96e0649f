// The `adept` tool's subcommands: each lives in its own file and registers itself on the app.
#pragma once
#include <string>

#include <CLI/CLI.hpp>

namespace adept::app {

/// `adept subset`: a class-balanced subset of a detection dataset (subset_command.cpp).
void register_subset_command(CLI::App& app);
/// `adept view`: loss and metric curves of training runs as an interactive page (view_command.cpp).
void register_view_command(CLI::App& app);
/// `adept train | val | predict | summary | export`: YOLO11 (yolo_commands.cpp).
void register_yolo_commands(CLI::App& app);
/// Whether `word` names a bool option of YOLO11's table (`exist_ok`, `save_txt` ...).
bool is_yolo_flag(const std::string& word);

}  // namespace adept::app
