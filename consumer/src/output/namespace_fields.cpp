// SPDX-License-Identifier: Apache-2.0
#include "output/namespace_fields.h"

#include <charconv>

namespace vtscope {

void NamespaceFields::append(std::string& out, uint32_t tid) {
    if (!enabled()) return;
    char buffer[24];
    out += ",\"ns_pid\":";
    out.append(buffer, std::to_chars(buffer, buffer + sizeof(buffer), ns_pid_).ptr);
    out += ",\"ns_tid\":";
    if (auto ns_tid = tids_.ns_tid(static_cast<pid_t>(tid)))
        out.append(buffer, std::to_chars(buffer, buffer + sizeof(buffer), *ns_tid).ptr);
    else
        out += "null";
}

}  // namespace vtscope
