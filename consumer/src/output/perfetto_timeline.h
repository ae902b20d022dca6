// SPDX-License-Identifier: Apache-2.0
// `vtscope block --perfetto FILE`: the session's intervals as a Perfetto trace (protobuf
// TrackEvent, consumer/proto/vtscope_perfetto.proto), one track per carrier. Fed by the block
// source as intervals arrive; written once, at the end, since slices are only drawn whole.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vtscope {

// One reported interval of `vtscope block` (a JSON line), as the timeline draws it. Strings are
// made safe by the caller (output/safe_text.h): they come from the target.
struct TimelineInterval {
    uint64_t start_ns = 0;  // CLOCK_MONOTONIC (bpf_ktime_get_ns)
    uint64_t end_ns = 0;
    uint32_t tid = 0;                                   // the carrier (or, with --all-threads, any thread)
    int64_t vthread = 0;                                // Java id of the mounted virtual thread, 0 when none is known
    std::string trace_id;                               // 32 hex digits, empty when the attribution is not ok
    std::string span_id;                                // 16 hex digits, with trace_id
    std::string status;                                 // the attribution's status name (ok, no_context, ...)
    std::string reason;                                 // "syscall:futex", "preempted", "other" (BlockReason::name)
    bool open = false;                                  // still open when the session ended
    std::vector<std::string> kernel_stack, user_stack;  // --stacks, leaf first
};

class PerfettoTimeline {
public:
    PerfettoTimeline(pid_t pid, std::string process_name) : pid_(pid), process_name_(std::move(process_name)) {}

    // The name of a thread's track (its comm); the first one given for a tid stays.
    void name_thread(uint32_t tid, const std::string& name) { thread_names_.emplace(tid, name); }
    bool has_thread(uint32_t tid) const { return thread_names_.count(tid) != 0; }
    void add(TimelineInterval interval) { intervals_.push_back(std::move(interval)); }

    // The serialized Trace. monotonic_ns and boottime_ns: both clocks read at one instant, the
    // ClockSnapshot that lets Perfetto move the CLOCK_MONOTONIC timestamps onto its trace clock
    // (BOOTTIME; the two differ by the time the machine spent suspended).
    std::string serialize(uint64_t monotonic_ns, uint64_t boottime_ns) const;

private:
    pid_t pid_;
    std::string process_name_;
    std::map<uint32_t, std::string> thread_names_;
    std::vector<TimelineInterval> intervals_;
};

// The outer slices of a carrier's track: the runs of consecutive intervals (by start) with the
// same virtual thread and trace context on one thread, each from its first interval's start to
// its last one's end. Without mount events this is what vtscope knows of a mount: the virtual
// thread was on that carrier at each of those intervals and no other one was seen between them.
struct MountRun {
    uint32_t tid = 0;
    int64_t vthread = 0;
    std::string trace_id, span_id;
    uint64_t start_ns = 0, end_ns = 0;
    size_t intervals = 0;
};
std::vector<MountRun> mount_runs(std::vector<TimelineInterval> intervals);

}  // namespace vtscope
