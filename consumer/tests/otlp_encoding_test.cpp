// SPDX-License-Identifier: Apache-2.0
// The OTLP encodings (the generated messages, http/json's fix-ups, http/protobuf), endpoints,
// protocols, gRPC statuses and resource of --otlp, with no Collector.
#include <google/protobuf/any.pb.h>
#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/support/status.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "core/profile_model.h"
#include "output/json_io.h"
#include "otlp/otlp_encoding.h"
#include "otlp/grpc_transport.h"
#include "otlp/otlp_message.h"
#include "core/summary.h"

namespace vtscope {
namespace {

EnvLookup env_of(const std::map<std::string, std::string>& vars) {
    return [vars](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

Json parse(const std::string& text) {
    Json json = vtscope::parse_json(text);
    EXPECT_FALSE(json.is_discarded()) << text;
    return json;
}

// A request as http/json sends it.
Json parse(const google::protobuf::Message& request) { return parse(otlp_json(request)); }

// The value of attribute key in an OTLP attribute list, as {"stringValue":..} etc.
const Json& attribute(const Json& list, const std::string& key) {
    static const Json null;
    for (const Json& a : vtscope::json_array(list))
        if (vtscope::json_string(vtscope::json_at(a, "key")) == key) return vtscope::json_at(a, "value");
    return null;
}

TEST(OtlpEndpoints, DefaultPortSchemeAndSignalPaths) {
    auto e = resolve_otlp_endpoints("localhost", env_of({}));
    ASSERT_TRUE(e) << e.error().message;
    ASSERT_TRUE(e->has_value());
    EXPECT_EQ((*e)->logs, "http://localhost:4318/v1/logs");
    EXPECT_EQ((*e)->metrics, "http://localhost:4318/v1/metrics");
    auto with_path = resolve_otlp_endpoints("https://collector.example:443/otlp/", env_of({}));
    ASSERT_TRUE(with_path);
    EXPECT_EQ((*with_path)->logs, "https://collector.example:443/otlp/v1/logs");
    auto v6 = normalize_otlp_base("http://[::1]");
    ASSERT_TRUE(v6);
    EXPECT_EQ(*v6, "http://[::1]:4318");
    EXPECT_FALSE(normalize_otlp_base("grpc://x:4317"));
    EXPECT_FALSE(normalize_otlp_base("http://x:43a8"));
}

TEST(OtlpEndpoints, EnvironmentWhenNoOption) {
    auto none = resolve_otlp_endpoints("", env_of({}));
    ASSERT_TRUE(none);
    EXPECT_FALSE(none->has_value());
    auto base = resolve_otlp_endpoints("", env_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://10.0.0.1:4318"}}));
    ASSERT_TRUE(base && base->has_value());
    EXPECT_EQ((*base)->metrics, "http://10.0.0.1:4318/v1/metrics");
    auto logs = resolve_otlp_endpoints("", env_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"},
                                                   {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://b:2/custom"}}));
    ASSERT_TRUE(logs && logs->has_value());
    EXPECT_EQ((*logs)->logs, "http://b:2/custom");
    EXPECT_EQ((*logs)->metrics, "http://a:1/v1/metrics");
    auto option = resolve_otlp_endpoints("http://c:3", env_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"}}));
    ASSERT_TRUE(option && option->has_value());
    EXPECT_EQ((*option)->logs, "http://c:3/v1/logs");
}

TEST(OtlpResource, ServiceNameOrderAndAttributes) {
    auto r = make_resource(
        "", env_of({{"OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attrs, deployment.environment=prod%2C1"}}), 42,
        "host1", "uuid-1");
    ASSERT_TRUE(r) << r.error().message;
    opentelemetry::proto::resource::v1::Resource resource;
    set_resource(&resource, *r);
    Json list = vtscope::json_at(parse(resource), "attributes");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(attribute(list, "service.name"), "stringValue")), "from-attrs");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(attribute(list, "deployment.environment"), "stringValue")),
              "prod,1");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(attribute(list, "process.pid"), "intValue")), "42");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(attribute(list, "host.name"), "stringValue")), "host1");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(attribute(list, "service.instance.id"), "stringValue")), "uuid-1");

    auto env_name = make_resource(
        "", env_of({{"OTEL_SERVICE_NAME", "env"}, {"OTEL_RESOURCE_ATTRIBUTES", "service.name=x"}}), 1, "h", "u");
    ASSERT_TRUE(env_name);
    EXPECT_EQ((*env_name)[0].text, "env");
    auto option = make_resource("opt", env_of({{"OTEL_SERVICE_NAME", "env"}}), 1, "h", "u");
    ASSERT_TRUE(option);
    EXPECT_EQ((*option)[0].text, "opt");
    auto fallback = make_resource("", env_of({}), 1, "h", "u");
    ASSERT_TRUE(fallback);
    EXPECT_EQ((*fallback)[0].text, "unknown_service");
    EXPECT_FALSE(make_resource("", env_of({{"OTEL_RESOURCE_ATTRIBUTES", "novalue"}}), 1, "h", "u"));
    EXPECT_FALSE(make_resource("", env_of({{"OTEL_RESOURCE_ATTRIBUTES", "k=%zz"}}), 1, "h", "u"));
}

