// The process-wide worker flag.
#include "core/worker_process.h"

namespace adept {
namespace {
bool g_in_worker = false;
}  // namespace

bool in_worker_process() { return g_in_worker; }
void mark_worker_process() { g_in_worker = true; }

}  // namespace adept
