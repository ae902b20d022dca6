// SPDX-License-Identifier: Apache-2.0
// The one end-to-end fixture every command's tests share: a workload JVM of java/vtscope-workloads
// started and waited for (its ready file), vtscope sessions attached to it (each waited for through
// its --ready-file, each with --summary-json), the go file, and everything collected: the
// workload's ground truth and output, each session's exit code, stdout, stderr, output lines and
// parsed summary. Every process is a Child, killed when the fixture goes out of scope, so a failed
// assertion leaves nothing running.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "process_runner.h"

namespace vtscope::testing {

// The JDK the tests run: $JAVA_HOME when set, else the one CMake was configured with
// (VTSCOPE_JAVA_HOME, passed in as VTSCOPE_TEST_JAVA_HOME).
std::string java_home();
std::string java_bin();
std::string jdk_tool(const std::string& name);  // java_home()/bin/name
// The vtscope jars and their dependencies (VTSCOPE_JAVA_DIR).
std::string class_path();

// A workload of java/vtscope-workloads and how to start it.
struct Workload {
    Workload(std::string main, std::vector<std::string> jvm = {}, std::vector<std::string> workload_args = {})
        : main_class(std::move(main)), jvm_options(std::move(jvm)), args(std::move(workload_args)) {}

    std::string main_class;                // e.g. "io.vtscope.workloads.MarkerHarness"
    std::vector<std::string> jvm_options;  // after java --enable-native-access=ALL-UNNAMED
    std::vector<std::string> args;         // after the fixture's own --expected, --ready-file, --go-file
    // The command before the JVM options; empty: {java_bin(), "--enable-native-access=ALL-UNNAMED"}.
    std::vector<std::string> launcher;
    std::string class_path;  // empty: class_path()
    bool go_file = true;     // pass --go-file: the workload waits for go() once ready
    std::chrono::seconds ready_timeout{120};
    bool expected = true;  // pass --expected: the workload writes its ground truth (DemoService has none)
};

// One vtscope session of a run.
struct Session {
    int exit = -1;
    std::string stdout_text, stderr_text;
    std::string output_text;         // its --output
    std::vector<std::string> lines;  // the same, line by line
    nlohmann::json summary;          // its --summary-json; null when it wrote none
};

// What a run left: the workload's and every session's, the first session's also at the top level
// (most runs have one).
struct E2eRun {
    std::vector<std::string> expected;  // the workload's ground truth (--expected), JSON lines
    std::string java_stdout, java_stderr;
    int java_exit = -1;
    std::vector<Session> sessions;
    std::vector<std::string> lines;  // sessions[0]: its output lines
    nlohmann::json summary;          // sessions[0]: its summary
    std::string vtscope_stderr;      // sessions[0]
    int vtscope_exit = -1;           // sessions[0]
    std::string error;               // a process that did not get ready or did not finish
};

class E2e {
public:
    E2e() = default;
    E2e(const E2e&) = delete;
    E2e& operator=(const E2e&) = delete;

    std::string path(const std::string& name) const { return dir_.path(name); }
    // The pid sessions attach to: the workload's, or the one set_target named (a JVM that the
    // workload's process started, such as the JVM inside an unshare sandbox).
    pid_t pid() const { return target_ > 0 ? target_ : workload_.pid(); }
    void set_target(pid_t pid) { target_ = pid; }
    Child& workload() { return workload_; }

    // Starts the workload and waits until it is ready; a failure carries its stderr.
    ::testing::AssertionResult start(const Workload& workload);
    // Starts `vtscope COMMAND --pid PID --output F --ready-file R --summary-json S OPTIONS...` and
    // waits until it is ready; with output false, no --output (the command's default, stdout).
    ::testing::AssertionResult attach(const std::string& command, const std::vector<std::string>& options = {},
                                      bool output = true);
    // Tells the workload to begin (the go file).
    void go();
    // Waits for the workload to end by itself; its exit code, -1 on timeout.
    int wait_workload(std::chrono::milliseconds timeout = std::chrono::seconds(300));
    // Sends sig to every session still running.
    void signal_sessions(int sig);
    // Waits for every session to end (each killed after timeout); whether all ended in time.
    bool wait_sessions(std::chrono::milliseconds timeout);
    // Waits for every session not waited for yet (wait_sessions), then collects everything. The
    // workload is stopped if it still runs (after wait_workload, or for runs that end with
    // vtscope's --duration).
    E2eRun finish(std::chrono::milliseconds session_timeout = std::chrono::seconds(60));
    // The usual run: go, the workload ends by itself, then the sessions (which see it exit).
    E2eRun run(std::chrono::milliseconds workload_timeout = std::chrono::seconds(300));

private:
    struct Attached {
        Child child;
        std::string name;
        bool output = true;
        std::optional<int> exit;
    };
    TempDir dir_;
    Child workload_;
    std::vector<Attached> sessions_;
    std::optional<int> workload_exit_;
    pid_t target_ = 0;
    std::string error_;
};

// The paper's marker harness (MarkerHarness) with the JVM and harness options, traced by `vtscope
// trace --syscalls write TRACE_OPTIONS...`; vtscope stops by itself when the JVM exits. before_trace,
// if given, runs once the JVM is ready (after its warm-up) and before vtscope starts; a non-empty
// result is an error that ends the run.
E2eRun run_marker_harness(const std::vector<std::string>& jvm_options, const std::vector<std::string>& harness_options,
                          const std::vector<std::string>& trace_options = {},
                          const std::function<std::string(pid_t)>& before_trace = {});

// The JSON lines of lines, parsed; what does not parse is appended to *error.
std::vector<nlohmann::json> parse_lines(const std::vector<std::string>& lines, std::string* error);
// The JSON text of a file, parsed; null when it is missing or does not parse.
nlohmann::json read_json(const std::string& path);
// The value at a JSON pointer ("/block/count"), or null when there is none.
const nlohmann::json& at(const nlohmann::json& json, const std::string& pointer);
// The number at a JSON pointer, 0 when there is none (as the summary's counters start).
double number(const nlohmann::json& json, const std::string& pointer);
// The string at a JSON pointer, "" when there is none.
std::string text(const nlohmann::json& json, const std::string& pointer);

// Polls condition every `every` until it holds or the deadline passes; whether it held.
template <typename Condition>
bool wait_until(Condition condition, std::chrono::milliseconds timeout,
                std::chrono::milliseconds every = std::chrono::milliseconds(10)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(every);
    }
    return true;
}

// Creates an empty file (a go or hold signal for a workload).
void touch(const std::string& path);

}  // namespace vtscope::testing
