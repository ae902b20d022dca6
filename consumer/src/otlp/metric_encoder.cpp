// SPDX-License-Identifier: Apache-2.0
#include "otlp/metric_encoder.h"

#include "otlp/otlp_message.h"

namespace vtscope {
namespace {

namespace metrics_pb = opentelemetry::proto::metrics::v1;

void add_exemplars(google::protobuf::RepeatedPtrField<metrics_pb::Exemplar>* out,
                   const std::vector<OtlpExemplar>& exemplars) {
    for (const OtlpExemplar& e : exemplars) {
        metrics_pb::Exemplar* x = out->Add();
        x->set_time_unix_nano(e.time_unix_ns);
        x->set_as_double(e.value);
        x->set_trace_id(e.trace_id.data(), e.trace_id.size());
        if (e.span_id) x->set_span_id(e.span_id->data(), e.span_id->size());
    }
}

template <typename Point>
void point_head(Point* point, const OtlpDataPoint& p, uint64_t start_ns, uint64_t now_ns) {
    for (const OtlpAttribute& a : p.attributes) add_attribute(point->mutable_attributes(), a);
    point->set_start_time_unix_nano(start_ns);
    point->set_time_unix_nano(now_ns);
    add_exemplars(point->mutable_exemplars(), p.exemplars);
}

void set_metric(metrics_pb::Metric* out, const OtlpMetric& metric, uint64_t start_ns, uint64_t now_ns) {
    out->set_name(metric.name);
    out->set_unit(metric.unit);
    out->set_description(metric.description);
    if (metric.kind == OtlpMetric::Kind::kHistogram) {
        metrics_pb::Histogram* histogram = out->mutable_histogram();
        histogram->set_aggregation_temporality(metrics_pb::AGGREGATION_TEMPORALITY_CUMULATIVE);
        for (const OtlpDataPoint& p : metric.points) {
            metrics_pb::HistogramDataPoint* point = histogram->add_data_points();
            point_head(point, p, start_ns, now_ns);
            point->set_count(p.count);
            point->set_sum(p.sum);
            for (uint64_t n : p.bucket_counts) point->add_bucket_counts(n);
            for (double bound : metric.bounds) point->add_explicit_bounds(bound);
        }
        return;
    }
    metrics_pb::Sum* sum = out->mutable_sum();
    sum->set_aggregation_temporality(metrics_pb::AGGREGATION_TEMPORALITY_CUMULATIVE);
    sum->set_is_monotonic(true);
    for (const OtlpDataPoint& p : metric.points) {
        metrics_pb::NumberDataPoint* point = sum->add_data_points();
        point_head(point, p, start_ns, now_ns);
        // as_int is sfixed64 in metrics.proto; the counts vtscope sums stay far below 2^63.
        if (metric.kind == OtlpMetric::Kind::kIntSum)
            point->set_as_int(static_cast<int64_t>(p.as_int));
        else
            point->set_as_double(p.as_double);
    }
}

}  // namespace

opentelemetry::proto::collector::metrics::v1::ExportMetricsServiceRequest encode_metrics_request(
    const std::vector<OtlpAttribute>& resource, std::span<const OtlpMetric> metrics, uint64_t start_ns,
    uint64_t now_ns) {
    opentelemetry::proto::collector::metrics::v1::ExportMetricsServiceRequest request;
    metrics_pb::ResourceMetrics* resource_metrics = request.add_resource_metrics();
    set_resource(resource_metrics->mutable_resource(), resource);
    metrics_pb::ScopeMetrics* scope_metrics = resource_metrics->add_scope_metrics();
    set_scope(scope_metrics->mutable_scope());
    for (const OtlpMetric& metric : metrics) set_metric(scope_metrics->add_metrics(), metric, start_ns, now_ns);
    return request;
}

}  // namespace vtscope
