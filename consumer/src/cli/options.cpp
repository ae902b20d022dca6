// SPDX-License-Identifier: Apache-2.0
// parse_options, the value parsers, and the tables of trace, stat and report with the option
// fragments every attaching command shares (option_table.h).
#include "cli/options.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "channels/identity_channels.h"
#include "cli/option_table.h"
#include "otlp/otlp_config.h"

namespace vtscope {

const std::vector<std::string>& default_syscalls() {
    static const std::vector<std::string> names = {"read",   "write",  "pread64",  "pwrite64", "readv",
                                                   "writev", "sendto", "recvfrom", "sendmsg",  "recvmsg"};
    return names;
}

Expected<double> parse_seconds(const std::string& text, const std::string& what, double max) {
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (text.empty() || errno != 0 || *end != '\0' || !std::isfinite(d) || d <= 0 || d > max) {
        char limit[32];
        std::snprintf(limit, sizeof(limit), "%.15g", max);
        return make_error("invalid " + what + ": '" + text + "' (seconds, > 0 and at most " + limit + ")");
    }
    return d;
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

std::vector<OptionSpec> session_option_specs(Field<std::optional<double>> duration, Field<std::string> ready_file,
                                             Field<std::string> summary_json, Field<IdentityChannel> identity) {
    // The channel table marks its default itself, so no "(default: ...)" after its last line.
    std::string channels = "how the running thread is resolved:";
    std::vector<std::string> names;
    for (const ChannelInfo& c : identity_channels()) {
        channels += std::string("\n") + c.name + ": " + c.summary + (*c.detail ? " " : "") + c.detail;
        names.push_back(c.name);
    }
    return {
        option("duration", 'd', "SEC", ValueKind::kDuration, apply_duration(duration),
               "stop after SEC seconds, at most 10000000", "until SIGINT/SIGTERM or the target exits"),
        option("ready-file", 0, "FILE", ValueKind::kPath, apply_path(ready_file),
               "create FILE once every probe is attached and the JVM was read"),
        option("summary-json", 0, "FILE", ValueKind::kPath, apply_path(summary_json),
               "write the summary as one JSON object to FILE"),
        option("identity", 'i', "CHANNEL", ValueKind::kEnum, apply_identity(identity), channels, "", names),
    };
}

namespace {

// A member of the OtlpOptions a Field reaches.
template <typename T>
Field<T> nested(Field<OtlpOptions> field, T OtlpOptions::*member) {
    return [field, member](Options& o) -> T& { return field(o).*member; };
}

}  // namespace

std::vector<OptionSpec> otlp_option_specs(Field<OtlpOptions> field, const std::string& signals) {
    auto text = [field](std::string OtlpOptions::*member, const char* what) -> ApplyFn {
        return [field, member, what](Options& o, const std::string& name, const std::string& value) -> Status {
            if (value.empty()) return make_error(name + " needs " + what);
            field(o).*member = value;
            return ok_status();
        };
    };
    ApplyFn queue = [field](Options& o, const std::string& name, const std::string& value) -> Status {
        auto n = parse_int(value, name, 1, 1L << 24);
        if (!n) return n.error();
        field(o).queue = static_cast<size_t>(*n);
        return ok_status();
    };
    ApplyFn timeout = [field](Options& o, const std::string& name, const std::string& value) -> Status {
        auto seconds = parse_seconds(value, name, 3600);
        if (!seconds) return seconds.error();
        field(o).timeout_seconds = *seconds;
        field(o).timeout_given = true;
        return ok_status();
    };
    ApplyFn protocol = [field](Options& o, const std::string& name, const std::string& value) -> Status {
        if (auto p = parse_otlp_protocol(value); !p) return make_error(name + ": " + p.error().message);
        field(o).protocol = value;
        return ok_status();
    };
    // The error never quotes the value: it is a credential.
    ApplyFn header = [field](Options& o, const std::string& name, const std::string& value) -> Status {
        auto h = parse_otlp_header_option(value, name);
        if (!h) return h.error();
        field(o).headers.push_back(*h);
        return ok_status();
    };
    OptionSpec header_option =
        option("otlp-header", 0, "NAME=VALUE", ValueKind::kText, header,
               "send the header NAME: VALUE with every export, e.g. Authorization=Bearer TOKEN (repeatable; "
               "replaces one of the same name from the environment; the value is never printed)",
               "$OTEL_EXPORTER_OTLP_<SIGNAL>_HEADERS, else $OTEL_EXPORTER_OTLP_HEADERS");
    header_option.repeatable = true;
    return {
        option("otlp", 0, "URL", ValueKind::kText, text(&OtlpOptions::endpoint, "a URL (http://HOST[:PORT])"),
               "also export to an OpenTelemetry Collector over OTLP; " + signals +
                   "; default port 4317 for grpc, 4318 for http/protobuf and http/json",
               "$OTEL_EXPORTER_OTLP_ENDPOINT; no export when unset"),
        option("otlp-protocol", 0, "PROTOCOL", ValueKind::kEnum, protocol,
               "the OTLP transport: grpc, http/protobuf (binary protobuf over HTTP) or http/json",
               "$OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL, else $OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf",
               {"grpc", "http/protobuf", "http/json"}),
        option("service", 0, "NAME", ValueKind::kText, text(&OtlpOptions::service, "a name"),
               "the resource's service.name (by default the target's OTEP 4719 process context, then "
               "$OTEL_SERVICE_NAME, then service.name in $OTEL_RESOURCE_ATTRIBUTES, then unknown_service)"),
        option("otlp-queue", 0, "N", ValueKind::kInteger, queue,
               "log records held for export at most (beyond: dropped, counted)", "65536"),
        option("otlp-timeout", 0, "SEC", ValueKind::kSeconds, timeout, "per request, and for the final flush",
               "$OTEL_EXPORTER_OTLP_<SIGNAL>_TIMEOUT, else $OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds), else 10"),
        header_option,
        option("otlp-compression", 0, "KIND", ValueKind::kEnum,
               apply_enum(nested(field, &OtlpOptions::compression), {"gzip", "none"}),
               "compress the request bodies (gzip: Content-Encoding: gzip over HTTP, grpc-encoding: gzip over gRPC)",
               "$OTEL_EXPORTER_OTLP_<SIGNAL>_COMPRESSION, else $OTEL_EXPORTER_OTLP_COMPRESSION, else none",
               {"gzip", "none"}),
        option("otlp-certificate", 0, "FILE", ValueKind::kPath, apply_path(nested(field, &OtlpOptions::certificate)),
               "verify the receiver's TLS certificate with the CA certificates in FILE (PEM) instead of the system's",
               "$OTEL_EXPORTER_OTLP_<SIGNAL>_CERTIFICATE, else $OTEL_EXPORTER_OTLP_CERTIFICATE"),
        option("otlp-client-certificate", 0, "FILE", ValueKind::kPath,
               apply_path(nested(field, &OtlpOptions::client_certificate)),
               "mTLS: present the certificate (chain) in FILE (PEM) to the receiver; with --otlp-client-key",
               "$OTEL_EXPORTER_OTLP_<SIGNAL>_CLIENT_CERTIFICATE, else $OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"),
        option("otlp-client-key", 0, "FILE", ValueKind::kPath, apply_path(nested(field, &OtlpOptions::client_key)),
               "mTLS: the private key (PEM) of --otlp-client-certificate",
               "$OTEL_EXPORTER_OTLP_<SIGNAL>_CLIENT_KEY, else $OTEL_EXPORTER_OTLP_CLIENT_KEY"),
        option("otlp-insecure", 0, "", ValueKind::kFlag, apply_flag(nested(field, &OtlpOptions::insecure)),
               "plaintext for a gRPC endpoint given without a scheme (OTLP exporter specification); an http:// or "
               "https:// URL says itself, and certificates are always verified",
               "$OTEL_EXPORTER_OTLP_<SIGNAL>_INSECURE, else $OTEL_EXPORTER_OTLP_INSECURE, else false"),
    };
}

std::vector<TextSection> attaching_sections(const std::string& who) {
    return {
        {"Privilege",
         who + " " + kPrivilegeText +
             "; without root, reading the target also takes CAP_SYS_PTRACE (the least capabilities of each "
             "option: docs/security.md). vtscope only reads the target: it never writes its memory. "
             "When the session "
             "stops, a summary of its counters (events, ok, no_context, context_unknown, invalid, "
             "unmapped, lost) goes to stderr, and as JSON to --summary-json FILE."},
        {"Exit status",
         "0 when the session ran to its end (the target exited, --duration, a signal; lost events and OTLP drops "
         "at a full queue are reported, not an error), 1 on an error (the target, privilege, BPF, output, OTLP "
         "records still undelivered at the end), 2 on a usage error."},
    };
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

std::string default_syscall_text() {
    std::string text;
    for (const std::string& name : default_syscalls()) text += (text.empty() ? "" : ", ") + name;
    return text;
}

Status finish_syscalls(Options& o) {
    if (o.trace.pid == 0 && o.trace.pid_name.empty())
        return make_error(std::string(o.trace.aggregate ? "stat" : "trace") + " needs --pid PID");
    if (o.trace.syscalls.empty()) o.trace.syscalls = default_syscalls();
    return ok_status();
}

// trace and stat share their options (stat adds --top); the pid, the syscalls and the output first.
std::vector<OptionSpec> syscall_option_specs(bool aggregate, const std::string& signals) {
    std::vector<OptionSpec> options = {
        option("pid", 'p', "PID|NAME", ValueKind::kPid,
               apply_pid(at(&Options::trace, &TraceOptions::pid), at(&Options::trace, &TraceOptions::pid_name)),
               kPidHelp),
        option(
            "syscalls", 's', "LIST", ValueKind::kText,
            [](Options& o, const std::string&, const std::string& value) -> Status {
                auto list = parse_syscall_list(value);
                if (!list) return list.error();
                o.trace.syscalls = std::move(*list);
                return ok_status();
            },
            "comma-separated syscall names, any with a sys_enter tracepoint", default_syscall_text()),
    };
    if (aggregate)
        options.push_back(option("top", 'n', "N", ValueKind::kInteger,
                                 apply_int(at(&Options::trace, &TraceOptions::top), 1, 1000000),
                                 "traces shown in the report", "10"));
    options.push_back(option("output", 'o', "FILE", ValueKind::kPath,
                             apply_path(at(&Options::trace, &TraceOptions::output)),
                             aggregate ? "write the report to FILE" : "write JSON lines to FILE", "standard output"));
    for (auto& spec : session_option_specs(&Options::trace)) options.push_back(std::move(spec));
    for (auto& spec : otlp_option_specs(at(&Options::trace, &TraceOptions::otlp), signals))
        options.push_back(std::move(spec));
    return options;
}

}  // namespace

CommandSpec trace_command_spec() {
    CommandSpec spec;
    spec.name = "trace";
    spec.command = Command::kTrace;
    spec.synopsis = "--pid PID [options]";
    spec.summary = "trace syscall entries of a running JVM, one JSON object per line";
    spec.description =
        "Traces the entries of the named syscalls by the threads of a running JVM (stock JDK 21+, HotSpot, no "
        "agent needed) and writes one JSON object per syscall entry, attributed to the Java virtual thread "
        "mounted at that instant and to its OpenTelemetry trace context.";
    spec.options = syscall_option_specs(false, "trace exports one log record per event (URL/v1/logs)");
    spec.finish = finish_syscalls;
    spec.sections = attaching_sections(spec.name + " needs");
    spec.examples = {{"vtscope trace -p 1234 -d 10 -o events.jsonl", "ten seconds of the default syscalls to a file"},
                     {"vtscope trace --pid 1234 --syscalls read,write --otlp http://localhost:4318",
                      "reads and writes, also exported as OTLP log records"}};
    return spec;
}

CommandSpec stat_command_spec() {
    CommandSpec spec;
    spec.name = "stat";
    spec.command = Command::kStat;
    spec.synopsis = "--pid PID [options]";
    spec.summary = "count syscall entries per trace context in the kernel and print a per-trace report";
    spec.description =
        "Counts the same attributed syscall entries as trace, per thread, trace context, syscall and status, in "
        "the kernel (no event stream, so far cheaper per syscall), and prints the per-trace report at the end.";
    spec.options = syscall_option_specs(
        true, "stat exports calls and bytes by syscall and status (URL/v1/metrics), trace ids as exemplars");
    spec.finish = [](Options& o) -> Status {
        o.trace.aggregate = true;
        return finish_syscalls(o);
    };
    spec.sections = attaching_sections(spec.name + " needs");
    spec.examples = {{"vtscope stat -p 1234 -d 30 -n 5", "the five busiest traces of thirty seconds"}};
    return spec;
}

CommandSpec report_command_spec() {
    CommandSpec spec;
    spec.name = "report";
    spec.command = Command::kReport;
    spec.synopsis = "FILE [--top N]";
    spec.summary = "summarise a trace file per trace id (syscalls, bytes, top N)";
    spec.description =
        "Reads a file of JSON lines written by vtscope trace and prints, per trace id, the syscalls and bytes "
        "attributed to it, the top N traces first.";
    spec.options = {option("top", 'n', "N", ValueKind::kInteger,
                           apply_int(at(&Options::report, &ReportOptions::top), 1, 1000000), "traces shown", "10")};
    spec.positional = "FILE";
    spec.apply_positional = [](Options& o, const std::string& value) -> Status {
        o.report.input = value;
        return ok_status();
    };
    spec.finish = [](Options& o) -> Status {
        if (o.report.input.empty()) return make_error("report needs a trace file (vtscope report FILE)");
        return ok_status();
    };
    spec.examples = {{"vtscope report events.jsonl --top 3", "the three traces with the most syscalls"}};
    return spec;
}

CommandSpec list_command_spec() {
    CommandSpec spec;
    spec.name = "list";
    spec.command = Command::kList;
    spec.synopsis = "[--json]";
    spec.summary = "list the JVMs on this host that vtscope can observe";
    spec.description =
        "Lists every process that maps HotSpot's libjvm.so: its pid, uptime, JDK version (from the release file "
        "of its JDK, read inside its own root), whether a context writer is there (vtscope: a record region is "
        "mapped; libvtscope: the library is loaded, no region yet; agent: an OpenTelemetry Java agent, no region "
        "yet; none), its service.name (-Dotel.service.name, OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES) and "
        "its main class or jar. The same names select a JVM wherever --pid is taken.";
    spec.options = {option("json", 'j', "", ValueKind::kFlag, apply_flag(at(&Options::list, &ListOptions::json)),
                           "one JSON object per JVM (JSON lines) instead of the table")};
    spec.sections = {{"EXIT STATUS", "0, also when no JVM is found; 1 when /proc cannot be read."}};
    spec.examples = {{"vtscope list", "the JVMs of this host"},
                     {"vtscope trace --pid demo.jar -d 10", "trace the one JVM started with -jar demo.jar"}};
    return spec;
}

Expected<Options> parse_options(const std::vector<std::string>& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") return Options{};
    const std::string& command = args[0];
    Options asked;
    if (command == "--version") asked.command = Command::kVersion;
    // Hidden: how the build generates vtscope(1), its markdown and the bash completion.
    if (command == "--man") asked.command = Command::kMan;
    if (command == "--markdown") asked.command = Command::kMarkdown;
    if (command == "--completion") asked.command = Command::kCompletion;
    if (asked.command != Command::kHelp) return asked;
    const CommandSpec* spec = find_command(command);
    if (!spec) return make_error("unknown command '" + command + "' (try 'vtscope --help')");
    return parse_command(*spec, std::vector<std::string>(args.begin() + 1, args.end()));
}

}  // namespace vtscope
