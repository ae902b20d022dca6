// SPDX-License-Identifier: Apache-2.0
#include "cli/block_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "channels/identity_channels.h"
#include "cli/options.h"
#include "otlp/otlp_options.h"

namespace vtscope {

namespace {

const char* kBlockSignals =
    "block: one log record per reported interval (URL/v1/logs); the\n"
    "blocked time of those intervals, a histogram by block reason and\n"
    "syscall (URL/v1/metrics), trace ids as exemplars";

}  // namespace

std::string block_usage() {
    return std::string(R"(usage: vtscope block --pid PID [options]

Reports the intervals during which a carrier of the target was off-CPU while a virtual thread was
mounted on it (the virtual thread blocks or pins its carrier), one JSON object per line, each
attributed to that virtual thread and its trace context at the moment the carrier switched out.
Intervals shorter than the threshold are counted in the kernel and appear in the summary only.

  --threshold MS          report intervals at least MS milliseconds long (default 20, as JFR's
                          jdk.VirtualThreadPinned); 0 reports every interval
  --all-threads           also threads with no virtual thread mounted (platform threads, idle
                          carriers): vthread null
  --jfr                   also record jdk.VirtualThreadPinned in the target (JFR.start through
                          the attach socket, at the same threshold, read back with jfr print)
                          and join each event to its interval: jfr_pinned_reason,
                          jfr_blocking_operation, jfr_stack; events JFR saw and vtscope did not
                          are lines with "jfr_only":true. The lines are then written at the
                          end, in time order
  --jfr-jdk DIR           the JDK whose jfr reads the recording back (default: the JDK vtscope
                          was built with); DIR, the directories above it, DIR/bin and
                          DIR/bin/jfr must be owned by root and writable by root alone. jfr runs
                          with the target's uid and gid; the target's own tools are never run
  --stacks                also the kernel and user stacks of the carrier at switch-out, leaf
                          first and symbolised: kernel_stack, user_stack (native frames from ELF
                          symbols, JIT-compiled Java frames from the JVM's perf map, which block
                          has the JVM write as jcmd Compiler.perfmap does; Java frames need
                          -XX:+PreserveFramePointer in the target, else a warning)
  --duration SEC          stop after SEC seconds (default: until SIGINT/SIGTERM or the target exits)
  --output FILE           write JSON lines to FILE (default: standard output)
  --ready-file FILE       create FILE once every probe is attached and the JVM was read
  --summary-json FILE     write the summary as one JSON object to FILE
  --top N                 traces and virtual threads listed in the summary (default 10)
  --identity CHANNEL      how the running thread is resolved (see vtscope --help)
)" + otlp_options_help(kBlockSignals, 2) +
                       R"(
Fields: ts_ns (switch-out, CLOCK_MONOTONIC), duration_ns, pid, tid (the carrier), vthread,
java_thread, trace_id, span_id, trace_flags, status and (for unmapped/invalid) reason, as in
trace; block_reason: syscall (asleep in the syscall named by syscall), preempted (runnable but
not running: run-queue wait, not blocking), other (asleep outside a syscall, e.g. a page fault);
syscall: the x86_64 syscall name or null; open: true for an interval still open when the session
ended (its duration runs to that moment). With --stacks: kernel_stack and user_stack (arrays of
frames, leaf first; a "[truncated]" last frame when the stack stops before the thread's entry
frame or at the depth limit; null when it could not be read) and kernel_stack_error and
user_stack_error (null, or why).

block needs )") +
           kPrivilegeText + ". It only reads the target.\n";
}

namespace {

Expected<double> parse_number(const std::string& text, const std::string& what, double min, double max) {
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (text.empty() || errno != 0 || *end != '\0' || !std::isfinite(d) || d < min || d > max)
        return make_error("invalid " + what + ": '" + text + "'");
    return d;
}

bool block_takes_value(const std::string& name) {
    for (const char* n : {"--pid", "--threshold", "--duration", "--output", "--ready-file", "--summary-json",
                          "--identity", "--top", "--jfr-jdk"})
        if (name == n) return true;
    return false;
}

}  // namespace

Expected<BlockOptions> parse_block_options(const std::vector<std::string>& args) {
    BlockOptions b;
    b.identity = IdentityChannel::kVmStructs;
    b.jfr_jdk = VTSCOPE_DEFAULT_JFR_JDK;
    bool have_pid = false;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string& arg = args[i];
        if (arg == "--help" || arg == "-h") {
            b.help = true;
            return b;
        }
        if (arg == "--all-threads") {
            b.all_threads = true;
            continue;
        }
        if (arg == "--jfr") {
            b.jfr = true;
            continue;
        }
        if (arg == "--stacks") {
            b.stacks = true;
            continue;
        }
        auto option = split_option(args, i, "block", block_takes_value);
        if (!option) return option.error();
        const auto& [name, value] = *option;
        auto otlp = parse_otlp_option(name, value, b.otlp);
        if (!otlp) return otlp.error();
        if (*otlp) continue;
        if (name == "--pid") {
            auto pid = parse_number(value, "pid", 1, 0x7fffffff);
            if (!pid || *pid != std::floor(*pid)) return make_error("invalid pid: '" + value + "'");
            b.pid = static_cast<pid_t>(*pid);
            have_pid = true;
        } else if (name == "--threshold") {
            auto ms = parse_number(value, "threshold", 0, 1e9);
            if (!ms) return make_error("invalid threshold: '" + value + "' (milliseconds, >= 0)");
            b.threshold_ms = *ms;
        } else if (name == "--duration") {
            auto d = parse_number(value, "duration", 0, 1e7);
            if (!d || *d <= 0) return make_error("invalid duration: '" + value + "' (seconds, > 0)");
            b.duration_seconds = *d;
        } else if (name == "--top") {
            auto top = parse_number(value, "--top", 1, 1000000);
            if (!top || *top != std::floor(*top)) return make_error("invalid --top: '" + value + "'");
            b.top = static_cast<int>(*top);
        } else if (name == "--identity") {
            const ChannelInfo* channel = find_channel(value);
            if (!channel) return make_error("unknown identity channel '" + value + "' (" + channel_names() + ")");
            b.identity = channel->channel;
        } else if (value.empty()) {
            return make_error(name + " needs a file name");
        } else if (name == "--output") {
            b.output = value;
        } else if (name == "--ready-file") {
            b.ready_file = value;
        } else if (name == "--summary-json") {
            b.summary_json = value;
        } else if (name == "--jfr-jdk") {
            b.jfr_jdk = value;
        } else {
            return make_error("unknown option for block: '" + name + "'");
        }
    }
    if (!have_pid) return make_error("block needs --pid PID");
    return b;
}

}  // namespace vtscope
