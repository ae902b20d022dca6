// SPDX-License-Identifier: Apache-2.0
// Command-line parsing, kept free of any BPF or JVM dependency so it is unit-tested on its own.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cli/block_options.h"
#include "cli/top_options.h"
#include "core/expected.h"
#include "core/identity.h"
#include "otlp/otlp_options.h"

namespace vtscope {

// kMan, kMarkdown and kCompletion are hidden (--man, --markdown, --completion): the build
// generates the man pages, docs/commands and the bash completion with them.
enum class Command {
    kHelp,
    kVersion,
    kMan,
    kMarkdown,
    kCompletion,
    kTrace,
    kStat,
    kReport,
    kProfile,
    kBlock,
    kTop,
    kList
};

struct TraceOptions {
    pid_t pid = 0;
    std::string pid_name;  // --pid NAME: the JVM a name selects, resolved before the command runs
    IdentityChannel identity = IdentityChannel::kVmStructs;
    std::vector<std::string> syscalls;
    std::optional<double> duration_seconds;
    std::string output = "-";  // "-" is standard output
    std::string ready_file;
    std::string summary_json;  // the summary as JSON to this file (empty: none)
    // stat: counts per thread, trace context, syscall and status in the kernel, and prints a
    // per-trace report at the end instead of one line per event.
    bool aggregate = false;
    int top = 10;      // stat: traces shown in the report
    OtlpOptions otlp;  // --otlp and the options that go with it
};

struct ReportOptions {
    std::string input;
    int top = 10;
};

struct ProfileOptions {
    pid_t pid = 0;
    std::string pid_name;
    IdentityChannel identity = IdentityChannel::kVmStructs;
    int hz = 99;  // samples per second of a CPU (of a target thread's CPU time with per_thread)
    std::optional<double> duration_seconds;
    std::string output = "-";  // the report; "-" is standard output
    std::string ready_file;
    std::string summary_json;
    bool stacks = false;       // user and kernel stacks per sample
    std::string folded;        // folded stacks to this file (implies stacks)
    std::string flamegraph;    // an SVG flame graph to this file (implies stacks)
    std::string by = "trace";  // report rows and flame graph towers: trace, span or vthread
    int groups = 30;           // flame graph and --folded: groups with a tower of their own
    bool merged = false;       // flame graph and --folded: one tower per stack, groups merged
    bool per_thread = false;   // one event per target thread instead of one per CPU (system-wide)
    int top = 10;
    OtlpOptions otlp;
    bool otlp_profiles = false;  // also the samples as an OTLP profile (implies stacks)
};

struct ListOptions {
    bool json = false;  // one JSON object per JVM instead of the table
};

struct Options {
    Command command = Command::kHelp;
    std::string help_topic;  // kHelp, kMan, kMarkdown: the command asked about, empty for vtscope itself
    TraceOptions trace;
    ReportOptions report;
    ProfileOptions profile;
    BlockOptions block;
    ListOptions list;
    TopOptions top;
};

const std::vector<std::string>& default_syscalls();
Expected<Options> parse_options(const std::vector<std::string>& args);  // args without argv[0]
// A decimal integer option value in [min, max]; the error names `what` and the text.
Expected<long> parse_int(const std::string& text, const std::string& what, long min, long max);
// A number of seconds in (0, max]; the error names `what`, the text and the range.
Expected<double> parse_seconds(const std::string& text, const std::string& what, double max);

// The global help, or one command's ("trace", "stat", "report", "profile", "block"); from the
// option tables (option_docs.cpp).
std::string usage(const std::string& command = "");

}  // namespace vtscope
