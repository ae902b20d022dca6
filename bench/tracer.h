// The consumer the bench attaches to a measured JVM: `vtscope trace` (or `vtscope stat`) started
// with its files beside a log stem, stopped, and its summary read from --summary-json.
#pragma once

#include <sys/types.h>

#include <cmath>
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
    unsigned long long events = 0, ok = 0, lost = 0, inserted = 0, deleted = 0;
    // --otlp: the summary's otlp object (log records handed to the exporter, delivered, dropped).
    unsigned long long otlp_records = 0, otlp_delivered = 0, otlp_dropped = 0, otlp_queue_full = 0;
    std::string summary;  // its stderr lines
};

// The tracer's files: STEM.ready, STEM.tracer.out, STEM.tracer.err, STEM.tracer.summary.json.
std::string tracer_ready_file(const std::string& stem);

// Starts `vtscope COMMAND --pid PID --syscalls write` for the configuration (command: "trace",
// or "stat", the same attribution counted in the kernel; or "block", without --syscalls), after
// removing its old ready and summary files; cpu pins it; extra: more vtscope options (--otlp URL).
testing::Child start_tracer(const Options& o, const std::string& config, pid_t pid, const std::string& stem,
                            const std::string& command = "trace", std::optional<int> cpu = std::nullopt,
                            const std::vector<std::string>& extra = {});

// Stops a tracer whose target has exited (it stops by itself) or not, and fills *t with its exit,
// CPU time, stderr text and the counters of its summary JSON. Returns an error if that summary is
// missing or unreadable (the counters stay 0).
std::string finish_tracer(testing::Child& tracer, const std::string& stem, TracerSummary* t);

// Stops any other tracing process (bpftrace) the same way, keeping its exit, CPU time and stderr.
void finish_process(testing::Child& process, const std::string& stem, TracerSummary* t);

// utime + stime of a live process, in seconds (/proc/PID/stat fields 14 and 15).
double process_cpu_seconds(pid_t pid);

}  // namespace vtscope::bench
