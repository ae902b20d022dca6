// SPDX-License-Identifier: Apache-2.0
#include "traced_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "process_runner.h"

namespace vtscope::testing {

using namespace std::chrono_literals;

TraceRun run_traced_harness(const HarnessPaths& paths, const std::vector<std::string>& jvm_options,
                            const std::vector<std::string>& harness_options,
                            const std::vector<std::string>& trace_options,
                            const std::function<std::string(pid_t)>& before_trace) {
    TempDir dir;
    TraceRun run;
    std::vector<std::string> java = {paths.java, "--enable-native-access=ALL-UNNAMED"};
    java.insert(java.end(), jvm_options.begin(), jvm_options.end());
    for (const std::string& a : std::vector<std::string>{"-cp", paths.class_path, "io.vtscope.workloads.MarkerHarness",
                                                         "--expected", dir.path("expected.jsonl"), "--ready-file",
                                                         dir.path("java.ready"), "--go-file", dir.path("go")})
        java.push_back(a);
    java.insert(java.end(), harness_options.begin(), harness_options.end());
    Child jvm = Child::start(java, "", dir.path("java.err"));
    if (!wait_for_file(dir.path("java.ready"), 60s)) {
        run.java_stderr = read_file(dir.path("java.err"));
        run.error = "harness did not become ready: " + run.java_stderr;
        return run;
    }
    if (before_trace) {
        if (std::string error = before_trace(jvm.pid()); !error.empty()) {
            run.java_stderr = read_file(dir.path("java.err"));
            run.error = error;
            return run;
        }
    }
    std::vector<std::string> trace = {paths.vtscope,    "trace",
                                      "--pid",          std::to_string(jvm.pid()),
                                      "--output",       dir.path("trace.jsonl"),
                                      "--ready-file",   dir.path("vtscope.ready"),
                                      "--summary-json", dir.path("summary.json")};
    // write unless the test names its own syscalls: vtscope refuses --syscalls given twice.
    if (std::find(trace_options.begin(), trace_options.end(), "--syscalls") == trace_options.end())
        trace.insert(trace.end(), {"--syscalls", "write"});
    trace.insert(trace.end(), trace_options.begin(), trace_options.end());
    Child tracer = Child::start(trace, "", dir.path("vtscope.err"));
    if (!wait_for_file(dir.path("vtscope.ready"), 30s)) {
        tracer.wait(1s);
        run.vtscope_stderr = read_file(dir.path("vtscope.err"));
        run.error = "vtscope did not become ready: " + run.vtscope_stderr;
        return run;
    }
    if (std::FILE* go = std::fopen(dir.path("go").c_str(), "w")) std::fclose(go);
    run.java_exit = jvm.wait(300s).value_or(-1);
    run.vtscope_exit = tracer.wait(60s).value_or(-1);
    run.expected = read_lines(dir.path("expected.jsonl"));
    run.trace = read_lines(dir.path("trace.jsonl"));
    run.vtscope_stderr = read_file(dir.path("vtscope.err"));
    run.java_stderr = read_file(dir.path("java.err"));
    run.summary = parse_json(read_file(dir.path("summary.json")));
    if (run.summary.is_discarded()) {
        run.summary = nullptr;
        run.error = "no summary from vtscope (no file, or no JSON in it)";
    }
    if (run.java_exit != 0 || run.vtscope_exit != 0)
        run.error =
            "exit codes: java " + std::to_string(run.java_exit) + ", vtscope " + std::to_string(run.vtscope_exit);
    return run;
}

}  // namespace vtscope::testing
