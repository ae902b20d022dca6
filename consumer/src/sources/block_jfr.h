// SPDX-License-Identifier: Apache-2.0
// vtscope block --jfr: a JFR recording of jdk.VirtualThreadPinned in the target, started and
// stopped through vtscope's own attach client (nothing of the target's is run), read back from the
// target's /tmp inside its root, and printed by the jfr tool of a JDK root owns (`jfr print
// --json`, run with the target's uid and gid and a clean environment), so vtscope parses no JFR
// file itself. Its events are joined to vtscope's intervals.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "process/target_files.h"

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

// The jfr tool of jdk_dir, if root alone can change it: jdk_dir (resolved), each directory above
// it, its bin and bin/jfr must be owned by root and not group- or other-writable. The error names
// the first path that is not.
Expected<std::string> trusted_jfr_tool(const std::string& jdk_dir);

// A program run with a user's identity, a clean environment and bounded output.
struct UnprivilegedRun {
    std::vector<std::string> argv;  // argv[0]: the absolute path of the program
    uid_t uid = 0;
    gid_t gid = 0;
    int cwd_fd = -1;  // entered before the identity is dropped (may be a directory it cannot reach)
    size_t max_stdout = 0;
    size_t max_stderr = 0;
    std::chrono::milliseconds timeout{0};
};
struct RunResult {
    int exit_code = 0;  // 128 + the signal when killed by one
    std::string out, err;
};
// Runs it (stdin /dev/null, no supplementary groups, environment PATH and LANG only) and reads
// its output; more than the caps or longer than the timeout kills it and is an error.
Expected<RunResult> run_unprivileged(const UnprivilegedRun& run);

class JfrRecording {
public:
    // Starts the recording (JFR.start through the attach socket, jdk.VirtualThreadPinned only, at
    // threshold_ns, with stack traces, dumped on exit into the target's own /tmp). jfr_jdk: the
    // JDK whose jfr reads it back (checked by trusted_jfr_tool first).
    static Expected<JfrRecording> start(pid_t pid, uint64_t threshold_ns, const std::string& jfr_jdk);
    JfrRecording(JfrRecording&& other) noexcept = default;
    JfrRecording(const JfrRecording&) = delete;
    ~JfrRecording();

    // Stops it (JFR.stop, or the dump the JVM wrote at exit when it is gone) and reads its events.
    Expected<std::vector<JfrPinnedEvent>> finish(bool target_alive);

private:
    JfrRecording() = default;
    Expected<std::string> print_recording(const TargetFile& recording);
    pid_t pid_ = 0;
    uid_t uid_ = 0;  // the target's, for jfr print
    gid_t gid_ = 0;
    std::string jfr_tool_;            // the trusted jfr
    std::optional<TargetRoot> root_;  // the target's root, held from the start (reachable after exit)
    UniqueFd target_tmp_;             // its /tmp, where the JVM writes the recording
    std::string file_name_;           // the recording's name in that /tmp
    std::string name_;                // the recording's name in the target
    int64_t realtime_minus_monotonic_ns_ = 0;
};

}  // namespace vtscope
