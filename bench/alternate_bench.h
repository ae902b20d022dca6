// SPDX-License-Identifier: Apache-2.0
// vtscope-bench's alternating parts (--profile-parts alternate, --block-parts alternate): one JVM of
// the workload (the demo service, DemoService --batches; or Transition, CpuCost --phases) runs many
// phases, and the consumer (vtscope profile --hz N [--stacks], or vtscope block) is started before
// some and stopped after them, in ABBA blocks (alternate.h). Each phase's throughput and the target's
// CPU per unit of work are compared with the phase without a consumer next to it, in the same JVM,
// so no JVM-to-JVM spread enters the comparison.
#pragma once

#include <chrono>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "output/json_io.h"
#include "alternate.h"
#include "bench_options.h"
#include "stats.h"

namespace vtscope::bench {

struct AlternatePhase {
    int config = kPhaseOff;  // index into AlternateRun::configs
    bool warm_up = false;
    // requests/s (demo) or wall ns per transition (Transition), and the target's CPU per unit of work:
    // us per request (CLOCK_PROCESS_CPUTIME_ID) or ns per transition (its threads' schedstat run
    // times); NaN: the phase failed.
    double score = NAN, cpu_per_unit = NAN;
    double seconds = NAN;             // the phase's wall time, go file to result line
    double events = NAN;              // the consumer's events (profile: samples) over its session
    double target_cpu_ns = NAN;       // the target's CPU over the phase, ns (total, not per unit)
    double consumer_cpu_share = NAN;  // the consumer's utime+stime per wall second over the phase
};

struct AlternateRun {
    std::string workload;                // "demo" or "transition"
    int jvm = 1, jvms = 1;               // this JVM's number of --alternate-jvms
    std::string consumer;                // "profile" or "block"
    std::vector<std::string> configs;    // the consumer's configurations: profile-99, ..., or block
    std::string command;                 // the workload's JVM, for the report
    bool higher_is_better = true;        // of the score (requests/s; not wall ns per transition)
    std::vector<int> sequence;           // the measured phases' configurations (alternate_sequence)
    std::vector<AlternatePhase> phases;  // as run: the warm-up phases, then the measured ones
    std::vector<std::string> errors;
    double elapsed_s = NAN;
    bool settle = false;  // --alternate-settle: a discarded batch before each phase, the consumer starting
    int gap_ms = 0;       // --alternate-gap: from a phase's result to the next one's go
    int late = 0;         // measured on phases whose consumer was not ready within the gap
    std::chrono::steady_clock::time_point last_result;  // the previous phase's result line (or the JVM's readiness)
};

// Runs one alternating part in one JVM, the jvm-th of o.alternate_jvms: workload "demo" or
// "transition", configs all profile configurations or {"block"}; progress on stderr.
AlternateRun run_alternate(const Options& o, const std::string& workload, const std::vector<std::string>& configs,
                           std::chrono::steady_clock::time_point started, int jvm = 1);

// A configuration's changes against the adjacent off phases, percent with the 95% half-width: of the
// score and of the CPU per unit; and the slowdown (positive: worse) the score's change means.
struct AlternateResult {
    Summary score_change, cpu_change;
    double slowdown = NAN;
};
AlternateResult alternate_result(const AlternateRun& run, int config);

// A part that ran in more than one JVM (the same consumer, workload and configurations): one
// configuration's change in each JVM and across them (across_jvms), with the slowdown it means.
struct AcrossJvms {
    const AlternateRun* first = nullptr;  // the part's first JVM (its command, configurations)
    int config = 0;
    std::vector<AlternateResult> per_jvm;
    Summary cpu, score;
    double slowdown = NAN;
};
std::vector<AcrossJvms> across_all_jvms(const std::vector<AlternateRun>& runs);

// The same, on stderr.
void print_across_jvms(const std::vector<AlternateRun>& runs);

// The subsection of results.md, the runs' object in results.json, their errors.
void write_alternate(std::ostream& md, const Options& o, const std::vector<AlternateRun>& runs);
OrderedJson alternate_json(const std::vector<AlternateRun>& runs);
std::vector<std::string> alternate_errors(const std::vector<AlternateRun>& runs);

}  // namespace vtscope::bench
