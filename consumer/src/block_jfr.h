// vtscope block --jfr: a JFR recording of jdk.VirtualThreadPinned in the target, started and
// stopped through the target JDK's own jcmd and read with its own jfr tool (`jfr print --json`),
// so vtscope parses no JFR file itself. Its events are joined to vtscope's intervals.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "expected.h"

namespace vtscope {

struct JfrPinnedEvent {
    int64_t vthread = 0;    // eventThread.javaThreadId
    uint64_t start_ns = 0;  // CLOCK_MONOTONIC (converted from the event's UTC startTime)
    uint64_t duration_ns = 0;
    std::string pinned_reason;
    std::string blocking_operation;
    std::vector<std::string> stack;  // "pkg.Class.method:line", innermost first
};

// "2026-12-01T08:34:46.444669170Z" -> ns since the epoch; "PT0.060084904S" -> ns. False on bad text.
bool parse_jfr_instant(const std::string& text, int64_t* epoch_ns);
bool parse_jfr_duration(const std::string& text, uint64_t* ns);
// The jdk.VirtualThreadPinned events of `jfr print --json` output; realtime_minus_monotonic_ns
// converts their start times to CLOCK_MONOTONIC.
Expected<std::vector<JfrPinnedEvent>> parse_jfr_pinned_json(const std::string& json,
                                                            int64_t realtime_minus_monotonic_ns);

// An interval vtscope reported, as the JFR join sees it.
struct JfrJoinInterval {
    int64_t vthread = 0;    // the mounted virtual thread's Java id
    bool eligible = false;  // a virtual thread was mounted (else it joins nothing)
    uint64_t start_ns = 0, end_ns = 0;
};
// Joins each event (in order) to the interval of the same virtual thread that overlaps it most,
// its span widened by slack_ns on both sides; an interval takes at most one event, ties go to the
// earlier interval. intervals: sorted by start_ns. Returns, per event, the index of its interval
// or -1. O((n + m) log n) for n intervals and m events.
std::vector<long> join_pinned_events(const std::vector<JfrJoinInterval>& intervals,
                                     const std::vector<JfrPinnedEvent>& events, uint64_t slack_ns);

class JfrRecording {
public:
    // Starts the recording (jcmd PID JFR.start ..., jdk.VirtualThreadPinned only, at threshold_ns,
    // with stack traces, dumped on exit). The tools are those of the target's JDK (/proc/PID/exe).
    static Expected<JfrRecording> start(pid_t pid, uint64_t threshold_ns);
    JfrRecording(JfrRecording&& other) noexcept;
    JfrRecording(const JfrRecording&) = delete;
    ~JfrRecording();

    // Stops it (JFR.stop, or the dump the JVM wrote at exit when it is gone) and reads its events.
    Expected<std::vector<JfrPinnedEvent>> finish(bool target_alive);

private:
    JfrRecording() = default;
    pid_t pid_ = 0;
    std::string bin_dir_;  // the target JDK's bin directory
    std::string dir_;      // our temporary directory (the JVM writes the recording there)
    std::string name_;     // the recording's name in the target
    int64_t realtime_minus_monotonic_ns_ = 0;
};

}  // namespace vtscope
