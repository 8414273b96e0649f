// The viewer's local web server (`adept view --serve`): the live page and its data while runs train.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "run_folders.h"

namespace adept::app::view {

struct ServeOptions {
  std::string host = "127.0.0.1";  ///< localhost only
  int port = 6006;                 ///< 0: any free port
  int poll_ms = 2000;              ///< how often the page asks for new data
};

/// Serves, until the process is stopped:
///   GET /           the viewer page with the data of now, polling /data.json
///   GET /data.json  view_data_json of the runs `find_runs` returns at each request (a folder of
///                   runs shows runs that start later), with the data's version as ETag; a request
///                   whose If-None-Match is that version gets 304 without the data being read
/// A request that fails (a folder removed, a damaged CSV) gets 500 and the error's message.
/// Prints the address once listening. IOError when the port cannot be bound.
void serve(const std::function<std::vector<RunFolder>()>& find_runs, const ServeOptions& options);

}  // namespace adept::app::view
