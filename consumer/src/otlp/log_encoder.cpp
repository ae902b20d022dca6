// SPDX-License-Identifier: Apache-2.0
#include "otlp/log_encoder.h"

#include "core/block_model.h"
#include "otlp/otlp_message.h"
#include "output/event_format.h"
#include "sources/syscall_names.h"

namespace vtscope {
namespace {

namespace logs = opentelemetry::proto::logs::v1;

// The fields every log record starts with, its attributes left empty.
void record_head(logs::LogRecord* record, uint64_t ts_ns, int64_t realtime_offset_ns, uint64_t observed_ns,
                 const char* event_name, const std::string& body) {
    record->set_time_unix_nano(static_cast<uint64_t>(static_cast<int64_t>(ts_ns) + realtime_offset_ns));
    record->set_observed_time_unix_nano(observed_ns);
    record->set_severity_number(logs::SEVERITY_NUMBER_INFO);
    record->set_severity_text("INFO");
    record->set_event_name(event_name);
    record->mutable_body()->set_string_value(body);
}

// The attributes every log record starts with: the process, the Java thread when its identity
// is known (thread.id: the semantic conventions' thread identifier; for a Java thread that is
// Thread.threadId()), and the OS thread.
void add_thread_attributes(OtlpKeyValues* attributes, uint32_t pid, uint32_t tid, const vtscope_attribution& a) {
    add_int_attribute(attributes, "process.pid", pid);
    bool identity = a.status == VTSCOPE_STATUS_OK || a.status == VTSCOPE_STATUS_NO_CONTEXT ||
                    (a.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN && a.java_id > 0) ||
                    (a.status == VTSCOPE_STATUS_INVALID && a.java_id > 0);
    if (identity) {
        add_int_attribute(attributes, "thread.id", a.java_id);
        add_bool_attribute(attributes, "vtscope.thread.virtual", a.mounted_virtual);
    }
    add_int_attribute(attributes, "vtscope.os_thread.id", tid);
}

// The attribution status (and its reason), last of the attributes, then the trace context as
// the record's own fields when there is one.
void add_status_and_context(logs::LogRecord* record, const vtscope_attribution& a) {
    add_string_attribute(record->mutable_attributes(), "vtscope.status", status_name(a.status));
    if (const char* reason = reason_name(a.reason))
        add_string_attribute(record->mutable_attributes(), "vtscope.reason", reason);
    if (a.status != VTSCOPE_STATUS_OK) return;
    record->set_trace_id(a.trace_id, sizeof(a.trace_id));
    record->set_span_id(a.span_id, sizeof(a.span_id));
    record->set_flags(a.trace_flags);  // W3C trace flags in the low byte
}

void syscall_record(logs::LogRecord* record, const vtscope_syscall_event& e,
                    const std::vector<std::string>& syscall_names, int64_t realtime_offset_ns, uint64_t observed_ns) {
    static const std::string unknown = "?";
    const std::string& syscall = e.syscall_index < syscall_names.size() ? syscall_names[e.syscall_index] : unknown;
    record_head(record, e.ts_ns, realtime_offset_ns, observed_ns, "vtscope.syscall", syscall);
    OtlpKeyValues* attributes = record->mutable_attributes();
    add_thread_attributes(attributes, e.pid, e.tid, e.attribution);
    add_string_attribute(attributes, "vtscope.syscall", syscall);
    if (e.nargs > 0 && syscall_has_fd(syscall))
        add_int_attribute(attributes, "vtscope.fd", static_cast<int32_t>(static_cast<uint32_t>(e.args[0])));
    if (e.nargs > 2 && syscall_has_count(syscall))
        add_int_attribute(attributes, "vtscope.bytes", static_cast<int64_t>(e.args[2]));
    add_status_and_context(record, e.attribution);
}

void block_record(logs::LogRecord* record, const BlockLogEvent& b, int64_t realtime_offset_ns, uint64_t observed_ns) {
    const vtscope_block_event& e = b.event;
    const char* reason = block_reason_name(e.block_reason);
    const char* syscall = e.block_reason == VTSCOPE_BLOCK_SYSCALL ? syscall_name(e.syscall_nr) : nullptr;
    std::string body = syscall ? std::string(reason) + ":" + syscall : std::string(reason);
    record_head(record, e.ts_ns, realtime_offset_ns, observed_ns, "vtscope.block", body);
    OtlpKeyValues* attributes = record->mutable_attributes();
    add_thread_attributes(attributes, e.pid, e.tid, e.attribution);
    add_string_attribute(attributes, "vtscope.block.reason", reason);
    if (syscall) add_string_attribute(attributes, "vtscope.syscall", syscall);
    add_int_attribute(attributes, "vtscope.block.duration_ns", static_cast<int64_t>(e.duration_ns));
    add_bool_attribute(attributes, "vtscope.block.open", b.open);
    add_status_and_context(record, e.attribution);
}

}  // namespace

opentelemetry::proto::collector::logs::v1::ExportLogsServiceRequest encode_logs_request(
    const std::vector<OtlpAttribute>& resource, std::span<const OtlpLogEvent> events,
    const std::vector<std::string>& syscall_names, int64_t realtime_offset_ns, uint64_t observed_ns) {
    opentelemetry::proto::collector::logs::v1::ExportLogsServiceRequest request;
    logs::ResourceLogs* resource_logs = request.add_resource_logs();
    set_resource(resource_logs->mutable_resource(), resource);
    logs::ScopeLogs* scope_logs = resource_logs->add_scope_logs();
    set_scope(scope_logs->mutable_scope());
    scope_logs->mutable_log_records()->Reserve(static_cast<int>(events.size()));
    for (const OtlpLogEvent& event : events) {
        logs::LogRecord* record = scope_logs->add_log_records();
        if (const auto* syscall = std::get_if<vtscope_syscall_event>(&event))
            syscall_record(record, *syscall, syscall_names, realtime_offset_ns, observed_ns);
        else
            block_record(record, std::get<BlockLogEvent>(event), realtime_offset_ns, observed_ns);
    }
    return request;
}

}  // namespace vtscope