// Where service.name came from, for the fallback line and --summary-json's otlp_resource.
TEST(OtlpResource, ServiceNameSourceFollowsThePrecedence) {
    const std::vector<OtlpAttribute> context = {OtlpAttribute::string("service.name", "from-context")};
    auto source_of = [&](const std::string& option, const EnvLookup& env, const std::vector<OtlpAttribute>& ctx) {
        ServiceNameSource source = ServiceNameSource::kOption;
        auto r = make_resource(option, env, 1, "h", "u", ctx, &source);
        EXPECT_TRUE(r);
        return std::string(service_name_source_name(source)) + "=" + (r ? (*r)[0].text : "");
    };
    auto all = env_of({{"OTEL_SERVICE_NAME", "env"}, {"OTEL_RESOURCE_ATTRIBUTES", "service.name=attrs"}});
    EXPECT_EQ(source_of("opt", all, context), "service_option=opt");
    EXPECT_EQ(source_of("", all, context), "process_context=from-context");
    EXPECT_EQ(source_of("", all, {}), "OTEL_SERVICE_NAME=env");
    EXPECT_EQ(source_of("", env_of({{"OTEL_RESOURCE_ATTRIBUTES", "service.name=attrs"}}), {}),
              "OTEL_RESOURCE_ATTRIBUTES=attrs");
    EXPECT_EQ(source_of("", env_of({}), {}), "default=unknown_service");
    // A process context without service.name (the application has no OpenTelemetry) falls back.
    EXPECT_EQ(source_of("", env_of({}), {OtlpAttribute::string("host.name", "h2")}), "default=unknown_service");
}

TEST(OtlpResource, FallbackLineOnlyForVtscopesEnvironmentAndTheDefault) {
    const std::string why = "the target publishes no OTEP 4719 process context";
    EXPECT_EQ(service_name_fallback_line(ServiceNameSource::kOption, "x", why), "");
    EXPECT_EQ(service_name_fallback_line(ServiceNameSource::kProcessContext, "x", why), "");
    std::string unknown = service_name_fallback_line(ServiceNameSource::kDefault, "unknown_service", why);
    EXPECT_EQ(unknown.rfind("vtscope: warning: otlp: exporting under service.name=unknown_service: no --service, " +
                                why + ", no OTEL_SERVICE_NAME; ",
                            0),
              0u)
        << unknown;
    std::string env = service_name_fallback_line(ServiceNameSource::kServiceNameVariable, "env", why);
    EXPECT_EQ(env.rfind("vtscope: note: otlp: exporting under service.name=env from vtscope's own OTEL_SERVICE_NAME, "
                        "not the target's resource: " +
                            why,
                        0),
              0u)
        << env;
    std::string attrs = service_name_fallback_line(ServiceNameSource::kResourceAttributes, "a", why);
    EXPECT_NE(attrs.find("from vtscope's own OTEL_RESOURCE_ATTRIBUTES"), std::string::npos) << attrs;
    for (const std::string& line : {unknown, env, attrs}) {
        EXPECT_EQ(line.find('\n'), std::string::npos) << "one line";
        EXPECT_NE(line.find("--service NAME or OTEL_SERVICE_NAME"), std::string::npos) << line;
        EXPECT_NE(line.find("application's OpenTelemetry"), std::string::npos) << line;
    }
}

TEST(OtlpResource, SummarySaysTheServiceNameAndItsSource) {
    Summary s;
    EXPECT_TRUE(vtscope::json_at(parse(render_summary_json(s)), "otlp_resource").is_null()) << "null without --otlp";
    EXPECT_EQ(render_summary_text(s).find("otlp resource"), std::string::npos);
    s.otlp_service_name = "checkout";
    s.otlp_service_name_source = service_name_source_name(ServiceNameSource::kProcessContext);
    Json resource = vtscope::json_at(parse(render_summary_json(s)), "otlp_resource");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(resource, "service.name")), "checkout");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(resource, "source")), "process_context");
    EXPECT_NE(render_summary_text(s).find("vtscope: otlp resource: service.name checkout (from process_context)\n"),
              std::string::npos)
        << render_summary_text(s);
}

