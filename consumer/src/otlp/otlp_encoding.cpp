// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_encoding.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <tuple>

#include "sources/block_source.h"
#include "output/event_format.h"
#include "output/json.h"
#include "output/profile_report.h"
#include "sources/syscall_names.h"

namespace vtscope {

OtlpAttribute OtlpAttribute::string(std::string key, std::string value) {
    OtlpAttribute a;
    a.key = std::move(key);
    a.kind = Kind::kString;
    a.text = std::move(value);
    return a;
}

OtlpAttribute OtlpAttribute::integer(std::string key, int64_t value) {
    OtlpAttribute a;
    a.key = std::move(key);
    a.kind = Kind::kInt;
    a.number = value;
    return a;
}

OtlpAttribute OtlpAttribute::boolean(std::string key, bool value) {
    OtlpAttribute a;
    a.key = std::move(key);
    a.kind = Kind::kBool;
    a.flag = value;
    return a;
}

Expected<std::string> normalize_otlp_base(const std::string& url) {
    std::string u = url;
    size_t scheme_end = u.find("://");
    if (scheme_end == std::string::npos) {
        u = "http://" + u;
        scheme_end = 4;
    }
    std::string scheme = u.substr(0, scheme_end);
    if (scheme != "http" && scheme != "https")
        return make_error("OTLP endpoint '" + url + "': only http:// and https:// (OTLP/HTTP) are supported");
    size_t host_start = scheme_end + 3;
    size_t path_start = u.find('/', host_start);
    std::string authority =
        u.substr(host_start, path_start == std::string::npos ? std::string::npos : path_start - host_start);
    std::string path = path_start == std::string::npos ? "" : u.substr(path_start);
    if (authority.empty()) return make_error("OTLP endpoint '" + url + "' names no host");
    // The port follows the last ':' outside an IPv6 literal's brackets.
    size_t colon = authority.rfind(':');
    size_t bracket = authority.rfind(']');
    bool has_port = colon != std::string::npos && (bracket == std::string::npos || colon > bracket);
    if (has_port) {
        std::string port = authority.substr(colon + 1);
        if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
            return make_error("OTLP endpoint '" + url + "': invalid port '" + port + "'");
    } else {
        authority += ":4318";
    }
    while (!path.empty() && path.back() == '/') path.pop_back();
    return scheme + "://" + authority + path;
}

Expected<std::optional<OtlpEndpoints>> resolve_otlp_endpoints(const std::string& option, const EnvLookup& env) {
    auto from_base = [](const std::string& base) -> Expected<std::optional<OtlpEndpoints>> {
        auto b = normalize_otlp_base(base);
        if (!b) return b.error();
        return std::optional<OtlpEndpoints>(
            OtlpEndpoints{*b + "/v1/logs", *b + "/v1/metrics", *b + "/v1development/profiles"});
    };
    if (!option.empty()) return from_base(option);
    const char* base = env("OTEL_EXPORTER_OTLP_ENDPOINT");
    const char* logs = env("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT");
    const char* metrics = env("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
    const char* profiles = env("OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT");
    auto set = [](const char* v) { return v != nullptr && *v != '\0'; };
    if (!set(base) && !set(logs) && !set(metrics) && !set(profiles)) return std::optional<OtlpEndpoints>();
    OtlpEndpoints endpoints;
    if (set(base)) {
        auto e = from_base(base);
        if (!e) return e.error();
        endpoints = **e;
    }
    // Signal-specific endpoints are full URLs, used as given (OTLP exporter specification).
    if (set(logs)) endpoints.logs = logs;
    if (set(metrics)) endpoints.metrics = metrics;
    if (set(profiles)) endpoints.profiles = profiles;
    return std::optional<OtlpEndpoints>(endpoints);
}

namespace {

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

Expected<std::string> percent_decode(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); i++) {
        if (s[i] != '%') {
            out.push_back(s[i]);
            continue;
        }
        auto hex = [](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            return -1;
        };
        if (i + 2 >= s.size() || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0)
            return make_error("invalid percent escape in '" + s + "'");
        out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
        i += 2;
    }
    return out;
}

}  // namespace

