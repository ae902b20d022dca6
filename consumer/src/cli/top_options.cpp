// SPDX-License-Identifier: Apache-2.0
// `vtscope top`'s option table (option_table.h).
#include "cli/top_options.h"

#include "cli/option_table.h"

namespace vtscope {
namespace {

Field<std::string> top_text(std::string TopOptions::*member) { return at(&Options::top, member); }

Status apply_interval(Options& o, const std::string&, const std::string& value) {
    auto seconds = parse_seconds(value, "interval", 3600);
    if (!seconds) return seconds.error();
    o.top.interval_seconds = *seconds;
    return ok_status();
}

Status apply_iterations(Options& o, const std::string& name, const std::string& value) {
    auto n = parse_int(value, name, 1, 1000000000);
    if (!n) return n.error();
    o.top.iterations = *n;
    return ok_status();
}

std::vector<OptionSpec> top_option_specs() {
    std::vector<OptionSpec> options = {
        option("pid", 'p', "PID|NAME", ValueKind::kPid,
               apply_pid(at(&Options::top, &TopOptions::pid), at(&Options::top, &TopOptions::pid_name)), kPidHelp),
        option("interval", 0, "SEC", ValueKind::kSeconds, apply_interval,
               "seconds between refreshes; the sources are drained every 250 ms, so a refresh falls on the first "
               "drain at or after it",
               "1"),
        option("iterations", 0, "N", ValueKind::kInteger, apply_iterations,
               "stop after N refreshes (batch mode: N objects)", "until q, a signal, --duration or the target's exit"),
        option("batch", 'b', "", ValueKind::kFlag, apply_flag(at(&Options::top, &TopOptions::batch)),
               "one JSON object per refresh on standard output instead of the screen (also when standard output is "
               "no terminal)"),
        option("by", 0, "trace|span|vthread", ValueKind::kEnum,
               apply_enum(top_text(&TopOptions::by), {"trace", "span", "vthread"}),
               "the rows at start (keys t, s, v switch)", "trace", {"trace", "span", "vthread"}),
        option("sort", 0, "cpu|blocked|pinned|syscalls", ValueKind::kEnum,
               apply_enum(top_text(&TopOptions::sort), {"cpu", "blocked", "pinned", "syscalls"}),
               "the column rows are sorted by at start (keys c, b, p, y switch)", "cpu",
               {"cpu", "blocked", "pinned", "syscalls"}),
        option("top", 'n', "N", ValueKind::kInteger, apply_int(at(&Options::top, &TopOptions::top), 1, 1000000),
               "rows in each batch object (the screen shows what fits)", "20"),
        option("hz", 'F', "N", ValueKind::kInteger, apply_int(at(&Options::top, &TopOptions::hz), 1, 10000),
               "CPU samples per second of each CPU (as profile)", "99"),
    };
    for (auto& spec : session_option_specs(&Options::top)) options.push_back(std::move(spec));
    return options;
}

}  // namespace

CommandSpec top_command_spec() {
    CommandSpec spec;
    spec.name = "top";
    spec.command = Command::kTop;
    spec.synopsis = "--pid PID [options]";
    spec.summary = "a live view of CPU, blocking, pinning and syscalls per trace, span or virtual thread";
    spec.description =
        "Runs the syscall counting of stat, the off-CPU intervals of block and the CPU samples of profile in one "
        "session over one identity channel, and every refresh shows what each trace, span or virtual thread did in "
        "the interval: CPU% (sampled, of one core), blocked and pinned time, syscalls and bytes per second, and its "
        "state; below, the carriers: which virtual thread each runs now (the latest event of that carrier), whether "
        "it is pinned and since when.\n\n"
        "Keys: t, s, v show rows by trace, span or virtual thread; c, b, p, y sort by CPU, blocked, pinned time or "
        "syscalls; / starts a filter (a substring of the trace id, span id or virtual thread id; Enter ends it, Esc "
        "clears it); space pauses the screen (the counting goes on); q quits.\n\n"
        "When it stops, everything it attached is detached: the target is left as before.";
    spec.options = top_option_specs();
    spec.finish = [](Options& o) -> Status {
        if (o.top.pid == 0 && o.top.pid_name.empty()) return make_error("top needs --pid PID");
        return ok_status();
    };
    spec.sections = attaching_sections(spec.name + " needs");
    spec.sections.insert(
        spec.sections.begin(),
        {"Columns",
         "CPU%: the CPU time of the samples (as profile counts it) over the interval, of one core. BLOCKEDms: "
         "off-CPU time of carriers with the row's virtual thread mounted, run-queue waits included (block's "
         "intervals; one shorter than 20 ms is summed in the kernel and reaches top when its carrier's key changes, "
         "one longer when it ends). PINNEDms: of it, the time asleep (in a syscall or elsewhere): the carrier held. "
         "SYSC/s: entries of stat's syscalls (read, write, pread64, pwrite64, readv, writev, sendto, recvfrom, "
         "sendmsg, recvmsg) per second. BYTES/s: the byte counts those calls asked for (their third argument, where "
         "it is one: not readv and writev), not what they returned. STATE: pinned (a carrier is off-CPU holding it "
         "now), running (sampled on a CPU in the interval), blocked (off-CPU time in the interval), idle. Span rows "
         "carry the samples and the reported (20 ms and longer) intervals: the kernel's other sums have no span."});
    spec.examples = {{"vtscope top -p 1234", "the live view, refreshed every second"},
                     {"vtscope top -p 1234 -b --iterations 10 > top.jsonl", "ten JSON objects, one a second"}};
    return spec;
}

}  // namespace vtscope