TEST(OtlpResource, RandomUuidIsVersion4) {
    std::string u = random_uuid();
    ASSERT_EQ(u.size(), 36u);
    EXPECT_EQ(u[14], '4');
    EXPECT_NE(u, random_uuid());
}

vtscope_syscall_event sample_event(uint8_t status) {
    vtscope_syscall_event e;
    std::memset(&e, 0, sizeof(e));
    e.ts_ns = 1000;
    e.pid = 77;
    e.tid = 78;
    e.attribution.java_id = 31;
    e.attribution.mounted_virtual = 1;
    e.attribution.status = status;
    e.attribution.trace_flags = 1;
    for (int i = 0; i < 16; i++) e.attribution.trace_id[i] = static_cast<uint8_t>(0xa0 + i);
    for (int i = 0; i < 8; i++) e.attribution.span_id[i] = static_cast<uint8_t>(0x10 + i);
    if (status != VTSCOPE_STATUS_OK) {
        std::memset(e.attribution.trace_id, 0, 16);
        std::memset(e.attribution.span_id, 0, 8);
    }
    e.syscall_index = 1;
    e.nargs = 3;
    e.args[0] = 5;
    e.args[2] = 4096;
    return e;
}

TEST(OtlpLogs, OneRecordPerEventWithNativeTraceContext) {
    std::vector<OtlpAttribute> resource = {OtlpAttribute::string("service.name", "svc"),
                                           OtlpAttribute::integer("process.pid", 77)};
    OtlpLogEvent events[2] = {sample_event(VTSCOPE_STATUS_OK), sample_event(VTSCOPE_STATUS_UNMAPPED)};
    std::get<vtscope_syscall_event>(events[1]).attribution.reason = VTSCOPE_REASON_NOT_JAVA_THREAD;
    auto body = encode_logs_request(resource, events, {"read", "write"}, 5000, 123456789);
    Json json = parse(body);
    const Json& rl = vtscope::json_array(vtscope::json_at(json, "resourceLogs")).at(0);
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(
                  attribute(vtscope::json_at(rl, "resource", "attributes"), "service.name"), "stringValue")),
              "svc");
    const Json& sl = vtscope::json_array(vtscope::json_at(rl, "scopeLogs")).at(0);
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(sl, "scope", "name")), "vtscope");
    const auto& records = vtscope::json_array(vtscope::json_at(sl, "logRecords"));
    ASSERT_EQ(records.size(), 2u);
    const Json& ok = records[0];
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(ok, "traceId")), "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(ok, "spanId")), "1011121314151617");
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(ok, "flags")), 1);
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(ok, "timeUnixNano")), "6000");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(ok, "observedTimeUnixNano")), "123456789");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(ok, "body", "stringValue")), "write");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(ok, "eventName")), "vtscope.syscall");
    EXPECT_EQ(
        vtscope::json_string(vtscope::json_at(attribute(vtscope::json_at(ok, "attributes"), "thread.id"), "intValue")),
        "31");
    EXPECT_EQ(vtscope::json_string(
                  vtscope::json_at(attribute(vtscope::json_at(ok, "attributes"), "process.pid"), "intValue")),
              "77");
    EXPECT_EQ(vtscope::json_bool(vtscope::json_at(
                  attribute(vtscope::json_at(ok, "attributes"), "vtscope.thread.virtual"), "boolValue")),
              true);
    EXPECT_EQ(vtscope::json_string(
                  vtscope::json_at(attribute(vtscope::json_at(ok, "attributes"), "vtscope.os_thread.id"), "intValue")),
              "78");
    EXPECT_EQ(vtscope::json_string(
                  vtscope::json_at(attribute(vtscope::json_at(ok, "attributes"), "vtscope.syscall"), "stringValue")),
              "write");
    EXPECT_EQ(
        vtscope::json_string(vtscope::json_at(attribute(vtscope::json_at(ok, "attributes"), "vtscope.fd"), "intValue")),
        "5");
    EXPECT_EQ(vtscope::json_string(
                  vtscope::json_at(attribute(vtscope::json_at(ok, "attributes"), "vtscope.bytes"), "intValue")),
              "4096");
    EXPECT_EQ(vtscope::json_string(
                  vtscope::json_at(attribute(vtscope::json_at(ok, "attributes"), "vtscope.status"), "stringValue")),
              "ok");
    EXPECT_TRUE(attribute(vtscope::json_at(ok, "attributes"), "vtscope.reason").is_null());

    const Json& unmapped = records[1];
    EXPECT_TRUE(vtscope::json_at(unmapped, "traceId").is_null());  // absent: no trace context
    EXPECT_TRUE(vtscope::json_at(unmapped, "spanId").is_null());
    EXPECT_TRUE(attribute(vtscope::json_at(unmapped, "attributes"), "thread.id").is_null());
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(
                  attribute(vtscope::json_at(unmapped, "attributes"), "vtscope.status"), "stringValue")),
              "unmapped");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(
                  attribute(vtscope::json_at(unmapped, "attributes"), "vtscope.reason"), "stringValue")),
              "not_java_thread");
}

