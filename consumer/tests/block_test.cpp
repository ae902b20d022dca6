// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of `vtscope block`: a real JDK 25 running the pinning matrix (PinningCases),
// traced by the real vtscope binary. Every blocking case must be reported exactly once per
// repetition with the right virtual thread and trace, the right duration and syscall; the cases
// that unmount on JDK 24+ and the idle carriers must produce nothing. They need root (BPF);
// without it every test says SKIPPED loudly.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/privilege.h"
#include "e2e_fixture.h"
#include "process_runner.h"
#include "test_support.h"

using namespace std::chrono_literals;
using nlohmann::json;
using vtscope::testing::at;
using vtscope::testing::Child;
using vtscope::testing::E2e;
using vtscope::testing::E2eRun;
using vtscope::testing::number;
using vtscope::testing::read_file;
using vtscope::testing::read_lines;
using vtscope::testing::TempDir;
using vtscope::testing::text;
using vtscope::testing::Workload;

namespace {

using vtscope::testing::java_bin;
using vtscope::testing::kJavaDir;
using vtscope::testing::kNoPrivilege;
using vtscope::testing::kVtscope;

// A run of PinningCases under vtscope block: the fixture's, with both sides parsed.
struct BlockRun : E2eRun {
    std::vector<json> truth;      // PinningCases' ground truth, one per case and repetition
    std::vector<json> intervals;  // vtscope block's JSON lines
};

// PinningCases on 2 carriers; it waits for the go file once ready. launcher: the command that
// runs java (another JDK's, or java as another user).
Workload pinning_cases(const std::vector<std::string>& jvm_options, const std::vector<std::string>& workload_options,
                       std::vector<std::string> launcher = {java_bin()}) {
    launcher.push_back("--enable-native-access=ALL-UNNAMED");
    std::vector<std::string> options = {"-Djdk.virtualThreadScheduler.parallelism=2"};
    options.insert(options.end(), jvm_options.begin(), jvm_options.end());
    Workload workload("io.vtscope.workloads.PinningCases", options, workload_options);
    workload.launcher = launcher;
    return workload;
}

// Runs PinningCases (repetitions of every case), traced by `vtscope block` with block_options.
BlockRun run_block(const std::vector<std::string>& jvm_options, int repetitions,
                   const std::vector<std::string>& block_options,
                   const std::vector<std::string>& workload_options = {}) {
    E2e e2e;
    BlockRun run;
    std::vector<std::string> workload = {"--repetitions", std::to_string(repetitions)};
    workload.insert(workload.end(), workload_options.begin(), workload_options.end());
    ::testing::AssertionResult ready = e2e.start(pinning_cases(jvm_options, workload));
    if (ready) ready = e2e.attach("block", block_options);
    if (!ready) {
        run.error = ready.message();
        return run;
    }
    static_cast<E2eRun&>(run) = e2e.run();
    run.truth = vtscope::testing::parse_lines(run.expected, &run.error);
    run.intervals = vtscope::testing::parse_lines(run.lines, &run.error);
    if (run.summary.is_null()) run.error += "no summary: " + run.vtscope_stderr;
    return run;
}

double num(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0;
}
std::string str(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "null";
}
bool is_num(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number();
}
bool flag(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_boolean() && it->get<bool>();
}
const json& field(const json& j, const char* key) { return at(j, std::string("/") + key); }

std::string frames_text(const json& stack) {
    std::string text;
    for (const json& f : stack)
        if (f.is_string()) text += (text.empty() ? "" : ";") + f.get<std::string>();
    return text;
}

bool has_frame(const json& stack, const std::vector<std::string>& names) {
    for (const json& f : stack)
        for (const std::string& n : names)
            if (f.is_string() && f.get<std::string>().find(n) != std::string::npos) return true;
    return false;
}

// Whether a frame of stack starts with one of prefixes ("Monitor::wait" is not "ObjectMonitor::wait").
bool has_frame_prefix(const json& stack, const std::vector<std::string>& prefixes) {
    for (const json& f : stack)
        for (const std::string& p : prefixes)
            if (f.is_string() && f.get<std::string>().starts_with(p)) return true;
    return false;
}

// Frames of HotSpot's own blocking (its mutexes and monitors, safepoints, handshakes, the compile
// queue), not of a Java-level operation (those block in Parker::park, ObjectMonitor, ...).
const std::vector<std::string> kVmInternalFrames = {
    "Mutex::lock",          "Monitor::wait",    "SafepointSynchronize::",
    "SafepointMechanism::", "HandshakeState::", "CompileBroker::"};

// An interval's reason, syscall, attribution and (with --stacks) stacks, for a message.
std::string describe(const json& iv) {
    std::string text = str(iv, "block_reason") + " " + str(iv, "syscall") + ", " + str(iv, "status") + ", trace " +
                       str(iv, "trace_id");
    if (field(iv, "kernel_stack").is_array()) text += "; kernel: " + frames_text(field(iv, "kernel_stack"));
    if (field(iv, "user_stack").is_array()) text += "; user: " + frames_text(field(iv, "user_stack"));
    return text;
}

// Switch-ins the kernel made without firing sched_switch (on this project's Firecracker guests:
// every switch away from the guest agent's threads; block.h, vtscope_block_anomaly). Each must
// have been closed at the arrival the kernel recorded, none dropped: printed, and checked.
void check_unseen_switch_ins(const BlockRun& run) {
    int unseen = static_cast<int>(number(run.summary, "/block/missed_switch_ins"));
    if (unseen > 0)
        std::printf("[ block    ] %d switch-in(s) without a sched_switch event, closed at the kernel's arrival time\n",
                    unseen);
    EXPECT_TRUE(at(run.summary, "/block/dropped_end_unknown").is_number()) << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/block/dropped_end_unknown"), 0) << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/block/program_misses"), 0) << run.vtscope_stderr;
}

const std::vector<std::string> kBlockingCases = {"downcall-usleep", "pipe-read",          "upcall-sleep",
                                                 "clinit-sleep",    "clinit-initialiser", "clinit-wait"};
const std::vector<std::string> kUnmountingCases = {"synchronized-sleep", "synchronized-park", "contended-enter",
                                                   "object-wait"};

struct CaseTally {
    int expected = 0;
    int reported = 0;  // exactly one interval matched
    double min_ms = 1e18, max_ms = 0, worst_error_ms = 0;
    int stalls = 0;        // further intervals of the same thread and trace in the window
    int did_not_wait = 0;  // clinit-wait: the initialiser was done before the waiter got there
};

constexpr double kSlackNs = 2e6;  // the window is measured in Java, around the off-CPU time