Expected<std::vector<OtlpAttribute>> parse_resource_attributes(const std::string& text) {
    std::vector<OtlpAttribute> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string pair = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!pair.empty()) {
            size_t eq = pair.find('=');
            if (eq == std::string::npos || trim(pair.substr(0, eq)).empty())
                return make_error("OTEL_RESOURCE_ATTRIBUTES: '" + pair + "' is not key=value");
            auto value = percent_decode(trim(pair.substr(eq + 1)));
            if (!value) return make_error("OTEL_RESOURCE_ATTRIBUTES: " + value.error().message);
            out.push_back(OtlpAttribute::string(trim(pair.substr(0, eq)), *value));
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

Expected<std::vector<OtlpAttribute>> make_resource(const std::string& service_option, const EnvLookup& env, int64_t pid,
                                                   const std::string& host_name, const std::string& instance_id,
                                                   const std::vector<OtlpAttribute>& process_context,
                                                   ServiceNameSource* source) {
    std::vector<OtlpAttribute> from_env;
    if (const char* text = env("OTEL_RESOURCE_ATTRIBUTES")) {
        auto parsed = parse_resource_attributes(text);
        if (!parsed) return parsed.error();
        from_env = std::move(*parsed);
    }
    auto find = [](const std::vector<OtlpAttribute>& list, const std::string& key) -> const OtlpAttribute* {
        for (const auto& a : list)
            if (a.key == key) return &a;
        return nullptr;
    };
    // A string attribute of the process context, else of the environment.
    auto text_of = [&](const std::string& key) -> std::optional<std::string> {
        if (const OtlpAttribute* a = find(process_context, key); a && a->kind == OtlpAttribute::Kind::kString)
            return a->text;
        if (const OtlpAttribute* a = find(from_env, key)) return a->text;
        return std::nullopt;
    };
    std::string service = "unknown_service";
    ServiceNameSource from = ServiceNameSource::kDefault;
    const OtlpAttribute* context_service = find(process_context, "service.name");
    if (!service_option.empty()) {
        service = service_option;
        from = ServiceNameSource::kOption;
    } else if (context_service && context_service->kind == OtlpAttribute::Kind::kString &&
               !context_service->text.empty()) {
        service = context_service->text;
        from = ServiceNameSource::kProcessContext;
    } else if (const char* s = env("OTEL_SERVICE_NAME"); s && *s) {
        service = s;
        from = ServiceNameSource::kServiceNameVariable;
    } else if (const OtlpAttribute* from_attributes = find(from_env, "service.name")) {
        service = from_attributes->text;
        from = ServiceNameSource::kResourceAttributes;
    }
    if (source) *source = from;
    std::vector<OtlpAttribute> resource;
    resource.push_back(OtlpAttribute::string("service.name", service));
    resource.push_back(
        OtlpAttribute::string("service.instance.id", text_of("service.instance.id").value_or(instance_id)));
    resource.push_back(OtlpAttribute::integer("process.pid", pid));
    resource.push_back(OtlpAttribute::string("host.name", text_of("host.name").value_or(host_name)));
    auto own = [](const std::string& key) {
        return key == "service.name" || key == "service.instance.id" || key == "host.name" || key == "process.pid";
    };
    for (const auto& a : process_context)
        if (!own(a.key)) resource.push_back(a);
    for (auto& a : from_env)
        if (!own(a.key) && !find(process_context, a.key)) resource.push_back(std::move(a));
    return resource;
}

const char* service_name_source_name(ServiceNameSource source) {
    switch (source) {
        case ServiceNameSource::kOption: return "service_option";
        case ServiceNameSource::kProcessContext: return "process_context";
        case ServiceNameSource::kServiceNameVariable: return "OTEL_SERVICE_NAME";
        case ServiceNameSource::kResourceAttributes: return "OTEL_RESOURCE_ATTRIBUTES";
        case ServiceNameSource::kDefault: break;
    }
    return "default";
}

std::string service_name_fallback_line(ServiceNameSource source, const std::string& service,
                                       const std::string& why_not_target) {
    // Where the application's own name would have come from, and the ways to give one.
    const std::string how =
        "name it with --service NAME or OTEL_SERVICE_NAME, or let the application's OpenTelemetry publish it "
        "(vtscope-otel.jar or vtscope's agent extension, with libvtscope.so loaded: -agentpath:libvtscope.so=otep "
        "or jcmd PID JVMTI.agent_load libvtscope.so otep)";
    switch (source) {
        case ServiceNameSource::kServiceNameVariable:
        case ServiceNameSource::kResourceAttributes:
            return "vtscope: note: otlp: exporting under service.name=" + service + " from vtscope's own " +
                   service_name_source_name(source) + ", not the target's resource: " + why_not_target +
                   "; to use the application's, " + how;
        case ServiceNameSource::kDefault:
            return "vtscope: warning: otlp: exporting under service.name=unknown_service: no --service, " +
                   why_not_target + ", no OTEL_SERVICE_NAME; " + how;
        case ServiceNameSource::kOption:
        case ServiceNameSource::kProcessContext: break;
    }
    return "";
}

std::string random_uuid() {
    std::random_device device;
    unsigned char b[16];
    for (size_t i = 0; i < sizeof(b); i += 4) {
        uint32_t r = device();
        for (size_t j = 0; j < 4; j++) b[i + j] = static_cast<unsigned char>(r >> (8 * j));
    }
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
    std::string h = hex_string(b, sizeof(b));
    return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
}

void append_attribute(std::string& out, const OtlpAttribute& a) {
    out += "{\"key\":";
    out += json_quote(a.key);
    out += ",\"value\":{";
    switch (a.kind) {
        case OtlpAttribute::Kind::kString:
            out += "\"stringValue\":";
            out += json_quote(a.text);
            break;
        case OtlpAttribute::Kind::kInt:
            // int64 is a JSON string in the protobuf JSON mapping
            out += "\"intValue\":\"" + std::to_string(a.number) + "\"";
            break;
        case OtlpAttribute::Kind::kBool: out += a.flag ? "\"boolValue\":true" : "\"boolValue\":false"; break;
    }
    out += "}}";
}

namespace {

void append_resource(std::string& out, const std::vector<OtlpAttribute>& resource) {
    out += "{\"resource\":{\"attributes\":[";
    for (size_t i = 0; i < resource.size(); i++) {
        if (i) out.push_back(',');
        append_attribute(out, resource[i]);
    }
    out += "]}";
}

void append_int_attribute(std::string& out, const char* key, int64_t value) {
    out += ",{\"key\":\"";
    out += key;
    out += "\",\"value\":{\"intValue\":\"";
    out += std::to_string(value);
    out += "\"}}";
}

void append_string_attribute(std::string& out, const char* key, std::string_view value) {
    out += ",{\"key\":\"";
    out += key;
    out += "\",\"value\":{\"stringValue\":\"";
    out += value;  // names of vtscope's own: [a-z0-9_], nothing to escape
    out += "\"}}";
}

const char* kScope = "{\"scope\":{\"name\":\"vtscope\"},";

}  // namespace

namespace {

// The attributes every log record starts with: the process, the Java thread when its identity
// is known (thread.id: the semantic conventions' thread identifier; for a Java thread that is
// Thread.threadId()), and the OS thread.
void append_thread_attributes(std::string& out, uint32_t pid, uint32_t tid, const vtscope_attribution& a) {
    out += "\"attributes\":[{\"key\":\"process.pid\",\"value\":{\"intValue\":\"";
    out += std::to_string(pid);
    out += "\"}}";
    bool identity = a.status == VTSCOPE_STATUS_OK || a.status == VTSCOPE_STATUS_NO_CONTEXT ||
                    a.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN || (a.status == VTSCOPE_STATUS_INVALID && a.java_id > 0);
    if (identity) {
        append_int_attribute(out, "thread.id", a.java_id);
        out += ",{\"key\":\"vtscope.thread.virtual\",\"value\":{\"boolValue\":";
        out += a.mounted_virtual ? "true" : "false";
        out += "}}";
    }
    append_int_attribute(out, "vtscope.os_thread.id", tid);
}

// The attribution status (and its reason), closing the attribute list, then the trace context
// as the record's own fields when there is one.
void append_status_and_context(std::string& out, const vtscope_attribution& a) {
    append_string_attribute(out, "vtscope.status", status_name(a.status));
    if (const char* reason = reason_name(a.reason)) append_string_attribute(out, "vtscope.reason", reason);
    out += "]";
    if (a.status == VTSCOPE_STATUS_OK) {
        out += ",\"traceId\":\"";
        out += hex_string(a.trace_id, sizeof(a.trace_id));
        out += "\",\"spanId\":\"";
        out += hex_string(a.span_id, sizeof(a.span_id));
        out += "\",\"flags\":";
        out += std::to_string(a.trace_flags);  // W3C trace flags in the low byte
    }
}

void append_record_head(std::string& out, uint64_t ts_ns, int64_t realtime_offset_ns, const std::string& observed,
                        const char* event_name, std::string_view body) {
    out += "{\"timeUnixNano\":\"";
    out += std::to_string(static_cast<uint64_t>(static_cast<int64_t>(ts_ns) + realtime_offset_ns));
    out += "\",\"observedTimeUnixNano\":\"";
    out += observed;
    out += "\",\"severityNumber\":9,\"severityText\":\"INFO\",\"eventName\":\"";
    out += event_name;
    out += "\",\"body\":{\"stringValue\":\"";
    out += body;  // names of vtscope's own: [a-z0-9_:], nothing to escape
    out += "\"},";
}

void append_syscall_record(std::string& out, const vtscope_syscall_event& e,
                           const std::vector<std::string>& syscall_names, int64_t realtime_offset_ns,
                           const std::string& observed) {
    static const std::string unknown = "?";
    const std::string& syscall = e.syscall_index < syscall_names.size() ? syscall_names[e.syscall_index] : unknown;
    append_record_head(out, e.ts_ns, realtime_offset_ns, observed, "vtscope.syscall", syscall);
    append_thread_attributes(out, e.pid, e.tid, e.attribution);
    append_string_attribute(out, "vtscope.syscall", syscall);
    if (e.nargs > 0 && syscall_has_fd(syscall))
        append_int_attribute(out, "vtscope.fd", static_cast<int32_t>(static_cast<uint32_t>(e.args[0])));
    if (e.nargs > 2 && syscall_has_count(syscall))
        append_int_attribute(out, "vtscope.bytes", static_cast<int64_t>(e.args[2]));
    append_status_and_context(out, e.attribution);
    out += "}";
}

void append_block_record(std::string& out, const BlockLogEvent& b, int64_t realtime_offset_ns,
                         const std::string& observed) {
    const vtscope_block_event& e = b.event;
    const char* reason = block_reason_name(e.block_reason);
    const char* syscall = e.block_reason == VTSCOPE_BLOCK_SYSCALL ? syscall_name(e.syscall_nr) : nullptr;
    std::string body = syscall ? std::string(reason) + ":" + syscall : std::string(reason);
    append_record_head(out, e.ts_ns, realtime_offset_ns, observed, "vtscope.block", body);
    append_thread_attributes(out, e.pid, e.tid, e.attribution);
    append_string_attribute(out, "vtscope.block.reason", reason);
    if (syscall) append_string_attribute(out, "vtscope.syscall", syscall);
    append_int_attribute(out, "vtscope.block.duration_ns", static_cast<int64_t>(e.duration_ns));
    out += b.open ? ",{\"key\":\"vtscope.block.open\",\"value\":{\"boolValue\":true}}"
                  : ",{\"key\":\"vtscope.block.open\",\"value\":{\"boolValue\":false}}";
    append_status_and_context(out, e.attribution);
    out += "}";
}

}  // namespace

std::string encode_logs_request(const std::vector<OtlpAttribute>& resource, std::span<const OtlpLogEvent> events,
                                const std::vector<std::string>& syscall_names, int64_t realtime_offset_ns,
                                uint64_t observed_ns) {
    std::string out;
    out.reserve(256 + events.size() * 720);
    out += "{\"resourceLogs\":[";
    append_resource(out, resource);
    out += ",\"scopeLogs\":[";
    out += kScope;
    out += "\"logRecords\":[";
    const std::string observed = std::to_string(observed_ns);
    for (size_t i = 0; i < events.size(); i++) {
        if (i) out.push_back(',');
        if (const auto* syscall = std::get_if<vtscope_syscall_event>(&events[i]))
            append_syscall_record(out, *syscall, syscall_names, realtime_offset_ns, observed);
        else
            append_block_record(out, std::get<BlockLogEvent>(events[i]), realtime_offset_ns, observed);
    }
    out += "]}]}]}";
    return out;
}

uint64_t unix_now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void ExemplarReservoir::add(const TraceId& trace, const std::optional<SpanId>& span, double value,
                            uint64_t time_unix_ns) {
    OtlpExemplar& e = by_context_[{trace, span.value_or(SpanId{})}];
    e.trace_id = trace;
    e.span_id = span;
    e.value += value;
    e.time_unix_ns = time_unix_ns;
}

std::vector<OtlpExemplar> ExemplarReservoir::take(size_t k) {
    std::vector<OtlpExemplar> all;
    all.reserve(by_context_.size());
    for (auto& [context, e] : by_context_) all.push_back(e);
    by_context_.clear();
    size_t n = std::min(k, all.size());
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                      [](const OtlpExemplar& a, const OtlpExemplar& b) { return a.value > b.value; });
    all.resize(n);
    return all;
}