TEST(OtlpLogs, BlockIntervalRecordCarriesDurationReasonAndTraceContext) {
    vtscope_syscall_event base = sample_event(VTSCOPE_STATUS_OK);
    BlockLogEvent b;
    b.event = {};
    b.event.ts_ns = 1000;
    b.event.duration_ns = 25000000;
    b.event.pid = 77;
    b.event.tid = 78;
    b.event.attribution = base.attribution;
    b.event.syscall_nr = 0;  // read on x86_64
    b.event.block_reason = VTSCOPE_BLOCK_SYSCALL;
    b.open = true;
    BlockLogEvent preempted = b;
    preempted.event.block_reason = VTSCOPE_BLOCK_PREEMPTED;
    preempted.event.attribution.status = VTSCOPE_STATUS_NO_CONTEXT;
    preempted.open = false;
    OtlpLogEvent events[2] = {b, preempted};
    Json json = parse(encode_logs_request({}, events, {}, 5000, 1));
    const auto& records = vtscope::json_array(vtscope::json_at(
        vtscope::json_array(
            vtscope::json_at(vtscope::json_array(vtscope::json_at(json, "resourceLogs")).at(0), "scopeLogs"))
            .at(0),
        "logRecords"));
    ASSERT_EQ(records.size(), 2u);
    const Json& r = records[0];
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(r, "eventName")), "vtscope.block");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(r, "body", "stringValue")), "syscall:read");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(r, "timeUnixNano")), "6000");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(r, "traceId")), "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(r, "spanId")), "1011121314151617");
    EXPECT_EQ(
        vtscope::json_string(vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "process.pid"), "intValue")),
        "77");
    EXPECT_EQ(
        vtscope::json_string(vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "thread.id"), "intValue")),
        "31");
    EXPECT_EQ(vtscope::json_bool(vtscope::json_at(
                  attribute(vtscope::json_at(r, "attributes"), "vtscope.thread.virtual"), "boolValue")),
              true);
    EXPECT_EQ(vtscope::json_string(
                  vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "vtscope.os_thread.id"), "intValue")),
              "78");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(
                  attribute(vtscope::json_at(r, "attributes"), "vtscope.block.reason"), "stringValue")),
              "syscall");
    EXPECT_EQ(vtscope::json_string(
                  vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "vtscope.syscall"), "stringValue")),
              "read");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(
                  attribute(vtscope::json_at(r, "attributes"), "vtscope.block.duration_ns"), "intValue")),
              "25000000");
    EXPECT_EQ(vtscope::json_bool(
                  vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "vtscope.block.open"), "boolValue")),
              true);
    EXPECT_EQ(vtscope::json_string(
                  vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "vtscope.status"), "stringValue")),
              "ok");
    const Json& p = records[1];
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(p, "body", "stringValue")), "preempted");
    EXPECT_TRUE(attribute(vtscope::json_at(p, "attributes"), "vtscope.syscall").is_null());
    EXPECT_EQ(vtscope::json_bool(
                  vtscope::json_at(attribute(vtscope::json_at(p, "attributes"), "vtscope.block.open"), "boolValue")),
              false);
    EXPECT_TRUE(vtscope::json_at(p, "traceId").is_null());
}

