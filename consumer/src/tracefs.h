// Locating tracefs and the syscall tracepoints it lists.
#pragma once

#include <string>

#include "expected.h"

namespace vtscope {

// The tracefs root ("/sys/kernel/tracing" or the debugfs path); mounts tracefs at
// /sys/kernel/tracing when nothing is mounted and we are allowed to.
Expected<std::string> find_tracefs();
bool syscall_tracepoint_exists(const std::string& tracefs, const std::string& syscall);

}  // namespace vtscope
