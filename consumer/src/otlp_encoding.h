// OTLP/HTTP with the JSON encoding (the protobuf JSON mapping of the OTLP protos: trace and span
// ids as hex, 64-bit integers as strings): where to send (the endpoint rules of --otlp and the
// OTEL_EXPORTER_OTLP_* variables), the resource (--service, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES) and the request bodies of `vtscope trace`'s logs and `vtscope stat`'s
// metrics. Pure functions: unit-tested without a Collector (otlp_encoding_test.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../bpf/syscalls.h"
#include "expected.h"

namespace vtscope {

// Looks up an environment variable; nullptr when unset (getenv in the product, a map in tests).
using EnvLookup = std::function<const char*(const char*)>;

struct OtlpEndpoints {
    std::string logs;     // full URL of the logs signal (BASE/v1/logs)
    std::string metrics;  // BASE/v1/metrics
};

// The endpoints from --otlp (a base URL: http[s]://HOST[:PORT][/PATH], scheme http and port 4318
// when left out), else from OTEL_EXPORTER_OTLP_LOGS_ENDPOINT / _METRICS_ENDPOINT (used as given)
// and OTEL_EXPORTER_OTLP_ENDPOINT (a base URL). nullopt: no export asked for.
Expected<std::optional<OtlpEndpoints>> resolve_otlp_endpoints(const std::string& option, const EnvLookup& env);
// A base URL made complete: scheme, default port, no trailing slash.
Expected<std::string> normalize_otlp_base(const std::string& url);

struct OtlpAttribute {
    enum class Kind { kString, kInt, kBool };
    std::string key;
    Kind kind = Kind::kString;
    std::string text;
    int64_t number = 0;
    bool flag = false;
    static OtlpAttribute string(std::string key, std::string value);
    static OtlpAttribute integer(std::string key, int64_t value);
    static OtlpAttribute boolean(std::string key, bool value);
};

// OTEL_RESOURCE_ATTRIBUTES: key=value pairs, comma-separated, values percent-decoded.
Expected<std::vector<OtlpAttribute>> parse_resource_attributes(const std::string& text);

// The resource of every export: service.name (--service, else OTEL_SERVICE_NAME, else
// service.name in OTEL_RESOURCE_ATTRIBUTES, else "unknown_service"), process.pid (the target),
// host.name, service.instance.id (instance_id unless OTEL_RESOURCE_ATTRIBUTES names one) and
// the other OTEL_RESOURCE_ATTRIBUTES pairs.
Expected<std::vector<OtlpAttribute>> make_resource(const std::string& service_option, const EnvLookup& env, int64_t pid,
                                                   const std::string& host_name, const std::string& instance_id);
// A random UUID (version 4) for service.instance.id.
std::string random_uuid();

// Appends {"key":..,"value":{..}}.
void append_attribute(std::string& out, const OtlpAttribute& attribute);

// ExportLogsServiceRequest: one log record per event. Event times are CLOCK_MONOTONIC; adding
// realtime_offset_ns gives Unix time. observed_ns is the Unix time of the export.
std::string encode_logs_request(const std::vector<OtlpAttribute>& resource,
                                std::span<const vtscope_syscall_event> events,
                                const std::vector<std::string>& syscall_names, int64_t realtime_offset_ns,
                                uint64_t observed_ns);

// One cumulative point of `vtscope stat`'s sums: calls (and bytes, for read/write-like calls)
// per syscall and status since start.
struct SyscallTotals {
    std::string syscall;
    std::string status;
    uint64_t calls = 0;
    std::optional<uint64_t> bytes;
};
// ExportMetricsServiceRequest: vtscope.syscall.calls and vtscope.syscall.bytes, cumulative
// monotonic sums over [start_ns, now_ns] (Unix times), attributes vtscope.syscall and
// vtscope.status only (bounded: trace ids are never labels).
std::string encode_metrics_request(const std::vector<OtlpAttribute>& resource, std::span<const SyscallTotals> points,
                                   uint64_t start_ns, uint64_t now_ns);

// partialSuccess.rejectedLogRecords / rejectedDataPoints of a response body (0 when absent).
uint64_t rejected_in_response(const std::string& body);

}  // namespace vtscope