TEST(OtlpMetrics, CumulativeSumsBySyscallAndStatusOnly) {
    OtlpExemplar exemplar;
    exemplar.time_unix_ns = 150;
    exemplar.value = 7;
    for (size_t i = 0; i < exemplar.trace_id.size(); i++) exemplar.trace_id[i] = static_cast<uint8_t>(0xa0 + i);
    std::vector<SyscallTotals> points = {
        {"write", "ok", 10, 4096, {exemplar}}, {"write", "unmapped", 2, 8, {}}, {"close", "ok", 3, {}, {}}};
    Json json = parse(
        encode_metrics_request({OtlpAttribute::string("service.name", "svc")}, syscall_metrics(points), 100, 200));
    const auto& metrics = vtscope::json_array(vtscope::json_at(
        vtscope::json_array(
            vtscope::json_at(vtscope::json_array(vtscope::json_at(json, "resourceMetrics")).at(0), "scopeMetrics"))
            .at(0),
        "metrics"));
    ASSERT_EQ(metrics.size(), 2u);
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(metrics[0], "name")), "vtscope.syscall.calls");
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(metrics[0], "sum", "aggregationTemporality")), 2);
    EXPECT_EQ(vtscope::json_bool(vtscope::json_at(metrics[0], "sum", "isMonotonic")), true);
    const auto& calls = vtscope::json_array(vtscope::json_at(metrics[0], "sum", "dataPoints"));
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(calls[0], "asInt")), "10");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(calls[0], "startTimeUnixNano")), "100");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(calls[0], "timeUnixNano")), "200");
    // The trace id is an exemplar of the point, not a label.
    ASSERT_EQ(vtscope::json_array(vtscope::json_at(calls[0], "exemplars")).size(), 1u);
    EXPECT_EQ(vtscope::json_string(
                  vtscope::json_at(vtscope::json_array(vtscope::json_at(calls[0], "exemplars"))[0], "traceId")),
              "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    EXPECT_EQ(vtscope::json_number(
                  vtscope::json_at(vtscope::json_array(vtscope::json_at(calls[0], "exemplars"))[0], "asDouble")),
              7);
    EXPECT_EQ(vtscope::json_string(
                  vtscope::json_at(vtscope::json_array(vtscope::json_at(calls[0], "exemplars"))[0], "timeUnixNano")),
              "150");
    EXPECT_TRUE(vtscope::json_at(vtscope::json_array(vtscope::json_at(calls[0], "exemplars"))[0], "spanId")
                    .is_null());  // stat keeps no span id
    EXPECT_TRUE(vtscope::json_at(calls[1], "exemplars").is_null());
    EXPECT_EQ(vtscope::json_array(vtscope::json_at(calls[1], "attributes")).size(),
              2u);  // syscall and status: no trace id label
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(
                  attribute(vtscope::json_at(calls[1], "attributes"), "vtscope.status"), "stringValue")),
              "unmapped");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(metrics[1], "name")), "vtscope.syscall.bytes");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(metrics[1], "unit")), "By");
    const auto& bytes = vtscope::json_array(vtscope::json_at(metrics[1], "sum", "dataPoints"));
    ASSERT_EQ(bytes.size(), 2u);  // close has no byte count
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(bytes[0], "asInt")), "4096");
}

TEST(OtlpMetrics, HistogramAndDoubleSumEncoding) {
    OtlpMetric h{"vtscope.block.duration", "s", "d", OtlpMetric::Kind::kHistogram};
    h.bounds = {0.01, 0.1};
    OtlpDataPoint p;
    p.attributes = {OtlpAttribute::string("vtscope.block.reason", "syscall")};
    p.count = 3;
    p.sum = 0.25;
    p.bucket_counts = {1, 1, 1};
    OtlpExemplar x;
    x.value = 0.2;
    x.span_id = SpanId{1, 2, 3, 4, 5, 6, 7, 8};
    p.exemplars = {x};
    h.points = {p};
    OtlpMetric cpu{"vtscope.cpu.time", "s", "c", OtlpMetric::Kind::kDoubleSum};
    OtlpDataPoint c;
    c.as_double = 1.5;
    cpu.points = {c};
    OtlpMetric metrics[2] = {h, cpu};
    Json json = parse(encode_metrics_request({}, metrics, 1, 2));
    const auto& m = vtscope::json_array(vtscope::json_at(
        vtscope::json_array(
            vtscope::json_at(vtscope::json_array(vtscope::json_at(json, "resourceMetrics")).at(0), "scopeMetrics"))
            .at(0),
        "metrics"));
    ASSERT_EQ(m.size(), 2u);
    const Json& hp = vtscope::json_array(vtscope::json_at(m[0], "histogram", "dataPoints")).at(0);
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(m[0], "histogram", "aggregationTemporality")), 2);
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(hp, "count")), "3");
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(hp, "sum")), 0.25);
    ASSERT_EQ(vtscope::json_array(vtscope::json_at(hp, "bucketCounts")).size(), 3u);
    EXPECT_EQ(vtscope::json_string(vtscope::json_array(vtscope::json_at(hp, "bucketCounts"))[2]), "1");
    ASSERT_EQ(vtscope::json_array(vtscope::json_at(hp, "explicitBounds")).size(), 2u);
    EXPECT_EQ(vtscope::json_number(vtscope::json_array(vtscope::json_at(hp, "explicitBounds"))[1]), 0.1);
    EXPECT_EQ(
        vtscope::json_string(vtscope::json_at(vtscope::json_array(vtscope::json_at(hp, "exemplars")).at(0), "spanId")),
        "0102030405060708");
    EXPECT_EQ(vtscope::json_number(
                  vtscope::json_at(vtscope::json_array(vtscope::json_at(m[1], "sum", "dataPoints")).at(0), "asDouble")),
              1.5);
}

