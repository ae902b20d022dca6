// SPDX-License-Identifier: Apache-2.0
// The consumer the bench attaches to a measured JVM: `vtscope trace` (or `vtscope stat`) started
// with its files beside a log stem, stopped, and its summary read from --summary-json.
#pragma once

#include <sys/types.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench_options.h"
#include "process_runner.h"

namespace vtscope::bench {

struct TracerSummary {
    bool present = false;
    int exit_status = -1;
    double attach_ms = NAN;  // child start -> ready file
    bool late = false;       // ready only after the measurement had started
    double cpu_seconds = 0;
    // Its utime+stime per wall second over the measured interval (from JMH's first measurement
    // iteration to the JVM's exit); NaN when not measured.
    double cpu_share = NAN;
    // Over the same interval, for a profile configuration: the runs of its busiest BPF program
    // (the sampler), the run time of all its programs, and the target JVM's utime+stime.
    double program_runs = NAN, program_run_time_ns = NAN, target_cpu_s = NAN;
    unsigned long long events = 0, ok = 0, lost = 0, inserted = 0, deleted = 0;
    // --otlp: the summary's otlp object (log records handed to the exporter, delivered, dropped).
    unsigned long long otlp_records = 0, otlp_delivered = 0, otlp_dropped = 0, otlp_queue_full = 0;
    std::string summary;  // its stderr lines
};

// The `vtscope profile` configurations of the bench: "profile-HZ" and "profile-HZ-stacks".
struct ProfileConfig {
    int hz = 0;
    bool stacks = false;
};
std::optional<ProfileConfig> profile_config(const std::string& config);

// The tracer's files: STEM.ready, STEM.tracer.out, STEM.tracer.err, STEM.tracer.summary.json.
std::string tracer_ready_file(const std::string& stem);

// Starts `vtscope COMMAND --pid PID --syscalls write` for the configuration (command: "trace",
// or "stat", the same attribution counted in the kernel; or "block", without --syscalls), or
// `vtscope profile --hz HZ [--stacks]` for a profile configuration, after removing its old ready
// and summary files; cpu pins it; extra: more vtscope options (--otlp URL).
testing::Child start_tracer(const Options& o, const std::string& config, pid_t pid, const std::string& stem,
                            const std::string& command = "trace", std::optional<int> cpu = std::nullopt,
                            const std::vector<std::string>& extra = {});

// Stops a tracer whose target has exited (it stops by itself) or not, and fills *t with its exit,
// CPU time, stderr text and the counters of its summary JSON (for profile: events = samples). Returns an error if that summary is
// missing or unreadable (the counters stay 0).
std::string finish_tracer(testing::Child& tracer, const std::string& stem, TracerSummary* t);

// Stops any other tracing process (bpftrace) the same way, keeping its exit, CPU time and stderr.
void finish_process(testing::Child& process, const std::string& stem, TracerSummary* t);

// Run count and run time of every loaded BPF program, by id; the kernel keeps them while
// bpf_enable_stats(BPF_STATS_RUN_TIME) is held (which adds two clock reads to every run).
struct ProgramStats {
    std::string name;
    uint64_t runs = 0;
    uint64_t run_time_ns = 0;
};
std::map<uint32_t, ProgramStats> bpf_program_stats();

// The program that ran most often between two snapshots (NaN counts when none ran), and the
// run time of all the programs in `after` between them.
struct ProgramDelta {
    std::string name;
    double runs = NAN;
    double run_time_ns = NAN;
    double all_run_time_ns = 0;
};
ProgramDelta busiest_program(const std::map<uint32_t, ProgramStats>& before,
                             const std::map<uint32_t, ProgramStats>& after);

// The ids of the BPF programs a process holds open (the "prog_id:" of its fds' fdinfo).
std::vector<uint32_t> programs_of(pid_t pid);

// The sampler's own cost over a measured interval: the kernel's run-time statistics held from
// construction to destruction; at start(), a snapshot of the programs the tracer holds (not the
// other BPF users of this shared machine) and of the target's CPU; at stop(), into *t, the runs
// of its busiest program (the sampler), the run time of all its programs and the target's CPU in
// between.
class ProgramCost {
public:
    ProgramCost();
    ~ProgramCost();
    ProgramCost(const ProgramCost&) = delete;
    ProgramCost& operator=(const ProgramCost&) = delete;
    void start(pid_t tracer, double target_cpu_s);
    void stop(double target_cpu_s, TracerSummary* t) const;

private:
    int stats_fd_ = -1;
    double target_cpu0_ = NAN;
    std::map<uint32_t, ProgramStats> programs0_;
};

// utime + stime of a live process, in seconds (/proc/PID/stat fields 14 and 15).
double process_cpu_seconds(pid_t pid);

}  // namespace vtscope::bench
