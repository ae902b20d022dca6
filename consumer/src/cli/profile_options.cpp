// SPDX-License-Identifier: Apache-2.0
// `vtscope profile`'s option table (option_table.h).
#include "cli/option_table.h"

namespace vtscope {
namespace {

Field<std::string> profile_text(std::string ProfileOptions::*member) { return at(&Options::profile, member); }

std::vector<OptionSpec> profile_option_specs() {
    std::vector<OptionSpec> options = {
        option("pid", 'p', "PID|NAME", ValueKind::kPid,
               apply_pid(at(&Options::profile, &ProfileOptions::pid), at(&Options::profile, &ProfileOptions::pid_name)),
               kPidHelp),
        option("hz", 'F', "N", ValueKind::kInteger, apply_int(at(&Options::profile, &ProfileOptions::hz), 1, 10000),
               "samples per second of each CPU", "99"),
        option(
            "per-thread", 0, "", ValueKind::kFlag, apply_flag(at(&Options::profile, &ProfileOptions::per_thread), true),
            "one event per thread of the target (every 1/hz of its CPU time) instead of one per CPU; costs the target "
            "at each of its context switches (see bench/RESULTS.md)"),
        option("per-cpu", 0, "", ValueKind::kFlag,
               apply_flag(at(&Options::profile, &ProfileOptions::per_thread), false),
               "one event per CPU, system-wide (the last of --per-cpu and --per-thread given counts)", "on"),
        option("top", 'n', "N", ValueKind::kInteger, apply_int(at(&Options::profile, &ProfileOptions::top), 1, 1000000),
               "rows shown in the report", "10"),
        option("output", 'o', "FILE", ValueKind::kPath, apply_path(profile_text(&ProfileOptions::output)),
               "write the report to FILE", "standard output"),
        option("by", 0, "trace|span|vthread", ValueKind::kEnum,
               apply_enum(profile_text(&ProfileOptions::by), {"trace", "span", "vthread"}),
               "report rows and flame graph towers", "trace", {"trace", "span", "vthread"}),
        option(
            "stacks", 0, "", ValueKind::kFlag, apply_flag(at(&Options::profile, &ProfileOptions::stacks)),
            "user and kernel stacks per sample, symbolised (ELF symbols and the JVM's perf map, which --stacks has the "
            "JVM write as jcmd Compiler.perfmap does; Java frames need -XX:+PreserveFramePointer)"),
        option("groups", 0, "N", ValueKind::kInteger,
               apply_int(at(&Options::profile, &ProfileOptions::groups), 1, 1000000),
               "the flame graph and --folded keep a tower for each of the N groups (--by) with the most samples and "
               "merge the others under one root ('[K other traces]'), so thousands of traces stay readable",
               "30"),
        option("merged", 0, "", ValueKind::kFlag, apply_flag(at(&Options::profile, &ProfileOptions::merged)),
               "the flame graph and --folded merge every group: one tower per stack, all virtual threads under one "
               "root (the report keeps --by)"),
        option("folded", 0, "FILE", ValueKind::kPath, apply_path(profile_text(&ProfileOptions::folded)),
               "folded stacks, one root frame per group of --by (see --groups, --merged; implies --stacks; - is "
               "standard output, with the report in "
               "--output FILE)"),
        option(
            "flamegraph", 0, "FILE.svg", ValueKind::kPath, apply_path(profile_text(&ProfileOptions::flamegraph)),
            "an interactive SVG flame graph, one tower per group of --by (see --groups, --merged; implies --stacks)"),
        option("otlp-profiles", 0, "", ValueKind::kFlag,
               apply_flag(at(&Options::profile, &ProfileOptions::otlp_profiles)),
               "with --otlp: the samples, their stacks and trace links as one OTLP profile at the end (the "
               "development-stage profiles signal, as Collector v0.165.0 takes it; implies --stacks)"),
    };
    for (auto& spec : session_option_specs(&Options::profile)) options.push_back(std::move(spec));
    for (auto& spec : otlp_option_specs(at(&Options::profile, &ProfileOptions::otlp),
                                        "profile exports CPU time by status (URL/v1/metrics), trace ids as "
                                        "exemplars; with --otlp-profiles also the stacks as an OTLP profile "
                                        "(URL/v1development/profiles)"))
        options.push_back(std::move(spec));
    return options;
}

Status finish_profile(Options& options) {
    ProfileOptions& p = options.profile;
    if (p.pid == 0 && p.pid_name.empty()) return make_error("profile needs --pid PID");
    // "-" is standard output: one of them at most may go there.
    int to_stdout = (p.output == "-") + (p.folded == "-") + (p.flamegraph == "-");
    if (to_stdout > 1)
        return make_error(
            "the report, --folded and --flamegraph would share standard output: give the others a file (--output "
            "FILE)");
    if (!p.folded.empty() || !p.flamegraph.empty() || p.otlp_profiles) p.stacks = true;
    return ok_status();
}

}  // namespace

CommandSpec profile_command_spec() {
    CommandSpec spec;
    spec.name = "profile";
    spec.command = Command::kProfile;
    spec.synopsis = "--pid PID [options]";
    spec.summary = "sample the JVM's CPU and report CPU time per trace, span or virtual thread";
    spec.description =
        "Samples the CPU of a running JVM (a software cpu-clock, or hardware cycles where present) and reports "
        "CPU time per trace, span or virtual thread, with non-virtual threads and unattributed samples apart; "
        "optionally with symbolised stacks, folded stacks and an SVG flame graph.";
    spec.options = profile_option_specs();
    spec.finish = finish_profile;
    spec.sections = attaching_sections(spec.name + " needs");
    spec.examples = {{"vtscope profile -p 1234 -d 30", "thirty seconds of CPU time per trace"},
                     {"vtscope profile -p 1234 -d 30 --by span --flamegraph cpu.svg", "per span, with a flame graph"},
                     {"vtscope profile -p 1234 -d 10 -o report.txt --folded -", "folded stacks to standard output"}};
    return spec;
}

}  // namespace vtscope
