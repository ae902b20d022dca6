// SPDX-License-Identifier: Apache-2.0
// block --otlp's metrics: vtscope.block.duration, a histogram of the reported intervals' blocked
// time per block reason and syscall, with an exemplar per bucket, and vtscope.block.cpu_wait, the
// same of the preempted intervals (waiting for a CPU, not blocking), kept apart so that a busy
// neighbour's run-queue waits never read as blocking.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "../../bpf/block.h"
#include "otlp/otlp_model.h"

namespace vtscope {

// Upper bounds (seconds) of the blocked-time histogram's buckets: from 1 ms (below the default
// 20 ms threshold, for --threshold 0 or 1) to 10 s, the last bucket open-ended.
inline constexpr std::array<double, 13> kBlockBounds = {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1,
                                                        0.2,   0.5,   1,     2,    5,    10};

// The blocked time of the reported intervals of one block reason and syscall (--otlp), and one
// exemplar per bucket: its latest interval with a trace context since the last export, as the
// OpenTelemetry SDKs' AlignedHistogramBucketExemplarReservoir keeps.
struct BlockHistogram {
    uint64_t count = 0;
    double sum = 0;
    std::vector<uint64_t> buckets = std::vector<uint64_t>(kBlockBounds.size() + 1, 0);
    std::vector<std::optional<OtlpExemplar>> exemplars = std::vector<std::optional<OtlpExemplar>>(buckets.size());

    // unix_ns: the interval's start in Unix time, the exemplar's time.
    void add(const vtscope_block_event& e, uint64_t unix_ns);
};

// By block reason and syscall (-1 unless the reason is a syscall).
using BlockHistograms = std::map<std::pair<unsigned, int>, BlockHistogram>;

// The histograms so far as two metrics (blocked, waiting for a CPU), with their exemplars since
// the last export, which it takes (they are empty afterwards).
std::vector<OtlpMetric> block_duration_metrics(BlockHistograms& histograms);

}  // namespace vtscope
