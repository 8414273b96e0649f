// key=value -> --key=value argument rewriting for the `adept` tool.
#include "key_value_args.h"

#include <cctype>

namespace adept::app {

namespace {
bool is_key(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}
}  // namespace

std::vector<std::string> rewrite_key_value_args(int argc, const char* const* argv,
                                                const std::function<bool(const std::string&)>& is_flag) {
  std::vector<std::string> out;
  bool literal = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i == 0 || literal) {
      out.push_back(std::move(a));
      continue;
    }
    if (a == "--") literal = true;
    const size_t eq = a.find('=');
    // `key=` (no value) stays as it is: as `--key=` CLI11 would take the next argument as its value.
    if (eq != std::string::npos && eq + 1 < a.size() && is_key(a.substr(0, eq))) a = "--" + a;
    else if (i >= 2 && eq == std::string::npos && is_flag && is_key(a) && is_flag(a)) a = "--" + a;
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace adept::app
