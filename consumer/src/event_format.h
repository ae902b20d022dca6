// One trace event as a JSON line (the format of `vtscope trace`).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "../bpf/trace_event.h"

namespace vtscope {

const char* status_name(unsigned status);
const char* reason_name(unsigned reason);
bool syscall_has_fd(std::string_view name);     // the first argument is a file descriptor
bool syscall_has_count(std::string_view name);  // the third argument is a byte count
std::string hex_string(const unsigned char* bytes, size_t n);  // lowercase, two digits a byte

std::string format_event(const vtscope_event& event, std::string_view syscall);

}  // namespace vtscope
