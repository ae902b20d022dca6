// SPDX-License-Identifier: Apache-2.0
#include "output/block_format.h"

#include <cstdio>

#include "core/block_model.h"
#include "output/event_format.h"
#include "output/json_io.h"
#include "sources/jfr_events.h"
#include "sources/syscall_names.h"

namespace vtscope {

// Written field by field rather than through a JSON value: one line per interval, and every
// value here is a number or a name of vtscope's own; the attribution fields are event_format's.
std::string format_block_event(const vtscope_block_event& e, bool open, std::string_view more_fields,
                               std::string_view after_tid) {
    std::string out;
    out.reserve(360);
    char buf[128];
    std::snprintf(buf, sizeof(buf), "{\"ts_ns\":%llu,\"duration_ns\":%llu,\"pid\":%u,\"tid\":%u",
                  static_cast<unsigned long long>(e.ts_ns), static_cast<unsigned long long>(e.duration_ns), e.pid,
                  e.tid);
    out += buf;
    out += after_tid;
    out += ',';
    append_attribution(out, e.attribution);
    out += ",\"block_reason\":\"";
    out += block_reason_name(e.block_reason);
    out += "\",\"syscall\":";
    const char* name = syscall_name(e.syscall_nr);
    if (name) {
        out += '"';
        out += name;  // [a-z0-9_] from asm/unistd_64.h
        out += '"';
    } else {
        out += "null";
    }
    out += open ? ",\"open\":true" : ",\"open\":false";
    out += more_fields;
    out += '}';
    return out;
}

namespace {

// A stack's frames, or null when it has none and an error says why.
nlohmann::ordered_json stack_value(const BlockStack& stack) {
    if (!stack.error.empty() && stack.frames.empty()) return nullptr;
    nlohmann::ordered_json frames = nlohmann::ordered_json::array();
    for (const std::string& frame : stack.frames) frames.push_back(frame);
    if (stack.truncated) frames.push_back("[truncated]");
    return frames;
}

nlohmann::ordered_json error_value(const BlockStack& stack) {
    if (stack.error.empty()) return nullptr;
    return stack.error;
}

// The --jfr fields as members of object (null without a JFR event).
void add_jfr_fields(nlohmann::ordered_json& object, const JfrPinnedEvent* j) {
    if (!j) {
        object["jfr_pinned_reason"] = nullptr;
        object["jfr_blocking_operation"] = nullptr;
        object["jfr_stack"] = nullptr;
        return;
    }
    object["jfr_pinned_reason"] = j->pinned_reason;
    object["jfr_blocking_operation"] = j->blocking_operation;
    object["jfr_stack"] = j->stack;
}

// The members of object as fields to append to a line: ,"key":value...
std::string as_fields(const nlohmann::ordered_json& object) {
    std::string out;
    for (const auto& [key, value] : object.items()) out += "," + json_text(key) + ":" + json_text(value);
    return out;
}

}  // namespace

std::string format_block_stacks(const BlockStack& kernel, const BlockStack& user) {
    nlohmann::ordered_json fields;
    fields["kernel_stack"] = stack_value(kernel);
    fields["kernel_stack_error"] = error_value(kernel);
    fields["user_stack"] = stack_value(user);
    fields["user_stack_error"] = error_value(user);
    return as_fields(fields);
}

std::string format_jfr_fields(const JfrPinnedEvent* jfr) {
    nlohmann::ordered_json fields = nlohmann::ordered_json::object();
    add_jfr_fields(fields, jfr);
    return as_fields(fields);
}

std::string format_jfr_only_line(const JfrPinnedEvent& j, int pid) {
    nlohmann::ordered_json line;
    line["jfr_only"] = true;
    line["ts_ns"] = j.start_ns;
    line["duration_ns"] = j.duration_ns;
    line["pid"] = pid;
    line["vthread"] = j.vthread;
    add_jfr_fields(line, &j);
    return json_text(line);
}

}  // namespace vtscope
