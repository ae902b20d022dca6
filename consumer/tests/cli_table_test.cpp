// SPDX-License-Identifier: Apache-2.0
// The option tables against the parser, the help, the man pages, the markdown reference and the
// bash completion: every option the parser takes is documented, and every documented one is taken.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli/option_docs.h"
#include "cli/option_table.h"
#include "cli/options.h"

namespace vtscope {
namespace {

// A valid value of each kind, so that every option is exercised through the parser.
std::string sample_value(const OptionSpec& o) {
    switch (o.kind) {
        case ValueKind::kFlag: return "";
        case ValueKind::kPid: return "42";
        case ValueKind::kDuration: return "2.5";
        case ValueKind::kSeconds: return "3";
        case ValueKind::kPath: return "out.file";
        case ValueKind::kInteger: return "7";
        case ValueKind::kNumber: return "5";
        case ValueKind::kEnum: return o.choices.back();
        case ValueKind::kText: return o.value_name == "NAME=VALUE" ? "X-Tenant=a" : "read";
    }
    return "";
}

bool takes_pid(const CommandSpec& spec) {
    for (const OptionSpec& o : spec.options)
        if (o.name == "pid") return true;
    return false;
}

// The arguments a command needs besides the option under test.
std::vector<std::string> base_args(const CommandSpec& spec, const OptionSpec& o) {
    std::vector<std::string> args = {spec.name};
    if (!spec.positional.empty()) args.push_back("events.jsonl");
    if (takes_pid(spec) && o.name != "pid") args.insert(args.end(), {"--pid", "1"});
    return args;
}

// Every field an option may set, so two parses can be compared.
std::string describe(const Options& o) {
    std::ostringstream s;
    auto otlp = [&s](const OtlpOptions& x) {
        s << x.endpoint << '|' << x.service << '|' << x.queue << '|' << x.timeout_seconds << '|' << x.compression << '|'
          << x.certificate << '|' << x.client_key << '|' << x.client_certificate << '|' << x.insecure << '|';
        for (const OtlpHeader& h : x.headers) s << h.name << '=' << h.value << ',';
        s << ';';
    };
    auto duration = [&s](const std::optional<double>& d) { s << (d ? *d : -1) << ';'; };
    const TraceOptions& t = o.trace;
    s << static_cast<int>(o.command) << ';' << t.pid << t.pid_name << static_cast<int>(t.identity) << t.output
      << t.ready_file << t.summary_json << t.aggregate << t.top << ';';
    for (const auto& name : t.syscalls) s << name << ',';
    duration(t.duration_seconds);
    otlp(t.otlp);
    const ProfileOptions& p = o.profile;
    s << p.pid << p.pid_name << static_cast<int>(p.identity) << p.hz << p.output << p.ready_file << p.summary_json
      << p.stacks << p.folded << p.flamegraph << p.by << p.groups << p.merged << p.per_thread << p.top
      << p.otlp_profiles << ';';
    duration(p.duration_seconds);
    otlp(p.otlp);
    const BlockOptions& b = o.block;
    s << b.pid << b.pid_name << b.perfetto << static_cast<int>(b.identity) << b.threshold_ms << b.all_threads << b.jfr
      << b.jfr_jdk << b.stacks << b.output << b.ready_file << b.summary_json << b.top << ';';
    duration(b.duration_seconds);
    otlp(b.otlp);
    const TopOptions& top = o.top;
    s << top.pid << top.pid_name << static_cast<int>(top.identity) << top.interval_seconds << top.iterations
      << top.batch << top.by << top.sort << top.top << top.hz << top.ready_file << top.summary_json << ';';
    duration(top.duration_seconds);
    s << o.report.input << o.report.top << o.list.json;
    return s.str();
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// The long options a rendering lists, found by pattern (--help included).
std::set<std::string> listed(const std::string& text, const std::regex& pattern) {
    std::set<std::string> names;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it)
        names.insert((*it)[1]);
    return names;
}

std::set<std::string> table_names(const CommandSpec& spec) {
    std::set<std::string> names = {"help"};
    for (const OptionSpec& o : spec.options) names.insert(o.name);
    return names;
}

TEST(CliTable, EveryOptionParsesLongShortAndWithEquals) {
    for (const CommandSpec& spec : command_specs()) {
        for (const OptionSpec& o : spec.options) {
            const std::string value = sample_value(o);
            std::vector<std::string> value_args;
            if (o.kind != ValueKind::kFlag) value_args.push_back(value);
            auto separate = parse_options(with(base_args(spec, o), with({"--" + o.name}, value_args)));
            ASSERT_TRUE(separate) << spec.name << " --" << o.name << ": " << separate.error().message;
            EXPECT_EQ(separate->command, spec.command);
            if (o.kind != ValueKind::kFlag) {
                auto joined = parse_options(with(base_args(spec, o), {"--" + o.name + "=" + value}));
                ASSERT_TRUE(joined) << spec.name << " --" << o.name << "=: " << joined.error().message;
                EXPECT_EQ(describe(*joined), describe(*separate)) << spec.name << " --" << o.name;
                auto twice =
                    parse_options(with(with(base_args(spec, o), {"--" + o.name, value}), {"--" + o.name, value}));
                if (o.repeatable) {
                    // Each value applies: the second changes the parse.
                    ASSERT_TRUE(twice) << spec.name << " --" << o.name << " twice: " << twice.error().message;
                    EXPECT_NE(describe(*twice), describe(*separate)) << spec.name << " --" << o.name;
                    continue;
                }
                ASSERT_FALSE(twice) << spec.name << " --" << o.name << " twice";
                EXPECT_EQ(twice.error().message, "--" + o.name + " given twice (" + spec.name + " takes one)");
            }
            if (!o.short_name) continue;
            const std::string short_form = std::string("-") + o.short_name;
            auto short_parse = parse_options(with(base_args(spec, o), with({short_form}, value_args)));
            ASSERT_TRUE(short_parse) << spec.name << " " << short_form << ": " << short_parse.error().message;
            EXPECT_EQ(describe(*short_parse), describe(*separate)) << spec.name << " " << short_form;
            if (o.kind == ValueKind::kFlag) continue;
            auto attached = parse_options(with(base_args(spec, o), {short_form + value}));
            ASSERT_TRUE(attached) << spec.name << " " << short_form << value;
            EXPECT_EQ(describe(*attached), describe(*separate)) << spec.name << " " << short_form << value;
        }
    }
}

TEST(CliTable, HelpAndManPageListExactlyTheTable) {
    const std::regex help_line(R"(\n  (?:-\w, |    )--([a-z-]+))");
    const std::regex man_entry(R"(\.TP\n(?:\\fB\\-\w\\fR, )?\\fB\\-\\-([a-z\\-]+)\\fR)");
    const std::regex markdown_item(R"(\n- `(?:-\w`, `)?--([a-z-]+))");
    for (const CommandSpec& spec : command_specs()) {
        EXPECT_EQ(listed(usage(spec.name), help_line), table_names(spec)) << spec.name << " --help";
        std::set<std::string> man;
        for (std::string name : listed(man_page(spec.name), man_entry)) {
            name = std::regex_replace(name, std::regex(R"(\\-)"), "-");
            man.insert(name);
        }
        EXPECT_EQ(man, table_names(spec)) << "vtscope-" << spec.name << "(1)";
        EXPECT_EQ(listed(markdown_page(spec.name), markdown_item), table_names(spec)) << spec.name << " markdown";
        // Each one listed is taken by the parser: an option is never documented and refused.
        for (const std::string& name : listed(usage(spec.name), help_line)) {
            auto parsed = parse_options({spec.name, "--" + name, "x"});
            if (!parsed) {
                EXPECT_EQ(parsed.error().message.find("unknown option"), std::string::npos) << name;
            }
        }
    }
}

TEST(CliTable, UnknownOptionNamesTheCommandsHelpAndDurationHasOneMessage) {
    for (const CommandSpec& spec : command_specs()) {
        auto unknown = parse_options({spec.name, "--bogus"});
        ASSERT_FALSE(unknown);
        EXPECT_EQ(unknown.error().message,
                  "unknown option for " + spec.name + ": '--bogus' (see vtscope " + spec.name + " --help)");
        if (!takes_pid(spec)) continue;
        auto duration = parse_options({spec.name, "-p", "1", "-d", "3s"});
        ASSERT_FALSE(duration);
        EXPECT_EQ(duration.error().message, "invalid duration: '3s' (seconds, > 0 and at most 10000000)");
        auto pid_twice = parse_options({spec.name, "-p", "1", "--pid=2"});
        ASSERT_FALSE(pid_twice);
        EXPECT_EQ(pid_twice.error().message, "--pid given twice (" + spec.name + " takes one)");
    }
}

TEST(CliTable, GlobalHelpListsTheCommandsOneLineEach) {
    std::string help = usage();
    for (const CommandSpec& spec : command_specs())
        EXPECT_NE(help.find("\n  " + spec.name + std::string(10 - spec.name.size(), ' ') + spec.summary),
                  std::string::npos)
            << spec.name;
    EXPECT_NE(help.find("vtscope COMMAND --help"), std::string::npos);
    EXPECT_EQ(help.find("--ready-file"), std::string::npos) << "the commands' options belong to their own help";
    EXPECT_EQ(parse_options({})->command, Command::kHelp);
    EXPECT_EQ(parse_options({"help"})->command, Command::kHelp);
    EXPECT_EQ(parse_options({"--man"})->command, Command::kMan);
    auto man = parse_options({"block", "--man"});
    ASSERT_TRUE(man);
    EXPECT_EQ(man->command, Command::kMan);
    EXPECT_EQ(man->help_topic, "block");
    EXPECT_EQ(man_page("block").rfind(".\\\" Generated", 0), 0u);
    EXPECT_NE(man_page("block").find(".TH VTSCOPE\\-BLOCK 1"), std::string::npos);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// docs/commands is checked in: regenerate it with `cmake --build build --target vtscope_markdown`.
TEST(CliTable, CheckedInMarkdownMatchesTheTables) {
    std::vector<std::string> names = {""};
    for (const CommandSpec& spec : command_specs()) names.push_back(spec.name);
    for (const std::string& name : names) {
        std::string file =
            std::string(VTSCOPE_SOURCE_DIR) + "/docs/commands/vtscope" + (name.empty() ? "" : "-") + name + ".md";
        EXPECT_EQ(read_file(file), markdown_page(name)) << file << " is stale";
    }
}

// Runs script in bash with the completion loaded; its standard output.
std::string in_bash(const std::string& script) {
    char path[] = "/tmp/vtscope-completion-XXXXXX";
    int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    std::string text = bash_completion();
    EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
    std::string command = "bash --norc --noprofile -c 'source " + std::string(path) + "; " + script + "'";
    std::string out;
    if (FILE* p = popen(command.c_str(), "r")) {
        char buffer[4096];
        size_t n;
        while ((n = fread(buffer, 1, sizeof(buffer), p)) > 0) out.append(buffer, n);
        pclose(p);
    }
    unlink(path);
    return out;
}

TEST(CliTable, BashCompletion) {
    EXPECT_EQ(in_bash("complete -p vtscope"), "complete -F _vtscope vtscope\n");
    auto complete = [](const std::string& words, int cword) {
        return in_bash("COMP_WORDS=(" + words + "); COMP_CWORD=" + std::to_string(cword) +
                       "; _vtscope; echo \"${COMPREPLY[*]}\"");
    };
    EXPECT_EQ(complete("vtscope tr", 1), "trace\n");
    EXPECT_EQ(complete("vtscope trace --p", 2), "--pid\n");
    EXPECT_EQ(complete("vtscope profile --by s", 3), "span\n");
    EXPECT_EQ(complete("vtscope block --ou", 2), "--output\n");
    EXPECT_EQ(complete("vtscope trace --identity otep", 3), "otep-tls\n");
}

}  // namespace
}  // namespace vtscope
