// SPDX-License-Identifier: Apache-2.0
#include "otlp/metric_encoder.h"

#include "otlp/otlp_json.h"
#include "output/event_format.h"
#include "output/json_io.h"

namespace vtscope {
namespace {

using nlohmann::ordered_json;

ordered_json exemplars_json(const std::vector<OtlpExemplar>& exemplars) {
    ordered_json out = ordered_json::array();
    for (const OtlpExemplar& e : exemplars) {
        ordered_json x;
        x["timeUnixNano"] = std::to_string(e.time_unix_ns);
        x["asDouble"] = e.value;
        x["traceId"] = hex_string(e.trace_id.data(), e.trace_id.size());
        if (e.span_id) x["spanId"] = hex_string(e.span_id->data(), e.span_id->size());
        out.push_back(std::move(x));
    }
    return out;
}

// One point: its attributes, the session's times, its value(s) as the metric's kind says, and
// its exemplars when it has any.
ordered_json point_json(const OtlpMetric& metric, const OtlpDataPoint& p, uint64_t start_ns, uint64_t now_ns) {
    ordered_json point;
    point["attributes"] = ordered_json::array();
    for (const OtlpAttribute& a : p.attributes) point["attributes"].push_back(attribute_json(a));
    point["startTimeUnixNano"] = std::to_string(start_ns);
    point["timeUnixNano"] = std::to_string(now_ns);
    if (metric.kind == OtlpMetric::Kind::kHistogram) {
        point["count"] = std::to_string(p.count);
        point["sum"] = p.sum;
        point["bucketCounts"] = ordered_json::array();
        for (uint64_t n : p.bucket_counts) point["bucketCounts"].push_back(std::to_string(n));
        point["explicitBounds"] = metric.bounds;
    } else if (metric.kind == OtlpMetric::Kind::kIntSum) {
        point["asInt"] = std::to_string(p.as_int);
    } else {
        point["asDouble"] = p.as_double;
    }
    if (!p.exemplars.empty()) point["exemplars"] = exemplars_json(p.exemplars);
    return point;
}

ordered_json metric_json(const OtlpMetric& metric, uint64_t start_ns, uint64_t now_ns) {
    ordered_json out;
    out["name"] = metric.name;
    out["unit"] = metric.unit;
    out["description"] = metric.description;
    ordered_json data;
    // AGGREGATION_TEMPORALITY_CUMULATIVE = 2 (opentelemetry/proto/metrics/v1/metrics.proto)
    data["aggregationTemporality"] = 2;
    const bool histogram = metric.kind == OtlpMetric::Kind::kHistogram;
    if (!histogram) data["isMonotonic"] = true;
    data["dataPoints"] = ordered_json::array();
    for (const OtlpDataPoint& p : metric.points) data["dataPoints"].push_back(point_json(metric, p, start_ns, now_ns));
    out[histogram ? "histogram" : "sum"] = std::move(data);
    return out;
}

}  // namespace

std::string encode_metrics_request(const std::vector<OtlpAttribute>& resource, std::span<const OtlpMetric> metrics,
                                   uint64_t start_ns, uint64_t now_ns) {
    ordered_json items = ordered_json::array();
    for (const OtlpMetric& metric : metrics) items.push_back(metric_json(metric, start_ns, now_ns));
    return json_text(export_request("Metrics", resource, "metrics", std::move(items)));
}

}  // namespace vtscope
