// SPDX-License-Identifier: Apache-2.0
// The target held by a pidfd for the whole session. A pid names a process only until it is
// reaped; then the kernel may hand the same number to another process (a hostile neighbour can
// make that happen by forking until the pids wrap). A pidfd names the process itself: once the
// target has exited it says so (poll reports POLLIN, pidfd_open(2)), whoever has the pid since.
#pragma once

#include <sys/types.h>

#include "core/expected.h"
#include "process/target_files.h"

namespace vtscope {

class ProcessHandle {
public:
    // pidfd_open(pid); the error names the pid (no such process, or no privilege).
    static Expected<ProcessHandle> open(pid_t pid);

    pid_t pid() const { return pid_; }
    int pidfd() const { return pidfd_.get(); }
    // True once the process this handle was opened on has exited (a zombie included).
    bool exited() const;

private:
    ProcessHandle(pid_t pid, UniqueFd pidfd) : pid_(pid), pidfd_(std::move(pidfd)) {}
    pid_t pid_;
    UniqueFd pidfd_;
};

// Whether the process behind pidfd has exited (true also for a descriptor that is not a pidfd).
bool pidfd_exited(int pidfd);

}  // namespace vtscope
