// The data a viewer page draws: the metrics CSVs of the runs as one JSON document.
#pragma once
#include <string>
#include <vector>

#include "run_folders.h"

namespace adept::app::view {

/// The runs' metrics as JSON text:
///   {"runs": [{"name": ..., "path": ..., "batches": TABLE or null, "results": TABLE or null,
///              "warnings": [text]}],
///    "version": FINGERPRINT}
/// where TABLE is {"columns": [names], "rows": n, "data": {name: [values]}}, a NaN or infinite
/// value being null. batches comes from batches.csv (one row per batch), results from results.csv
/// (one per epoch). A CSV that cannot be read (empty, unreadable) is null and its reason is one
/// of the run's warnings, next to read_metrics_csv's warnings about damaged lines; every warning
/// is also appended to `*warnings` when given. Raises nothing for a damaged file.
std::string view_data_json(const std::vector<RunFolder>& runs, std::vector<std::string>* warnings = nullptr);

/// A string that changes when a run's CSV files change (their paths, sizes and modification
/// times): the version the server compares to skip unchanged data.
std::string data_fingerprint(const std::vector<RunFolder>& runs);

}  // namespace adept::app::view
