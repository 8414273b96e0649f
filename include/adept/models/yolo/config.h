// The options of `adept train | val | predict | summary | export` and of adept.models.YOLO, with Ultralytics' names
// and defaults (ultralytics/cfg/default.yaml, ../shared/docs/yolo11.md section 5.1): one table
// that the command line, the Python API and checkpoints all read.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace adept::models::yolo {

/// One option of the table.
struct OptionSpec {
  enum class Kind { Int, Float, Bool, String };
  /// The modes (`adept` subcommands) an option applies to, as bits of `modes`.
  enum Mode : unsigned { kTrain = 1u, kVal = 2u, kPredict = 4u, kSummary = 8u, kExport = 16u, kAllModes = 31u };
  std::string key;            ///< Ultralytics' name (`epochs`, `imgsz`, `lr0` ...)
  Kind kind;
  std::string default_value;  ///< "" for a string option means "not given" (e.g. `data`, `resume`)
  std::string help;
  unsigned modes = kAllModes;  ///< the modes that read it; `adept <mode>` lists and accepts only its own
  std::string value_name;      ///< a string option's value in --help (PATH, DEVICE ...); "" for the kind's
};

/// Every option, in the order `adept <mode> --help` lists them.
const std::vector<OptionSpec>& option_specs();

/// The confidence threshold of mode `mode` (one OptionSpec::Mode bit) when `conf` is not given:
/// Ultralytics' 0.25 for predict, 0.001 for val and for train's per-epoch validation.
double default_conf(unsigned mode);

/// The mode names of `modes` bits, in table order joined by ", " ("train, val").
std::string mode_names(unsigned modes);

/// The option of `modes` whose name is a near miss of `key` (a typo: edit distance at most a third
/// of its length, at least 1), or "" when none is close.
std::string closest_option(const std::string& key, unsigned modes = OptionSpec::kAllModes);

/// The table entry of `key`, whichever modes it belongs to. ValueError for an unknown key: naming the
/// closest option of `modes` (a typo), else pointing to `adept <mode> --help` of each of `modes` (the
/// command or the YOLO method the options were given to: `adept export --help` for export).
const OptionSpec& find_option(const std::string& key, unsigned modes = OptionSpec::kAllModes);

/// A set of option values: the defaults of option_specs() overridden by what the user gave.
/// Values are kept as strings (as typed on a command line) and checked against the option's kind
/// when set, so a bad value fails before any work starts.
class Config {
 public:
  /// All defaults.
  Config();

  /// Sets `key` from its text. Bool accepts true/false/True/False/1/0/yes/no; Int and Float must
  /// parse completely (Float accepts ints, `1e-3`); an Int also accepts a float text with an
  /// integer value (`3.0`); "" resets an option whose default is "" (such as `conf`). ValueError naming the key, the value and the expected kind, or for an
  /// unknown key (with the closest known key as a suggestion).
  void set(const std::string& key, const std::string& value);
  /// set() for each entry.
  void update(const std::map<std::string, std::string>& values);
  /// Sets `key` only when the user has not set it (is_set false): how a mode or the built-in
  /// dataset supplies its own defaults.
  void set_default(const std::string& key, const std::string& value);

  /// The value as text / parsed. ValueError for an unknown key or a kind mismatch.
  const std::string& str(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;
  bool flag(const std::string& key) const;
  /// Whether the user set `key` (set() or update(), not set_default()).
  bool is_set(const std::string& key) const;

  /// All values by key.
  const std::map<std::string, std::string>& values() const { return values_; }
  /// The table entry of `key`: find_option(key) over every mode.
  const OptionSpec& spec(const std::string& key) const;
  /// The values as a JSON object of strings (stored in checkpoints), and back: from_json() sets
  /// every known key of the object (unknown keys, e.g. from a newer version, are ignored) and
  /// marks them as set. ValueError for malformed JSON.
  std::string to_json() const;
  static Config from_json(const std::string& json);

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, bool> user_set_;
};

}  // namespace adept::models::yolo
