// SPDX-License-Identifier: Apache-2.0
// The ns_pid and ns_tid fields of `trace`'s and `block`'s JSON lines (docs/output-formats.md): a
// target in a pid namespace of its own (a container) numbers itself and its threads differently
// from the host, whose numbers the events' pid and tid carry. The fields are written on every
// line of such a target, right after tid, and on no line of a target in vtscope's own pid
// namespace, where they would repeat pid and tid.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "process/thread_ids.h"

namespace vtscope {

class NamespaceFields {
public:
    // ns_pid: the target's pid in its own namespace (Target::ns_pid); the fields are written only
    // when it differs from pid.
    NamespaceFields(pid_t pid, pid_t ns_pid) : ns_pid_(ns_pid), tids_(pid, ns_pid != pid) {}
    bool enabled() const { return tids_.own_namespace(); }
    // Appends ,"ns_pid":N,"ns_tid":M for the event of host thread tid (ns_tid null when the thread
    // had exited before its first event was written); nothing when not enabled.
    void append(std::string& out, uint32_t tid);
    std::string fields(uint32_t tid) {
        std::string out;
        append(out, tid);
        return out;
    }

private:
    pid_t ns_pid_;
    ThreadIds tids_;
};

}  // namespace vtscope
