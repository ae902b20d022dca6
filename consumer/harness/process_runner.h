// SPDX-License-Identifier: Apache-2.0
// Starting, waiting for and cleaning up child processes: the target JVMs, vtscope and bpftrace of
// the integration tests, the harness and the bench. Every child is killed when its handle goes
// out of scope, so a failed assertion or an early return leaves nothing running.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace vtscope::testing {

// Whether a child leads a process group of its own. ProcessGroup::Own is for children that fork
// helpers of their own (perf bench): signals then go to the whole group, and whatever is left of
// the group when the child exits is killed, so nothing it started outlives it.
enum class ProcessGroup { Shared, Own };

class Child {
public:
    // Starts argv (looked up in PATH) with stdin from /dev/null and stdout and stderr redirected
    // to files (empty path: /dev/null). With cpu, the child and everything it starts run on that
    // CPU alone (set between fork and exec; the child exits 125 if it cannot be set).
    static Child start(const std::vector<std::string>& argv, const std::string& stdout_path,
                       const std::string& stderr_path, std::optional<int> cpu = std::nullopt,
                       ProcessGroup group = ProcessGroup::Shared);
    Child() = default;  // no process
    Child(Child&& other) noexcept;
    Child& operator=(Child&& other) noexcept;
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    ~Child();

    // The process id until the child has been waited for, then -1.
    pid_t pid() const { return pid_; }
    // True while the child has been started and has not exited (an exited child that has not
    // been waited for yet counts as exited).
    bool running() const;
    // Exit code, or 128 + signal; nullopt on timeout (the child keeps running). A child that
    // never started, or a second wait, gives 127 or the code already returned.
    std::optional<int> wait(std::chrono::milliseconds timeout);
    // Waits however long it takes.
    int wait();
    // Stops a child that may stop by itself: waits up to `grace` for it to exit, then sends
    // SIGINT and waits up to `after_interrupt`, then kills it. Returns its exit code.
    int stop(std::chrono::milliseconds grace, std::chrono::milliseconds after_interrupt);
    // Sends sig to the child (to its whole process group with ProcessGroup::Own).
    void signal(int sig) const;
    // User + system CPU seconds of the child and its waited-for descendants, once it has been
    // waited for (wait4's rusage); 0 before.
    double cpu_seconds() const { return cpu_seconds_; }

private:
    Child(pid_t pid, ProcessGroup group) : pid_(pid), own_group_(group == ProcessGroup::Own) {}
    // Collects the exit status if the child has exited (blocking: waits for it).
    bool reap(bool block);
    void kill_and_reap();

    pid_t pid_ = -1;
    bool own_group_ = false;
    std::optional<int> exit_code_;
    double cpu_seconds_ = 0;
};

// Waits until path exists; false on timeout, or as soon as one of `alive` is no longer running.
bool wait_for_file(const std::string& path, std::chrono::milliseconds timeout,
                   std::initializer_list<const Child*> alive = {});
// Waits until the file at path contains text; false on timeout, or once one of `alive` is no
// longer running (the file is read once more after that, so text written just before exit counts).
bool wait_for_text(const std::string& path, const std::string& text, std::chrono::milliseconds timeout,
                   std::initializer_list<const Child*> alive = {});
std::string read_file(const std::string& path);
std::vector<std::string> read_lines(const std::string& path);
// A fresh directory under /tmp, removed with its contents by the destructor.
class TempDir {
public:
    TempDir();
    ~TempDir();
    std::string path(const std::string& name) const { return dir_ + "/" + name; }

private:
    std::string dir_;
};

// Runs a command to completion; returns its exit code and captures stderr.
int run_command(const std::vector<std::string>& argv, std::string* stderr_text, std::chrono::milliseconds timeout);

// A TCP port of 127.0.0.1 free right now (the kernel's pick for a bind to port 0), 0 on failure.
int free_loopback_port();
// True when something accepts connections on 127.0.0.1:port.
bool loopback_port_open(int port);

}  // namespace vtscope::testing
