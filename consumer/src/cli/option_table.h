// SPDX-License-Identifier: Apache-2.0
// One declarative table per command: each option's names, value, help text, default and how its
// value is applied. The one parser (parse_command), the help, the man pages, the markdown
// reference and the bash completion all walk these tables, so they cannot drift apart.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/options.h"
#include "core/expected.h"

namespace vtscope {

// What an option's value is: drives the parser's check and the completion (paths complete file
// names, enums their choices).
enum class ValueKind { kFlag, kPid, kDuration, kSeconds, kPath, kInteger, kNumber, kEnum, kText };

// Applies a value to the options: name is the long form ("--pid") for the error, value is empty
// for a flag.
using ApplyFn = std::function<Status(Options& options, const std::string& name, const std::string& value)>;

struct OptionSpec {
    std::string name;          // the long name without its dashes
    char short_name = 0;       // 0: none
    std::string value_name;    // "PID"; empty for a flag
    std::string help;          // the text; '\n' starts a new line
    std::string default_text;  // shown as "(default: ...)"; empty: none shown
    ValueKind kind = ValueKind::kFlag;
    std::vector<std::string> choices;  // kEnum: the values, for the completion
    ApplyFn apply;
    bool repeatable = false;  // may be given more than once, each value applied (--otlp-header)
};

// A table entry: its long name, short letter (0: none), value name ("" for a flag), kind, how it
// applies, help text, the default shown ("" for none) and, for an enum, its choices.
OptionSpec option(std::string name, char short_name, std::string value_name, ValueKind kind, ApplyFn apply,
                  std::string help, std::string default_text = "", std::vector<std::string> choices = {});

// A titled block of text after the options (fields, privilege, exit status).
struct TextSection {
    std::string title;
    std::string text;  // paragraphs separated by blank lines
};

struct Example {
    std::string command;  // "vtscope trace -p 1234 -d 10"
    std::string what;
};

struct CommandSpec {
    std::string name;  // "trace"
    Command command = Command::kHelp;
    std::string synopsis;     // what follows "vtscope NAME" in the usage line
    std::string summary;      // one line for `vtscope --help` and the man page's NAME
    std::string description;  // paragraphs separated by blank lines
    std::vector<OptionSpec> options;
    // The positional argument's name ("FILE"), empty when the command takes none, and how it applies.
    std::string positional;
    std::function<Status(Options& options, const std::string& value)> apply_positional;
    std::function<Status(Options& options)> finish;  // checks and derived values once all are read
    std::vector<TextSection> sections;
    std::vector<Example> examples;
};

// Every command, in the order `vtscope --help` lists them.
const std::vector<CommandSpec>& command_specs();
const CommandSpec* find_command(const std::string& name);

// Parses the arguments after the command name: "--opt value", "--opt=value", "-o value",
// "-ovalue"; a single-valued option given twice, an unknown option or a missing value is an error.
Expected<Options> parse_command(const CommandSpec& spec, const std::vector<std::string>& args);

// The duration of a session: --duration, parsed by this one function with one message.
Expected<double> parse_duration(const std::string& text);

// A member of one command's options, for the appliers below: at(&Options::trace, &TraceOptions::pid).
template <typename T>
using Field = std::function<T&(Options&)>;
template <typename Sub, typename T>
Field<T> at(Sub Options::*sub, T Sub::*member) {
    return [sub, member](Options& o) -> T& { return (o.*sub).*member; };
}

ApplyFn apply_flag(Field<bool> field, bool value = true);
// --pid: a number sets field; any other text sets name_field (a JVM selected by name).
ApplyFn apply_pid(Field<pid_t> field, Field<std::string> name_field);
inline constexpr const char* kPidHelp =
    "the JVM to observe: its pid, or a name that selects one JVM (its main class, jar or service.name, or a part "
    "of one; see vtscope list)";
ApplyFn apply_duration(Field<std::optional<double>> field);
ApplyFn apply_path(Field<std::string> field);  // any non-empty text; "-" is standard output where that applies
ApplyFn apply_int(Field<int> field, long min, long max);
ApplyFn apply_identity(Field<IdentityChannel> field);
ApplyFn apply_enum(Field<std::string> field, std::vector<std::string> choices);

// The options every attaching command shares, for Sub one of TraceOptions, ProfileOptions,
// BlockOptions, TopOptions: --duration, --ready-file, --summary-json, --identity.
std::vector<OptionSpec> session_option_specs(Field<std::optional<double>> duration, Field<std::string> ready_file,
                                             Field<std::string> summary_json, Field<IdentityChannel> identity);
template <typename Sub>
std::vector<OptionSpec> session_option_specs(Sub Options::*sub) {
    return session_option_specs(at(sub, &Sub::duration_seconds), at(sub, &Sub::ready_file), at(sub, &Sub::summary_json),
                                at(sub, &Sub::identity));
}
// The OTLP options (--otlp, --service, --otlp-queue, --otlp-timeout): one fragment every attaching
// command appends; signals says what that command exports.
std::vector<OptionSpec> otlp_option_specs(Field<OtlpOptions> field, const std::string& signals);
// The privilege and exit status text every attaching command ends with; who: "trace needs".
std::vector<TextSection> attaching_sections(const std::string& who);

// The tables (options.cpp: trace, stat, report; profile_options.cpp; block_options.cpp).
CommandSpec trace_command_spec();
CommandSpec stat_command_spec();
CommandSpec report_command_spec();
CommandSpec profile_command_spec();
CommandSpec block_command_spec();
CommandSpec list_command_spec();
CommandSpec top_command_spec();  // top_options.cpp

}  // namespace vtscope
