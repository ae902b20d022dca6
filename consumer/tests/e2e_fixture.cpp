// SPDX-License-Identifier: Apache-2.0
#include "e2e_fixture.h"

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace vtscope::testing {

using namespace std::chrono_literals;

std::string java_home() {
    const char* home = std::getenv("JAVA_HOME");
    return home && *home ? home : VTSCOPE_TEST_JAVA_HOME;
}

std::string java_bin() { return jdk_tool("java"); }
std::string jdk_tool(const std::string& name) { return java_home() + "/bin/" + name; }

std::string class_path() {
    const std::string dir = VTSCOPE_JAVA_DIR;
    return dir + "/*:" + dir + "/lib/*";
}

void touch(const std::string& path) {
    if (std::FILE* f = std::fopen(path.c_str(), "w")) std::fclose(f);
}

::testing::AssertionResult E2e::start(const Workload& w) {
    std::vector<std::string> argv = w.launcher;
    if (argv.empty()) argv = {java_bin(), "--enable-native-access=ALL-UNNAMED"};
    argv.insert(argv.end(), w.jvm_options.begin(), w.jvm_options.end());
    argv.insert(argv.end(), {"-cp", w.class_path.empty() ? class_path() : w.class_path, w.main_class});
    if (w.expected) argv.insert(argv.end(), {"--expected", path("expected.jsonl")});
    argv.insert(argv.end(), {"--ready-file", path("java.ready")});
    if (w.go_file) argv.insert(argv.end(), {"--go-file", path("go")});
    argv.insert(argv.end(), w.args.begin(), w.args.end());
    workload_ = Child::start(argv, path("java.out"), path("java.err"));
    if (wait_for_file(path("java.ready"), w.ready_timeout, {&workload_})) return ::testing::AssertionSuccess();
    error_ = w.main_class + " did not become ready: " + read_file(path("java.err"));
    return ::testing::AssertionFailure() << error_;
}

::testing::AssertionResult E2e::attach(const std::string& command, const std::vector<std::string>& options,
                                       bool output) {
    std::string n = std::to_string(sessions_.size());
    std::vector<std::string> argv = {VTSCOPE_BIN, command, "--pid", std::to_string(pid())};
    if (output) argv.insert(argv.end(), {"--output", path("out" + n)});
    argv.insert(argv.end(),
                {"--ready-file", path("vtscope.ready" + n), "--summary-json", path("summary" + n + ".json")});
    argv.insert(argv.end(), options.begin(), options.end());
    Attached session{Child::start(argv, path("vtscope.out" + n), path("vtscope.err" + n)), n, output, std::nullopt};
    bool ready = wait_for_file(path("vtscope.ready" + n), 60s, {&session.child});
    sessions_.push_back(std::move(session));
    if (ready) return ::testing::AssertionSuccess();
    error_ = "vtscope " + command + " did not become ready: " + read_file(path("vtscope.err" + n));
    return ::testing::AssertionFailure() << error_;
}

void E2e::go() { touch(path("go")); }

int E2e::wait_workload(std::chrono::milliseconds timeout) {
    workload_exit_ = workload_.wait(timeout);
    if (!workload_exit_) error_ = "the workload did not finish";
    return workload_exit_.value_or(-1);
}

void E2e::signal_sessions(int sig) {
    for (Attached& s : sessions_)
        if (s.child.running()) s.child.signal(sig);
}

bool E2e::wait_sessions(std::chrono::milliseconds timeout) {
    bool all = true;
    for (Attached& s : sessions_) {
        if (!s.exit) s.exit = s.child.wait(timeout);
        if (!s.exit) {
            error_ = "vtscope did not finish";
            s.child.signal(SIGKILL);
            s.exit = s.child.wait(5s);
            all = false;
        }
    }
    return all;
}

E2eRun E2e::finish(std::chrono::milliseconds session_timeout) {
    E2eRun run;
    wait_sessions(session_timeout);
    for (Attached& s : sessions_) {
        Session session;
        session.exit = s.exit.value_or(-1);
        session.stdout_text = read_file(path("vtscope.out" + s.name));
        session.stderr_text = read_file(path("vtscope.err" + s.name));
        if (s.output) {
            session.output_text = read_file(path("out" + s.name));
            session.lines = read_lines(path("out" + s.name));
        }
        session.summary = read_json(path("summary" + s.name + ".json"));
        run.sessions.push_back(std::move(session));
    }
    // A workload still running (the sessions ended first: --duration, SIGINT) is stopped now.
    if (!workload_exit_ && workload_.pid() > 0) workload_exit_ = workload_.stop(0ms, 5s);
    run.java_exit = workload_exit_.value_or(-1);
    run.expected = read_lines(path("expected.jsonl"));
    run.java_stdout = read_file(path("java.out"));
    run.java_stderr = read_file(path("java.err"));
    if (!run.sessions.empty()) {
        run.lines = run.sessions[0].lines;
        run.summary = run.sessions[0].summary;
        run.vtscope_stderr = run.sessions[0].stderr_text;
        run.vtscope_exit = run.sessions[0].exit;
    }
    run.error = error_;
    return run;
}

E2eRun E2e::run(std::chrono::milliseconds workload_timeout) {
    go();
    wait_workload(workload_timeout);
    return finish();
}

E2eRun run_marker_harness(const std::vector<std::string>& jvm_options, const std::vector<std::string>& harness_options,
                          const std::vector<std::string>& trace_options,
                          const std::function<std::string(pid_t)>& before_trace) {
    E2e e2e;
    ::testing::AssertionResult ready = e2e.start({"io.vtscope.workloads.MarkerHarness", jvm_options, harness_options});
    if (ready && before_trace) {
        if (std::string error = before_trace(e2e.pid()); !error.empty()) ready = ::testing::AssertionFailure() << error;
    }
    // write unless the test names its own syscalls: vtscope refuses --syscalls given twice.
    std::vector<std::string> options;
    if (std::find(trace_options.begin(), trace_options.end(), "--syscalls") == trace_options.end())
        options = {"--syscalls", "write"};
    options.insert(options.end(), trace_options.begin(), trace_options.end());
    if (ready) ready = e2e.attach("trace", options);
    if (ready) return e2e.run();
    E2eRun run = e2e.finish(1s);
    run.error = ready.message();
    return run;
}

std::vector<nlohmann::json> parse_lines(const std::vector<std::string>& lines, std::string* error) {
    std::vector<nlohmann::json> out;
    for (const std::string& line : lines) {
        if (line.empty()) continue;
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded())
            *error += "unparsable line: " + line + "\n";
        else
            out.push_back(std::move(j));
    }
    return out;
}

nlohmann::json read_json(const std::string& path) {
    nlohmann::json j = nlohmann::json::parse(read_file(path), nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
}

const nlohmann::json& at(const nlohmann::json& json, const std::string& pointer) {
    static const nlohmann::json kNull;
    nlohmann::json::json_pointer p(pointer);
    return json.contains(p) ? json.at(p) : kNull;
}

double number(const nlohmann::json& json, const std::string& pointer) {
    const nlohmann::json& v = at(json, pointer);
    return v.is_number() ? v.get<double>() : 0;
}

std::string text(const nlohmann::json& json, const std::string& pointer) {
    const nlohmann::json& v = at(json, pointer);
    return v.is_string() ? v.get<std::string>() : "";
}

}  // namespace vtscope::testing
