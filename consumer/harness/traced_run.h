// SPDX-License-Identifier: Apache-2.0
// One traced run of the marker harness: the JVM (MarkerHarness) set up and waiting, vtscope
// attached, the markers written, both processes finished. Shared by the end-to-end tests and
// the vtscope-harness tool.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "output/json_io.h"

namespace vtscope::testing {

struct HarnessPaths {
    std::string vtscope;     // the vtscope binary
    std::string java;        // a JDK 24+ java launcher
    std::string class_path;  // vtscope jars and their dependencies
    std::string native_lib;  // libvtscope.so
};

struct TraceRun {
    std::vector<std::string> expected;  // the harness's ground truth, JSON lines
    std::vector<std::string> trace;     // vtscope's output, JSON lines
    std::string vtscope_stderr;
    Json summary;  // vtscope's --summary-json (null when it wrote none)
    std::string java_stderr;
    int vtscope_exit = -1;
    int java_exit = -1;
    std::string error;  // set when a process did not get ready or did not finish
};

// Runs MarkerHarness with the JVM and harness options, traced by vtscope with the trace options
// (after --pid ... --output ... --ready-file ...; --syscalls write unless they name syscalls). vtscope stops by itself when
// the JVM exits (the "target exits mid-trace" path). before_trace, if given, runs once the JVM is
// ready (after its warm-up) and before vtscope starts; a non-empty result is an error that ends
// the run.
TraceRun run_traced_harness(const HarnessPaths& paths, const std::vector<std::string>& jvm_options,
                            const std::vector<std::string>& harness_options,
                            const std::vector<std::string>& trace_options,
                            const std::function<std::string(pid_t)>& before_trace = {});

}  // namespace vtscope::testing
