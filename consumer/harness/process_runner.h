// Starting, waiting for and cleaning up the processes of an integration test (the target JVM,
// vtscope, bpftrace). Every child is killed when its handle goes out of scope, so a failed
// assertion leaves nothing running.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace vtscope::testing {

class Child {
public:
    // Starts argv with stdout and stderr redirected to files (empty path: /dev/null).
    static Child start(const std::vector<std::string>& argv, const std::string& stdout_path,
                       const std::string& stderr_path);
    Child(Child&& other) noexcept : pid_(other.pid_) { other.pid_ = -1; }
    Child(const Child&) = delete;
    ~Child();

    pid_t pid() const { return pid_; }
    // Exit code, or 128 + signal; nullopt on timeout (the child keeps running).
    std::optional<int> wait(std::chrono::milliseconds timeout);
    void signal(int sig) const;

private:
    explicit Child(pid_t pid) : pid_(pid) {}
    pid_t pid_ = -1;
};

bool wait_for_file(const std::string& path, std::chrono::milliseconds timeout);
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

}  // namespace vtscope::testing
