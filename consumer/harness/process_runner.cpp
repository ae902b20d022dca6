// SPDX-License-Identifier: Apache-2.0
#include "process_runner.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace vtscope::testing {

namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    return args;
}

// fork + exec, for what posix_spawn cannot do: the CPU affinity of the child. Only
// async-signal-safe calls between fork and exec.
pid_t fork_exec(const std::vector<char*>& args, const char* out_path, const char* err_path, int cpu, bool own_group) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pid_t pid = fork();
    if (pid != 0) return pid;  // the parent, or -1
    if (sched_setaffinity(0, sizeof(set), &set) != 0) _exit(125);
    if (own_group && setpgid(0, 0) != 0) _exit(125);
    int in = open("/dev/null", O_RDONLY);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    execvp(args[0], args.data());
    _exit(127);
}

pid_t spawn(const std::vector<char*>& args, const char* out_path, const char* err_path, bool own_group) {
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    if (own_group) {
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attributes, 0);  // 0: a group named after the child
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    if (posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return pid;
}

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; }

}  // namespace

Child Child::start(const std::vector<std::string>& argv, const std::string& stdout_path, const std::string& stderr_path,
                   std::optional<int> cpu, ProcessGroup group) {
    if (argv.empty()) return Child();
    std::vector<char*> args = c_argv(argv);
    const char* out = stdout_path.empty() ? "/dev/null" : stdout_path.c_str();
    const char* err = stderr_path.empty() ? "/dev/null" : stderr_path.c_str();
    bool own = group == ProcessGroup::Own;
    return Child(cpu ? fork_exec(args, out, err, *cpu, own) : spawn(args, out, err, own), group);
}

Child::Child(Child&& other) noexcept
    : pid_(other.pid_), own_group_(other.own_group_), exit_code_(other.exit_code_), cpu_seconds_(other.cpu_seconds_) {
    other.pid_ = -1;
}

Child& Child::operator=(Child&& other) noexcept {
    if (this != &other) {
        kill_and_reap();
        pid_ = other.pid_;
        own_group_ = other.own_group_;
        exit_code_ = other.exit_code_;
        cpu_seconds_ = other.cpu_seconds_;
        other.pid_ = -1;
    }
    return *this;
}

Child::~Child() { kill_and_reap(); }

void Child::kill_and_reap() {
    if (pid_ > 0) {
        signal(SIGKILL);
        reap(true);
    }
}

bool Child::reap(bool block) {
    if (pid_ <= 0) return true;
    if (own_group_) {
        // Exited but not yet collected, the child's pid still names its group, so no other
        // process can hold it (the kernel frees a pid only once no task uses it as pid or group
        // id): what the child left running in its group goes before the pid is released.
        siginfo_t info{};
        int w;
        do w = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG));
        while (w < 0 && errno == EINTR);
        if (w == 0 && info.si_pid == 0) return false;  // still running
        if (w == 0) kill(-pid_, SIGKILL);
    }
    int status = 0;
    rusage usage{};
    pid_t r;
    do r = wait4(pid_, &status, block ? 0 : WNOHANG, &usage);
    while (r < 0 && errno == EINTR);
    if (r == 0) return false;  // still running
    pid_ = -1;
    if (r < 0) {
        exit_code_ = -1;  // not our child (any more)
        return true;
    }
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    cpu_seconds_ = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    return true;
}

bool Child::running() const {
    if (pid_ <= 0) return false;
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
}

std::optional<int> Child::wait(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!reap(false)) {
        if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return exit_code_.value_or(127);
}

int Child::wait() {
    reap(true);
    return exit_code_.value_or(127);
}

int Child::stop(std::chrono::milliseconds grace, std::chrono::milliseconds after_interrupt) {
    if (auto code = wait(grace)) return *code;
    signal(SIGINT);
    if (auto code = wait(after_interrupt)) return *code;
    signal(SIGKILL);
    return wait();
}

void Child::signal(int sig) const {
    if (pid_ > 0) kill(own_group_ ? -pid_ : pid_, sig);
}

namespace {

bool all_running(std::initializer_list<const Child*> children) {
    for (const Child* c : children)
        if (c && !c->running()) return false;
    return true;
}

}  // namespace

bool wait_for_file(const std::string& path, std::chrono::milliseconds timeout,
                   std::initializer_list<const Child*> alive) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!std::filesystem::exists(path)) {
        if (std::chrono::steady_clock::now() >= deadline || !all_running(alive)) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

bool wait_for_text(const std::string& path, const std::string& text, std::chrono::milliseconds timeout,
                   std::initializer_list<const Child*> alive) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        bool last = std::chrono::steady_clock::now() >= deadline || !all_running(alive);
        if (read_file(path).find(text) != std::string::npos) return true;
        if (last) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

std::vector<std::string> read_lines(const std::string& path) {
    std::vector<std::string> lines;
    std::ifstream f(path);
    std::string line;
    while (std::getline(f, line))
        if (!line.empty()) lines.push_back(line);
    return lines;
}

TempDir::TempDir() {
    char pattern[] = "/tmp/vtscope-test-XXXXXX";
    const char* made = mkdtemp(pattern);
    dir_ = made ? made : "/tmp";
}

TempDir::~TempDir() {
    if (dir_ != "/tmp" && !std::getenv("VTSCOPE_KEEP_TEST_FILES")) {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
}

int run_command(const std::vector<std::string>& argv, std::string* stderr_text, std::chrono::milliseconds timeout) {
    TempDir dir;
    Child child = Child::start(argv, "", dir.path("stderr"));
    auto code = child.wait(timeout);
    if (stderr_text) *stderr_text = read_file(dir.path("stderr"));
    return code ? *code : -1;
}

int free_loopback_port() {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    int port = 0;
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    close(fd);
    return port;
}

bool loopback_port_open(int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    close(fd);
    return ok;
}

}  // namespace vtscope::testing
