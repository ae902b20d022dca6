#include "jvm_attach.h"

#include "jvm_target.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <cstring>
#include <thread>

namespace vtscope {
namespace {

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) close(fd);
    }
};

// The target's /tmp (through its root, in case it runs in another mount namespace).
std::string target_tmp(pid_t pid) { return "/proc/" + std::to_string(pid) + "/root/tmp"; }

bool socket_exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

// SIGQUIT starts the attach listener only in a JVM that catches it and has attach enabled; one
// that does not catch it (-Xrs) would die of it, one with attach disabled prints a thread dump.
Status check_attachable(pid_t pid) {
    std::string proc = "/proc/" + std::to_string(pid);
    std::ifstream status(proc + "/status");
    std::string line;
    bool caught = false;
    while (std::getline(status, line)) {
        if (line.rfind("SigCgt:", 0) != 0) continue;
        unsigned long long mask = std::strtoull(line.c_str() + 7, nullptr, 16);
        caught = (mask >> (SIGQUIT - 1)) & 1;
    }
    if (!caught) return make_error("the JVM does not handle SIGQUIT (started with -Xrs?), so it cannot be attached");
    for (const char* file : {"/cmdline", "/environ"}) {
        std::ifstream in(proc + file);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (text.find("-XX:+DisableAttachMechanism") != std::string::npos)
            return make_error("the JVM runs with -XX:+DisableAttachMechanism");
    }
    return ok_status();
}

// Makes the JVM start its attach listener (HotSpot's AttachListener::is_init_trigger): a file
// .attach_pidPID in its working directory or /tmp, then SIGQUIT.
// The trigger file, removed on every way out. Its folder is held open, so the file goes even
// when the JVM has exited meanwhile and /proc/PID/cwd no longer resolves.
struct TriggerFile {
    Fd dir;
    std::string name;
    ~TriggerFile() {
        if (dir.fd >= 0) unlinkat(dir.fd, name.c_str(), 0);
    }
};

Status start_listener(pid_t pid, const std::string& socket_path, std::chrono::steady_clock::time_point deadline) {
    if (auto attachable = check_attachable(pid); !attachable) return attachable;
    TriggerFile trigger;
    trigger.name = ".attach_pid" + std::to_string(pid);
    std::string folder;
    for (const std::string& candidate : {"/proc/" + std::to_string(pid) + "/cwd", target_tmp(pid)}) {
        folder = candidate;
        Fd dir;
        dir.fd = open(candidate.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dir.fd < 0) continue;
        int fd = openat(dir.fd, trigger.name.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0) continue;
        close(fd);
        std::swap(trigger.dir.fd, dir.fd);
        break;
    }
    if (trigger.dir.fd < 0)
        return make_error("cannot create " + folder + "/" + trigger.name + ": " + std::strerror(errno));
    if (kill(pid, SIGQUIT) != 0) return make_error(std::string("cannot signal the JVM: ") + std::strerror(errno));
    while (!socket_exists(socket_path)) {
        // A JVM that is exiting has removed its socket and never opens another: give up at once
        // rather than at the deadline (vtscope profile then stops within its drain interval).
        if (!process_alive(pid)) return make_error("the JVM exited");
        if (std::chrono::steady_clock::now() >= deadline)
            return make_error("the JVM did not open its attach socket (started with -XX:+DisableAttachMechanism?)");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return ok_status();
}

}  // namespace

Expected<std::string> parse_attach_reply(std::string_view reply, const std::string& command) {
    // The reply starts with the result code on its own line (HotSpot's AttachListener writes the
    // jint result, then the command's output: src/hotspot/share/services/attachListener.cpp).
    auto newline = reply.find('\n');
    std::string_view code = reply.substr(0, newline);
    std::string_view body = newline == std::string_view::npos ? std::string_view() : reply.substr(newline + 1);
    if (code != "0") return make_error(command + " failed in the JVM: " + std::string(body.empty() ? code : body));
    return std::string(body);
}

Expected<std::string> jvm_diagnostic_command(pid_t pid, const std::string& command, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string socket_path = target_tmp(pid) + "/.java_pid" + std::to_string(pid);
    if (!socket_exists(socket_path))
        if (auto status = start_listener(pid, socket_path, deadline); !status) return status.error();
    Fd s;
    s.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s.fd < 0) return make_error(std::string("socket: ") + std::strerror(errno));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socket_path.size() >= sizeof(addr.sun_path)) return make_error("attach socket path too long: " + socket_path);
    std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
    if (connect(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
        return make_error("cannot connect to " + socket_path + ": " + std::strerror(errno));
    // Protocol 1: "1\0jcmd\0<command>\0\0\0" (the command and its three arguments).
    std::string request = std::string("1") + '\0' + "jcmd" + '\0' + command + '\0' + '\0' + '\0';
    for (size_t sent = 0; sent < request.size();) {
        ssize_t n = send(s.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return make_error(std::string("writing to the attach socket failed: ") + std::strerror(errno));
        sent += static_cast<size_t>(n);
    }
    std::string reply;
    char buffer[4096];
    while (true) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return make_error("the JVM did not answer " + command + " in time");
        // An exiting JVM may keep the connection open without answering (its attach listener
        // stops with the VM, src/hotspot/share/services/attachListener.cpp): look every 100 ms.
        if (!process_alive(pid)) return make_error("the JVM exited before it answered " + command);
        pollfd p{s.fd, POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 100))) <= 0) continue;
        ssize_t n = read(s.fd, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        reply.append(buffer, static_cast<size_t>(n));
    }
    return parse_attach_reply(reply, command);
}

}  // namespace vtscope
