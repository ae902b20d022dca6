// SPDX-License-Identifier: Apache-2.0
#include "cli/options.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "cli/block_options.h"
#include "channels/identity_channels.h"

namespace vtscope {

const std::vector<std::string>& default_syscalls() {
    static const std::vector<std::string> names = {"read",   "write",  "pread64",  "pwrite64", "readv",
                                                   "writev", "sendto", "recvfrom", "sendmsg",  "recvmsg"};
    return names;
}

namespace {

std::string channel_help() {
    std::string channels;
    for (const ChannelInfo& c : identity_channels()) {
        channels += std::string("                              ") + c.name + ": " + c.summary + "\n";
        if (*c.detail) channels += std::string("                                ") + c.detail + "\n";
    }
    return channels;
}

// The options every attaching subcommand takes.
std::string session_options() {
    return R"(      --duration SEC          stop after SEC seconds (at most 10000000; default: until
                              SIGINT/SIGTERM or the target exits)
      --ready-file FILE       create FILE once every probe is attached and the JVM was read
      --summary-json FILE     write the summary as one JSON object to FILE
      --identity CHANNEL      how the running thread is resolved:
)" + channel_help();
}

const char* kTraceSignals = "trace: one log record per event (URL/v1/logs)";
const char* kStatSignals =
    "stat: calls and bytes by syscall and status (URL/v1/metrics),\n"
    "trace ids as exemplars";
const char* kProfileSignals =
    "profile: CPU time by status (URL/v1/metrics), trace ids as\n"
    "exemplars; with --otlp-profiles also the stacks as an OTLP\n"
    "profile (URL/v1development/profiles)";

std::string trace_help() {
    return R"(  trace --pid PID [options]   trace syscall entries of a running JVM, one JSON object per line
      --syscalls LIST         comma-separated syscall names, any with a sys_enter tracepoint
                              (default: read,write,pread64,pwrite64,readv,writev,sendto,
                              recvfrom,sendmsg,recvmsg)
      --output FILE           write JSON lines to FILE (default: standard output)
)" + otlp_options_help(kTraceSignals, 6) +
           session_options();
}

std::string stat_help() {
    return R"(  stat --pid PID [options]    count syscall entries per trace context in the kernel (no event
                              stream, so far cheaper per syscall) and print the per-trace report
                              at the end
      --syscalls LIST         as for trace
      --top N                 traces shown in the report (default 10)
      --output FILE           write the report to FILE (default: standard output)
)" + otlp_options_help(kStatSignals, 6) +
           session_options();
}

std::string profile_help() {
    return R"(  profile --pid PID [options] sample the JVM's CPU (a software cpu-clock, or hardware cycles
                              where present) and report CPU time per trace, span or virtual
                              thread; non-virtual threads and unattributed samples apart
      --hz N                  samples per second of each CPU (default 99)
      --per-thread            one event per thread of the target (every 1/hz of its CPU time)
                              instead of one per CPU (--per-cpu, the default); costs the target
                              at each of its context switches (see bench/RESULTS.md)
      --top N                 rows shown in the report (default 10)
      --output FILE           write the report to FILE (default: standard output)
      --by trace|span|vthread report rows and flame graph towers (default trace)
      --stacks                user and kernel stacks per sample, symbolised (ELF symbols and
                              the JVM's perf map, which --stacks has the JVM write as jcmd
                              Compiler.perfmap does; Java frames need -XX:+PreserveFramePointer)
      --folded FILE           folded stacks, one root frame per trace (implies --stacks; - is
                              standard output, with the report in --output FILE)
      --flamegraph FILE.svg   an interactive SVG flame graph, one tower per trace (implies
                              --stacks)
      --otlp-profiles         with --otlp: the samples, their stacks and trace links as one
                              OTLP profile at the end (the development-stage profiles signal,
                              as Collector v0.165.0 takes it; implies --stacks)
)" + otlp_options_help(kProfileSignals, 6) +
           session_options();
}

std::string block_summary() {
    return R"(  block --pid PID [options]   off-CPU intervals of carriers with a virtual thread mounted (the
                              virtual thread blocks or pins its carrier), attributed to it and
                              its trace: --threshold MS (default 20), --all-threads, --jfr,
                              --stacks; see vtscope block --help
)";
}

std::string report_help() {
    return "  report FILE [--top N]       summarise a trace file per trace id (syscalls, bytes, top N)\n";
}

std::string footer() {
    return R"(
trace, stat, profile and block need )" +
           std::string(kPrivilegeText) + R"(.
They only read the target. A summary of counters (events, ok, no_context, context_unknown,
invalid, unmapped, lost) goes to stderr.
Exit status: 0 when the session ran to its end (the target exited, --duration, a signal; lost
events and OTLP drops at a full queue are reported, not an error), 1 on an error (the target,
privilege, BPF, output, OTLP records still undelivered at the end), 2 on a usage error.
)";
}

}  // namespace

