// Command-line parsing, kept free of any BPF or JVM dependency so it is unit-tested on its own.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "expected.h"

namespace vtscope {

enum class Command { kHelp, kVersion, kTrace, kStat, kReport };

enum class IdentityChannel { kVmStructs, kOtepTls, kLifecycle, kTwoProbe, kHotspotProbes };

const char* identity_name(IdentityChannel channel);

struct TraceOptions {
    pid_t pid = 0;
    IdentityChannel identity = IdentityChannel::kVmStructs;
    std::vector<std::string> syscalls;
    std::optional<double> duration_seconds;
    std::string output = "-";  // "-" is standard output
    std::string ready_file;
    std::string summary_json;  // the summary as JSON to this file (empty: none)
    // stat: counts per thread, trace context, syscall and status in the kernel, and prints a
    // per-trace report at the end instead of one line per event.
    bool aggregate = false;
    int top = 10;  // stat: traces shown in the report
    // OTLP export (otlp_exporter.h): the --otlp endpoint (empty: from OTEL_EXPORTER_OTLP_ENDPOINT,
    // none when that is unset too), --service, the queue bound and the timeout.
    std::string otlp;
    std::string service;
    size_t otlp_queue = 65536;
    double otlp_timeout_seconds = 10;
};

struct ReportOptions {
    std::string input;
    int top = 10;
};

struct Options {
    Command command = Command::kHelp;
    std::string help_topic;  // kHelp: the subcommand whose help was asked for, empty for the global one
    TraceOptions trace;
    ReportOptions report;
};

const std::vector<std::string>& default_syscalls();
Expected<Options> parse_options(const std::vector<std::string>& args);  // args without argv[0]
// The global help, or one subcommand's ("trace", "stat", "report").
std::string usage(const std::string& command = "");

}  // namespace vtscope
