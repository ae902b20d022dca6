// SPDX-License-Identifier: Apache-2.0
#include "otlp/block_metrics.h"

#include <algorithm>
#include <cstring>

#include "core/block_model.h"
#include "sources/syscall_names.h"

namespace vtscope {

void BlockHistogram::add(const vtscope_block_event& e, uint64_t unix_ns) {
    double seconds = static_cast<double>(e.duration_ns) / 1e9;
    // Buckets are (bound[i-1], bound[i]] (opentelemetry/proto/metrics/v1/metrics.proto).
    size_t bucket =
        static_cast<size_t>(std::lower_bound(kBlockBounds.begin(), kBlockBounds.end(), seconds) - kBlockBounds.begin());
    count++;
    sum += seconds;
    buckets[bucket]++;
    const vtscope_attribution& a = e.attribution;
    if (a.status != VTSCOPE_STATUS_OK) return;
    OtlpExemplar x;
    x.time_unix_ns = unix_ns;
    x.value = seconds;
    std::memcpy(x.trace_id.data(), a.trace_id, x.trace_id.size());
    SpanId span;
    std::memcpy(span.data(), a.span_id, span.size());
    x.span_id = span;
    exemplars[bucket] = x;
}

namespace {

// The histograms of the reasons that cpu_wait selects (preempted) or not, as one metric.
OtlpMetric duration_metric(BlockHistograms& histograms, OtlpMetric metric, bool cpu_wait) {
    metric.bounds.assign(kBlockBounds.begin(), kBlockBounds.end());
    for (auto& [key, h] : histograms) {
        if ((key.first == VTSCOPE_BLOCK_PREEMPTED) != cpu_wait) continue;
        OtlpDataPoint p;
        p.attributes.push_back(OtlpAttribute::string("vtscope.block.reason", block_reason_name(key.first)));
        if (const char* name = key.first == VTSCOPE_BLOCK_SYSCALL ? syscall_name(key.second) : nullptr)
            p.attributes.push_back(OtlpAttribute::string("vtscope.syscall", name));
        p.count = h.count;
        p.sum = h.sum;
        p.bucket_counts = h.buckets;
        for (auto& x : h.exemplars) {
            if (x) p.exemplars.push_back(*x);
            x.reset();
        }
        metric.points.push_back(std::move(p));
    }
    return metric;
}

}  // namespace

std::vector<OtlpMetric> block_duration_metrics(BlockHistograms& histograms) {
    std::vector<OtlpMetric> metrics;
    metrics.push_back(duration_metric(histograms,
                                      {"vtscope.block.duration", "s",
                                       "off-CPU intervals with a virtual thread mounted, blocked (not waiting for a "
                                       "CPU), at least the --threshold long, by block reason and syscall",
                                       OtlpMetric::Kind::kHistogram},
                                      false));
    metrics.push_back(duration_metric(histograms,
                                      {"vtscope.block.cpu_wait", "s",
                                       "intervals a carrier with a virtual thread mounted waited for a CPU "
                                       "(preempted: runnable, not blocking), at least the --threshold long",
                                       OtlpMetric::Kind::kHistogram},
                                      true));
    return metrics;
}

}  // namespace vtscope
