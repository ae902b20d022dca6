// SPDX-License-Identifier: Apache-2.0
// The consumer's per-event cost: io.vtscope.bench.WriteStorm (N virtual threads writing 1 byte to
// /dev/null in a loop) with no tracing, an empty BPF program on the same tracepoint (bpftrace),
// `vtscope trace`, `vtscope trace --otlp` into a Collector the bench starts, and `vtscope stat`;
// the BPF program's run time from the kernel's statistics.
#pragma once

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "bench_options.h"
#include "stats.h"
#include "tracer.h"

namespace vtscope::bench {

struct StormRun {
    std::string mode;  // none, empty-bpf, vtscope, vtscope-otlp (trace --otlp), vtscope-stat
    int threads = 1;
    Summary ns_per_write;  // per thread: interval nanos * threads / writes
    double writes_per_second = 0;
    double consumer_cpu_ns_per_event = NAN;
    double consumer_cpu_share = NAN;  // consumer CPU seconds per wall second during the intervals
    TracerSummary tracer;
    bool pinned = false;        // JVM on CPU 0, tracer on CPU 1
    std::string program;        // the BPF program on sys_enter_write (bpf_stats)
    double program_runs = NAN;  // its runs over the measured intervals
    double program_ns_per_run = NAN;
    double collector_cpu_seconds = NAN;  // vtscope-otlp: the Collector's CPU over its whole run
    std::string error;
};

// Every mode with 1 writing thread, then none and vtscope with 2, reporting each on stderr; each
// mode on every JDK of jdks (their java_home and out) before the next. One list of runs per JDK.
std::vector<std::vector<StormRun>> run_write_storm(std::span<const Options* const> jdks);

}  // namespace vtscope::bench