TEST(OtlpMetrics, ReservoirKeepsTheLargestContextsAndEmpties) {
    ExemplarReservoir r;
    auto trace = [](uint8_t b) {
        TraceId t{};
        t[0] = b;
        return t;
    };
    r.add(trace(1), std::nullopt, 1, 10);
    r.add(trace(2), std::nullopt, 5, 11);
    r.add(trace(1), std::nullopt, 3, 12);  // the same context adds up: 4
    r.add(trace(3), SpanId{9}, 2, 13);
    auto top = r.take(2);
    ASSERT_EQ(top.size(), 2u);
    EXPECT_EQ(top[0].trace_id[0], 2);
    EXPECT_EQ(top[0].value, 5);
    EXPECT_EQ(top[1].trace_id[0], 1);
    EXPECT_EQ(top[1].value, 4);
    EXPECT_EQ(top[1].time_unix_ns, 12u);
    EXPECT_TRUE(r.empty());
    EXPECT_TRUE(r.take(4).empty());
}

TEST(OtlpProfiles, DictionaryTablesLeafFirstStacksAndLinks) {
    ProfileRow a;
    a.tid = 5;
    a.java_id = 40;
    a.mounted_virtual = true;
    a.status = VTSCOPE_STATUS_OK;
    a.trace_id = "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf";
    a.span_id = "1011121314151617";
    a.frames = {"root", "mid", "leaf"};
    a.samples = 3;
    a.cpu_ns = 30000000;
    ProfileRow b = a;  // the same stack, no trace context
    b.status = VTSCOPE_STATUS_NO_CONTEXT;
    b.trace_id.clear();
    b.span_id.clear();
    b.cpu_ns = 10000000;
    ProfileRow rows[2] = {a, b};
    Json json = parse(encode_profiles_request({OtlpAttribute::string("service.name", "svc")}, rows, 10101010, 100, 400,
                                              "00112233445566778899aabbccddeeff"));
    const Json& d = vtscope::json_at(json, "dictionary");
    const auto& strings = vtscope::json_array(vtscope::json_at(d, "stringTable"));
    ASSERT_GE(strings.size(), 4u);
    EXPECT_EQ(vtscope::json_string(strings[0]), "");
    for (const char* table : {"functionTable", "locationTable", "stackTable", "linkTable", "attributeTable"}) {
        ASSERT_FALSE(vtscope::json_array(vtscope::json_member(d, table)).empty()) << table;
        EXPECT_TRUE(vtscope::json_array(vtscope::json_member(d, table))[0].empty())
            << table << ": entry 0 is the empty value";
    }
    const Json& profile =
        vtscope::json_array(
            vtscope::json_at(vtscope::json_array(
                                 vtscope::json_at(vtscope::json_array(vtscope::json_at(json, "resourceProfiles")).at(0),
                                                  "scopeProfiles"))
                                 .at(0),
                             "profiles"))
            .at(0);
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(profile, "period")), "10101010");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(profile, "timeUnixNano")), "100");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(profile, "durationNano")), "300");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(profile, "profileId")), "00112233445566778899aabbccddeeff");
    EXPECT_EQ(vtscope::json_string(strings.at(
                  static_cast<size_t>(vtscope::json_number(vtscope::json_at(profile, "sampleType", "typeStrindex"))))),
              "cpu");
    const auto& samples = vtscope::json_array(vtscope::json_at(profile, "samples"));
    ASSERT_EQ(samples.size(), 2u);
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(samples[0], "stackIndex")),
              vtscope::json_number(vtscope::json_at(samples[1], "stackIndex")));  // one stack, interned
    EXPECT_EQ(vtscope::json_string(vtscope::json_array(vtscope::json_at(samples[0], "values")).at(0)), "30000000");
    const Json& link = vtscope::json_array(vtscope::json_at(d, "linkTable"))
                           .at(static_cast<size_t>(vtscope::json_number(vtscope::json_at(samples[0], "linkIndex"))));
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(link, "traceId")), "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(link, "spanId")), "1011121314151617");
    EXPECT_TRUE(vtscope::json_at(samples[1], "linkIndex").is_null());  // 0, the empty link: left out
    // The stack is leaf first: location -> function -> name.
    const Json& stack = vtscope::json_array(vtscope::json_at(d, "stackTable"))
                            .at(static_cast<size_t>(vtscope::json_number(vtscope::json_at(samples[0], "stackIndex"))));
    std::vector<std::string> names;
    for (const Json& l : vtscope::json_array(vtscope::json_at(stack, "locationIndices"))) {
        const Json& line =
            vtscope::json_array(vtscope::json_at(vtscope::json_array(vtscope::json_at(d, "locationTable"))
                                                     .at(static_cast<size_t>(vtscope::json_number(l))),
                                                 "lines"))
                .at(0);
        const Json& f = vtscope::json_array(vtscope::json_at(d, "functionTable"))
                            .at(static_cast<size_t>(vtscope::json_number(vtscope::json_at(line, "functionIndex"))));
        names.push_back(vtscope::json_string(
            strings.at(static_cast<size_t>(vtscope::json_number(vtscope::json_at(f, "nameStrindex"))))));
    }
    EXPECT_EQ(names, (std::vector<std::string>{"leaf", "mid", "root"}));
    // The sample's attributes, through the attribute table.
    std::map<std::string, std::string> attrs;
    for (const Json& i : vtscope::json_array(vtscope::json_at(samples[0], "attributeIndices"))) {
        const Json& kv =
            vtscope::json_array(vtscope::json_at(d, "attributeTable")).at(static_cast<size_t>(vtscope::json_number(i)));
        const Json& v = vtscope::json_at(kv, "value");
        attrs[vtscope::json_string(
            strings.at(static_cast<size_t>(vtscope::json_number(vtscope::json_at(kv, "keyStrindex")))))] =
            vtscope::json_at(v, "stringValue").is_string() ? vtscope::json_string(vtscope::json_at(v, "stringValue"))
                                                           : vtscope::json_string(vtscope::json_at(v, "intValue"));
    }
    EXPECT_EQ(vtscope::json_at(attrs, "thread.id"), "40");
    EXPECT_EQ(vtscope::json_at(attrs, "vtscope.os_thread.id"), "5");
    EXPECT_EQ(vtscope::json_at(attrs, "vtscope.status"), "ok");
}