// The intervals of one operation's thread in its window (run-queue waits aside), and one of them.
struct OperationCheck {
    const BlockRun& run;
    const json& op;
    std::string what;             // label, case and repetition, for messages
    std::vector<size_t> matches;  // indices in run.intervals
    double t0 = 0, t1 = 0;
};

double start_ns(const json& iv) { return num(iv, "ts_ns"); }
double end_ns(const json& iv) { return num(iv, "ts_ns") + num(iv, "duration_ns"); }
// How much of [from, to] the interval covers.
double overlap_ns(const json& iv, double from, double to) {
    return std::max(0.0, std::min(end_ns(iv), to) - std::max(start_ns(iv), from));
}

OperationCheck match_operation(const BlockRun& run, const json& op, const std::string& label) {
    OperationCheck c{run,
                     op,
                     label + " " + str(op, "case") + " rep " + std::to_string(static_cast<int>(num(op, "rep"))),
                     {},
                     num(op, "t0_ns"),
                     num(op, "t1_ns")};
    for (size_t i = 0; i < run.intervals.size(); i++) {
        const json& iv = run.intervals[i];
        if (str(iv, "block_reason") == "preempted") continue;  // run-queue wait, not blocking
        if (!is_num(iv, "vthread") || num(iv, "vthread") != num(op, "vthread")) continue;
        if (end_ns(iv) < c.t0 - kSlackNs || start_ns(iv) > c.t1 + kSlackNs) continue;
        c.matches.push_back(i);
    }
    return c;
}

// A case that unmounts must not block its carrier: had it pinned, one interval would span most of
// the window (it sleeps, parks, waits or waits for the lock from start to end). The JVM can still
// block a mounted thread briefly on its own locks: seen on this loaded machine, 9.2 ms in futex
// under Mutex::lock <- CompileBroker::compile_method_base <- InterpreterRuntime::
// frequency_counter_overflow (interpreted code queueing a compilation while a compiler thread,
// preempted, held the queue's lock), and 27.8 ms in futex just before a window (its stack cut in
// libc). vtscope is right to report those (the carrier is blocked with the thread mounted); they
// are told from the operation by their stack (HotSpot's own lock, safepoint or compiler frames)
// or by covering less than half of the window, and counted.
void check_unmounting_case(const OperationCheck& c, CaseTally& t) {
    for (size_t i : c.matches) {
        const json& iv = c.run.intervals[i];
        double covered = overlap_ns(iv, c.t0, c.t1);
        bool vm_internal = has_frame_prefix(field(iv, "user_stack"), kVmInternalFrames);
        std::printf("[ block    ] %s: off-CPU %.1f ms at %+.1f ms of a %.1f ms window (%s): %s\n", c.what.c_str(),
                    num(iv, "duration_ns") / 1e6, (start_ns(iv) - c.t0) / 1e6, (c.t1 - c.t0) / 1e6,
                    vm_internal ? "in the JVM's own code" : "no JVM-internal frame", describe(iv).c_str());
        EXPECT_TRUE(vm_internal || covered < 0.5 * (c.t1 - c.t0))
            << c.what << ": an unmounting case blocked its carrier for " << covered / 1e6 << " ms of its "
            << (c.t1 - c.t0) / 1e6 << " ms: " << describe(iv);
        t.stalls++;
    }
}

// The operation itself: the interval in its syscall covering most of its window. Further intervals
// of the same thread in the window, under its own span, are real further stalls of its carrier (a
// safepoint met on the way back, ...): counted, and every one must carry the right trace; a split
// of the operation would fail the duration check.
std::vector<size_t> find_operation(const OperationCheck& c, CaseTally& t) {
    std::vector<size_t> operation;
    for (size_t i : c.matches) {
        const json& iv = c.run.intervals[i];
        if (str(iv, "status") != "no_context") {
            EXPECT_EQ(str(iv, "trace_id"), str(c.op, "trace_id")) << c.what << ": misattributed";
        }
        bool inside = start_ns(iv) >= c.t0 - kSlackNs && end_ns(iv) <= c.t1 + kSlackNs;
        if (inside && str(iv, "syscall") == str(c.op, "syscall") && num(iv, "duration_ns") >= 0.5 * (c.t1 - c.t0))
            operation.push_back(i);
        else
            t.stalls++;
    }
    EXPECT_EQ(operation.size(), 1u) << c.what << ": " << operation.size() << " intervals";
    if (c.matches.size() > 1 || operation.size() != 1)
        for (size_t i : c.matches)
            std::printf("[ block    ] %s: ts %+.1f ms from the start of the operation, %.1f ms, %s\n", c.what.c_str(),
                        (start_ns(c.run.intervals[i]) - c.t0) / 1e6, num(c.run.intervals[i], "duration_ns") / 1e6,
                        describe(c.run.intervals[i]).c_str());
    return operation;
}

// The ms of the operation's window that block: the whole operation, but for the <clinit> cases,
// whose Class.forName also loads and verifies the class (CPU work) around the sleep timed inside.
// That part, measured in Java, holds the off-CPU time, a little CPU time and, on a loaded machine,
// run-queue waits (preempted intervals, not blocking) and further stalls of the carrier (not the
// operation's either): those are taken out.
double blocked_window_ms(const OperationCheck& c, size_t operation) {
    double b0 = is_num(c.op, "blocked_t0_ns") ? num(c.op, "blocked_t0_ns") : c.t0;
    double b1 = is_num(c.op, "blocked_t1_ns") ? num(c.op, "blocked_t1_ns") : c.t1;
    double further_ns = 0, waits_ns = 0;
    for (size_t i : c.matches)
        if (i != operation) further_ns += overlap_ns(c.run.intervals[i], b0, b1);
    for (const json& w : c.run.intervals)
        if (str(w, "block_reason") == "preempted" && is_num(w, "vthread") && num(w, "vthread") == num(c.op, "vthread"))
            waits_ns += overlap_ns(w, b0, b1);
    return (b1 - b0 - waits_ns - further_ns) / 1e6;
}

