// SPDX-License-Identifier: Apache-2.0
#include "cli/option_table.h"

#include <set>

#include "channels/identity_channels.h"

namespace vtscope {

const std::vector<CommandSpec>& command_specs() {
    static const std::vector<CommandSpec> specs = {trace_command_spec(), stat_command_spec(), profile_command_spec(),
                                                   block_command_spec(), top_command_spec(),  report_command_spec(),
                                                   list_command_spec()};
    return specs;
}

const CommandSpec* find_command(const std::string& name) {
    for (const CommandSpec& spec : command_specs())
        if (spec.name == name) return &spec;
    return nullptr;
}

OptionSpec option(std::string name, char short_name, std::string value_name, ValueKind kind, ApplyFn apply,
                  std::string help, std::string default_text, std::vector<std::string> choices) {
    return {std::move(name),         short_name, std::move(value_name), std::move(help),
            std::move(default_text), kind,       std::move(choices),    std::move(apply)};
}

Expected<double> parse_duration(const std::string& text) { return parse_seconds(text, "duration", 1e7); }

namespace {

struct Match {
    const OptionSpec* option;
    std::string value;
};

const OptionSpec* find_option(const CommandSpec& spec, const std::string& arg) {
    for (const OptionSpec& o : spec.options) {
        if (arg.rfind("--", 0) == 0 && arg.substr(2) == o.name) return &o;
        if (arg.size() == 2 && o.short_name != 0 && arg[1] == o.short_name) return &o;
    }
    return nullptr;
}

// Splits args[i] (an option) into the option and its value, moving i past a separate value.
Expected<Match> match_option(const CommandSpec& spec, const std::vector<std::string>& args, size_t& i) {
    const std::string& arg = args[i];
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (arg.rfind("--", 0) == 0) {
        if (auto eq = arg.find('='); eq != std::string::npos) {
            name = arg.substr(0, eq);
            inline_value = arg.substr(eq + 1);
        }
    } else if (arg.size() > 2) {  // -p123: a short option with its value attached
        name = arg.substr(0, 2);
        inline_value = arg.substr(2);
    }
    const OptionSpec* option = find_option(spec, name);
    if (!option)
        return make_error("unknown option for " + spec.name + ": '" + name + "' (see vtscope " + spec.name +
                          " --help)");
    const std::string long_name = "--" + option->name;
    if (option->kind == ValueKind::kFlag) {
        if (inline_value) return make_error(long_name + " takes no value");
        return Match{option, ""};
    }
    if (inline_value) return Match{option, *inline_value};
    if (i + 1 >= args.size()) return make_error(long_name + " needs a value");
    return Match{option, args[++i]};
}

std::string lower(std::string text) {
    for (char& c : text)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return text;
}

Options asked_for(const std::string& command, Command what) {
    Options options;
    options.command = what;
    options.help_topic = command;
    return options;
}

}  // namespace

Expected<Options> parse_command(const CommandSpec& spec, const std::vector<std::string>& args) {
    Options options;
    options.command = spec.command;
    std::set<std::string> seen;
    bool have_positional = false;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string& arg = args[i];
        if (arg == "--help" || arg == "-h") return asked_for(spec.name, Command::kHelp);
        // Hidden: the build generates the man page, the markdown reference and the completion with these.
        if (arg == "--man") return asked_for(spec.name, Command::kMan);
        if (arg == "--markdown") return asked_for(spec.name, Command::kMarkdown);
        if (arg.size() < 2 || arg[0] != '-') {
            if (!spec.apply_positional) return make_error(spec.name + " takes no argument '" + arg + "'");
            if (have_positional)
                return make_error(spec.name + " takes one " + lower(spec.positional) + ", got '" + arg + "' too");
            auto applied = spec.apply_positional(options, arg);
            if (!applied) return applied.error();
            have_positional = true;
            continue;
        }
        auto match = match_option(spec, args, i);
        if (!match) return match.error();
        const std::string long_name = "--" + match->option->name;
        // A flag may be repeated (it says the same thing twice); a second value would silently win,
        // except for an option whose values add up.
        if (match->option->kind != ValueKind::kFlag && !match->option->repeatable && !seen.insert(long_name).second)
            return make_error(long_name + " given twice (" + spec.name + " takes one)");
        auto applied = match->option->apply(options, long_name, match->value);
        if (!applied) return applied.error();
    }
    if (spec.finish) {
        auto finished = spec.finish(options);
        if (!finished) return finished.error();
    }
    return options;
}

ApplyFn apply_flag(Field<bool> field, bool value) {
    return [field, value](Options& o, const std::string&, const std::string&) -> Status {
        field(o) = value;
        return ok_status();
    };
}

ApplyFn apply_pid(Field<pid_t> field, Field<std::string> name_field) {
    return [field, name_field](Options& o, const std::string&, const std::string& value) -> Status {
        // A value that is not a number names the JVM: resolved against the host's JVMs when the
        // command runs (select_target_by_name), not here, so parsing reads nothing of the host.
        if (!value.empty() && value.find_first_not_of("0123456789+-") != std::string::npos) {
            name_field(o) = value;
            return ok_status();
        }
        auto pid = parse_int(value, "pid", 1, 0x7fffffff);
        if (!pid) return pid.error();
        field(o) = static_cast<pid_t>(*pid);
        return ok_status();
    };
}

ApplyFn apply_duration(Field<std::optional<double>> field) {
    return [field](Options& o, const std::string&, const std::string& value) -> Status {
        auto seconds = parse_duration(value);
        if (!seconds) return seconds.error();
        field(o) = *seconds;
        return ok_status();
    };
}

ApplyFn apply_path(Field<std::string> field) {
    return [field](Options& o, const std::string& name, const std::string& value) -> Status {
        if (value.empty()) return make_error(name + " needs a file name");
        field(o) = value;
        return ok_status();
    };
}

ApplyFn apply_int(Field<int> field, long min, long max) {
    return [field, min, max](Options& o, const std::string& name, const std::string& value) -> Status {
        auto n = parse_int(value, name, min, max);
        if (!n) return n.error();
        field(o) = static_cast<int>(*n);
        return ok_status();
    };
}

ApplyFn apply_identity(Field<IdentityChannel> field) {
    return [field](Options& o, const std::string&, const std::string& value) -> Status {
        const ChannelInfo* channel = find_channel(value);
        if (!channel) return make_error("unknown identity channel '" + value + "' (" + channel_names() + ")");
        field(o) = channel->channel;
        return ok_status();
    };
}

ApplyFn apply_enum(Field<std::string> field, std::vector<std::string> choices) {
    return [field, choices](Options& o, const std::string& name, const std::string& value) -> Status {
        std::string listed;
        for (size_t k = 0; k < choices.size(); k++) {
            if (value == choices[k]) {
                field(o) = value;
                return ok_status();
            }
            listed += (k == 0 ? "" : k + 1 == choices.size() ? " or " : ", ") + choices[k];
        }
        return make_error("invalid " + name + ": '" + value + "' (" + listed + ")");
    };
}

}  // namespace vtscope
