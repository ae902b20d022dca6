// SPDX-License-Identifier: Apache-2.0
// /proc/PID/status and /proc/PID/task/TID/status: a process's (or thread's) user and group ids and
// its pid in each pid namespace. One parser for every reader (the perf map's and the attach
// socket's names, --jfr's tool user, the record region's writer pid, events' ns_pid and ns_tid):
// the kernel writes the text (fs/proc/array.c, task_state), but the parser still stays within
// whatever text it is given and takes only well-formed numbers.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string_view>

#include "core/expected.h"

namespace vtscope {

// A pid namespace nests at most 32 deep (MAX_PID_NS_LEVEL, include/linux/pid_namespace.h), so an
// NSpid line has at most 33 fields; more is not the kernel's text.
inline constexpr int kMaxNsPidFields = 33;
// /proc/PID/status is some 1.5 KiB; a read stops here.
inline constexpr uint64_t kMaxProcStatusBytes = 64 * 1024;

struct ProcStatus {
    bool has_uid = false, has_gid = false;  // the Uid: and Gid: lines were there and well formed
    uid_t real_uid = 0, effective_uid = 0;
    gid_t real_gid = 0, effective_gid = 0;
    // NSpid: the task's id (a thread's tid in task/TID/status) in each pid namespace from the
    // reader's own down to the task's own. ns_levels 0: no NSpid line (a kernel before 4.1, or
    // not the kernel's text); 1: the task is in the reader's pid namespace.
    int ns_levels = 0;
    pid_t ns_pid = 0;  // the last field: the id as the task itself sees it (getpid(), gettid())
    // True when the task's pid namespace is not the reader's: its own ids differ from the reader's.
    bool own_pid_namespace() const { return ns_levels > 1; }
};

ProcStatus parse_proc_status(std::string_view text);
// /proc/PID/status; an error when it cannot be read (the process is gone, or no permission).
Expected<ProcStatus> read_proc_status(pid_t pid);
// /proc/PID/task/TID/status: the thread's own ids (NSpid gives its tid in each namespace).
Expected<ProcStatus> read_thread_status(pid_t pid, pid_t tid);

}  // namespace vtscope
