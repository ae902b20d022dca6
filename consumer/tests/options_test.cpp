// SPDX-License-Identifier: Apache-2.0
#include "cli/options.h"

#include <gtest/gtest.h>

using vtscope::Command;
using vtscope::parse_options;

TEST(Options, TraceWithAllOptions) {
    auto o = parse_options({"trace", "--pid", "42", "--syscalls", "write,read,write", "--duration", "2.5", "--output",
                            "/tmp/x.jsonl", "--ready-file=/tmp/ready"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o->command, Command::kTrace);
    EXPECT_EQ(o->trace.pid, 42);
    EXPECT_EQ(o->trace.syscalls, (std::vector<std::string>{"write", "read"}));
    EXPECT_DOUBLE_EQ(*o->trace.duration_seconds, 2.5);
    EXPECT_EQ(o->trace.output, "/tmp/x.jsonl");
    EXPECT_EQ(o->trace.ready_file, "/tmp/ready");
}

TEST(Options, TraceDefaults) {
    auto named = parse_options({"trace", "--pid", "checkout"});  // a name, resolved when the command runs
    ASSERT_TRUE(named);
    EXPECT_EQ(named->trace.pid, 0);
    EXPECT_EQ(named->trace.pid_name, "checkout");
    auto o = parse_options({"trace", "--pid=7"});
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o->trace.output, "-");
    EXPECT_FALSE(o->trace.duration_seconds.has_value());
    EXPECT_EQ(o->trace.syscalls, vtscope::default_syscalls());
}

TEST(Options, Errors) {
    struct Case {
        std::vector<std::string> args;
        std::string message;
    } cases[] = {
        {{"frobnicate"}, "unknown command 'frobnicate'"},
        {{"trace"}, "trace needs --pid PID"},
        {{"trace", "--pid"}, "--pid needs a value"},
        {{"trace", "--pid", "0"}, "invalid pid: '0'"},
        {{"trace", "--pid", "-5"}, "invalid pid: '-5'"},
        {{"trace", "--pid", "1", "--syscalls", "write,,read"}, "empty syscall name"},
        {{"trace", "--pid", "1", "--syscalls", "Write"}, "invalid syscall name 'Write'"},
        {{"trace", "--pid", "1", "--syscalls", "a;b"}, "invalid syscall name 'a;b'"},
        {{"trace", "--pid", "1", "--duration", "0"}, "invalid duration: '0'"},
        {{"trace", "--pid", "1", "--duration", "nan"}, "invalid duration: 'nan'"},
        {{"trace", "--pid", "1", "--duration", "3s"}, "invalid duration: '3s'"},
        {{"trace", "--pid", "1", "--output="}, "--output needs a file name"},
        {{"trace", "--pid", "1", "--bogus"}, "unknown option for trace: '--bogus' (see vtscope trace --help)"},
        {{"trace", "--pid", "1", "--duration", "1", "-d", "2"}, "--duration given twice (trace takes one)"},
        {{"trace", "--pid", "1", "--stacks"}, "unknown option for trace: '--stacks'"},
        {{"trace", "--pid", "1", "extra"}, "trace takes no argument 'extra'"},
        {{"report"}, "report needs a trace file"},
        {{"report", "a", "b"}, "report takes one file"},
        {{"report", "a", "--top", "0"}, "invalid --top: '0'"},
    };
    for (const auto& c : cases) {
        auto o = parse_options(c.args);
        ASSERT_FALSE(o.ok()) << "accepted: " << ::testing::PrintToString(c.args);
        EXPECT_NE(o.error().message.find(c.message), std::string::npos)
            << "message '" << o.error().message << "' lacks '" << c.message << "'";
    }
}

TEST(Options, HelpAndVersion) {
    EXPECT_EQ(parse_options({"--help"})->command, Command::kHelp);
    EXPECT_EQ(parse_options({"trace", "--help"})->command, Command::kHelp);
    EXPECT_EQ(parse_options({"--version"})->command, Command::kVersion);
    EXPECT_NE(vtscope::usage("trace").find("--ready-file"), std::string::npos);
    EXPECT_NE(vtscope::usage().find("  trace     trace syscall entries"), std::string::npos);
}

