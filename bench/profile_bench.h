// SPDX-License-Identifier: Apache-2.0
// The `vtscope profile` part of vtscope-bench (issue 12): its overhead on the Transition JMH
// workload (cells of the JMH matrix) and on the demo service (requests per second), at 99 and
// 999 Hz, with and without --stacks, beside no profiler in the same run; and, on the CpuBudgets
// workload (8 virtual threads, known budgets, each under its own trace), vtscope beside
// async-profiler and JFR's jdk.CPUTimeSample: each tool's attribution per virtual thread and per
// trace against the workload's ground truth, and its overhead.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "alternate_bench.h"
#include "bench_options.h"
#include "jmh_matrix.h"
#include "stats.h"
#include "workload_output.h"

namespace vtscope::bench {

// One configuration measured in rounds (one child JVM per round).
struct RoundSeries {
    std::string config;         // its name in the report
    std::string tracer_config;  // what vtscope runs as (profile_config); empty: no profiler
    std::string vtscope;        // the vtscope binary; empty: this build's
    // One per round (NaN: failed). The demo service: requests/s, and the process's CPU time per
    // request in us; CpuCost's Transition: wall ns per transition, and CPU ns per transition.
    std::vector<double> scores, cpu_per_unit;
    // The target's Attach Listener CPU (where HotSpot writes the perf map) over its own CPU during
    // the load, one per round of a configuration with a profiler.
    std::vector<double> perf_map_share;
    std::vector<double> consumer_cpu_share;  // vtscope's utime+stime per wall second, measured interval
    std::vector<double> samples;             // vtscope's samples per round
    // Its sampling program's run time per run, and as a share of the target's CPU (bpf_stats).
    std::vector<double> program_ns_per_sample, program_share;
    std::vector<std::string> errors;
    Summary summary;  // of the scores of the rounds that did not fail
};

// One spinner of CpuBudgets: its ground truth and one tool's estimates.
struct SpinnerResult {
    std::string trace_id;
    int64_t vthread = 0;
    int budget_ms = 0;
    double truth_ms = 0;      // CLOCK_THREAD_CPUTIME_ID around its slices
    double spins = 0;         // spin() calls (work done)
    double vthread_ms = NAN;  // the tool's CPU for this virtual thread; NaN: it names no virtual thread
    double trace_ms = NAN;    // the tool's CPU for this trace; NaN: it has no trace context
};

// One CpuBudgets run under one tool.
struct CompareRun {
    std::vector<SpinnerResult> spinners;
    double elapsed_ms = NAN;                  // wall time of the spinning phase
    double spins_per_cpu_ms = NAN;            // spin() calls per ms of the spinners' CPU
    double total_ms = 0;                      // all the tool's samples, as CPU ms
    std::map<std::string, double> thread_ms;  // the tool's CPU by the thread it named
    double carrier_ms = 0;               // CPU on the carriers the tool left on a carrier (named no virtual thread)
    double virtual_ms = 0;               // CPU it gave a virtual thread
    bool idle_trace_named = false;       // the parked thread's trace got samples
    double lost_samples = NAN;           // samples the tool itself says it lost (JFR)
    double consumer_cpu_s = NAN;         // vtscope's utime+stime over the run
    double program_ns_per_sample = NAN;  // vtscope's sampling program (bpf_stats), go to ground truth
    double program_share = NAN;          // its run time / the target's CPU over the same interval
    std::string error;
};

struct CompareSeries {
    std::string tool;  // none, vtscope, async-profiler, jfr, jfr-10ms
    std::string how;   // its command line, for the report
    std::vector<CompareRun> runs;
    std::string skipped;  // why the tool was not run
};

struct ProfileBench {
    Matrix transition;  // Transition x {baseline, profile-99, profile-99-stacks, profile-999, profile-999-stacks}
    std::vector<RoundSeries> transition_cpu;  // the same configurations on CpuCost transition
    std::vector<RoundSeries> demo;
    std::vector<CompareSeries> compare;
    int compare_hz = 0;
    std::vector<AlternateRun> alternate;  // --profile-parts alternate: Transition and the demo service
};

// Runs the parts, reporting progress on stderr.
ProfileBench run_profile_bench(const Options& o, const std::string& jdk, std::chrono::steady_clock::time_point started);

// The "vtscope profile (issue 12)" section of results.md; its object in results.json.
void write_profile_section(std::ostream& md, const Options& o, const ProfileBench& p);
OrderedJson profile_json(const ProfileBench& p);

// The target of issue 12 for a profile configuration, percent: under 1% at 99 Hz, under 3% at 999 Hz.
double profile_target_pct(const std::string& config);

// The verdict on a cost (percent, with its 99.9% half-width) against its target, as the report
// writes it: "met", "**missed**", "not resolved (+x.x%)" or "not measured".
std::string verdict_text(double cost_pct, double error_pct, double target_pct);

// Every error the part recorded, each prefixed with where it happened.
std::vector<std::string> profile_errors(const ProfileBench& p);

}  // namespace vtscope::bench
