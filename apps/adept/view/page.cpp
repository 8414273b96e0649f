// Fills the viewer's HTML template: its @NAME@ markers become the embedded assets and the data.
#include "page.h"

#include <map>
#include <string_view>

#include <fmt/format.h>

#include "adept/errors.h"
#include "io/atomic_file.h"
#include "view_assets.h"  // generated at build time from viewer.html, viewer.js, viewer.css and Chart.js

namespace adept::app::view {

namespace {

// Inline text must not close the element it sits in: "</" becomes "<\/", which JSON and
// JavaScript strings read as the same two characters.
std::string escape_script_close(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
  }
  return out;
}

}  // namespace

std::string viewer_page(const std::string& data_json, bool live, int poll_ms) {
  const std::map<std::string_view, std::string> values = {
      {"CHART_JS", std::string(kChartJs)},
      {"VIEWER_JS", std::string(kViewerJs)},
      {"VIEWER_CSS", std::string(kViewerCss)},
      {"DATA_JSON", escape_script_close(data_json)},
      {"CONFIG_JSON", fmt::format(R"({{"live": {}, "poll_ms": {}}})", live ? "true" : "false", poll_ms)},
  };
  // One pass over the template: inserted text is never scanned for markers.
  const std::string_view tpl = kViewerHtml;
  std::string out;
  size_t pos = 0, used = 0;
  while (true) {
    const size_t open = tpl.find('@', pos);
    if (open == std::string_view::npos) break;
    const size_t close = tpl.find('@', open + 1);
    if (close == std::string_view::npos) break;
    const auto it = values.find(tpl.substr(open + 1, close - open - 1));
    if (it == values.end()) {  // a lone '@' of the page's text
      out.append(tpl.substr(pos, open + 1 - pos));
      pos = open + 1;
      continue;
    }
    out.append(tpl.substr(pos, open - pos));
    out += it->second;
    pos = close + 1;
    ++used;
  }
  out.append(tpl.substr(pos));
  ADEPT_CHECK(used == values.size(), Error, "view: the page template has {} of its {} markers", used, values.size());
  return out;
}

void write_page(const std::string& path, const std::string& html) {
  io::AtomicFile file(path);
  file.write(html.data(), html.size());
  file.commit();
}

}  // namespace adept::app::view
