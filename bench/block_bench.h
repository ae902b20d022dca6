// SPDX-License-Identifier: Apache-2.0
// vtscope-bench --block (issue 11): what `vtscope block` costs. (a) Its sched_switch program's run
// time per switch of a target thread and per switch of any other thread, from the kernel's run-time
// statistics; (b) Park/Unpark with block attached is the JMH matrix's "block" configuration;
// (c) the demo service's throughput with and without block attached, side by side in rounds (one
// JVM each), and (d) in alternating phases of one JVM (alternate_bench.h).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "alternate_bench.h"
#include "bench_options.h"
#include "stats.h"
#include "tracer.h"

namespace vtscope::bench {

// One scenario of the per-switch cost, measured over 1 s intervals.
struct SwitchCostRun {
    // idle: the JVM sleeps while another process pair switches (perf bench sched pipe);
    // platform / pinned: two threads of the JVM hand a byte back and forth over pipes (platform
    // threads; virtual threads blocking their carriers in the downcall).
    std::string mode;
    std::vector<double> ns_per_run;            // run_time_ns / run_cnt of the program, per interval
    std::vector<double> empty_ns_per_run;      // the same of an empty program on sched_switch (bpftrace)
    std::vector<double> ns_per_target_switch;  // platform, pinned: see block_bench.cpp
    Summary per_run, empty_per_run, per_target_switch;
    double runs_per_s = NAN;             // the program's runs (every sched_switch of the machine)
    double target_switches_per_s = NAN;  // the target's context switches (/proc, nvcsw + nivcsw)
    TracerSummary tracer;
    std::string error;
};

// The demo service (io.vtscope.workloads.DemoService, its own load generator) without and with
// `vtscope block` attached, one of each per round, their order alternating.
struct DemoRounds {
    int requests = 0;
    int concurrency = 0;
    int warmup = 0;                           // requests before the ready signal
    std::vector<double> none_rps, block_rps;  // requests per second of each round
    std::vector<double> ratios;               // block / none, per round
    // The service's CPU time per request (us) in each round (DemoService's cpu_ns), and its paired
    // change with block attached, percent.
    std::vector<double> none_cpu, block_cpu;
    Summary none, block, ratio, cpu_change;
    std::vector<TracerSummary> tracers;
    std::vector<std::string> errors;
};

struct BlockBench {
    bool ran = false;
    std::vector<SwitchCostRun> switches;  // idle first: its per-run cost is the other-switch cost
    DemoRounds demo;
    std::vector<AlternateRun> alternate;  // --block-parts alternate: the demo service, block in alternating phases
};

// Runs every part of --block, reporting each on stderr.
BlockBench run_block_bench(const Options& o);

}  // namespace vtscope::bench