namespace {

std::string format_double(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    return buf;
}

void append_exemplars(std::string& out, const std::vector<OtlpExemplar>& exemplars) {
    if (exemplars.empty()) return;
    out += ",\"exemplars\":[";
    for (size_t i = 0; i < exemplars.size(); i++) {
        const OtlpExemplar& e = exemplars[i];
        if (i) out.push_back(',');
        out += "{\"timeUnixNano\":\"" + std::to_string(e.time_unix_ns) + "\",\"asDouble\":" + format_double(e.value);
        out += ",\"traceId\":\"" + hex_string(e.trace_id.data(), e.trace_id.size()) + "\"";
        if (e.span_id) out += ",\"spanId\":\"" + hex_string(e.span_id->data(), e.span_id->size()) + "\"";
        out += "}";
    }
    out += "]";
}

}  // namespace

std::string encode_metrics_request(const std::vector<OtlpAttribute>& resource, std::span<const OtlpMetric> metrics,
                                   uint64_t start_ns, uint64_t now_ns) {
    std::string out;
    out += "{\"resourceMetrics\":[";
    append_resource(out, resource);
    out += ",\"scopeMetrics\":[";
    out += kScope;
    out += "\"metrics\":[";
    const std::string times = "\"startTimeUnixNano\":\"" + std::to_string(start_ns) + "\",\"timeUnixNano\":\"" +
                              std::to_string(now_ns) + "\"";
    for (size_t m = 0; m < metrics.size(); m++) {
        const OtlpMetric& metric = metrics[m];
        const bool histogram = metric.kind == OtlpMetric::Kind::kHistogram;
        if (m) out.push_back(',');
        out += "{\"name\":" + json_quote(metric.name) + ",\"unit\":" + json_quote(metric.unit) +
               ",\"description\":" + json_quote(metric.description);
        // AGGREGATION_TEMPORALITY_CUMULATIVE = 2 (opentelemetry/proto/metrics/v1/metrics.proto)
        out += histogram ? ",\"histogram\":{\"aggregationTemporality\":2,\"dataPoints\":["
                         : ",\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,\"dataPoints\":[";
        for (size_t i = 0; i < metric.points.size(); i++) {
            const OtlpDataPoint& p = metric.points[i];
            if (i) out.push_back(',');
            out += "{\"attributes\":[";
            for (size_t j = 0; j < p.attributes.size(); j++) {
                if (j) out.push_back(',');
                append_attribute(out, p.attributes[j]);
            }
            out += "]," + times;
            if (histogram) {
                out += ",\"count\":\"" + std::to_string(p.count) + "\",\"sum\":" + format_double(p.sum) +
                       ",\"bucketCounts\":[";
                for (size_t j = 0; j < p.bucket_counts.size(); j++)
                    out += (j ? ",\"" : "\"") + std::to_string(p.bucket_counts[j]) + "\"";
                out += "],\"explicitBounds\":[";
                for (size_t j = 0; j < metric.bounds.size(); j++)
                    out += (j ? "," : "") + format_double(metric.bounds[j]);
                out += "]";
            } else if (metric.kind == OtlpMetric::Kind::kIntSum) {
                out += ",\"asInt\":\"" + std::to_string(p.as_int) + "\"";
            } else {
                out += ",\"asDouble\":" + format_double(p.as_double);
            }
            append_exemplars(out, p.exemplars);
            out += "}";
        }
        out += "]}}";
    }
    out += "]}]}]}";
    return out;
}

