// SPDX-License-Identifier: Apache-2.0
// Why a target has no record region, or a region that no context writer keeps current: it runs the
// OpenTelemetry Java agent without vtscope's extension, or vtscope's writer is there but has
// published nothing yet, or there is no writer.
// The facts come from /proc (command line, environment, open files); the wording is decided by
// a pure function, unit-tested without a process.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace vtscope {

struct ProcessFacts {
    std::vector<std::string> arguments;   // /proc/PID/cmdline
    std::string class_path_env;           // CLASSPATH from /proc/PID/environ
    std::vector<std::string> open_files;  // targets of /proc/PID/fd/*
};

ProcessFacts read_process_facts(pid_t pid);

// One sentence (no "vtscope:" prefix, no newline) saying why no region exists.
std::string explain_missing_region(const ProcessFacts& facts);

// One sentence saying why the region has no context writer (common/vtscope_record.h,
// context_writers) and what its threads without a context are reported as.
std::string explain_missing_writer(const ProcessFacts& facts);

}  // namespace vtscope