TEST(OtlpResponse, PartialSuccessRejections) {
    for (OtlpProtocol p : {OtlpProtocol::kHttpJson, OtlpProtocol::kHttpProtobuf}) {
        EXPECT_EQ(rejected_in_response("logs", p, ""), 0u);
        EXPECT_EQ(rejected_in_response("logs", p, "<html>proxy</html>"), 0u);
    }
    EXPECT_EQ(rejected_in_response("logs", OtlpProtocol::kHttpJson, "{}"), 0u);
    EXPECT_EQ(rejected_in_response("logs", OtlpProtocol::kHttpJson, "{\"partialSuccess\":{}}"), 0u);
    EXPECT_EQ(rejected_in_response("logs", OtlpProtocol::kHttpJson,
                                   "{\"partialSuccess\":{\"rejectedLogRecords\":\"3\",\"errorMessage\":\"x\"}}"),
              3u);
    EXPECT_EQ(rejected_in_response("metrics", OtlpProtocol::kHttpJson,
                                   "{\"partialSuccess\":{\"rejectedDataPoints\":4},\"futureField\":1}"),
              4u);
    opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceResponse profiles;
    profiles.mutable_partial_success()->set_rejected_profiles(2);
    EXPECT_EQ(rejected_in_response("profiles", OtlpProtocol::kHttpProtobuf, profiles.SerializeAsString()), 2u);
    EXPECT_EQ(rejected_in_response("profiles", OtlpProtocol::kHttpJson, otlp_json(profiles)), 2u);
}

// http/json: the printer's base64 ids become hex, wherever the id fields are, and nothing else
// changes (an attribute whose key or value spells an id field stays as it is).
TEST(OtlpJson, IdsAreHexAndEnumsIntegers) {
    EXPECT_EQ(hex_ids_in_json(R"({"traceId":"oKGio6SlpqeoqaqrrK2urw==","spanId":"EBESExQVFhc="})"),
              R"({"traceId":"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf","spanId":"1011121314151617"})");
    EXPECT_EQ(hex_ids_in_json(R"({"parentSpanId":"/w==","profileId":"AAE"})"),
              R"({"parentSpanId":"ff","profileId":"0001"})");
    const std::string untouched = R"({"key":"traceId","value":{"stringValue":"x\"traceId\":\"AAAA"}},"myId":"AAAA"})";
    EXPECT_EQ(hex_ids_in_json(untouched), untouched);
    opentelemetry::proto::collector::logs::v1::ExportLogsServiceRequest request;
    auto* record = request.add_resource_logs()->add_scope_logs()->add_log_records();
    record->set_severity_number(opentelemetry::proto::logs::v1::SEVERITY_NUMBER_WARN);
    record->set_trace_id(std::string("\x00\x01\xfe\xff", 4));
    add_string_attribute(record->mutable_attributes(), "spanId", "\"spanId\":\"AAAA");
    Json json = parse(request);
    const Json& r = vtscope::json_array(vtscope::json_at(
        vtscope::json_array(
            vtscope::json_at(vtscope::json_array(vtscope::json_at(json, "resourceLogs")).at(0), "scopeLogs"))
            .at(0),
        "logRecords"))[0];
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(r, "severityNumber")), 13);  // SEVERITY_NUMBER_WARN
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(r, "traceId")), "0001feff");
    EXPECT_EQ(
        vtscope::json_string(vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "spanId"), "stringValue")),
        "\"spanId\":\"AAAA");
}

