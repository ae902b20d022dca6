// SPDX-License-Identifier: Apache-2.0
// A reused pid is never taken for the target: the target is held by a pidfd, and a read of its
// memory counts only if the process the pidfd names had not exited when the read returned.
#include "process/process_handle.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process/process_memory.h"

namespace vtscope {
namespace {

pid_t start_sleeper() {
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    return child;
}

void stop(pid_t child) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
}

TEST(ProcessHandle, SaysWhenItsProcessHasExitedEvenBeforeItIsReaped) {
    pid_t child = start_sleeper();
    auto handle = ProcessHandle::open(child);
    ASSERT_TRUE(handle) << handle.error().message;
    EXPECT_FALSE(handle->exited());
    kill(child, SIGKILL);
    siginfo_t info{};
    ASSERT_EQ(waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);  // a zombie, not yet reaped
    EXPECT_TRUE(handle->exited());
    waitpid(child, nullptr, 0);
}

TEST(ProcessHandle, RefusesAPidThatNamesNoProcess) {
    pid_t child = start_sleeper();
    stop(child);
    auto handle = ProcessHandle::open(child);
    ASSERT_FALSE(handle);
    EXPECT_EQ(handle.error().message, "no process with pid " + std::to_string(child));
}

// The pid now names a live process (here: another child), but the process the session holds has
// exited: exactly the state after a pid is reused. Nothing read through the pid may count.
TEST(ProcessMemory, ReadsNothingOnceTheHeldProcessHasExited) {
    if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: reading another process's memory needs CAP_SYS_PTRACE";
    static const uint64_t kValue = 0x1234567890abcdefULL;  // the same address in the forked children
    pid_t live = start_sleeper();
    pid_t gone = start_sleeper();
    auto held = ProcessHandle::open(gone);
    ASSERT_TRUE(held);
    uint64_t out = 0;
    ReadRequest request{reinterpret_cast<uint64_t>(&kValue), &out, sizeof(out)};
    ProcessMemory before(live, held->pidfd());
    ASSERT_TRUE(before.read_value(reinterpret_cast<uint64_t>(&kValue), out));
    EXPECT_EQ(out, kValue);
    stop(gone);
    ProcessMemory after(live, held->pidfd());
    EXPECT_FALSE(after.read_value(reinterpret_cast<uint64_t>(&kValue), out));
    after.read_batch(std::span<ReadRequest>(&request, 1));
    EXPECT_FALSE(request.ok);
    stop(live);
}

}  // namespace
}  // namespace vtscope
