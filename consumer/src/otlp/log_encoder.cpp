// SPDX-License-Identifier: Apache-2.0
#include "otlp/log_encoder.h"

#include "core/block_model.h"
#include "otlp/otlp_json.h"
#include "output/event_format.h"
#include "output/json_io.h"
#include "sources/syscall_names.h"

namespace vtscope {
namespace {

using nlohmann::ordered_json;

// The fields every log record starts with, its attributes left empty.
ordered_json record_head(uint64_t ts_ns, int64_t realtime_offset_ns, const std::string& observed,
                         const char* event_name, const std::string& body) {
    ordered_json record;
    record["timeUnixNano"] = std::to_string(static_cast<uint64_t>(static_cast<int64_t>(ts_ns) + realtime_offset_ns));
    record["observedTimeUnixNano"] = observed;
    record["severityNumber"] = 9;
    record["severityText"] = "INFO";
    record["eventName"] = event_name;
    record["body"] = {{"stringValue", body}};
    record["attributes"] = ordered_json::array();
    return record;
}

// The attributes every log record starts with: the process, the Java thread when its identity
// is known (thread.id: the semantic conventions' thread identifier; for a Java thread that is
// Thread.threadId()), and the OS thread.
void add_thread_attributes(ordered_json& attributes, uint32_t pid, uint32_t tid, const vtscope_attribution& a) {
    attributes.push_back(int_attribute("process.pid", pid));
    bool identity = a.status == VTSCOPE_STATUS_OK || a.status == VTSCOPE_STATUS_NO_CONTEXT ||
                    (a.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN && a.java_id > 0) ||
                    (a.status == VTSCOPE_STATUS_INVALID && a.java_id > 0);
    if (identity) {
        attributes.push_back(int_attribute("thread.id", a.java_id));
        attributes.push_back(bool_attribute("vtscope.thread.virtual", a.mounted_virtual));
    }
    attributes.push_back(int_attribute("vtscope.os_thread.id", tid));
}

// The attribution status (and its reason), last of the attributes, then the trace context as
// the record's own fields when there is one.
void add_status_and_context(ordered_json& record, const vtscope_attribution& a) {
    record["attributes"].push_back(string_attribute("vtscope.status", status_name(a.status)));
    if (const char* reason = reason_name(a.reason))
        record["attributes"].push_back(string_attribute("vtscope.reason", reason));
    if (a.status != VTSCOPE_STATUS_OK) return;
    record["traceId"] = hex_string(a.trace_id, sizeof(a.trace_id));
    record["spanId"] = hex_string(a.span_id, sizeof(a.span_id));
    record["flags"] = a.trace_flags;  // W3C trace flags in the low byte
}

ordered_json syscall_record(const vtscope_syscall_event& e, const std::vector<std::string>& syscall_names,
                            int64_t realtime_offset_ns, const std::string& observed) {
    static const std::string unknown = "?";
    const std::string& syscall = e.syscall_index < syscall_names.size() ? syscall_names[e.syscall_index] : unknown;
    ordered_json record = record_head(e.ts_ns, realtime_offset_ns, observed, "vtscope.syscall", syscall);
    ordered_json& attributes = record["attributes"];
    add_thread_attributes(attributes, e.pid, e.tid, e.attribution);
    attributes.push_back(string_attribute("vtscope.syscall", syscall));
    if (e.nargs > 0 && syscall_has_fd(syscall))
        attributes.push_back(int_attribute("vtscope.fd", static_cast<int32_t>(static_cast<uint32_t>(e.args[0]))));
    if (e.nargs > 2 && syscall_has_count(syscall))
        attributes.push_back(int_attribute("vtscope.bytes", static_cast<int64_t>(e.args[2])));
    add_status_and_context(record, e.attribution);
    return record;
}

ordered_json block_record(const BlockLogEvent& b, int64_t realtime_offset_ns, const std::string& observed) {
    const vtscope_block_event& e = b.event;
    const char* reason = block_reason_name(e.block_reason);
    const char* syscall = e.block_reason == VTSCOPE_BLOCK_SYSCALL ? syscall_name(e.syscall_nr) : nullptr;
    std::string body = syscall ? std::string(reason) + ":" + syscall : std::string(reason);
    ordered_json record = record_head(e.ts_ns, realtime_offset_ns, observed, "vtscope.block", body);
    ordered_json& attributes = record["attributes"];
    add_thread_attributes(attributes, e.pid, e.tid, e.attribution);
    attributes.push_back(string_attribute("vtscope.block.reason", reason));
    if (syscall) attributes.push_back(string_attribute("vtscope.syscall", syscall));
    attributes.push_back(int_attribute("vtscope.block.duration_ns", static_cast<int64_t>(e.duration_ns)));
    attributes.push_back(bool_attribute("vtscope.block.open", b.open));
    add_status_and_context(record, e.attribution);
    return record;
}

}  // namespace

std::string encode_logs_request(const std::vector<OtlpAttribute>& resource, std::span<const OtlpLogEvent> events,
                                const std::vector<std::string>& syscall_names, int64_t realtime_offset_ns,
                                uint64_t observed_ns) {
    const std::string observed = std::to_string(observed_ns);
    ordered_json records = ordered_json::array();
    for (const OtlpLogEvent& event : events) {
        if (const auto* syscall = std::get_if<vtscope_syscall_event>(&event))
            records.push_back(syscall_record(*syscall, syscall_names, realtime_offset_ns, observed));
        else
            records.push_back(block_record(std::get<BlockLogEvent>(event), realtime_offset_ns, observed));
    }
    return json_text(export_request("Logs", resource, "logRecords", std::move(records)));
}

}  // namespace vtscope
