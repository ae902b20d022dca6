// SPDX-License-Identifier: Apache-2.0
// OTLP/HTTP with the JSON encoding (the protobuf JSON mapping of the OTLP protos: trace and span
// ids as hex, 64-bit integers as strings): where to send (the endpoint rules of --otlp and the
// OTEL_EXPORTER_OTLP_* variables), the resource (--service, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES) and the request bodies: the logs of `vtscope trace` (syscall entries)
// and `vtscope block` (blocking intervals), and the metrics (sums and histograms with exemplars)
// of stat, block and profile. Pure functions: unit-tested without a Collector
// (otlp_encoding_test.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "../../bpf/block.h"
#include "../../bpf/syscalls.h"
#include "core/expected.h"

namespace vtscope {

// Looks up an environment variable; nullptr when unset (getenv in the product, a map in tests).
using EnvLookup = std::function<const char*(const char*)>;

struct OtlpEndpoints {
    std::string logs;      // full URL of the logs signal (BASE/v1/logs)
    std::string metrics;   // BASE/v1/metrics
    std::string profiles;  // BASE/v1development/profiles (the otlp receiver's path for it)
};

// The endpoints from --otlp (a base URL: http[s]://HOST[:PORT][/PATH], scheme http and port 4318
// when left out), else from OTEL_EXPORTER_OTLP_LOGS_ENDPOINT / _METRICS_ENDPOINT /
// _PROFILES_ENDPOINT (used as given) and OTEL_EXPORTER_OTLP_ENDPOINT (a base URL). nullopt: no
// export asked for.
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

// The resource of every export. service.name: --service, else the target's process context
// (OTEP 4719: the resource its own SDK reports its telemetry under), else OTEL_SERVICE_NAME,
// else service.name in OTEL_RESOURCE_ATTRIBUTES, else "unknown_service". service.instance.id and
// host.name: the process context's, else OTEL_RESOURCE_ATTRIBUTES', else instance_id and
// host_name. process.pid: the target. Then the process context's other attributes, and those
// of OTEL_RESOURCE_ATTRIBUTES it does not name. Why the application's own resource comes before
// vtscope's environment: README, "The resource".
// *source (optional) says which of them gave service.name.
enum class ServiceNameSource { kOption, kProcessContext, kServiceNameVariable, kResourceAttributes, kDefault };
Expected<std::vector<OtlpAttribute>> make_resource(const std::string& service_option, const EnvLookup& env, int64_t pid,
                                                   const std::string& host_name, const std::string& instance_id,
                                                   const std::vector<OtlpAttribute>& process_context = {},
                                                   ServiceNameSource* source = nullptr);
// The name of a source in --summary-json: "service_option", "process_context",
// "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "default".
const char* service_name_source_name(ServiceNameSource source);
// The one stderr line for a service.name that does not come from --service or the target (its
// source is vtscope's own environment, or the default unknown_service): where it came from, why
// the target gave none (why_not_target: "the target publishes no process context", ...) and how
// to give one. Empty for the other sources.
std::string service_name_fallback_line(ServiceNameSource source, const std::string& service,
                                       const std::string& why_not_target);
// A random UUID (version 4) for service.instance.id.
std::string random_uuid();

// Appends {"key":..,"value":{..}}.
void append_attribute(std::string& out, const OtlpAttribute& attribute);

// A blocking interval of `vtscope block` (open: still open when the session ended).
struct BlockLogEvent {
    vtscope_block_event event;
    bool open = false;
};
// What one log record is made of.
using OtlpLogEvent = std::variant<vtscope_syscall_event, BlockLogEvent>;

// ExportLogsServiceRequest: one log record per event. Event times are CLOCK_MONOTONIC; adding
// realtime_offset_ns gives Unix time. observed_ns is the Unix time of the export. syscall_names:
// the names of a syscall event's syscall_index (--syscalls).
std::string encode_logs_request(const std::vector<OtlpAttribute>& resource, std::span<const OtlpLogEvent> events,
                                const std::vector<std::string>& syscall_names, int64_t realtime_offset_ns,
                                uint64_t observed_ns);

using TraceId = std::array<uint8_t, 16>;
using SpanId = std::array<uint8_t, 8>;

// A measurement of a metric point, with the trace context it was taken in: how a backend goes
// from a metric to the traces behind it without trace ids as labels (which would make every
// trace its own time series).
struct OtlpExemplar {
    uint64_t time_unix_ns = 0;
    double value = 0;
    TraceId trace_id{};
    std::optional<SpanId> span_id;  // stat's kernel table keeps no span id
};

// Exemplars per sum point and export at most: a few trace contexts are enough to go from a point
// to its traces, and the request stays bounded (points x 4) however many traces there are.
constexpr size_t kExemplarsPerPoint = 4;
// CLOCK_REALTIME in ns: the time of an exemplar or a point.
uint64_t unix_now_ns();

// The exemplars of one sum point between two exports: the k trace contexts that added most to
// it (the sum's measurements are counts in the kernel, so the value of an exemplar is what one
// trace context added since the last export, at the time of that drain).
class ExemplarReservoir {
public:
    void add(const TraceId& trace, const std::optional<SpanId>& span, double value, uint64_t time_unix_ns);
    // The k largest, largest first; the reservoir is empty afterwards.
    std::vector<OtlpExemplar> take(size_t k);
    bool empty() const { return by_context_.empty(); }

private:
    std::map<std::pair<TraceId, SpanId>, OtlpExemplar> by_context_;
};

// One point of a metric: a sum (as_int, or as_double when the metric is not an integer) or a
// histogram (count, sum, bucket_counts: one more than the metric's bounds).
struct OtlpDataPoint {
    std::vector<OtlpAttribute> attributes;
    uint64_t as_int = 0;
    double as_double = 0;
    uint64_t count = 0;
    double sum = 0;
    std::vector<uint64_t> bucket_counts;
    std::vector<OtlpExemplar> exemplars;
};

// A cumulative metric over the session: a monotonic sum (integer or not) or an explicit-bucket
// histogram.
struct OtlpMetric {
    enum class Kind { kIntSum, kDoubleSum, kHistogram };
    OtlpMetric(std::string name_, std::string unit_, std::string description_, Kind kind_)
        : name(std::move(name_)), unit(std::move(unit_)), description(std::move(description_)), kind(kind_) {}
    std::string name;
    std::string unit;
    std::string description;
    Kind kind;
    std::vector<double> bounds;  // kHistogram: the explicit bucket bounds, ascending
    std::vector<OtlpDataPoint> points;
};

// ExportMetricsServiceRequest: every metric cumulative over [start_ns, now_ns] (Unix times).
std::string encode_metrics_request(const std::vector<OtlpAttribute>& resource, std::span<const OtlpMetric> metrics,
                                   uint64_t start_ns, uint64_t now_ns);

// One cumulative point of `vtscope stat`'s sums: calls (and bytes, for read/write-like calls)
// per syscall and status since start, and the exemplars of the calls since the last export.
struct SyscallTotals {
    std::string syscall;
    std::string status;
    uint64_t calls = 0;
    std::optional<uint64_t> bytes;
    std::vector<OtlpExemplar> exemplars;  // value: calls of that trace since the last export
};
// vtscope.syscall.calls and vtscope.syscall.bytes, attributes vtscope.syscall and vtscope.status
// only (bounded: trace ids are exemplars, never labels).
std::vector<OtlpMetric> syscall_metrics(std::span<const SyscallTotals> points);

struct ProfileRow;  // profile_report.h

// ExportProfilesServiceRequest of the development-stage profiles signal, as the pdata of the
// pinned Collector (v0.165.0, pdata v1.71.0: internal/generated_proto_*.go, profiles
// development version 1) decodes it: one Profile of the session's CPU samples, its tables in
// the request's dictionary, entry 0 of each table the empty value the format reserves. A row
// is one sample: its stack (leaf first), its CPU time in nanoseconds (sample type and period
// type cpu/nanoseconds, period period_ns), its thread and attribution as attributes, and its
// trace context as a link. The profile spans [start_ns, now_ns] (Unix times).
std::string encode_profiles_request(const std::vector<OtlpAttribute>& resource, std::span<const ProfileRow> rows,
                                    uint64_t period_ns, uint64_t start_ns, uint64_t now_ns,
                                    const std::string& profile_id_hex);

// partialSuccess.rejectedLogRecords / rejectedDataPoints / rejectedProfiles of a response body
// (0 when absent).
uint64_t rejected_in_response(const std::string& body);

}  // namespace vtscope
