// SPDX-License-Identifier: Apache-2.0
#include "process/process_handle.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vtscope {

bool pidfd_exited(int pidfd) {
    // A pidfd becomes readable when its process exits (pidfd_poll, kernel/pid.c).
    pollfd p{pidfd, POLLIN, 0};
    int n;
    do {
        n = poll(&p, 1, 0);
    } while (n < 0 && errno == EINTR);
    return n != 0;
}

Expected<ProcessHandle> ProcessHandle::open(pid_t pid) {
    if (pid <= 0) return make_error("invalid pid " + std::to_string(pid));
    int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (fd < 0 && errno == ESRCH) return make_error("no process with pid " + std::to_string(pid));
    if (fd < 0) return make_error("cannot hold process " + std::to_string(pid) + ": " + std::strerror(errno));
    return ProcessHandle(pid, UniqueFd(fd));
}

bool ProcessHandle::exited() const { return pidfd_exited(pidfd_.get()); }

}  // namespace vtscope
