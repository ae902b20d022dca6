// SPDX-License-Identifier: Apache-2.0
// The process runner of the tests and the bench: exit codes, and what a child leaves behind.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>

#include "process_runner.h"

namespace {

using namespace std::chrono_literals;
using vtscope::testing::Child;
using vtscope::testing::ProcessGroup;
using vtscope::testing::read_file;
using vtscope::testing::TempDir;
using vtscope::testing::wait_for_text;

// Running, not a zombie: an orphan's zombie stays until whatever adopted it reaps it.
bool alive(pid_t pid) {
    std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    auto paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z' && stat[paren + 2] != 'X';
}

// A SIGKILL is delivered asynchronously: the process may run on for a moment.
bool gone_within(pid_t pid, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (alive(pid) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
    return !alive(pid);
}

// Starts `sh` that forks a long sleep, writes the sleep's pid to stdout and waits for it (or, with
// exit_now, exits and leaves it behind); returns the sleep's pid, -1 if it never showed up.
pid_t start_with_grandchild(Child* child, const TempDir& dir, ProcessGroup group, bool exit_now) {
    std::string script = std::string("sleep 60 & echo $!; echo started; ") + (exit_now ? "exit 3" : "wait");
    *child = Child::start({"sh", "-c", script}, dir.path("out"), "", std::nullopt, group);
    if (!wait_for_text(dir.path("out"), "started", 10s)) return -1;
    return static_cast<pid_t>(std::stol(read_file(dir.path("out"))));
}

TEST(ProcessRunner, ExitCodeAndSignal) {
    Child ok = Child::start({"sh", "-c", "exit 7"}, "", "");
    EXPECT_EQ(ok.wait(), 7);
    Child slow = Child::start({"sleep", "60"}, "", "");
    EXPECT_EQ(slow.stop(0ms, 5s), 128 + SIGINT);
    EXPECT_EQ(slow.pid(), -1);
}

TEST(ProcessRunner, OwnGroupStopTakesWhatTheChildStarted) {
    TempDir dir;
    Child child;
    pid_t grandchild = start_with_grandchild(&child, dir, ProcessGroup::Own, false);
    ASSERT_GT(grandchild, 0);
    ASSERT_TRUE(alive(grandchild));
    child.stop(0ms, 5s);
    EXPECT_TRUE(gone_within(grandchild, 5s));  // killed before the child was collected
}

TEST(ProcessRunner, OwnGroupExitLeavesNothingBehind) {
    TempDir dir;
    Child child;
    pid_t grandchild = start_with_grandchild(&child, dir, ProcessGroup::Own, true);
    ASSERT_GT(grandchild, 0);
    EXPECT_EQ(child.wait(), 3);
    EXPECT_TRUE(gone_within(grandchild, 5s));
}

// The default: the child shares the runner's group, and only the child itself is signalled (what
// the JVMs and vtscope of the tests expect); a grandchild it leaves is its own business.
TEST(ProcessRunner, SharedGroupSignalsOnlyTheChild) {
    TempDir dir;
    Child child;
    pid_t grandchild = start_with_grandchild(&child, dir, ProcessGroup::Shared, true);
    ASSERT_GT(grandchild, 0);
    EXPECT_EQ(child.wait(), 3);
    EXPECT_TRUE(alive(grandchild));
    kill(grandchild, SIGKILL);
}

}  // namespace
