// SPDX-License-Identifier: Apache-2.0
// jvm_diagnostic_command against stand-ins for a JVM (no JVM needed). An exiting JVM removes its
// attach socket and never opens another, and may live on for a while after it; a command sent
// then must end when the process does, not at its deadline: vtscope profile refreshes the JVM's
// perf map this way, and a target exiting mid-refresh once kept it running for the whole timeout.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <thread>

#include "jvm/jvm_attach.h"

namespace {

using namespace std::chrono_literals;

void ignore_signal(int) {}

// A process that catches SIGQUIT as a JVM does (so it looks attachable) but never opens the
// attach socket: the start of an exiting JVM's last moments.
[[noreturn]] void never_listens() {
    signal(SIGQUIT, ignore_signal);
    while (true) pause();
}

// A process with an attach socket that accepts and reads requests and answers none.
[[noreturn]] void never_answers(const std::string& path) {
    signal(SIGQUIT, ignore_signal);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    unlink(path.c_str());
    if (s < 0 || bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(s, 4) != 0) _exit(2);
    while (true) {
        int c = accept(s, nullptr, nullptr);
        char buffer[256];
        while (c >= 0 && read(c, buffer, sizeof(buffer)) > 0) {
        }
    }
}

// Sends a command to `child`, kills it after 500 ms and returns how the command ended.
void expect_ends_with_the_process(pid_t child) {
    auto started = std::chrono::steady_clock::now();
    auto reply = std::async(std::launch::async,
                            [child] { return vtscope::jvm_diagnostic_command(child, "Compiler.perfmap", 20s); });
    // Still waiting while the process lives...
    EXPECT_EQ(reply.wait_for(500ms), std::future_status::timeout);
    kill(child, SIGKILL);
    // ...and done soon after it dies.
    std::future_status status = reply.wait_for(5s);
    waitpid(child, nullptr, 0);
    ASSERT_EQ(status, std::future_status::ready) << "still waiting 5 s after the target died";
    auto result = reply.get();
    ASSERT_FALSE(result);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 15s);  // far under the 20 s deadline
}

TEST(JvmAttach, ACommandToAJvmWithoutItsSocketEndsWhenTheJvmExits) {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        signal(SIGQUIT, ignore_signal);  // attachable from the moment it says it is ready
        (void)!write(ready[1], "r", 1);
        never_listens();
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the stand-in did not start";
    close(ready[0]);
    expect_ends_with_the_process(child);
    // The trigger file (in the process's /tmp: this test's) is gone with it.
    std::string trigger = "/tmp/.attach_pid" + std::to_string(child);
    EXPECT_NE(access(trigger.c_str(), F_OK), 0) << trigger << " left behind";
    unlink(trigger.c_str());
}

// The target plants its trigger names as symlinks, in its working directory and its /tmp, to a
// host path: root must create nothing there (HotSpot would look in either place).
TEST(JvmAttach, APlantedTriggerSymlinkCreatesNoFileOutside) {
    char dir[] = "/tmp/vtscope-attach-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string outside = std::string(dir) + "/created-by-root";
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        signal(SIGQUIT, ignore_signal);  // attachable from the moment it says it is ready
        std::string name = ".attach_pid" + std::to_string(getpid());
        if (chdir(dir) != 0 || symlink(outside.c_str(), name.c_str()) != 0 ||
            symlink(outside.c_str(), ("/tmp/" + name).c_str()) != 0)
            _exit(2);
        (void)!write(ready[1], "r", 1);
        never_listens();
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the stand-in did not plant its symlinks";
    close(ready[0]);
    expect_ends_with_the_process(child);
    std::string planted = "/tmp/.attach_pid" + std::to_string(child);
    struct stat st {};
    EXPECT_NE(lstat(outside.c_str(), &st), 0) << "root created " << outside << " through a planted symlink";
    EXPECT_EQ(lstat(planted.c_str(), &st), 0) << "vtscope removed a name it did not create";
    unlink(planted.c_str());
    unlink((std::string(dir) + "/.attach_pid" + std::to_string(child)).c_str());
    unlink(outside.c_str());
    rmdir(dir);
}

// A stand-in serving one connection on path (empty: its own /tmp/.java_pidPID), answered with
// reply; returns once it listens (SO_PEERCRED then names it).
pid_t serve_once(const std::string& path, const std::string& reply) {
    int ready[2];
    if (pipe(ready) != 0) return -1;
    pid_t child = fork();
    if (child != 0) {
        close(ready[1]);
        char byte = 0;
        bool listening = read(ready[0], &byte, 1) == 1;
        close(ready[0]);
        return listening ? child : -1;
    }
    signal(SIGQUIT, ignore_signal);
    signal(SIGPIPE, SIG_IGN);
    std::string bound = path.empty() ? "/tmp/.java_pid" + std::to_string(getpid()) : path;
    unlink(bound.c_str());
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, bound.c_str(), sizeof(addr.sun_path) - 1);
    if (s < 0 || bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(s, 4) != 0) _exit(2);
    (void)!write(ready[1], "r", 1);
    int c = accept(s, nullptr, nullptr);
    char buffer[256];
    (void)!read(c, buffer, sizeof(buffer));
    for (size_t sent = 0; sent < reply.size();) {
        ssize_t n = write(c, reply.data() + sent, reply.size() - sent);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
    }
    close(c);
    while (true) pause();
}

void stop(pid_t child) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
}

