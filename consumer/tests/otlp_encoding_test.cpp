// The OTLP/HTTP JSON encoding, endpoints and resource of --otlp, with no Collector.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "json.h"
#include "otlp_encoding.h"

namespace vtscope {
namespace {

EnvLookup env_of(const std::map<std::string, std::string>& vars) {
    return [vars](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

Json parse(const std::string& text) {
    Json json;
    std::string error;
    EXPECT_TRUE(parse_json(text, &json, &error)) << error << "\n" << text;
    return json;
}

// The value of attribute key in an OTLP attribute list, as {"stringValue":..} etc.
const Json& attribute(const Json& list, const std::string& key) {
    static const Json null;
    for (const Json& a : list.array)
        if (a["key"].string == key) return a["value"];
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
    std::string out = "[";
    for (size_t i = 0; i < r->size(); i++) {
        if (i) out += ",";
        append_attribute(out, (*r)[i]);
    }
    out += "]";
    Json list = parse(out);
    EXPECT_EQ(attribute(list, "service.name")["stringValue"].string, "from-attrs");
    EXPECT_EQ(attribute(list, "deployment.environment")["stringValue"].string, "prod,1");
    EXPECT_EQ(attribute(list, "process.pid")["intValue"].string, "42");
    EXPECT_EQ(attribute(list, "host.name")["stringValue"].string, "host1");
    EXPECT_EQ(attribute(list, "service.instance.id")["stringValue"].string, "uuid-1");

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
    vtscope_syscall_event events[2] = {sample_event(VTSCOPE_STATUS_OK), sample_event(VTSCOPE_STATUS_UNMAPPED)};
    events[1].attribution.reason = VTSCOPE_REASON_NOT_JAVA_THREAD;
    std::string body = encode_logs_request(resource, events, {"read", "write"}, 5000, 123456789);
    Json json = parse(body);
    const Json& rl = json["resourceLogs"].array.at(0);
    EXPECT_EQ(attribute(rl["resource"]["attributes"], "service.name")["stringValue"].string, "svc");
    const Json& sl = rl["scopeLogs"].array.at(0);
    EXPECT_EQ(sl["scope"]["name"].string, "vtscope");
    const auto& records = sl["logRecords"].array;
    ASSERT_EQ(records.size(), 2u);
    const Json& ok = records[0];
    EXPECT_EQ(ok["traceId"].string, "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    EXPECT_EQ(ok["spanId"].string, "1011121314151617");
    EXPECT_EQ(ok["flags"].number, 1);
    EXPECT_EQ(ok["timeUnixNano"].string, "6000");
    EXPECT_EQ(ok["observedTimeUnixNano"].string, "123456789");
    EXPECT_EQ(ok["body"]["stringValue"].string, "write");
    EXPECT_EQ(ok["eventName"].string, "vtscope.syscall");
    EXPECT_EQ(attribute(ok["attributes"], "thread.id")["intValue"].string, "31");
    EXPECT_EQ(attribute(ok["attributes"], "process.pid")["intValue"].string, "77");
    EXPECT_EQ(attribute(ok["attributes"], "vtscope.thread.virtual")["boolValue"].boolean, true);
    EXPECT_EQ(attribute(ok["attributes"], "vtscope.os_thread.id")["intValue"].string, "78");
    EXPECT_EQ(attribute(ok["attributes"], "vtscope.syscall")["stringValue"].string, "write");
    EXPECT_EQ(attribute(ok["attributes"], "vtscope.fd")["intValue"].string, "5");
    EXPECT_EQ(attribute(ok["attributes"], "vtscope.bytes")["intValue"].string, "4096");
    EXPECT_EQ(attribute(ok["attributes"], "vtscope.status")["stringValue"].string, "ok");
    EXPECT_EQ(attribute(ok["attributes"], "vtscope.reason").type, Json::Type::Null);

    const Json& unmapped = records[1];
    EXPECT_EQ(unmapped["traceId"].type, Json::Type::Null);  // absent: no trace context
    EXPECT_EQ(unmapped["spanId"].type, Json::Type::Null);
    EXPECT_EQ(attribute(unmapped["attributes"], "thread.id").type, Json::Type::Null);
    EXPECT_EQ(attribute(unmapped["attributes"], "vtscope.status")["stringValue"].string, "unmapped");
    EXPECT_EQ(attribute(unmapped["attributes"], "vtscope.reason")["stringValue"].string, "not_java_thread");
}

TEST(OtlpMetrics, CumulativeSumsBySyscallAndStatusOnly) {
    std::vector<SyscallTotals> points = {
        {"write", "ok", 10, 4096}, {"write", "unmapped", 2, 8}, {"close", "ok", 3, {}}};
    Json json = parse(encode_metrics_request({OtlpAttribute::string("service.name", "svc")}, points, 100, 200));
    const auto& metrics = json["resourceMetrics"].array.at(0)["scopeMetrics"].array.at(0)["metrics"].array;
    ASSERT_EQ(metrics.size(), 2u);
    EXPECT_EQ(metrics[0]["name"].string, "vtscope.syscall.calls");
    EXPECT_EQ(metrics[0]["sum"]["aggregationTemporality"].number, 2);
    EXPECT_EQ(metrics[0]["sum"]["isMonotonic"].boolean, true);
    const auto& calls = metrics[0]["sum"]["dataPoints"].array;
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_EQ(calls[0]["asInt"].string, "10");
    EXPECT_EQ(calls[0]["startTimeUnixNano"].string, "100");
    EXPECT_EQ(calls[0]["timeUnixNano"].string, "200");
    EXPECT_EQ(calls[1]["attributes"].array.size(), 2u);  // syscall and status: no trace id label
    EXPECT_EQ(attribute(calls[1]["attributes"], "vtscope.status")["stringValue"].string, "unmapped");
    EXPECT_EQ(metrics[1]["name"].string, "vtscope.syscall.bytes");
    EXPECT_EQ(metrics[1]["unit"].string, "By");
    const auto& bytes = metrics[1]["sum"]["dataPoints"].array;
    ASSERT_EQ(bytes.size(), 2u);  // close has no byte count
    EXPECT_EQ(bytes[0]["asInt"].string, "4096");
}

TEST(OtlpResponse, PartialSuccessRejections) {
    EXPECT_EQ(rejected_in_response(""), 0u);
    EXPECT_EQ(rejected_in_response("{}"), 0u);
    EXPECT_EQ(rejected_in_response("{\"partialSuccess\":{}}"), 0u);
    EXPECT_EQ(rejected_in_response("{\"partialSuccess\":{\"rejectedLogRecords\":\"3\",\"errorMessage\":\"x\"}}"), 3u);
    EXPECT_EQ(rejected_in_response("{\"partialSuccess\":{\"rejectedDataPoints\":4}}"), 4u);
}

}  // namespace
}  // namespace vtscope
