// The viewer page: one self-contained HTML file (Chart.js, the viewer's script and style, and
// the data inline), so it opens offline from disk.
#pragma once
#include <string>

namespace adept::app::view {

/// The page for `data_json` (view_data_json's document). `live`: the page polls /data.json of the
/// server that sent it every `poll_ms` milliseconds and redraws when the data's version changes;
/// otherwise it draws the inline data only.
std::string viewer_page(const std::string& data_json, bool live, int poll_ms = 2000);

/// Writes `html` to `path` atomically. IOError naming the path when that fails.
void write_page(const std::string& path, const std::string& html);

}  // namespace adept::app::view
