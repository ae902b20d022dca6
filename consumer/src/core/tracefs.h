// SPDX-License-Identifier: Apache-2.0
// Locating tracefs and the syscall tracepoints it lists.
#pragma once

#include <string>

#include <optional>
#include <string_view>

#include "core/expected.h"

namespace vtscope {

// The tracefs root ("/sys/kernel/tracing" or the debugfs path); mounts tracefs at
// /sys/kernel/tracing when nothing is mounted and we are allowed to.
Expected<std::string> find_tracefs();
bool syscall_tracepoint_exists(const std::string& tracefs, const std::string& syscall);

}  // namespace vtscope

namespace vtscope {

// The number of arguments a sys_enter tracepoint record carries: the fields after __syscall_nr
// in its format file (tracefs events/syscalls/sys_enter_NAME/format). nullopt when the text is
// not such a format.
std::optional<int> parse_syscall_argument_count(std::string_view format);
std::optional<int> syscall_argument_count(const std::string& tracefs, const std::string& syscall);

}  // namespace vtscope