std::vector<OtlpMetric> syscall_metrics(std::span<const SyscallTotals> points) {
    OtlpMetric calls{"vtscope.syscall.calls", "{call}",
                     "syscall entries of the target, by syscall and attribution status", OtlpMetric::Kind::kIntSum};
    OtlpMetric bytes{"vtscope.syscall.bytes", "By", "bytes requested by read/write-like syscalls (third argument)",
                     OtlpMetric::Kind::kIntSum};
    for (const SyscallTotals& t : points) {
        OtlpDataPoint p;
        p.attributes = {OtlpAttribute::string("vtscope.syscall", t.syscall),
                        OtlpAttribute::string("vtscope.status", t.status)};
        p.as_int = t.calls;
        p.exemplars = t.exemplars;
        if (t.bytes) {
            OtlpDataPoint b = p;
            b.as_int = *t.bytes;
            b.exemplars.clear();  // an exemplar's value is calls: it belongs to the calls point
            bytes.points.push_back(std::move(b));
        }
        calls.points.push_back(std::move(p));
    }
    return {std::move(calls), std::move(bytes)};
}

namespace {

// A table of the profiles dictionary: values interned to their index, entry 0 reserved.
template <typename Key>
class Table {
public:
    explicit Table(Key zero) { index(zero); }
    int32_t index(const Key& key) {
        auto [it, fresh] = indices_.try_emplace(key, static_cast<int32_t>(keys_.size()));
        if (fresh) keys_.push_back(key);
        return it->second;
    }
    const std::vector<Key>& keys() const { return keys_; }

private:
    std::map<Key, int32_t> indices_;
    std::vector<Key> keys_;
};

template <typename Key, typename Write>
void append_table(std::string& out, const char* name, const Table<Key>& table, Write write) {
    out += ",\"";
    out += name;
    out += "\":[";
    for (size_t i = 0; i < table.keys().size(); i++) {
        if (i) out.push_back(',');
        if (i == 0) {
            out += "{}";  // the reserved empty entry
        } else {
            write(table.keys()[i]);
        }
    }
    out += "]";
}

}  // namespace

