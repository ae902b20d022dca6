// SPDX-License-Identifier: Apache-2.0
// Native memory per live virtual thread: io.vtscope.workloads.NativeMemoryCost (10,000 parked
// threads) under Native Memory Tracking, per configuration.
#pragma once

#include <string>
#include <vector>

#include "bench_options.h"

namespace vtscope::bench {

struct MemoryRun {
    std::string config;
    std::vector<double> bytes_per_thread;  // one per successful run
};

// baseline, vtt, vtt-registered, probes: 3 runs each, 1 with --quick.
std::vector<MemoryRun> run_native_memory(const Options& o);

}  // namespace vtscope::bench
