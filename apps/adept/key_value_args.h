// Ultralytics-style `key=value` command-line arguments (`adept train epochs=3`), rewritten into
// the `--key=value` options CLI11 parses.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace adept::app {

/// argv[1..] with every argument of the form `key=value` (key: a letter or '_' followed by
/// letters, digits, '_' or '-'; not starting with '-'; a non-empty value) rewritten to
/// `--key=value`, which CLI11 reads both as an option with a value and as a flag set to a boolean
/// (`copy=True`), and every bare word after argv[1] (the subcommand, which may share a flag's
/// name: `val`) for which `is_flag(word)` holds (Ultralytics' `exist_ok`) to `--word`, so that
/// CLI11 sees all of them in their order. Arguments after a bare `--` are
/// left alone. argv[0] is kept.
std::vector<std::string> rewrite_key_value_args(int argc, const char* const* argv,
                                                const std::function<bool(const std::string&)>& is_flag = {});

}  // namespace adept::app