// http/protobuf: the body is the message's own serialization, and says so.
TEST(OtlpProtocols, BodiesContentTypesAndPorts) {
    OtlpLogEvent events[1] = {sample_event(VTSCOPE_STATUS_OK)};
    auto request = encode_logs_request({OtlpAttribute::string("service.name", "svc")}, events, {"read", "write"}, 0, 1);
    OtlpBody binary = encode_otlp_body(request, OtlpProtocol::kHttpProtobuf);
    EXPECT_STREQ(binary.content_type, "application/x-protobuf");
    opentelemetry::proto::collector::logs::v1::ExportLogsServiceRequest back;
    ASSERT_TRUE(back.ParseFromString(binary.bytes));
    EXPECT_EQ(back.SerializeAsString(), request.SerializeAsString());
    OtlpBody json = encode_otlp_body(request, OtlpProtocol::kHttpJson);
    EXPECT_STREQ(json.content_type, "application/json");
    EXPECT_FALSE(parse(json.bytes).is_discarded());

    EXPECT_EQ(*resolve_otlp_protocol("", env_of({})), OtlpProtocol::kHttpProtobuf);
    EXPECT_EQ(*resolve_otlp_protocol("", env_of({{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}})), OtlpProtocol::kGrpc);
    EXPECT_EQ(*resolve_otlp_protocol("http/json", env_of({{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}})),
              OtlpProtocol::kHttpJson);
    auto bad = resolve_otlp_protocol("", env_of({{"OTEL_EXPORTER_OTLP_PROTOCOL", "http"}}));
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("OTEL_EXPORTER_OTLP_PROTOCOL"), std::string::npos);
    auto grpc = resolve_otlp_endpoints("localhost", env_of({}), otlp_default_port(OtlpProtocol::kGrpc));
    ASSERT_TRUE(grpc && grpc->has_value());
    EXPECT_EQ((*grpc)->logs, "http://localhost:4317/v1/logs");
    auto target = grpc_target((*grpc)->logs);
    ASSERT_TRUE(target);
    EXPECT_EQ(target->authority, "localhost:4317");
    EXPECT_FALSE(target->tls);
    EXPECT_TRUE(grpc_target("https://[::1]:4317")->tls);
    EXPECT_FALSE(grpc_target("unix://x"));
}

// gRPC statuses to the exporter's retry rules (OTLP specification, "Failures").
TEST(OtlpGrpc, StatusesMapToRetries) {
    EXPECT_TRUE(grpc_reply(grpc::Status::OK).delivered);
    for (grpc::StatusCode code :
         {grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::DEADLINE_EXCEEDED, grpc::StatusCode::CANCELLED,
          grpc::StatusCode::ABORTED, grpc::StatusCode::OUT_OF_RANGE, grpc::StatusCode::DATA_LOSS})
        EXPECT_TRUE(grpc_reply(grpc::Status(code, "x")).retryable) << static_cast<int>(code);
    for (grpc::StatusCode code : {grpc::StatusCode::INVALID_ARGUMENT, grpc::StatusCode::UNAUTHENTICATED,
                                  grpc::StatusCode::PERMISSION_DENIED, grpc::StatusCode::UNIMPLEMENTED})
        EXPECT_FALSE(grpc_reply(grpc::Status(code, "x")).retryable) << static_cast<int>(code);
    // RESOURCE_EXHAUSTED: retried only with a google.rpc.RetryInfo among the status details.
    EXPECT_FALSE(grpc_reply(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "full")).retryable);
    auto details = [](const std::string& type) {
        google::protobuf::Any any;
        any.set_type_url("type.googleapis.com/" + type);
        google::protobuf::UnknownFieldSet status;  // google.rpc.Status
        status.AddVarint(1, 8);
        status.AddLengthDelimited(3, any.SerializeAsString());
        std::string out;
        status.SerializeToString(&out);
        return out;
    };
    EXPECT_TRUE(grpc_details_have_retry_info(details("google.rpc.RetryInfo")));
    EXPECT_FALSE(grpc_details_have_retry_info(details("google.rpc.DebugInfo")));
    EXPECT_FALSE(grpc_details_have_retry_info("\xff"));
    grpc::Status exhausted(grpc::StatusCode::RESOURCE_EXHAUSTED, "full", details("google.rpc.RetryInfo"));
    OtlpReply reply = grpc_reply(exhausted);
    EXPECT_TRUE(reply.retryable);
    EXPECT_NE(reply.error.find("full"), std::string::npos);
}

}  // namespace
}  // namespace vtscope