std::string usage(const std::string& command) {
    if (command == "trace") return "usage: vtscope trace --pid PID [options]\n\n" + trace_help() + footer();
    if (command == "stat") return "usage: vtscope stat --pid PID [options]\n\n" + stat_help() + footer();
    if (command == "report") return "usage: vtscope report FILE [--top N]\n\n" + report_help();
    if (command == "profile") return "usage: vtscope profile --pid PID [options]\n\n" + profile_help() + footer();
    if (command == "block") return block_usage();
    return R"(usage: vtscope COMMAND [OPTIONS]

Attributes OS events of a JVM to the Java virtual thread mounted at that instant and to its
OpenTelemetry trace context, on a stock JDK 24+ (HotSpot), with no agent in the target.

Commands:
)" + trace_help() +
           stat_help() + profile_help() + block_summary() + report_help() +
           R"(  --help, -h                  show this help (vtscope COMMAND --help: that command's)
  --version                   show the version
)" + footer();
}

Expected<double> parse_seconds(const std::string& text, const std::string& what, double max) {
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (text.empty() || errno != 0 || *end != '\0' || !std::isfinite(d) || d <= 0 || d > max) {
        char limit[32];
        std::snprintf(limit, sizeof(limit), "%g", max);
        return make_error("invalid " + what + ": '" + text + "' (seconds, > 0 and at most " + limit + ")");
    }
    return d;
}

bool otlp_option_takes_value(const std::string& name) {
    return name == "--otlp" || name == "--service" || name == "--otlp-queue" || name == "--otlp-timeout";
}

Expected<bool> parse_otlp_option(const std::string& name, const std::string& value, OtlpOptions& o) {
    if (name == "--otlp") {
        if (value.empty()) return make_error("--otlp needs a URL (http://HOST[:PORT])");
        o.endpoint = value;
    } else if (name == "--service") {
        if (value.empty()) return make_error("--service needs a name");
        o.service = value;
    } else if (name == "--otlp-queue") {
        auto n = parse_int(value, "--otlp-queue", 1, 1L << 24);
        if (!n) return n.error();
        o.queue = static_cast<size_t>(*n);
    } else if (name == "--otlp-timeout") {
        auto seconds = parse_seconds(value, "--otlp-timeout", 3600);
        if (!seconds) return seconds.error();
        o.timeout_seconds = *seconds;
    } else {
        return false;
    }
    return true;
}

std::string otlp_options_help(const std::string& signals, int indent) {
    // Each entry: the option (empty: a continuation line) and its text.
    std::vector<std::pair<std::string, std::string>> lines = {
        {"--otlp URL", "also export to an OpenTelemetry Collector over OTLP/HTTP (JSON);"}};
    size_t start = 0;
    while (start < signals.size()) {
        size_t nl = signals.find('\n', start);
        lines.push_back({"", signals.substr(start, nl == std::string::npos ? std::string::npos : nl - start)});
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    lines.insert(lines.end(), {{"", "default port 4318; default URL: $OTEL_EXPORTER_OTLP_ENDPOINT (no"},
                               {"", "export when unset)"},
                               {"--service NAME", "the resource's service.name (default: the target's OTEP 4719"},
                               {"", "process context, then $OTEL_SERVICE_NAME, then service.name in"},
                               {"", "$OTEL_RESOURCE_ATTRIBUTES, then unknown_service)"},
                               {"--otlp-queue N", "log records held for export at most (default 65536; beyond:"},
                               {"", "dropped, counted)"},
                               {"--otlp-timeout SEC", "per request, and for the final flush (default 10)"}});
    std::string out;
    for (const auto& [option, text] : lines) {
        std::string line(static_cast<size_t>(indent), ' ');
        line += option;
        line.resize(static_cast<size_t>(indent) + 24, ' ');
        out += line + text + "\n";
    }
    return out;
}

Expected<long> parse_int(const std::string& text, const std::string& what, long min, long max) {
    if (text.empty()) return make_error(what + " needs a value");
    errno = 0;
    char* end = nullptr;
    long value = std::strtol(text.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || value < min || value > max)
        return make_error("invalid " + what + ": '" + text + "'");
    return value;
}

Expected<OptionArg> split_option(const std::vector<std::string>& args, size_t& i, const std::string& command,
                                 bool (*takes_value)(const std::string& name)) {
    const std::string& arg = args[i];
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos)
        return OptionArg{arg.substr(0, eq), arg.substr(eq + 1)};
    if (takes_value(arg) || otlp_option_takes_value(arg)) {
        if (i + 1 >= args.size()) return make_error(arg + " needs a value");
        return OptionArg{arg, args[++i]};
    }
    return make_error("unknown option for " + command + ": '" + arg + "'");
}

