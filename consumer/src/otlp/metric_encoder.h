// SPDX-License-Identifier: Apache-2.0
// The metrics signal: sums and histograms with exemplars as an ExportMetricsServiceRequest (the
// protobuf JSON mapping).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "otlp/otlp_model.h"

namespace vtscope {

// ExportMetricsServiceRequest: every metric cumulative over [start_ns, now_ns] (Unix times).
std::string encode_metrics_request(const std::vector<OtlpAttribute>& resource, std::span<const OtlpMetric> metrics,
                                   uint64_t start_ns, uint64_t now_ns);

}  // namespace vtscope
