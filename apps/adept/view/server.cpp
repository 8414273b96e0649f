// `adept view --serve` on cpp-httplib.
#include "server.h"

#include <cstdio>
#include <exception>

#include <fmt/format.h>
#include <httplib.h>

#include "adept/errors.h"
#include "page.h"
#include "run_folders.h"
#include "view_data.h"

namespace adept::app::view {

namespace {

void send_error(httplib::Response& res, const std::exception& e) {
  res.status = 500;
  res.set_content(e.what(), "text/plain; charset=utf-8");
}

}  // namespace

void serve(const std::function<std::vector<RunFolder>()>& find_runs, const ServeOptions& options) {
  httplib::Server server;
  // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a second server on the
  // same port would bind too and share its requests.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server.Get("/", [&](const httplib::Request&, httplib::Response& res) {
    try {
      res.set_content(viewer_page(view_data_json(find_runs()), true, options.poll_ms), "text/html; charset=utf-8");
      res.set_header("Cache-Control", "no-store");
    } catch (const std::exception& e) {
      send_error(res, e);
    }
  });
  server.Get("/data.json", [&](const httplib::Request& req, httplib::Response& res) {
    try {
      const std::vector<RunFolder> runs = find_runs();
      const std::string etag = fmt::format("\"{}\"", data_fingerprint(runs));
      res.set_header("ETag", etag);
      res.set_header("Cache-Control", "no-cache");
      if (req.get_header_value("If-None-Match") == etag) {
        res.status = 304;
        return;
      }
      res.set_content(view_data_json(runs), "application/json");
    } catch (const std::exception& e) {
      send_error(res, e);
    }
  });
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
    ADEPT_CHECK(port > 0, IOError, "view: cannot listen on {}: no free port", options.host);
  } else {
    ADEPT_CHECK(server.bind_to_port(options.host, port), IOError,
                "view: cannot listen on {}:{} (in use? choose another with --port, or --port 0 for any free one)",
                options.host, port);
  }
  fmt::print("serving http://{}:{}/ (Ctrl-C stops)\n", options.host, port);
  std::fflush(stdout);
  server.listen_after_bind();
}

}  // namespace adept::app::view
