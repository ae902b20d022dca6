// SPDX-License-Identifier: Apache-2.0
// vtscope block --jfr: a JFR recording of jdk.VirtualThreadPinned in the target, started and
// stopped through vtscope's own attach client (nothing of the target's is run), read back from the
// target's /tmp inside its root, and printed by the jfr tool of a JDK root owns (`jfr print
// --json`, run with the target's uid and gid and a clean environment: process/unprivileged_run.h),
// so vtscope parses no JFR file itself (sources/jfr_events.h). Its events are joined to vtscope's
// intervals by sources/jfr_join.h.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "process/target_files.h"
#include "sources/jfr_events.h"

namespace vtscope {

// The jfr tool of jdk_dir, if root alone can change it: jdk_dir (resolved), each directory above
// it, its bin and bin/jfr must be owned by root and not group- or other-writable. The error names
// the first path that is not.
Expected<std::string> trusted_jfr_tool(const std::string& jdk_dir);

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