TEST(Options, Report) {
    auto o = parse_options({"report", "events.jsonl", "--top", "3"});
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o->command, Command::kReport);
    EXPECT_EQ(o->report.input, "events.jsonl");
    EXPECT_EQ(o->report.top, 3);
}

TEST(Options, IdentityChannel) {
    EXPECT_EQ(parse_options({"trace", "--pid", "1"})->trace.identity, vtscope::IdentityChannel::kVmStructs);
    EXPECT_EQ(parse_options({"trace", "--pid", "1", "--identity", "otep-tls"})->trace.identity,
              vtscope::IdentityChannel::kOtepTls);
    auto bad = parse_options({"trace", "--pid", "1", "--identity", "psychic"});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("unknown identity channel 'psychic'"), std::string::npos);
}

TEST(Options, Stat) {
    auto o = parse_options({"stat", "--pid", "9", "--top", "3", "--identity", "lifecycle", "--duration", "1"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o->command, Command::kStat);
    EXPECT_TRUE(o->trace.aggregate);
    EXPECT_EQ(o->trace.top, 3);
    EXPECT_EQ(o->trace.pid, 9);
    EXPECT_EQ(o->trace.syscalls, vtscope::default_syscalls());

    auto plain = parse_options({"trace", "--pid", "9"});
    ASSERT_TRUE(plain.ok());
    EXPECT_FALSE(plain->trace.aggregate);

    auto no_pid = parse_options({"stat", "--top", "3"});
    ASSERT_FALSE(no_pid.ok());
    EXPECT_EQ(no_pid.error().message, "stat needs --pid PID");
    auto bad_top = parse_options({"stat", "--pid", "9", "--top", "0"});
    ASSERT_FALSE(bad_top.ok());
    EXPECT_EQ(bad_top.error().message, "invalid --top: '0'");
    auto top_in_trace = parse_options({"trace", "--pid", "9", "--top", "3"});
    ASSERT_FALSE(top_in_trace.ok());
    EXPECT_EQ(top_in_trace.error().message, "unknown option for trace: '--top' (see vtscope trace --help)");
}

TEST(Options, SubcommandHelpAndRepeatedPid) {
    auto help = vtscope::parse_options({"trace", "--help"});
    ASSERT_TRUE(help);
    EXPECT_EQ(help->command, vtscope::Command::kHelp);
    EXPECT_EQ(help->help_topic, "trace");
    EXPECT_EQ(vtscope::usage("trace").rfind("usage: vtscope trace --pid PID", 0), 0u);
    EXPECT_EQ(vtscope::usage("trace").find("  stat --pid"), std::string::npos);
    EXPECT_NE(vtscope::usage("stat").find("--top N"), std::string::npos);
    EXPECT_EQ(vtscope::parse_options({"report", "-h"})->help_topic, "report");
    EXPECT_TRUE(vtscope::parse_options({"--help"})->help_topic.empty());
    auto twice = vtscope::parse_options({"trace", "--pid", "1", "--pid", "2"});
    ASSERT_FALSE(twice);
    EXPECT_EQ(twice.error().message, "--pid given twice (trace takes one)");
    auto summary = vtscope::parse_options({"stat", "--pid", "3", "--summary-json", "s.json"});
    ASSERT_TRUE(summary);
    EXPECT_EQ(summary->trace.summary_json, "s.json");
}

// -p, -o, -d, -i, -s, -n, -h: the short forms of the common options, value separate or attached.
TEST(Options, ShortOptions) {
    auto o = parse_options({"stat", "-p", "42", "-o", "r.txt", "-d2", "-i", "otep-tls", "-s", "read", "-n", "3"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o->trace.pid, 42);
    EXPECT_EQ(o->trace.output, "r.txt");
    EXPECT_DOUBLE_EQ(*o->trace.duration_seconds, 2);
    EXPECT_EQ(o->trace.identity, vtscope::IdentityChannel::kOtepTls);
    EXPECT_EQ(o->trace.syscalls, std::vector<std::string>{"read"});
    EXPECT_EQ(o->trace.top, 3);
    EXPECT_EQ(parse_options({"profile", "-h"})->help_topic, "profile");
    EXPECT_EQ(parse_options({"profile", "-p", "1", "-F", "49"})->profile.hz, 49);
    EXPECT_EQ(parse_options({"block", "-p", "1", "-t", "5"})->block.threshold_ms, 5);
    auto flag_value = parse_options({"block", "-p", "1", "--jfr=yes"});
    ASSERT_FALSE(flag_value.ok());
    EXPECT_EQ(flag_value.error().message, "--jfr takes no value");
    auto unknown_short = parse_options({"trace", "-p", "1", "-z"});
    ASSERT_FALSE(unknown_short.ok());
    EXPECT_EQ(unknown_short.error().message, "unknown option for trace: '-z' (see vtscope trace --help)");
}

TEST(Options, OtlpExportOptions) {
    auto o = vtscope::parse_options({"trace", "--pid", "1", "--otlp", "http://c:4318", "--service", "svc",
                                     "--otlp-queue", "100", "--otlp-timeout=2.5"});
    ASSERT_TRUE(o) << o.error().message;
    EXPECT_EQ(o->trace.otlp.endpoint, "http://c:4318");
    EXPECT_EQ(o->trace.otlp.service, "svc");
    EXPECT_EQ(o->trace.otlp.queue, 100u);
    EXPECT_EQ(o->trace.otlp.timeout_seconds, 2.5);
    auto defaults = vtscope::parse_options({"stat", "--pid", "1"});
    ASSERT_TRUE(defaults);
    EXPECT_TRUE(defaults->trace.otlp.endpoint.empty());
    EXPECT_EQ(defaults->trace.otlp.queue, 65536u);
    EXPECT_EQ(defaults->trace.otlp.timeout_seconds, 10);
    EXPECT_FALSE(vtscope::parse_options({"trace", "--pid", "1", "--otlp"}));
    EXPECT_FALSE(vtscope::parse_options({"trace", "--pid", "1", "--otlp-queue", "0"}));
    EXPECT_FALSE(vtscope::parse_options({"trace", "--pid", "1", "--otlp-timeout", "-1"}));
    EXPECT_NE(vtscope::usage("trace").find("--otlp URL"), std::string::npos);
    EXPECT_NE(vtscope::usage("stat").find("--service NAME"), std::string::npos);
}

// block and profile take the same OTLP options through the same parser as trace and stat.
TEST(Options, OtlpExportOptionsOnBlockAndProfile) {
    const std::vector<std::string> otlp = {"--otlp",         "c:4318", "--service=svc", "--otlp-queue", "7",
                                           "--otlp-timeout", "3"};
    auto expect_otlp = [](const vtscope::OtlpOptions& o) {
        EXPECT_EQ(o.endpoint, "c:4318");
        EXPECT_EQ(o.service, "svc");
        EXPECT_EQ(o.queue, 7u);
        EXPECT_EQ(o.timeout_seconds, 3);
    };
    std::vector<std::string> block = {"block", "--pid", "1", "--threshold", "5"};
    block.insert(block.end(), otlp.begin(), otlp.end());
    auto b = vtscope::parse_options(block);
    ASSERT_TRUE(b) << b.error().message;
    expect_otlp(b->block.otlp);
    EXPECT_EQ(b->block.threshold_ms, 5);
    std::vector<std::string> profile = {"profile", "--pid", "1", "--hz", "49"};
    profile.insert(profile.end(), otlp.begin(), otlp.end());
    auto p = vtscope::parse_options(profile);
    ASSERT_TRUE(p) << p.error().message;
    expect_otlp(p->profile.otlp);
    EXPECT_EQ(p->profile.hz, 49);
    auto profiles = vtscope::parse_options({"profile", "--pid", "1", "--otlp-profiles"});
    ASSERT_TRUE(profiles);
    EXPECT_TRUE(profiles->profile.otlp_profiles);
    EXPECT_TRUE(profiles->profile.stacks);  // a profile without stacks would say nothing
    EXPECT_FALSE(vtscope::parse_options({"block", "--pid", "1", "--otlp-queue", "0"}));
    EXPECT_FALSE(vtscope::parse_options({"profile", "--pid", "1", "--otlp-timeout", "x"}));
    EXPECT_FALSE(vtscope::parse_options({"profile", "--pid", "1", "--otlp"}));
    EXPECT_NE(vtscope::usage("block").find("      --otlp URL              also export"), std::string::npos);
    EXPECT_NE(vtscope::usage("profile").find("      --otlp URL              also export"), std::string::npos);
}
