// SPDX-License-Identifier: Apache-2.0
// Events as JSON lines: the attribution fields every sink shares, and `vtscope trace`'s line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "../../bpf/syscalls.h"

namespace vtscope {

using OrderedJson = nlohmann::ordered_json;

const char* status_name(unsigned status);
const char* reason_name(unsigned reason);
bool syscall_has_fd(std::string_view name);                    // the first argument is a file descriptor
bool syscall_has_count(std::string_view name);                 // the third argument is a byte count
std::string hex_string(const unsigned char* bytes, size_t n);  // lowercase, two digits a byte

// Adds the attribution fields of an event ("vthread" ... "reason") to j: every sink that writes
// JSON lines writes them the same way.
void add_attribution(OrderedJson& j, const vtscope_attribution& attribution);
// The same fields as JSON text without braces, appended to out.
void append_attribution(std::string& out, const vtscope_attribution& attribution);
// One line of `vtscope trace` as a JSON object.
OrderedJson syscall_event_json(const vtscope_syscall_event& event, std::string_view syscall);
// One line of `vtscope trace`, appended to out (no newline); after_tid: fields written after
// "tid" (",\"ns_pid\":..", output/namespace_fields.h).
void append_syscall_event(std::string& out, const vtscope_syscall_event& event, std::string_view syscall,
                          std::string_view after_tid = {});
// The same as a new string.
std::string format_syscall_event(const vtscope_syscall_event& event, std::string_view syscall);

}  // namespace vtscope
