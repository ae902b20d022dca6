// SPDX-License-Identifier: Apache-2.0
// /proc/PID/cgroup text: parse_container_id (the cgroup path's components are named by whoever
// made the cgroups, a container itself under delegation). What it returns must be 64 lowercase
// hex digits, found in the text.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "process/container_id.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto id = vtscope::parse_container_id(text);
    if (!id) return 0;
    if (id->size() != 64 || text.find(*id) == std::string_view::npos) std::abort();
    for (char c : *id)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) std::abort();
    return 0;
}