void check_blocking_case(const OperationCheck& c, CaseTally& t) {
    std::vector<size_t> operation = find_operation(c, t);
    if (operation.size() != 1) return;
    const json& iv = c.run.intervals[operation[0]];
    t.reported++;
    double window_ms = blocked_window_ms(c, operation[0]), ms = num(iv, "duration_ns") / 1e6;
    t.min_ms = std::min(t.min_ms, ms);
    t.max_ms = std::max(t.max_ms, ms);
    t.worst_error_ms = std::max(t.worst_error_ms, std::fabs(ms - window_ms));
    EXPECT_LE(std::fabs(ms - window_ms), std::max(0.1 * window_ms, 5.0))
        << c.what << ": " << ms << " ms off-CPU for a " << window_ms << " ms operation";
    EXPECT_EQ(str(iv, "trace_id"), str(c.op, "trace_id")) << c.what;
    EXPECT_EQ(str(iv, "span_id"), str(c.op, "span_id")) << c.what;
    EXPECT_EQ(str(iv, "status"), "ok") << c.what;
    EXPECT_EQ(num(iv, "java_thread"), num(c.op, "vthread")) << c.what;
    EXPECT_EQ(str(iv, "block_reason"), "syscall") << c.what;
    EXPECT_EQ(str(iv, "syscall"), str(c.op, "syscall")) << c.what;
    EXPECT_FALSE(flag(iv, "open")) << c.what;
}

// Everything reported (but run-queue waits) is one of the blocking operations: nothing for idle
// carriers, nothing for another thread, nothing twice. Returns the run-queue waits.
int check_nothing_else(const BlockRun& run, const std::vector<bool>& used, const std::string& label) {
    int preempted = 0;
    for (size_t i = 0; i < run.intervals.size(); i++) {
        if (str(run.intervals[i], "block_reason") == "preempted") {
            preempted++;
            EXPECT_TRUE(is_num(run.intervals[i], "vthread")) << "a run-queue wait without a vthread";
            continue;
        }
        EXPECT_TRUE(used[i]) << label
                             << ": unmatched interval (idle carrier or misattributed?): " << run.intervals[i].dump();
    }
    return preempted;
}

void print_tally(const std::map<std::string, CaseTally>& tally, const std::string& label, int repetitions) {
    for (const std::string& kase : kBlockingCases) {
        const CaseTally& t = tally.at(kase);
        std::printf(
            "[ block    ] %s %-20s expected %2d reported %2d, %.1f-%.1f ms, worst error %.2f ms, %d further stalls%s\n",
            label.c_str(), kase.c_str(), t.expected, t.reported, t.min_ms, t.max_ms, t.worst_error_ms, t.stalls,
            t.did_not_wait ? (", " + std::to_string(t.did_not_wait) + " did not need to wait").c_str() : "");
        EXPECT_EQ(t.expected, repetitions) << kase;
    }
    for (const std::string& kase : kUnmountingCases)
        std::printf(
            "[ block    ] %s %-20s expected  0 reported  0 of %d runs (unmounts), %d stalls that are not the "
            "operation\n",
            label.c_str(), kase.c_str(), tally.at(kase).expected, tally.at(kase).stalls);
}

// Checks one run against its ground truth; prints the tally per case.
void check_run(const BlockRun& run, int repetitions, const std::string& label) {
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_EQ(text(run.summary, "/stop_reason"), "target exited") << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/lost"), 0) << run.vtscope_stderr;
    ASSERT_EQ(run.truth.size(), (kBlockingCases.size() + kUnmountingCases.size()) * repetitions) << run.java_stderr;
    check_unseen_switch_ins(run);

    std::vector<bool> used(run.intervals.size(), false);
    std::map<std::string, CaseTally> tally;
    for (const json& op : run.truth) {
        CaseTally& t = tally[str(op, "case")];
        t.expected++;
        OperationCheck c = match_operation(run, op, label);
        for (size_t i : c.matches) used[i] = true;
        if (flag(op, "blocking"))
            check_blocking_case(c, t);
        else if (str(op, "case") == "clinit-wait")
            // The waiter ran only once the initialiser was (nearly) done: it did not wait, or under
            // 10 ms (its truth says so): neither required nor forbidden.
            t.did_not_wait++;
        else
            check_unmounting_case(c, t);
    }
    int preempted = check_nothing_else(run, used, label);
    print_tally(tally, label, repetitions);
    std::printf("[ block    ] %s %zu intervals reported, %d of them run-queue waits; %.0f intervals in all\n",
                label.c_str(), run.intervals.size(), preempted, number(run.summary, "/block/count"));
    // The program saw every switch of the target.
    EXPECT_EQ(at(run.summary, "/block/program_misses"), 0) << run.vtscope_stderr;
    // The summary's totals cover every interval, reported or counted in the kernel: blocking
    // ones in count, run-queue waits in cpu_wait.
    EXPECT_GE(number(run.summary, "/block/count") + number(run.summary, "/block/cpu_wait/count"),
              static_cast<double>(run.intervals.size()));
    EXPECT_EQ(number(run.summary, "/block/reported"), static_cast<double>(run.intervals.size()) - preempted);
    EXPECT_EQ(number(run.summary, "/block/cpu_wait/reported"), preempted);
}

}  // namespace

// The pinning matrix under each collector: 10 repetitions of every case.
class BlockMatrix : public ::testing::TestWithParam<std::string> {};

