// SPDX-License-Identifier: Apache-2.0
// A target's thread ids in the two pid namespaces that matter: the host's (what BPF sees,
// bpf_get_current_pid_tgid, and what vtscope's events carry) and the target's own (what the JVM
// got from gettid() and stored in OSThread::_thread_id, and what a user inside the container
// sees). They are the same unless the target runs in a pid namespace of its own; then each
// thread's NSpid line (/proc/PID/task/TID/status, process/proc_status.h) gives both.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace vtscope {

class ThreadIds {
public:
    // own_namespace: the target's pid namespace is not vtscope's (Target::own_pid_namespace());
    // without one, every lookup answers the id it is given and reads nothing.
    ThreadIds(pid_t pid, bool own_namespace) : pid_(pid), own_namespace_(own_namespace) {}

    // The host tid of the target's thread ns_tid; nullopt when no live thread of the target has it.
    std::optional<pid_t> host_tid(pid_t ns_tid);
    // The target's own id for its thread host_tid; nullopt when the thread is gone (it exited
    // before it was first looked up) or is not the target's.
    std::optional<pid_t> ns_tid(pid_t host_tid);
    bool own_namespace() const { return own_namespace_; }

    // A target has at most as many threads as the BPF side tracks (VTSCOPE_MAX_THREADS); at most
    // this many tids are kept, and as many tids known to be gone.
    static constexpr size_t kMaxThreads = 65536;

private:
    // Lists /proc/PID/task: reads the status of tids not known yet, forgets those gone.
    void refresh();
    pid_t pid_;
    bool own_namespace_;
    std::unordered_map<pid_t, pid_t> host_to_ns_, ns_to_host_;
    std::unordered_set<pid_t> gone_;  // host tids looked up and not found: an exited thread's events
};

}  // namespace vtscope
