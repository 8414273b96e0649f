// Whether this process is a forked DataLoader worker: a fact about the process that layers below
// data/ need (a GPU backend must refuse to run in a worker), so it lives in core.
#pragma once

namespace adept {

/// True in a DataLoader worker process (set by the worker pool right after fork).
bool in_worker_process();
/// Marks this process as a DataLoader worker (the worker pool calls it in each child).
void mark_worker_process();

}  // namespace adept