TEST_P(BlockMatrix, EveryBlockingCaseOncePerRepetitionAndNothingElse) {
    REQUIRE_BPF();
    constexpr int kRepetitions = 10;
    // --stacks: a stray interval's stack says where it blocked.
    BlockRun run = run_block({GetParam()}, kRepetitions, {"--threshold", "5", "--stacks"});
    check_run(run, kRepetitions, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Collectors, BlockMatrix, ::testing::Values("-XX:+UseG1GC", "-XX:+UseZGC"),
                         [](const auto& p) { return std::string(p.param == "-XX:+UseZGC" ? "ZGC" : "G1"); });

// --all-threads adds platform threads and idle carriers (vthread null); the virtual threads'
// intervals stay the same.
TEST(Block, AllThreadsAddsThreadsWithoutAVirtualThread) {
    REQUIRE_BPF();
    BlockRun run = run_block({}, 2, {"--threshold", "5", "--all-threads"});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    int with_vthread = 0, without = 0;
    for (const json& iv : run.intervals) (is_num(iv, "vthread") ? with_vthread : without)++;
    std::printf("[ block    ] --all-threads: %d intervals with a virtual thread, %d without\n", with_vthread, without);
    EXPECT_GE(with_vthread, 2 * static_cast<int>(kBlockingCases.size() - 1));  // clinit-wait may not wait
    EXPECT_GT(without, 0);
}

// Bad input fails with one error line and exit code 2 (options) or 1 (target).
TEST(Block, BadInput) {
    std::string err;
    EXPECT_EQ(vtscope::testing::run_command({kVtscope, "block"}, &err, 10s), 2);
    EXPECT_NE(err.find("block needs --pid PID"), std::string::npos) << err;
    EXPECT_EQ(vtscope::testing::run_command({kVtscope, "block", "--pid", "1", "--threshold", "-1"}, &err, 10s), 2);
    EXPECT_NE(err.find("invalid threshold"), std::string::npos) << err;
    EXPECT_EQ(vtscope::testing::run_command({kVtscope, "block", "--pid", "1", "--bogus"}, &err, 10s), 2);
    EXPECT_EQ(vtscope::testing::run_command({kVtscope, "block", "--pid", "0"}, &err, 10s), 2);
    EXPECT_EQ(vtscope::testing::run_command({kVtscope, "block", "--pid", "1", "--perfetto", "-"}, &err, 10s), 2);
    EXPECT_NE(err.find("--perfetto needs a file"), std::string::npos) << err;
    REQUIRE_BPF();
    EXPECT_EQ(vtscope::testing::run_command({kVtscope, "block", "--pid", "1"}, &err, 10s), 1);
    EXPECT_NE(err.find("vtscope: error:"), std::string::npos) << err;
}

// Stress: 400 virtual threads started at once on 2 carriers, each making one 30 ms blocking
// downcall under its own trace: 400 of 400 intervals with the right thread and trace, none
// misattributed, none extra.
TEST(Block, StressFourHundredBlockingDowncallsOnTwoCarriers) {
    REQUIRE_BPF();
    constexpr int kThreads = 400;
    BlockRun run = run_block({}, 1, {"--threshold", "5"}, {"--stress", std::to_string(kThreads), "--sleep-ms", "30"});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/lost"), 0) << run.vtscope_stderr;
    ASSERT_EQ(run.truth.size(), static_cast<size_t>(kThreads)) << run.java_stderr;
    std::map<double, const json*> by_vthread;  // the ground truth by virtual thread
    for (const json& op : run.truth) by_vthread[num(op, "vthread")] = &op;
    int correct = 0, misattributed = 0, extra = 0, preempted = 0, stalls = 0;
    std::map<double, int> seen;
    for (const json& iv : run.intervals) {
        if (str(iv, "block_reason") == "preempted") {
            preempted++;
            continue;
        }
        auto it = is_num(iv, "vthread") ? by_vthread.find(num(iv, "vthread")) : by_vthread.end();
        if (it == by_vthread.end()) {
            extra++;
            continue;
        }
        const json& op = *it->second;
        // A stall before the thread published its span (or after it cleared it) has no context:
        // right too. Misattributed means another span.
        bool right = (str(iv, "trace_id") == str(op, "trace_id") && str(iv, "span_id") == str(op, "span_id")) ||
                     str(iv, "status") == "no_context";
        bool the_call = str(iv, "syscall") == "clock_nanosleep" && num(iv, "ts_ns") >= num(op, "t0_ns") - 2e6 &&
                        num(iv, "ts_ns") + num(iv, "duration_ns") <= num(op, "t1_ns") + 2e6;
        if (right && !the_call) {
            // The same thread blocked again under its own span: a real stall of its carrier (a
            // safepoint or handshake met on the way back from the downcall, while it is mounted).
            stalls++;
            std::printf("[ block    ] stress: vthread %.0f also off-CPU %.1f ms in %s (%s), same trace or none yet\n",
                        num(iv, "vthread"), num(iv, "duration_ns") / 1e6, str(iv, "syscall").c_str(),
                        str(iv, "block_reason").c_str());
            continue;
        }
        if (!right) {
            misattributed++;
            std::printf("[ block    ] stress: not matching its operation %s: %s (ts %.0f..%.0f)\n",
                        str(op, "trace_id").c_str(), str(iv, "trace_id").c_str(), num(op, "t0_ns"), num(op, "t1_ns"));
            std::printf("[ block    ]   interval ts %.0f dur %.0f syscall %s reason %s\n", num(iv, "ts_ns"),
                        num(iv, "duration_ns"), str(iv, "syscall").c_str(), str(iv, "block_reason").c_str());
        } else if (seen[num(iv, "vthread")]++ == 0) {
            correct++;
        } else {
            extra++;
        }
    }
    std::printf(
        "[ block    ] stress: %d threads, %d correct, %d misattributed, %d extra, %d run-queue waits, "
        "%d further stalls of the same threads\n",
        kThreads, correct, misattributed, extra, preempted, stalls);
    check_unseen_switch_ins(run);
    EXPECT_EQ(correct, kThreads);
    EXPECT_EQ(misattributed, 0);
    EXPECT_EQ(extra, 0);
    // 400 x 30 ms on 2 carriers: both are blocked at once for nearly all of 6 s.
    const json& carriers = at(run.summary, "/block/carriers");
    std::printf("[ block    ] stress: %.0f carriers, all blocked at once for %.0f ms\n", number(carriers, "/seen"),
                number(carriers, "/all_blocked_ns") / 1e6);
    EXPECT_EQ(at(carriers, "/seen"), 2);
    EXPECT_EQ(at(run.summary, "/block/program_misses"), 0) << run.vtscope_stderr;
    EXPECT_GT(number(carriers, "/all_blocked_ns"), 0.8 * kThreads * 30e6 / 2);
}

// Waiting for a CPU is not blocking: with two threads spinning beside the two carriers, the
// carriers are preempted often. Every interval is reported (--threshold 0), so the summary's
// blocked time must be exactly the sum of the blocking lines, the run-queue waits must be apart
// (cpu_wait), and the rankings must order by blocked time alone.
TEST(Block, PreemptionByABusyNeighbourIsNotBlocking) {
    REQUIRE_BPF();
    std::atomic<bool> spin{true};
    std::vector<std::thread> neighbours;
    for (int i = 0; i < 2; i++)
        neighbours.emplace_back([&spin] {
            while (spin.load(std::memory_order_relaxed)) {
            }
        });
    BlockRun run = run_block({}, 1, {"--threshold", "0", "--top", "100000"}, {"--stress", "200", "--sleep-ms", "20"});
    spin = false;
    for (std::thread& t : neighbours) t.join();
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/lost"), 0) << run.vtscope_stderr;
    double blocked_ns = 0, blocking = 0, wait_ns = 0, waits = 0;
    std::map<std::string, double> blocked_by_trace;
    for (const json& iv : run.intervals) {
        bool preempted = str(iv, "block_reason") == "preempted";
        (preempted ? wait_ns : blocked_ns) += num(iv, "duration_ns");
        (preempted ? waits : blocking) += 1;
        if (!preempted && str(iv, "status") == "ok") blocked_by_trace[str(iv, "trace_id")] += num(iv, "duration_ns");
    }
    const json& block = at(run.summary, "/block");
    std::printf(
        "[ block    ] neighbour: %.0f blocking intervals (%.1f ms), %.0f run-queue waits (%.1f ms); summary %.1f "
        "ms blocked, %.1f ms waiting for a CPU\n",
        blocking, blocked_ns / 1e6, waits, wait_ns / 1e6, number(block, "/blocked_ns") / 1e6,
        number(block, "/cpu_wait/wait_ns") / 1e6);
    ASSERT_GT(waits, 0) << "no run-queue wait with a busy neighbour: the test shows nothing";
    EXPECT_EQ(number(block, "/count"), blocking);
    EXPECT_EQ(number(block, "/blocked_ns"), blocked_ns);
    EXPECT_EQ(number(block, "/cpu_wait/count"), waits);
    EXPECT_EQ(number(block, "/cpu_wait/wait_ns"), wait_ns);
    for (const json& r : at(block, "/top_reasons")) EXPECT_NE(str(r, "reason"), "preempted");
    for (const json& t : at(block, "/traces")) {
        EXPECT_EQ(num(t, "blocked_ns"), blocked_by_trace[str(t, "trace_id")]) << str(t, "trace_id");
        EXPECT_GT(num(t, "count"), 0);
    }
    EXPECT_NE(run.vtscope_stderr.find("waiting for a CPU (preempted, not blocking)"), std::string::npos)
        << run.vtscope_stderr;
}

// The same 400 calls under a threshold above them: none is reported, and every one reaches the
// summary through the kernel's per-task sums (block.h, vtscope_block_summary), under its own
// trace and no other.
TEST(Block, ShortIntervalsAreSummedUnderTheirOwnTraces) {
    REQUIRE_BPF();
    constexpr int kThreads = 400;
    BlockRun run = run_block({}, 1, {"--threshold", "200", "--top", "100000"},
                             {"--stress", std::to_string(kThreads), "--sleep-ms", "30"});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/lost"), 0) << run.vtscope_stderr;
    ASSERT_EQ(run.truth.size(), static_cast<size_t>(kThreads)) << run.java_stderr;
    EXPECT_TRUE(run.intervals.empty()) << run.intervals.size() << " intervals of 200 ms or more";
    std::map<std::string, double> blocked_ns;  // by trace, from the summary
    for (const json& t : at(run.summary, "/block/traces")) blocked_ns[str(t, "trace_id")] = num(t, "blocked_ns");
    int summed = 0, foreign = 0;
    std::set<std::string> traces;
    for (const json& op : run.truth) {
        traces.insert(str(op, "trace_id"));
        auto it = blocked_ns.find(str(op, "trace_id"));
        // Its 30 ms call, less what the thread spent on the CPU inside it.
        if (it != blocked_ns.end() && it->second >= 25e6) summed++;
    }
    for (const auto& [trace, ns] : blocked_ns) foreign += traces.count(trace) == 0;
    std::printf(
        "[ block    ] short: %d of %d traces with their call summed, %d traces not of the run, %.0f intervals\n",
        summed, kThreads, foreign, number(run.summary, "/block/count"));
    check_unseen_switch_ins(run);
    EXPECT_EQ(summed, kThreads) << run.vtscope_stderr;
    EXPECT_EQ(foreign, 0);
    EXPECT_GE(number(run.summary, "/block/count"), kThreads);
}

// --jfr: every jdk.VirtualThreadPinned event of the run is joined to a vtscope interval (the
// upcall, <clinit> and class-init-wait cases); the native-call cases (downcall, pipe read) are
// in vtscope only.
TEST(Block, JfrPinnedEventsJoinTheirIntervals) {
    REQUIRE_BPF();
    constexpr int kRepetitions = 3;
    BlockRun run = run_block({}, kRepetitions, {"--threshold", "5", "--jfr"});
    check_run(run, kRepetitions, "--jfr");
    const json& jfr = at(run.summary, "/block/jfr");
    std::map<std::string, std::string> case_of;  // trace id -> case
    for (const json& op : run.truth) case_of[str(op, "trace_id")] = str(op, "case");
    std::map<std::string, int> joined, vtscope_only;
    int jfr_only = 0;
    for (const json& iv : run.intervals) {
        if (flag(iv, "jfr_only")) {
            jfr_only++;
            continue;
        }
        if (str(iv, "block_reason") == "preempted") continue;
        std::string kase = case_of[str(iv, "trace_id")];
        if (field(iv, "jfr_pinned_reason").is_string()) {
            joined[kase]++;
            std::string reason = str(iv, "jfr_pinned_reason");
            if (kase == "upcall-sleep") {
                EXPECT_EQ(reason, "Native or VM frame on stack");
            } else if (kase == "clinit-sleep" || kase == "clinit-initialiser") {
                EXPECT_NE(reason.find("<clinit> on stack"), std::string::npos) << reason;
            } else if (kase == "clinit-wait") {
                EXPECT_NE(reason.find("Waited for initialization"), std::string::npos) << reason;
            }
            EXPECT_FALSE(field(iv, "jfr_stack").empty());
        } else {
            vtscope_only[kase]++;
        }
    }
    for (const std::string& kase : kBlockingCases)
        std::printf("[ block    ] --jfr %-20s in JFR and vtscope %d, vtscope only %d\n", kase.c_str(), joined[kase],
                    vtscope_only[kase]);
    std::printf("[ block    ] --jfr: %.0f JFR events, %.0f joined, %d seen by JFR only\n", number(jfr, "/events"),
                number(jfr, "/joined"), jfr_only);
    EXPECT_EQ(jfr_only, 0);
    EXPECT_EQ(number(jfr, "/jfr_only"), 0);
    EXPECT_EQ(number(jfr, "/joined"), number(jfr, "/events"));
    std::map<std::string, int> blocking;  // operations that blocked, per case (clinit-wait may not)
    for (const json& op : run.truth)
        if (flag(op, "blocking")) blocking[str(op, "case")]++;
    for (const char* kase : {"upcall-sleep", "clinit-sleep", "clinit-initialiser", "clinit-wait"})
        EXPECT_EQ(joined[kase], blocking[kase]) << kase;
    for (const char* kase : {"downcall-usleep", "pipe-read"}) {
        EXPECT_EQ(joined[kase], 0) << kase;
        EXPECT_GE(vtscope_only[kase], kRepetitions) << kase;  // and further stalls, if any
    }
}

// A JDK its user can write: a copy of java beside the real JDK's lib and conf (HotSpot finds them
// from the launcher's own path), and jcmd and jfr that would leave a marker. vtscope block --jfr
// against a JVM run from it must run neither: JFR goes through vtscope's attach client and the
// recording is printed by the root-owned --jfr-jdk.
TEST(Block, JfrNeverRunsTheTargetsOwnTools) {
    REQUIRE_BPF();
    E2e e2e;
    std::string jdk = e2e.path("user-jdk"), marker = e2e.path("target-tool-ran");
    std::string real_jdk = vtscope::testing::java_home();
    std::string setup = "mkdir -p " + jdk + "/bin && cp " + java_bin() + " " + jdk + "/bin/java && ln -s " + real_jdk +
                        "/lib " + jdk + "/lib && ln -s " + real_jdk + "/conf " + jdk + "/conf";
    for (const char* tool : {"jcmd", "jfr"})
        setup += " && printf '#!/bin/sh\\ntouch " + marker + "\\n' > " + jdk + "/bin/" + tool + " && chmod 755 " + jdk +
                 "/bin/" + tool;
    setup += " && chown -R nobody " + jdk;
    ASSERT_EQ(std::system(setup.c_str()), 0) << setup;
    ASSERT_TRUE(e2e.start(pinning_cases({}, {"--repetitions", "1"}, {jdk + "/bin/java"})));
    ::testing::AssertionResult ready = e2e.attach("block", {"--threshold", "5", "--jfr"});
    EXPECT_NE(access(marker.c_str(), F_OK), 0) << "vtscope ran the target JDK's jcmd or jfr";
    ASSERT_TRUE(ready);
    E2eRun run = e2e.run(120s);
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_NE(access(marker.c_str(), F_OK), 0) << "vtscope ran the target JDK's jcmd or jfr";
    EXPECT_GT(number(run.summary, "/block/jfr/events"), 0) << run.vtscope_stderr;
}

// A target of another user (nobody): the recording it writes in its /tmp is read back, printed by
// jfr running as that user from a copy in root's 0700 directory, and nothing is left in /tmp.
TEST(Block, JfrOfATargetOfAnotherUser) {
    REQUIRE_BPF();
    REQUIRE_READABLE_BY_NOBODY(vtscope::testing::kJavaDir + "/vtscope-workloads.jar");
    E2e e2e;
    ASSERT_EQ(chown(e2e.path("").c_str(), 65534, 65534), 0);  // PinningCases writes its files there
    // What vtscope --jfr makes in /tmp: its 0700 work directories and the target's recordings.
    auto leftovers = [] {
        std::string err;
        std::string list = "/tmp/vtscope-jfr-listing-" + std::to_string(getpid());
        vtscope::testing::run_command(
            {"/bin/sh", "-c",
             "find /tmp -maxdepth 1 \\( -name 'vtscope-jfr-*.jfr' -o -name 'vtscope-jfr-*' -perm 0700 \\) > " + list},
            &err, 10s);
        std::string text = read_file(list);
        unlink(list.c_str());
        return text;
    };
    std::string before = leftovers();
    ASSERT_TRUE(
        e2e.start(pinning_cases({}, {"--repetitions", "1"},
                                {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", java_bin()})));
    ASSERT_TRUE(e2e.attach("block", {"--threshold", "5", "--jfr"}));
    // While the recording runs, no directory of vtscope's in /tmp lets another user plant a name
    // (before, its work directory was 0777 without the sticky bit for the whole session).
    std::string err, writable_list = e2e.path("writable");
    vtscope::testing::run_command(
        {"/bin/sh", "-c", "find /tmp -maxdepth 1 -name 'vtscope-jfr-*' -type d -perm /022 > " + writable_list}, &err,
        10s);
    EXPECT_EQ(read_file(writable_list), "") << "a vtscope work directory others can write";
    E2eRun run = e2e.run(120s);
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_GT(number(run.summary, "/block/jfr/events"), 0) << run.vtscope_stderr;
    EXPECT_EQ(number(run.summary, "/block/jfr/joined"), number(run.summary, "/block/jfr/events"));
    EXPECT_EQ(leftovers(), before) << "vtscope left its work directory or the recording in /tmp";
}

// --jfr-jdk naming a JDK that is not root's alone: refused at start with one line, nothing run.
TEST(Block, JfrJdkNotOwnedByRootIsRefused) {
    REQUIRE_BPF();
    E2e e2e;
    ASSERT_TRUE(e2e.start(pinning_cases({}, {"--repetitions", "1"})));
    std::string jdk = e2e.path("user-jdk"), marker = e2e.path("jfr-ran");
    std::string setup = "mkdir -p " + jdk + "/bin && printf '#!/bin/sh\\ntouch " + marker + "\\n' > " + jdk +
                        "/bin/jfr && chmod 755 " + jdk + "/bin/jfr && chown -R nobody " + jdk;
    ASSERT_EQ(std::system(setup.c_str()), 0) << setup;
    std::string err;
    int exit_code = vtscope::testing::run_command(
        {kVtscope, "block", "--pid", std::to_string(e2e.pid()), "--jfr", "--jfr-jdk", jdk, "--duration", "1"}, &err,
        60s);
    EXPECT_NE(exit_code, 0);
    // The wording users read: which option, and that it was refused.
    EXPECT_NE(err.find("--jfr-jdk: "), std::string::npos) << err;
    EXPECT_NE(err.find("(refused)"), std::string::npos) << err;
    EXPECT_NE(access(marker.c_str(), F_OK), 0) << "a refused jfr ran";
}

// The session ends (--duration) while a carrier is blocked: the interval is closed then and
// reported with "open":true, its duration running to the end; nothing is lost.
TEST(Block, IntervalOpenAtTheEndIsClosedAndReported) {
    REQUIRE_BPF();
    E2e e2e;
    ASSERT_TRUE(e2e.start(pinning_cases({}, {"--repetitions", "1", "--sleep-ms", "4000"})));
    ASSERT_TRUE(e2e.attach("block", {"--threshold", "5", "--duration", "2"}));
    e2e.go();
    // The first case is a 4 s downcall to usleep; vtscope stops after 2 s, in the middle of it.
    E2eRun run = e2e.finish();
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    std::string error;
    std::vector<json> intervals = vtscope::testing::parse_lines(run.lines, &error);
    ASSERT_TRUE(error.empty()) << error;
    int open = 0;
    for (const json& iv : intervals) {
        if (!flag(iv, "open")) continue;
        open++;
        EXPECT_EQ(str(iv, "syscall"), "clock_nanosleep");
        EXPECT_EQ(str(iv, "status"), "ok");
        EXPECT_GT(num(iv, "duration_ns"), 0.5e9);
        EXPECT_LT(num(iv, "duration_ns"), 4e9);
    }
    EXPECT_EQ(open, 1) << ::testing::PrintToString(run.lines);
    EXPECT_EQ(at(run.summary, "/block/open_at_end"), 1) << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/lost"), 0) << run.vtscope_stderr;
}

// Whether a carrier of pid (a ForkJoinPool worker) is in the clock_nanosleep syscall (230 on
// x86_64) now: the downcall to usleep has begun.
bool carrier_in_nanosleep(pid_t pid) {
    std::error_code ec;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
        std::string dir = task.path().string();
        if (read_file(dir + "/comm").rfind("ForkJoinPool", 0) == 0 && read_file(dir + "/syscall").rfind("230 ", 0) == 0)
            return true;
    }
    return false;
}

// The target dies (SIGKILL) while a carrier is blocked: the carrier runs once more to exit,
// which closes its interval; vtscope reports it, stops on "target exited" and loses nothing.
TEST(Block, TargetKilledMidIntervalLosesNothing) {
    REQUIRE_BPF();
    E2e e2e;
    ASSERT_TRUE(e2e.start(pinning_cases({}, {"--repetitions", "1", "--sleep-ms", "4000"})));
    ASSERT_TRUE(e2e.attach("block", {"--threshold", "5"}));
    e2e.go();
    // Inside the 4 s downcall: the first case's carrier is in clock_nanosleep.
    ASSERT_TRUE(vtscope::testing::wait_until([&] { return carrier_in_nanosleep(e2e.pid()); }, 60s))
        << "the downcall did not begin";
    std::this_thread::sleep_for(1s);  // not a synchronisation: the blocked interval's length when the kill lands
    e2e.workload().signal(SIGKILL);
    e2e.wait_workload(30s);
    E2eRun run = e2e.finish();
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_EQ(text(run.summary, "/stop_reason"), "target exited") << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/lost"), 0) << run.vtscope_stderr;
    std::string error;
    std::vector<json> intervals = vtscope::testing::parse_lines(run.lines, &error);
    ASSERT_TRUE(error.empty()) << error;
    int downcall = 0;
    for (const json& iv : intervals)
        if (str(iv, "syscall") == "clock_nanosleep" && num(iv, "duration_ns") > 0.5e9) downcall++;
    EXPECT_EQ(downcall, 1) << ::testing::PrintToString(run.lines);
}

namespace {

// The reported interval of each downcall-usleep operation of run (the one in clock_nanosleep on
// its virtual thread, inside its window), null when there is none.
std::vector<const json*> downcall_intervals(const BlockRun& run) {
    std::vector<const json*> out;
    for (const json& op : run.truth) {
        if (str(op, "case") != "downcall-usleep") continue;
        const json* found = nullptr;
        for (const json& iv : run.intervals)
            if (is_num(iv, "vthread") && num(iv, "vthread") == num(op, "vthread") &&
                str(iv, "syscall") == "clock_nanosleep" && num(iv, "ts_ns") >= num(op, "t0_ns") - 2e6 &&
                num(iv, "ts_ns") + num(iv, "duration_ns") <= num(op, "t1_ns") + 2e6)
                found = &iv;
        out.push_back(found);
    }
    return out;
}

// The checks every --stacks run shares: each reported interval carries both stacks (or says why
// not); each downcall's kernel stack holds the scheduler and its user stack the sleep.
void check_stacks(const BlockRun& run, int repetitions) {
    for (const json& iv : run.intervals) {
        ASSERT_FALSE(field(iv, "kernel_stack").is_null()) << "no kernel stack: " << str(iv, "kernel_stack_error");
        EXPECT_TRUE(field(iv, "kernel_stack_error").is_null());
        if (field(iv, "user_stack").is_null()) {
            EXPECT_TRUE(field(iv, "user_stack_error").is_string()) << "a missing user stack without its reason";
        }
    }
    std::vector<const json*> downcalls = downcall_intervals(run);
    ASSERT_EQ(downcalls.size(), static_cast<size_t>(repetitions));
    for (const json* iv : downcalls) {
        ASSERT_NE(iv, nullptr) << "a downcall without its interval";
        const json& kernel = field(*iv, "kernel_stack");
        const json& user = field(*iv, "user_stack");
        std::printf("[ block    ] --stacks downcall: kernel %s\n[ block    ] --stacks downcall: user %s\n",
                    frames_text(kernel).c_str(), frames_text(user).c_str());
        EXPECT_TRUE(has_frame(kernel, {"__schedule_[k]", "schedule_[k]"})) << frames_text(kernel);
        EXPECT_TRUE(has_frame(kernel, {"nanosleep"})) << frames_text(kernel);
        ASSERT_FALSE(user.empty()) << str(*iv, "user_stack_error");
        EXPECT_TRUE(has_frame(user, {"usleep", "clock_nanosleep"})) << frames_text(user);
    }
}

}  // namespace

// --stacks with -XX:+PreserveFramePointer: the matrix still holds, and the downcall's user stack
// goes from the sleep through the case's own JIT-compiled Java method (named by the JVM's perf
// map) to the virtual thread's entry; no frame-pointer warning.
TEST(Block, StacksNameTheSleepAndTheJavaMethod) {
    REQUIRE_BPF();
    constexpr int kRepetitions = 3;
    BlockRun run = run_block({"-XX:+PreserveFramePointer"}, kRepetitions, {"--threshold", "5", "--stacks"});
    check_run(run, kRepetitions, "--stacks");
    check_stacks(run, kRepetitions);
    EXPECT_EQ(run.vtscope_stderr.find("PreserveFramePointer"), std::string::npos) << run.vtscope_stderr;
    for (const json* iv : downcall_intervals(run)) {
        if (!iv) continue;
        const json& user = field(*iv, "user_stack");
        EXPECT_TRUE(has_frame(user, {"io.vtscope.workloads.PinningCases.downcallUsleep"})) << frames_text(user);
        EXPECT_TRUE(has_frame(user, {"enterSpecial", "VirtualThread.run"})) << frames_text(user);
        EXPECT_FALSE(has_frame(user, {"[truncated]"})) << frames_text(user);
    }
}

// Without -XX:+PreserveFramePointer: one warning, and the kernel frames and the native leaf still
// resolve.
TEST(Block, StacksWithoutPreserveFramePointerWarnOnce) {
    REQUIRE_BPF();
    BlockRun run = run_block({}, 1, {"--threshold", "5", "--stacks"});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    const std::string warning = "vtscope: warning: the JVM runs without -XX:+PreserveFramePointer";
    size_t at = run.vtscope_stderr.find(warning);
    EXPECT_NE(at, std::string::npos) << run.vtscope_stderr;
    if (at != std::string::npos) {
        EXPECT_EQ(run.vtscope_stderr.find(warning, at + 1), std::string::npos);
    }
    check_stacks(run, 1);
}

namespace {

// JAVA_HOME set for a scope: the fixture's java_bin() (and so PinningCases) runs that JDK.
class ScopedJavaHome {
public:
    explicit ScopedJavaHome(const std::string& home) {
        if (const char* old = std::getenv("JAVA_HOME")) old_ = old;
        setenv("JAVA_HOME", home.c_str(), 1);
    }
    ~ScopedJavaHome() {
        if (old_)
            setenv("JAVA_HOME", old_->c_str(), 1);
        else
            unsetenv("JAVA_HOME");
    }
    ScopedJavaHome(const ScopedJavaHome&) = delete;
    ScopedJavaHome& operator=(const ScopedJavaHome&) = delete;

private:
    std::optional<std::string> old_;
};

}  // namespace

// JDK 21, where synchronized and Object.wait still pin (JEP 491 came in 24): the classic pins are
// reported with their trace and duration, and joined to JFR's jdk.VirtualThreadPinned.
TEST(Block, Jdk21ClassicPinsAreReportedAndJoinedToJfr) {
    REQUIRE_BPF();
    if (std::string(VTSCOPE_TEST_JAVA21_HOME).empty())
        GTEST_SKIP() << "SKIPPED: VTSCOPE_TEST_JAVA21_HOME is not set (configure with a JDK 21 runtime)";
    ScopedJavaHome jdk21(VTSCOPE_TEST_JAVA21_HOME);
    constexpr int kRepetitions = 3;
    BlockRun run = run_block({}, kRepetitions, {"--threshold", "5", "--jfr"});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    std::map<std::string, std::string> case_of;  // trace id -> case
    std::map<std::string, int> ops;
    for (const json& op : run.truth) {
        case_of[str(op, "trace_id")] = str(op, "case");
        ops[str(op, "case")]++;
    }
    std::map<std::string, int> reported, joined;
    for (const json& iv : run.intervals) {
        if (flag(iv, "jfr_only") || str(iv, "block_reason") == "preempted") continue;
        auto it = case_of.find(str(iv, "trace_id"));
        std::string kase = it == case_of.end() ? "?" : it->second;
        if (kase != "?") {
            EXPECT_EQ(str(iv, "status"), "ok") << kase;
            EXPECT_GE(num(iv, "duration_ns"), 5e6) << kase;
        }
        reported[kase]++;
        if (field(iv, "jfr_pinned_reason").is_string() || flag(iv, "jfr_joined")) joined[kase]++;
    }
    for (const auto& [kase, n] : ops)
        std::printf("[ block21  ] %-20s ran %d, reported %d, joined to JFR %d\n", kase.c_str(), n, reported[kase],
                    joined[kase]);
    const json& jfr = at(run.summary, "/block/jfr");
    std::printf("[ block21  ] JFR: %s\n", jfr.dump().c_str());
    // Every case pins its carrier on 21 and is reported under its own trace (contended-enter may
    // block twice: the enter, then the owner's release).
    for (const char* kase : {"synchronized-sleep", "synchronized-park", "object-wait", "contended-enter",
                             "clinit-sleep", "clinit-initialiser", "clinit-wait"}) {
        EXPECT_EQ(ops[kase], kRepetitions) << kase << " did not run: " << run.java_stderr;
        EXPECT_GE(reported[kase], kRepetitions) << kase;
    }
    // JFR sees a pin only where the virtual thread parks while pinned; vtscope also sees the
    // monitor waits and class-initialisation waits it does not.
    for (const char* kase : {"synchronized-sleep", "synchronized-park", "clinit-sleep", "clinit-initialiser"})
        EXPECT_EQ(joined[kase], kRepetitions) << kase;
    EXPECT_GT(number(jfr, "/events"), 0);
    EXPECT_EQ(number(jfr, "/joined"), number(jfr, "/events")) << "every JFR pin joined to an interval";
    EXPECT_EQ(number(jfr, "/jfr_only"), 0);
}

// --perfetto: the timeline of the pinning matrix, decoded with Perfetto's own perfetto_trace.proto
// (the PyPI wheel `perfetto`'s perfetto_trace_pb2, installed once under the build folder by
// tests/perfetto/setup.sh) and checked by tests/perfetto/perfetto_check.py: every field of
// vtscope_perfetto.proto is Perfetto's (number, name, type), and against the ground truth:
// every pin on the carrier the workload ran on (gettid), within 1 ms of its window (the thread's
// other intervals around it accounted for), under its trace and span, inside a run of its virtual
// thread; nothing drawn for the cases that unmount.
// It also draws the timeline (perfetto-py/timeline.svg, the picture of docs/user-guide.md).
TEST(Block, PerfettoTimelineMatchesTheGroundTruth) {
    REQUIRE_BPF();
    std::string py = VTSCOPE_PERFETTO_PY, err;
    ASSERT_EQ(
        vtscope::testing::run_command({"sh", std::string(VTSCOPE_PERFETTO_TEST_DIR) + "/setup.sh", py}, &err, 300s), 0)
        << "installing the perfetto wheel's decoder (needs PyPI once): " << err;
    E2e e2e;
    std::string trace = e2e.path("timeline.pftrace");
    ASSERT_TRUE(e2e.start(pinning_cases({}, {"--repetitions", "3"})));
    pid_t pid = e2e.pid();  // the workload's; e2e.pid() is -1 once it has ended
    // Threshold 0: every interval is drawn, so that the checker can tell the time around a pin the
    // thread spent off CPU for another reason (a run-queue wait on a loaded machine) from an error.
    ASSERT_TRUE(e2e.attach("block", {"--threshold", "0", "--perfetto", trace}));
    E2eRun run = e2e.run();
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
    ASSERT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    ASSERT_FALSE(run.expected.empty()) << run.java_stderr;
    std::string expected = e2e.path("expected.jsonl"), output;  // the ground truth (e2e_fixture.cpp)
    // vtscope's messages as protoc reads them, for the checker to compare with Perfetto's, field by field.
    std::string proto = VTSCOPE_PERFETTO_PROTO, descriptor = e2e.path("vtscope_perfetto.desc");
    ASSERT_EQ(vtscope::testing::run_command({VTSCOPE_PROTOC, "--descriptor_set_out=" + descriptor,
                                             "-I" + std::filesystem::path(proto).parent_path().string(), proto},
                                            &err, 60s),
              0)
        << err;
    int exit = vtscope::testing::run_command(
        {"env", "PYTHONPATH=" + py + "/site", "python3", std::string(VTSCOPE_PERFETTO_TEST_DIR) + "/perfetto_check.py",
         trace, expected, std::to_string(pid), "--svg", py + "/timeline.svg", "--descriptor", descriptor},
        &output, 120s);
    std::printf("%s", output.c_str());
    EXPECT_EQ(exit, 0);
    EXPECT_NE(output.find("perfetto_check: 0 failures"), std::string::npos);
}