std::string encode_profiles_request(const std::vector<OtlpAttribute>& resource, std::span<const ProfileRow> rows,
                                    uint64_t period_ns, uint64_t start_ns, uint64_t now_ns,
                                    const std::string& profile_id_hex) {
    Table<std::string> strings{""};
    Table<int32_t> functions{0};             // by name's string index
    Table<int32_t> locations{0};             // by function index (one line each)
    Table<std::vector<int32_t>> stacks{{}};  // location indices, leaf first
    Table<std::pair<std::string, std::string>> links{{"", ""}};
    // (key string index, kind, value): kind 0 string (value's string), 1 int, 2 bool.
    Table<std::tuple<int32_t, int, std::string>> attributes{{0, 0, ""}};
    struct Sample {
        int32_t stack, link;
        std::vector<int32_t> attributes;
        uint64_t cpu_ns;
    };
    std::vector<Sample> samples;
    const int32_t cpu = strings.index("cpu"), nanoseconds = strings.index("nanoseconds");
    for (const ProfileRow& row : rows) {
        std::vector<int32_t> stack;
        for (auto frame = row.frames.rbegin(); frame != row.frames.rend(); ++frame)
            stack.push_back(locations.index(functions.index(strings.index(*frame))));
        Sample sample{stacks.index(stack), 0, {}, row.cpu_ns};
        if (row.status == VTSCOPE_STATUS_OK) sample.link = links.index({row.trace_id, row.span_id});
        auto attribute = [&](const char* key, int kind, std::string value) {
            sample.attributes.push_back(attributes.index({strings.index(key), kind, std::move(value)}));
        };
        bool identity = row.status == VTSCOPE_STATUS_OK || row.status == VTSCOPE_STATUS_NO_CONTEXT ||
                        row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN;
        if (identity && row.java_id > 0) {
            attribute("thread.id", 1, std::to_string(row.java_id));
            attribute("vtscope.thread.virtual", 2, row.mounted_virtual ? "true" : "false");
        }
        attribute("vtscope.os_thread.id", 1, std::to_string(row.tid));
        attribute("vtscope.status", 0, status_name(row.status));
        samples.push_back(std::move(sample));
    }
    std::string out;
    out += "{\"resourceProfiles\":[";
    append_resource(out, resource);
    out += ",\"scopeProfiles\":[";
    out += kScope;
    out += "\"profiles\":[{\"sampleType\":{\"typeStrindex\":" + std::to_string(cpu) +
           ",\"unitStrindex\":" + std::to_string(nanoseconds) +
           "},\"periodType\":{\"typeStrindex\":" + std::to_string(cpu) +
           ",\"unitStrindex\":" + std::to_string(nanoseconds) + "},\"period\":\"" + std::to_string(period_ns) +
           "\",\"timeUnixNano\":\"" + std::to_string(start_ns) + "\",\"durationNano\":\"" +
           std::to_string(now_ns > start_ns ? now_ns - start_ns : 0) + "\",\"profileId\":\"" + profile_id_hex +
           "\",\"samples\":[";
    for (size_t i = 0; i < samples.size(); i++) {
        const Sample& sample = samples[i];
        if (i) out.push_back(',');
        out += "{\"stackIndex\":" + std::to_string(sample.stack) + ",\"values\":[\"" + std::to_string(sample.cpu_ns) +
               "\"],\"attributeIndices\":[";
        for (size_t j = 0; j < sample.attributes.size(); j++)
            out += (j ? "," : "") + std::to_string(sample.attributes[j]);
        out += "]";
        if (sample.link) out += ",\"linkIndex\":" + std::to_string(sample.link);
        out += "}";
    }
    out += "]}]}]}]";
    out += ",\"dictionary\":{\"stringTable\":[";
    for (size_t i = 0; i < strings.keys().size(); i++) out += (i ? "," : "") + json_quote(strings.keys()[i]);
    out += "]";
    append_table(out, "functionTable", functions,
                 [&](int32_t name) { out += "{\"nameStrindex\":" + std::to_string(name) + "}"; });
    append_table(out, "locationTable", locations, [&](int32_t function) {
        out += "{\"lines\":[{\"functionIndex\":" + std::to_string(function) + "}]}";
    });
    append_table(out, "stackTable", stacks, [&](const std::vector<int32_t>& stack) {
        out += "{\"locationIndices\":[";
        for (size_t j = 0; j < stack.size(); j++) out += (j ? "," : "") + std::to_string(stack[j]);
        out += "]}";
    });
    append_table(out, "linkTable", links, [&](const std::pair<std::string, std::string>& link) {
        out += "{\"traceId\":\"" + link.first + "\",\"spanId\":\"" + link.second + "\"}";
    });
    append_table(out, "attributeTable", attributes, [&](const std::tuple<int32_t, int, std::string>& a) {
        const auto& [key, kind, value] = a;
        out += "{\"keyStrindex\":" + std::to_string(key) + ",\"value\":{";
        if (kind == 0) out += "\"stringValue\":" + json_quote(value);
        if (kind == 1) out += "\"intValue\":\"" + value + "\"";
        if (kind == 2) out += "\"boolValue\":" + value;
        out += "}}";
    });
    out += "}}";
    return out;
}

uint64_t rejected_in_response(const std::string& body) {
    Json json;
    std::string error;
    if (body.empty() || !parse_json(body, &json, &error)) return 0;
    const Json& partial = json["partialSuccess"];
    for (const char* key : {"rejectedLogRecords", "rejectedDataPoints", "rejectedProfiles"}) {
        const Json& v = partial[key];
        if (v.is_number()) return static_cast<uint64_t>(v.number);
        if (v.type == Json::Type::String) return std::strtoull(v.string.c_str(), nullptr, 10);
    }
    return 0;
}

}  // namespace vtscope
