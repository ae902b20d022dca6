// SPDX-License-Identifier: Apache-2.0
// The metrics signal: sums and histograms with exemplars as an ExportMetricsServiceRequest (the
// generated message of opentelemetry-proto's metrics_service.proto).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "opentelemetry/proto/collector/metrics/v1/metrics_service.pb.h"
#include "otlp/otlp_model.h"

namespace vtscope {

// ExportMetricsServiceRequest: every metric cumulative over [start_ns, now_ns] (Unix times).
opentelemetry::proto::collector::metrics::v1::ExportMetricsServiceRequest encode_metrics_request(
    const std::vector<OtlpAttribute>& resource, std::span<const OtlpMetric> metrics, uint64_t start_ns,
    uint64_t now_ns);

}  // namespace vtscope
