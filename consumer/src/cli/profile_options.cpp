// SPDX-License-Identifier: Apache-2.0
// `vtscope profile`'s options (kept out of options.cpp so the subcommand's parsing is in one place).
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "channels/identity_channels.h"
#include "cli/options.h"

namespace vtscope {
namespace {

bool takes_value(const std::string& arg) {
    for (const char* name : {"--pid", "--hz", "--duration", "--output", "--ready-file", "--summary-json", "--identity",
                             "--folded", "--flamegraph", "--by", "--top"})
        if (arg == name) return true;
    return false;
}

}  // namespace

Expected<Options> parse_profile_options(const std::vector<std::string>& args) {
    Options options;
    options.command = Command::kProfile;
    ProfileOptions& p = options.profile;
    bool have_pid = false;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string& arg = args[i];
        if (arg == "--help" || arg == "-h") {
            options.command = Command::kHelp;
            options.help_topic = "profile";
            return options;
        }
        if (arg == "--stacks") {
            p.stacks = true;
            continue;
        }
        if (arg == "--per-cpu" || arg == "--per-thread") {
            p.per_thread = arg == "--per-thread";  // the last one given counts
            continue;
        }
        if (arg == "--otlp-profiles") {
            p.otlp_profiles = true;
            continue;
        }
        auto option = split_option(args, i, "profile", takes_value);
        if (!option) return option.error();
        const auto& [name, value] = *option;
        auto otlp = parse_otlp_option(name, value, p.otlp);
        if (!otlp) return otlp.error();
        if (*otlp) continue;
        if (name == "--pid") {
            if (have_pid) return make_error("--pid given twice (profile observes one process)");
            auto pid = parse_int(value, "pid", 1, 0x7fffffff);
            if (!pid) return pid.error();
            p.pid = static_cast<pid_t>(*pid);
            have_pid = true;
        } else if (name == "--hz") {
            auto hz = parse_int(value, "--hz", 1, 10000);
            if (!hz) return hz.error();
            p.hz = static_cast<int>(*hz);
        } else if (name == "--duration") {
            errno = 0;
            char* end = nullptr;
            double d = std::strtod(value.c_str(), &end);
            if (value.empty() || errno != 0 || *end != '\0' || !std::isfinite(d) || d <= 0 || d > 1e7)
                return make_error("invalid duration: '" + value + "' (seconds, > 0)");
            p.duration_seconds = d;
        } else if (name == "--output" || name == "--ready-file" || name == "--summary-json" || name == "--folded" ||
                   name == "--flamegraph") {
            if (value.empty()) return make_error(name + " needs a file name");
            if (name == "--output") p.output = value;
            if (name == "--ready-file") p.ready_file = value;
            if (name == "--summary-json") p.summary_json = value;
            if (name == "--folded") p.folded = value;
            if (name == "--flamegraph") p.flamegraph = value;
        } else if (name == "--identity") {
            const ChannelInfo* channel = find_channel(value);
            if (!channel) return make_error("unknown identity channel '" + value + "' (" + channel_names() + ")");
            p.identity = channel->channel;
        } else if (name == "--by") {
            if (value != "trace" && value != "span" && value != "vthread")
                return make_error("invalid --by: '" + value + "' (trace, span or vthread)");
            p.by = value;
        } else if (name == "--top") {
            auto top = parse_int(value, "--top", 1, 1000000);
            if (!top) return top.error();
            p.top = static_cast<int>(*top);
        } else {
            return make_error("unknown option for profile: '" + name + "'");
        }
    }
    if (!have_pid) return make_error("profile needs --pid PID");
    // "-" is standard output: one of them at most may go there.
    int to_stdout = (p.output == "-") + (p.folded == "-") + (p.flamegraph == "-");
    if (to_stdout > 1)
        return make_error(
            "the report, --folded and --flamegraph would share standard output: give the others a file (--output "
            "FILE)");
    if (!p.folded.empty() || !p.flamegraph.empty() || p.otlp_profiles) p.stacks = true;
    return options;
}

}  // namespace vtscope