TEST(JvmAttach, AnAttachSocketThatIsASymlinkIsRefused) {
    std::string elsewhere = "/tmp/vtscope-attach-test-sock-" + std::to_string(getpid());
    pid_t target = serve_once(elsewhere, "0\nserved through a symlink\n");
    ASSERT_GT(target, 0);
    std::string name = "/tmp/.java_pid" + std::to_string(target);
    unlink(name.c_str());
    ASSERT_EQ(symlink(elsewhere.c_str(), name.c_str()), 0);
    auto reply = vtscope::jvm_diagnostic_command(target, "VM.flags", 5s);
    stop(target);
    unlink(name.c_str());
    unlink(elsewhere.c_str());
    ASSERT_FALSE(reply) << "followed the symlink and got: " << *reply;
    EXPECT_NE(reply.error().message.find("symbolic link"), std::string::npos) << reply.error().message;
    EXPECT_EQ(reply.error().message.find('\n'), std::string::npos) << reply.error().message;
}

TEST(JvmAttach, AnAttachSocketServedByAnotherProcessIsRefused) {
    pid_t target = fork();
    ASSERT_GE(target, 0);
    if (target == 0) never_listens();
    std::string name = "/tmp/.java_pid" + std::to_string(target);
    pid_t impostor = serve_once(name, "0\nserved by another process\n");
    ASSERT_GT(impostor, 0);
    auto reply = vtscope::jvm_diagnostic_command(target, "VM.flags", 5s);
    stop(impostor);
    stop(target);
    unlink(name.c_str());
    ASSERT_FALSE(reply) << "trusted another process's socket: " << *reply;
    EXPECT_NE(reply.error().message.find("served by process " + std::to_string(impostor)), std::string::npos)
        << reply.error().message;
}

// Runs one command against a stand-in that answers with reply on its own attach socket.
vtscope::Expected<std::string> command_answered_with(const std::string& reply) {
    pid_t target = serve_once("", reply);
    if (target <= 0) return vtscope::make_error("the stand-in did not start");
    auto result = vtscope::jvm_diagnostic_command(target, "VM.flags", 20s);
    stop(target);
    unlink(("/tmp/.java_pid" + std::to_string(target)).c_str());
    return result;
}

TEST(JvmAttach, AnOversizedReplyIsRefusedWithOneLine) {
    std::string huge = "0\n" + std::string(64u << 20, 'x');
    auto reply = command_answered_with(huge);
    ASSERT_FALSE(reply) << "accepted a reply of " << reply->size() << " bytes";
    EXPECT_NE(reply.error().message.find("larger than 1 MiB"), std::string::npos) << reply.error().message;
}

TEST(JvmAttach, TerminalEscapesInAFailedReplyAreShownEscaped) {
    auto reply = command_answered_with("1\n\x1b]0;owned\x07\x1b[2J\nsecond line");
    ASSERT_FALSE(reply);
    const std::string& message = reply.error().message;
    EXPECT_EQ(message.find('\x1b'), std::string::npos) << "a raw escape reached the message";
    EXPECT_EQ(message.find('\n'), std::string::npos) << "the message is more than one line";
    EXPECT_NE(message.find("\\x1b]0;owned"), std::string::npos) << message;
}

TEST(JvmAttach, ACommandTheJvmNeverAnswersEndsWhenTheJvmExits) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    std::string path = "/tmp/.java_pid" + std::to_string(child == 0 ? getpid() : child);
    if (child == 0) never_answers(path);
    for (int i = 0; i < 200 && access(path.c_str(), F_OK) != 0; i++) std::this_thread::sleep_for(10ms);
    ASSERT_EQ(access(path.c_str(), F_OK), 0) << "the stand-in listener did not start";
    expect_ends_with_the_process(child);
    unlink(path.c_str());
}

}  // namespace

namespace {

// A stand-in JVM in a container: pid 1 of its own pid namespace, with its own /tmp (a tmpfs in
// its own mount namespace) where it answers on /tmp/.java_pid1. Returns its pid as this process
// sees it, or -1. *outer: the process that made the namespaces (to be stopped too).
pid_t serve_in_a_container(const std::string& reply, pid_t* outer) {
    int report[2];
    if (pipe(report) != 0) return -1;
    *outer = fork();
    if (*outer == 0) {
        pid_t inner = -1;
        // The new pid namespace is for the children of this process, the mount namespace for it.
        if (unshare(CLONE_NEWPID | CLONE_NEWNS) == 0 &&
            mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
            mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777") == 0)
            inner = serve_once("", reply);
        (void)!write(report[1], &inner, sizeof(inner));
        while (true) pause();
    }
    close(report[1]);
    pid_t inner = -1;
    if (read(report[0], &inner, sizeof(inner)) != static_cast<ssize_t>(sizeof(inner))) inner = -1;
    close(report[0]);
    return inner;
}

}  // namespace

// HotSpot names its socket and trigger file by its own pid (os::current_process_id), which in a
// container is not the pid vtscope sees: the names must use the last NSpid, inside its root.
TEST(JvmAttach, AJvmInAContainerIsReachedByThePidItSeesItself) {
    if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: needs root (pid and mount namespaces)";
    pid_t outer = -1;
    pid_t target = serve_in_a_container("0\nanswered from the container\n", &outer);
    ASSERT_GT(target, 0) << "the containerised stand-in did not start";
    auto reply = vtscope::jvm_diagnostic_command(target, "VM.flags", 5s);
    stop(target);
    stop(outer);
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(*reply, "answered from the container\n");
}
