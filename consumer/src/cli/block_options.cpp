// SPDX-License-Identifier: Apache-2.0
// `vtscope block`'s option table (option_table.h).
#include "cli/block_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "cli/option_table.h"

namespace vtscope {
namespace {

Field<bool> block_flag(bool BlockOptions::*member) { return at(&Options::block, member); }
Field<std::string> block_text(std::string BlockOptions::*member) { return at(&Options::block, member); }

Status apply_threshold(Options& o, const std::string&, const std::string& value) {
    errno = 0;
    char* end = nullptr;
    double ms = std::strtod(value.c_str(), &end);
    if (value.empty() || errno != 0 || *end != '\0' || !std::isfinite(ms) || ms < 0 || ms > 1e9)
        return make_error("invalid threshold: '" + value + "' (milliseconds, >= 0)");
    o.block.threshold_ms = ms;
    return ok_status();
}

std::vector<OptionSpec> block_option_specs() {
    std::vector<OptionSpec> options = {
        option("pid", 'p', "PID|NAME", ValueKind::kPid,
               apply_pid(at(&Options::block, &BlockOptions::pid), at(&Options::block, &BlockOptions::pid_name)),
               kPidHelp),
        option("threshold", 't', "MS", ValueKind::kNumber, apply_threshold,
               "report intervals at least MS milliseconds long (as JFR's jdk.VirtualThreadPinned); 0 reports every "
               "interval",
               "20"),
        option("all-threads", 0, "", ValueKind::kFlag, apply_flag(block_flag(&BlockOptions::all_threads)),
               "also threads with no virtual thread mounted (platform threads, idle carriers): vthread null"),
        option(
            "jfr", 0, "", ValueKind::kFlag, apply_flag(block_flag(&BlockOptions::jfr)),
            "also record jdk.VirtualThreadPinned in the target (JFR.start through the attach socket, at the same "
            "threshold, read back with jfr print) and join each event to its interval: jfr_pinned_reason, "
            "jfr_blocking_operation, jfr_stack; events JFR saw and vtscope did not are lines with \"jfr_only\":true. "
            "The lines are then written at the end, in time order"),
        option(
            "jfr-jdk", 0, "DIR", ValueKind::kPath, apply_path(block_text(&BlockOptions::jfr_jdk)),
            "the JDK whose jfr reads the recording back; DIR, the directories above it, DIR/bin and DIR/bin/jfr must "
            "be owned by root and writable by root alone. jfr runs with the target's uid and gid; the target's own "
            "tools are never run",
            "the JDK vtscope was built with"),
        option(
            "stacks", 0, "", ValueKind::kFlag, apply_flag(block_flag(&BlockOptions::stacks)),
            "also the kernel and user stacks of the carrier at switch-out, leaf first and symbolised: kernel_stack, "
            "user_stack (native frames from ELF symbols, JIT-compiled Java frames from the JVM's perf map, which block "
            "has the JVM write as jcmd Compiler.perfmap does; Java frames need -XX:+PreserveFramePointer in the "
            "target, else a warning)"),
        option("output", 'o', "FILE", ValueKind::kPath, apply_path(block_text(&BlockOptions::output)),
               "write JSON lines to FILE", "standard output"),
        option("perfetto", 0, "FILE", ValueKind::kPath, apply_path(block_text(&BlockOptions::perfetto)),
               "also write the reported intervals to FILE as a Perfetto trace (protobuf TrackEvent; open it in "
               "ui.perfetto.dev): a track per carrier, a slice per interval under a slice per run of one virtual "
               "thread's intervals, vthread, trace_id and span_id as arguments, flows between one virtual thread's "
               "runs; written at the end"),
        option("top", 'n', "N", ValueKind::kInteger, apply_int(at(&Options::block, &BlockOptions::top), 1, 1000000),
               "traces and virtual threads listed in the summary", "10"),
    };
    for (auto& spec : session_option_specs(&Options::block)) options.push_back(std::move(spec));
    for (auto& spec : otlp_option_specs(at(&Options::block, &BlockOptions::otlp),
                                        "block exports one log record per reported interval (URL/v1/logs); the "
                                        "blocked time of those intervals, a histogram by block reason and syscall "
                                        "(URL/v1/metrics), trace ids as exemplars"))
        options.push_back(std::move(spec));
    return options;
}

}  // namespace

CommandSpec block_command_spec() {
    CommandSpec spec;
    spec.name = "block";
    spec.command = Command::kBlock;
    spec.synopsis = "--pid PID [options]";
    spec.summary = "off-CPU intervals of carriers with a virtual thread mounted, per thread and trace";
    spec.description =
        "Reports the intervals during which a carrier of the target was off-CPU while a virtual thread was "
        "mounted on it (the virtual thread blocks or pins its carrier), one JSON object per line, each attributed "
        "to that virtual thread and its trace context at the moment the carrier switched out. Intervals shorter "
        "than the threshold are counted in the kernel and appear in the summary only.";
    spec.options = block_option_specs();
    spec.finish = [](Options& o) -> Status {
        if (o.block.pid == 0 && o.block.pid_name.empty()) return make_error("block needs --pid PID");
        if (o.block.perfetto == "-") return make_error("--perfetto needs a file: the trace is binary");
        if (o.block.jfr_jdk.empty()) o.block.jfr_jdk = VTSCOPE_DEFAULT_JFR_JDK;
        return ok_status();
    };
    spec.sections = attaching_sections(spec.name + " needs");
    spec.sections.insert(
        spec.sections.begin(),
        {"Fields",
         "ts_ns (switch-out, CLOCK_MONOTONIC), duration_ns, pid, tid (the carrier), vthread, java_thread, trace_id, "
         "span_id, trace_flags, status and (for unmapped/invalid) reason, as in trace; block_reason: syscall "
         "(asleep in the syscall named by syscall), preempted (runnable but not running: run-queue wait, not "
         "blocking), other (asleep outside a syscall, e.g. a page fault); syscall: the x86_64 syscall name or null; "
         "open: true for an interval still open when the session ended (its duration runs to that moment). With "
         "--stacks: kernel_stack and user_stack (arrays of frames, leaf first; a \"[truncated]\" last frame when "
         "the stack stops before the thread's entry frame or at the depth limit; null when it could not be read) "
         "and kernel_stack_error and user_stack_error (null, or why)."});
    spec.examples = {{"vtscope block -p 1234 -d 30", "intervals of 20 ms and more for thirty seconds"},
                     {"vtscope block -p 1234 -t 5 --jfr --stacks -o block.jsonl",
                      "5 ms and more, joined to JFR's pinned events, with stacks"},
                     {"vtscope block -p 1234 -d 10 -t 1 --perfetto block.pftrace",
                      "a Perfetto timeline of ten seconds of intervals of 1 ms and more"}};
    return spec;
}

}  // namespace vtscope
