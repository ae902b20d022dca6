// SPDX-License-Identifier: Apache-2.0
#include "jvm/jvm_attach.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>

#include "jvm/jvm_target.h"
#include "output/safe_text.h"
#include "process/proc_status.h"
#include "process/target_files.h"

namespace vtscope {
namespace {

// The most of a reply vtscope reads (Compiler.perfmap, VM.flags and JFR.start answer in a few
// KiB); a target that sends more is refused rather than buffered.
constexpr size_t kMaxAttachReplyBytes = 1u << 20;
// The most of a failed command's text that goes into an error message.
constexpr size_t kMaxReplyInMessage = 512;

// The process being attached, held by a pidfd from the start: a pid the kernel hands to another
// process meanwhile then gets neither the signal nor the benefit of the doubt.
struct HeldProcess {
    pid_t pid = 0;
    pid_t ns_pid = 0;  // the pid as the JVM sees it (its names .attach_pidN and .java_pidN use it)
    UniqueFd pidfd;
    std::optional<TargetRoot> root;

    // A pidfd polls readable once its process has exited (pidfd_open(2)); while it has not, the
    // pid still names that same process, and process_alive adds the exiting state.
    bool alive() const {
        pollfd p{pidfd.get(), POLLIN, 0};
        if (poll(&p, 1, 0) > 0) return false;
        return process_alive(pid);
    }
};

// The last field of NSpid in /proc/PID/status (process/proc_status.h): the pid in the process's
// own pid namespace, the one HotSpot names its attach files with; pid itself when there is none.
pid_t namespace_pid(pid_t pid) {
    auto status = read_proc_status(pid);
    return status && status->ns_levels > 0 ? status->ns_pid : pid;
}

Expected<HeldProcess> hold_process(pid_t pid) {
    HeldProcess held;
    held.pid = pid;
    held.pidfd = UniqueFd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
    if (!held.pidfd) return make_error("cannot hold process " + std::to_string(pid) + ": " + std::strerror(errno));
    held.ns_pid = namespace_pid(pid);
    auto root = TargetRoot::open(pid);
    if (!root) return root.error();
    held.root.emplace(std::move(*root));
    return held;
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

// The trigger file vtscope created, removed on every way out through the directory it was made
// in (held open, so it goes even when the JVM has exited and its /proc entry is gone). A name
// that was there already is not vtscope's and stays.
struct TriggerFile {
    UniqueFd dir;
    std::string name;
    TriggerFile() = default;
    TriggerFile(TriggerFile&&) = default;  // the moved-from one holds no directory: removes nothing
    ~TriggerFile() {
        if (dir) unlinkat(dir.get(), name.c_str(), 0);
    }
};

// The attach socket of the JVM: /tmp/.java_pidN in its own root, a socket, no symlink on the way.
// nullopt while it does not exist yet.
Expected<std::optional<UniqueFd>> open_attach_socket(const HeldProcess& held) {
    std::string name = ".java_pid" + std::to_string(held.ns_pid);
    std::string path = "/tmp/" + name;
    auto tmp = held.root->open_directory("/tmp");
    if (!tmp) return tmp.error();
    struct stat seen {};
    if (fstatat(tmp->get(), name.c_str(), &seen, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
        return std::optional<UniqueFd>();
    auto node = held.root->open_node(path);
    if (!node) return node.error();
    struct stat st {};
    if (fstat(node->get(), &st) != 0 || !S_ISSOCK(st.st_mode))
        return make_error(path + " of process " + std::to_string(held.pid) + " is not a socket (refused)");
    return std::optional<UniqueFd>(std::move(*node));
}

// Makes the JVM start its attach listener: HotSpot's AttachListener::is_init_trigger
// (src/hotspot/os/posix/attachListener_posix.cpp) looks for .attach_pidN in its working directory,
// then in its temp directory, /tmp; vtscope uses only /tmp, inside the target's root, and creates
// the file itself (O_EXCL, no symlink followed) so no name the target planted is written through.
Expected<TriggerFile> create_trigger(const HeldProcess& held) {
    TriggerFile trigger;
    trigger.name = ".attach_pid" + std::to_string(held.ns_pid);
    auto tmp = held.root->open_directory("/tmp");
    if (!tmp) return tmp.error();
    UniqueFd file(openat(tmp->get(), trigger.name.c_str(), O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600));
    if (file) {
        trigger.dir = std::move(*tmp);
    } else if (errno != EEXIST) {
        return make_error("cannot create /tmp/" + trigger.name + " of process " + std::to_string(held.pid) + ": " +
                          std::strerror(errno));
    }
    return trigger;
}

Expected<UniqueFd> start_listener(const HeldProcess& held, std::chrono::steady_clock::time_point deadline) {
    if (auto attachable = check_attachable(held.pid); !attachable) return attachable.error();
    auto trigger = create_trigger(held);
    if (!trigger) return trigger.error();
    if (syscall(SYS_pidfd_send_signal, held.pidfd.get(), SIGQUIT, nullptr, 0) != 0)
        return make_error(std::string("cannot signal the JVM: ") + std::strerror(errno));
    while (true) {
        auto socket = open_attach_socket(held);
        if (!socket) return socket.error();
        if (*socket) return std::move(**socket);
        // A JVM that is exiting has removed its socket and never opens another: give up at once
        // rather than at the deadline (vtscope profile then stops within its drain interval).
        if (!held.alive()) return make_error("the JVM exited");
        if (std::chrono::steady_clock::now() >= deadline)
            return make_error("the JVM did not open its attach socket (started with -XX:+DisableAttachMechanism?)");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

// Connects to the socket node through /proc/self/fd (the inode found inside the root, not a path
// the host would resolve) and checks that the process listening on it is the target itself.
Expected<UniqueFd> connect_to_target(const HeldProcess& held, const UniqueFd& node) {
    UniqueFd s(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s) return make_error(std::string("socket: ") + std::strerror(errno));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof(addr.sun_path), "/proc/self/fd/%d", node.get());
    if (connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
        return make_error("cannot connect to the attach socket of process " + std::to_string(held.pid) + ": " +
                          std::strerror(errno));
    // SO_PEERCRED: the process that called listen() (net/unix/af_unix.c, init_peercred), its pid
    // as this process sees it.
    ucred peer{};
    socklen_t length = sizeof(peer);
    if (getsockopt(s.get(), SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0)
        return make_error(std::string("cannot read the attach socket's peer: ") + std::strerror(errno));
    if (peer.pid != held.pid)
        return make_error("the attach socket of process " + std::to_string(held.pid) + " is served by process " +
                          std::to_string(peer.pid) + " (refused)");
    // The pid matched; the pidfd says it still names the process vtscope held, not a successor.
    if (!held.alive()) return make_error("the JVM exited before it answered");
    return s;
}

Status send_request(int s, const std::string& command) {
    // Protocol 1: "1\0jcmd\0<command>\0\0\0" (the command and its three arguments).
    std::string request = std::string("1") + '\0' + "jcmd" + '\0' + command + '\0' + '\0' + '\0';
    for (size_t sent = 0; sent < request.size();) {
        ssize_t n = send(s, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return make_error(std::string("writing to the attach socket failed: ") + std::strerror(errno));
        sent += static_cast<size_t>(n);
    }
    return ok_status();
}

Expected<std::string> read_reply(const HeldProcess& held, int s, const std::string& command,
                                 std::chrono::steady_clock::time_point deadline) {
    std::string reply;
    char buffer[4096];
    while (true) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return make_error("the JVM did not answer " + command + " in time");
        // An exiting JVM may keep the connection open without answering (its attach listener
        // stops with the VM, src/hotspot/share/services/attachListener.cpp): look every 100 ms.
        if (!held.alive()) return make_error("the JVM exited before it answered " + command);
        pollfd p{s, POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 100))) <= 0) continue;
        ssize_t n = read(s, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return reply;
        if (reply.size() + static_cast<size_t>(n) > kMaxAttachReplyBytes)
            return make_error("the JVM's reply to " + command + " is larger than " +
                              std::to_string(kMaxAttachReplyBytes >> 20) + " MiB (refused)");
        reply.append(buffer, static_cast<size_t>(n));
    }
}

}  // namespace

Expected<std::string> parse_attach_reply(std::string_view reply, const std::string& command) {
    // The reply starts with the result code on its own line (HotSpot's AttachListener writes the
    // jint result, then the command's output: src/hotspot/share/services/attachListener.cpp).
    auto newline = reply.find('\n');
    std::string_view code = reply.substr(0, newline);
    std::string_view body = newline == std::string_view::npos ? std::string_view() : reply.substr(newline + 1);
    if (code != "0") {
        // The target wrote this text: one line, escaped, and short, in the message.
        std::string_view shown = (body.empty() ? code : body).substr(0, kMaxReplyInMessage);
        return make_error(command + " failed in the JVM: " + terminal_safe(shown));
    }
    return std::string(body);
}

Expected<std::string> jvm_diagnostic_command(pid_t pid, const std::string& command, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    auto held = hold_process(pid);
    if (!held) return held.error();
    auto node = open_attach_socket(*held);
    if (!node) return node.error();
    if (!*node) {
        auto started = start_listener(*held, deadline);
        if (!started) return started.error();
        node->emplace(std::move(*started));
    }
    auto s = connect_to_target(*held, **node);
    if (!s) return s.error();
    if (auto sent = send_request(s->get(), command); !sent) return sent.error();
    auto reply = read_reply(*held, s->get(), command, deadline);
    if (!reply) return reply.error();
    return parse_attach_reply(*reply, command);
}

}  // namespace vtscope
