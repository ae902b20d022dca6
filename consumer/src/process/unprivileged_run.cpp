// SPDX-License-Identifier: Apache-2.0
#include "process/unprivileged_run.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "process/target_files.h"

namespace vtscope {
namespace {

// In the child between fork and exec: async-signal-safe calls only (vtscope has threads).
[[noreturn]] void exec_unprivileged(const UnprivilegedRun& run, char* const* argv, char* const* envp, int devnull,
                                    int out, int err) {
    if (dup2(devnull, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    if (run.cwd_fd >= 0 && fchdir(run.cwd_fd) != 0) _exit(126);
    syscall(SYS_close_range, 3u, ~0u, 0u);  // nothing of vtscope's reaches the program
    if (setgroups(0, nullptr) != 0 || setgid(run.gid) != 0 || setuid(run.uid) != 0) _exit(126);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // after setuid, which clears it (prctl(2))
    execve(argv[0], argv, envp);
    _exit(127);
}

// The child until it is reaped: killed and reaped on every early way out.
struct Child {
    pid_t pid = -1;
    ~Child() {
        if (pid <= 0) return;
        kill(pid, SIGKILL);
        while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
};

// Reads the child's stdout and stderr until both end, within the caps and the timeout.
Status collect_output(const UnprivilegedRun& run, int out, int err, RunResult* result) {
    auto deadline = std::chrono::steady_clock::now() + run.timeout;
    pollfd fds[2] = {{out, POLLIN, 0}, {err, POLLIN, 0}};
    std::string* sinks[2] = {&result->out, &result->err};
    size_t caps[2] = {run.max_stdout, run.max_stderr};
    const std::string& program = run.argv[0];
    char buffer[65536];
    for (int open = 2; open > 0;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return make_error(program + " did not finish in " + std::to_string(run.timeout.count()) + " ms (killed)");
        int ready = poll(fds, 2, static_cast<int>(std::min<long>(left.count(), 1000)));
        if (ready < 0 && errno != EINTR) return make_error(std::string("poll: ") + std::strerror(errno));
        for (int i = 0; i < 2 && ready > 0; i++) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                fds[i].fd = -1;  // poll skips it
                open--;
                continue;
            }
            if (sinks[i]->size() + static_cast<size_t>(n) > caps[i])
                return make_error(program + " wrote more than " + std::to_string(caps[i] >> 10) + " KiB (killed)");
            sinks[i]->append(buffer, static_cast<size_t>(n));
        }
    }
    return ok_status();
}

}  // namespace

Expected<RunResult> run_unprivileged(const UnprivilegedRun& run) {
    std::vector<char*> argv;
    for (const std::string& a : run.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    // Nothing of root's environment: no JAVA_TOOL_OPTIONS, no LD_*, no HOME.
    char path_var[] = "PATH=/usr/bin:/bin", lang_var[] = "LANG=C.UTF-8";
    char* envp[] = {path_var, lang_var, nullptr};
    UniqueFd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!devnull) return make_error(std::string("cannot open /dev/null: ") + std::strerror(errno));
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0) return make_error(std::string("pipe: ") + std::strerror(errno));
    UniqueFd out_read(out[0]), out_write(out[1]);
    if (pipe2(err, O_CLOEXEC) != 0) return make_error(std::string("pipe: ") + std::strerror(errno));
    UniqueFd err_read(err[0]), err_write(err[1]);
    Child child;
    child.pid = fork();
    if (child.pid < 0) return make_error("cannot run " + run.argv[0] + ": " + std::strerror(errno));
    if (child.pid == 0) exec_unprivileged(run, argv.data(), envp, devnull.get(), out[1], err[1]);
    out_write = UniqueFd();
    err_write = UniqueFd();
    RunResult result;
    if (auto collected = collect_output(run, out_read.get(), err_read.get(), &result); !collected)
        return collected.error();
    // Its output has ended; the program gets the timeout once more to exit (a process of the
    // target's uid may ptrace it and keep it alive).
    auto deadline = std::chrono::steady_clock::now() + run.timeout;
    int status = 0;
    while (true) {
        pid_t waited = waitpid(child.pid, &status, WNOHANG);
        if (waited == child.pid) break;
        if (waited < 0 && errno != EINTR)
            return make_error("waiting for " + run.argv[0] + " failed: " + std::strerror(errno));
        if (std::chrono::steady_clock::now() >= deadline)
            return make_error(run.argv[0] + " did not exit after its output ended (killed)");
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    child.pid = -1;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

}  // namespace vtscope
