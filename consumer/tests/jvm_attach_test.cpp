// jvm_diagnostic_command against stand-ins for a JVM (no JVM needed). An exiting JVM removes its
// attach socket and never opens another, and may live on for a while after it; a command sent
// then must end when the process does, not at its deadline: vtscope profile refreshes the JVM's
// perf map this way, and a target exiting mid-refresh once kept it running for the whole timeout.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <thread>

#include "jvm_attach.h"

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
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) never_listens();
    std::this_thread::sleep_for(100ms);  // its SIGQUIT handler is installed
    expect_ends_with_the_process(child);
    // The trigger file (in the process's working folder, this test's) is gone with it.
    std::string trigger = ".attach_pid" + std::to_string(child);
    EXPECT_NE(access(trigger.c_str(), F_OK), 0) << trigger << " left behind";
    unlink(trigger.c_str());
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