namespace {

Expected<std::vector<std::string>> parse_syscall_list(const std::string& text) {
    std::vector<std::string> names;
    std::set<std::string> seen;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (name.empty()) return make_error("empty syscall name in --syscalls '" + text + "'");
        if (name.size() > 48) return make_error("syscall name too long: '" + name + "'");
        for (char c : name) {
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
                return make_error("invalid syscall name '" + name + "'");
        }
        if (seen.insert(name).second) names.push_back(name);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return names;
}

bool trace_takes_value(const std::string& name) {
    for (const char* n :
         {"--pid", "--syscalls", "--duration", "--output", "--ready-file", "--identity", "--summary-json"})
        if (name == n) return true;
    return false;
}

bool stat_takes_value(const std::string& name) { return name == "--top" || trace_takes_value(name); }

// trace and stat share their options; stat adds --top.
Expected<Options> parse_trace(const std::vector<std::string>& args, bool aggregate) {
    const std::string command = aggregate ? "stat" : "trace";
    Options options;
    options.command = aggregate ? Command::kStat : Command::kTrace;
    TraceOptions& t = options.trace;
    t.aggregate = aggregate;
    bool have_pid = false;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string& arg = args[i];
        if (arg == "--help" || arg == "-h") {
            options.command = Command::kHelp;
            options.help_topic = command;
            return options;
        }
        auto option = split_option(args, i, command, aggregate ? stat_takes_value : trace_takes_value);
        if (!option) return option.error();
        const auto& [name, value] = *option;
        auto otlp = parse_otlp_option(name, value, t.otlp);
        if (!otlp) return otlp.error();
        if (*otlp) continue;
        if (name == "--pid") {
            if (have_pid) return make_error("--pid given twice (" + command + " observes one process)");
            auto pid = parse_int(value, "pid", 1, 0x7fffffff);
            if (!pid) return pid.error();
            t.pid = static_cast<pid_t>(*pid);
            have_pid = true;
        } else if (name == "--syscalls") {
            auto list = parse_syscall_list(value);
            if (!list) return list.error();
            t.syscalls = std::move(*list);
        } else if (name == "--duration") {
            errno = 0;
            char* end = nullptr;
            double d = std::strtod(value.c_str(), &end);
            if (value.empty() || errno != 0 || *end != '\0' || !std::isfinite(d) || d <= 0 || d > 1e7)
                return make_error("invalid duration: '" + value + "' (seconds, > 0 and at most 10000000)");
            t.duration_seconds = d;
        } else if (name == "--output") {
            if (value.empty()) return make_error("--output needs a file name");
            t.output = value;
        } else if (name == "--identity") {
            const ChannelInfo* channel = find_channel(value);
            if (!channel) return make_error("unknown identity channel '" + value + "' (" + channel_names() + ")");
            t.identity = channel->channel;
        } else if (name == "--summary-json") {
            if (value.empty()) return make_error("--summary-json needs a file name");
            t.summary_json = value;
        } else if (name == "--ready-file") {
            if (value.empty()) return make_error("--ready-file needs a file name");
            t.ready_file = value;
        } else if (aggregate && name == "--top") {
            auto top = parse_int(value, "--top", 1, 1000000);
            if (!top) return top.error();
            t.top = static_cast<int>(*top);
        } else {
            return make_error("unknown option for " + command + ": '" + name + "'");
        }
    }
    if (!have_pid) return make_error(command + " needs --pid PID");
    if (t.syscalls.empty()) t.syscalls = default_syscalls();
    return options;
}

Expected<Options> parse_report(const std::vector<std::string>& args) {
    Options options;
    options.command = Command::kReport;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string& arg = args[i];
        if (arg == "--help" || arg == "-h") {
            options.command = Command::kHelp;
            options.help_topic = "report";
            return options;
        }
        if (arg == "--top") {
            if (i + 1 >= args.size()) return make_error("--top needs a value");
            auto top = parse_int(args[++i], "--top", 1, 1000000);
            if (!top) return top.error();
            options.report.top = static_cast<int>(*top);
        } else if (arg.rfind("-", 0) == 0 && arg != "-") {
            return make_error("unknown option for report: '" + arg + "'");
        } else if (options.report.input.empty()) {
            options.report.input = arg;
        } else {
            return make_error("report takes one file, got '" + arg + "' too");
        }
    }
    if (options.report.input.empty()) return make_error("report needs a trace file (vtscope report FILE)");
    return options;
}

}  // namespace

Expected<Options> parse_options(const std::vector<std::string>& args) {
    if (args.empty()) return make_error("missing command (try 'vtscope --help')");
    const std::string& command = args[0];
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "--help" || command == "-h" || command == "help") return Options{};
    if (command == "--version") {
        Options o;
        o.command = Command::kVersion;
        return o;
    }
    if (command == "trace") return parse_trace(rest, false);
    if (command == "stat") return parse_trace(rest, true);
    if (command == "report") return parse_report(rest);
    if (command == "profile") return parse_profile_options(rest);
    if (command == "block") {
        auto block = parse_block_options(rest);
        if (!block) return block.error();
        Options o;
        o.command = Command::kBlock;
        o.block = std::move(*block);
        return o;
    }
    return make_error("unknown command '" + command + "' (try 'vtscope --help')");
}

}  // namespace vtscope
