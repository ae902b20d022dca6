// SPDX-License-Identifier: Apache-2.0
// vtscope profile's pure parts: options, the report and folding, the flame graph, the perf map
// and symbol table look-ups, when the perf map is refreshed. No privilege, no JVM.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "../bpf/attribution.h"
#include "output/flamegraph.h"
#include "output/json_io.h"
#include "output/safe_text.h"
#include "symbols/jvm_stacks.h"
#include "cli/options.h"
#include "process/proc_stat.h"
#include "output/profile_report.h"
#include "symbols/stack_symbolizer.h"

using namespace vtscope;

namespace {

ProfileRow virtual_row(uint32_t tid, int64_t id, const std::string& trace, uint64_t samples,
                       std::vector<std::string> frames = {}) {
    ProfileRow r;
    r.tid = tid;
    r.java_id = id;
    r.mounted_virtual = true;
    r.status = trace.empty() ? VTSCOPE_STATUS_NO_CONTEXT : VTSCOPE_STATUS_OK;
    r.trace_id = trace;
    r.span_id = trace.empty() ? "" : "00f067aa0ba902b7";
    r.samples = samples;
    r.cpu_ns = samples * 2'000'000;
    r.frames = std::move(frames);
    return r;
}

std::vector<ProfileRow> sample_rows() {
    const std::string a(32, 'a'), b(32, 'b');
    std::vector<ProfileRow> rows = {virtual_row(10, 31, a, 200, {"thread_native_entry", "A.slice", "A.spin"}),
                                    virtual_row(11, 31, a, 50, {"thread_native_entry", "A.slice"}),
                                    virtual_row(11, 32, b, 100, {"A.slice", "A.spin"}), virtual_row(10, 33, "", 4)};
    ProfileRow gc;
    gc.tid = 20;
    gc.status = VTSCOPE_STATUS_UNMAPPED;
    gc.reason = VTSCOPE_REASON_NOT_JAVA_THREAD;
    gc.samples = 7;
    gc.cpu_ns = 14'000'000;
    rows.push_back(gc);
    ProfileRow torn = virtual_row(10, 31, "", 1);
    torn.status = VTSCOPE_STATUS_INVALID;
    torn.reason = VTSCOPE_REASON_TORN;
    rows.push_back(torn);
    rows[2].truncated = true;
    return rows;
}

ProfileInfo sample_info() {
    ProfileInfo info;
    info.event = "cpu-clock";
    info.hz = 499;
    info.seconds = 1.5;
    info.stacks = true;
    info.thread_names = {{10, "ForkJoinPool-1-"}, {11, "ForkJoinPool-1-"}, {20, "GC Thread#0"}};
    return info;
}

}  // namespace

TEST(ProfileOptions, DefaultsAndAll) {
    auto o = parse_options({"profile", "--pid", "42"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o->command, Command::kProfile);
    EXPECT_EQ(o->profile.hz, 99);
    EXPECT_EQ(o->profile.by, "trace");
    EXPECT_FALSE(o->profile.stacks);
    EXPECT_FALSE(o->profile.per_thread);
    EXPECT_TRUE(parse_options({"profile", "--pid", "1", "--per-thread"})->profile.per_thread);
    EXPECT_FALSE(parse_options({"profile", "--pid", "1", "--per-thread", "--per-cpu"})->profile.per_thread);
    o = parse_options({"profile", "--pid=7", "--hz", "999", "--duration", "2", "--folded", "f.txt", "--by", "vthread",
                       "--flamegraph=g.svg", "--top", "3", "--identity", "lifecycle"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o->profile.hz, 999);
    EXPECT_TRUE(o->profile.stacks) << "--folded implies --stacks";
    EXPECT_EQ(o->profile.folded, "f.txt");
    EXPECT_EQ(o->profile.flamegraph, "g.svg");
    EXPECT_EQ(o->profile.by, "vthread");
    EXPECT_EQ(o->profile.top, 3);
    EXPECT_EQ(o->profile.identity, IdentityChannel::kLifecycle);
    EXPECT_NE(usage("profile").find("--flamegraph FILE.svg"), std::string::npos);
    for (auto args : std::vector<std::vector<std::string>>{{"profile"},
                                                           {"profile", "--pid", "1", "--hz", "10001"},
                                                           {"profile", "--pid", "1", "--by", "x"},
                                                           {"profile", "--pid", "1", "--folded"},
                                                           {"profile", "--pid", "1", "--duration", "-1"}})
        EXPECT_FALSE(parse_options(args).ok()) << ::testing::PrintToString(args);
}

TEST(ProfileOptions, OnePidAndAtMostOneOutputOnStandardOutput) {
    auto twice = parse_options({"profile", "--pid", "1", "--pid", "2"});
    ASSERT_FALSE(twice.ok());
    EXPECT_NE(twice.error().message.find("--pid given twice"), std::string::npos) << twice.error().message;
    // The report goes to standard output unless --output says otherwise.
    EXPECT_FALSE(parse_options({"profile", "--pid", "1", "--folded", "-"}).ok());
    EXPECT_FALSE(parse_options({"profile", "--pid", "1", "--flamegraph", "-"}).ok());
    EXPECT_FALSE(
        parse_options({"profile", "--pid", "1", "--output", "r.txt", "--folded", "-", "--flamegraph", "-"}).ok());
    auto piped = parse_options({"profile", "--pid", "1", "--output", "r.txt", "--folded", "-"});
    ASSERT_TRUE(piped.ok()) << piped.error().message;
    EXPECT_EQ(piped->profile.folded, "-");
    EXPECT_TRUE(piped->profile.stacks);
}

TEST(ProfileReport, TextGroupsVirtualNonVirtualAndUnattributed) {
    std::string text = render_profile_text(sample_rows(), sample_info());
    EXPECT_NE(text.find("362 samples of the target"), std::string::npos) << text;
    EXPECT_NE(text.find(std::string(32, 'a') + "      250"), std::string::npos) << text;
    EXPECT_NE(text.find("(virtual threads, no trace context)"), std::string::npos) << text;
    EXPECT_NE(text.find("GC Thread#0 (20)"), std::string::npos) << text;
    EXPECT_NE(text.find("invalid/torn_record"), std::string::npos) << text;
    // The trace with more CPU comes first.
    EXPECT_LT(text.find(std::string(32, 'a')), text.find(std::string(32, 'b'))) << text;
}

TEST(ProfileReport, JsonCountsPerTraceThreadAndStatus) {
    std::string json = render_profile_json(sample_rows(), sample_info());
    EXPECT_NE(json.find("{\"trace_id\":\"" + std::string(32, 'a') + "\",\"samples\":250,\"cpu_ms\":500"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find("\"tid\":20,\"name\":\"GC Thread#0\",\"samples\":7"), std::string::npos) << json;
    EXPECT_NE(json.find("{\"status\":\"invalid\",\"reason\":\"torn_record\",\"samples\":1"), std::string::npos) << json;
    EXPECT_NE(json.find("\"truncated_samples\":100"), std::string::npos) << json;
}

// A long-lived virtual thread (a queue's consumer) serves many traces: its row names the first
// eight and how many there are, on one line, however many.
TEST(ProfileReport, AVirtualThreadOfManyTracesKeepsItsRowOnOneLine) {
    std::vector<ProfileRow> rows;
    for (int i = 1; i <= 40; i++) {
        char trace[40];
        std::snprintf(trace, sizeof(trace), "%032x", i);
        rows.push_back(virtual_row(10, 31, trace, 1));
    }
    rows.push_back(virtual_row(11, 32, std::string(32, 'e'), 2));
    ProfileInfo info = sample_info();
    info.by = "vthread";
    std::string text = render_profile_text(rows, info);
    std::string first = "vthread #31                            40       80.0   95.2%  " + std::string(31, '0') + "1, ";
    size_t row = text.find(first);
    ASSERT_NE(row, std::string::npos) << text;
    size_t end = text.find('\n', row);
    std::string line = text.substr(row, end - row);
    EXPECT_EQ(line.substr(line.size() - 10), ", ... (40)") << line;
    EXPECT_NE(text.find("\n  vthread #32 "), std::string::npos) << text;
}

// cpu_ms to the microsecond, whatever its size (the stream's default 6 digits would give
// 1.23457e+06 here).
TEST(ProfileReport, JsonKeepsCpuTimeToTheMicrosecond) {
    std::vector<ProfileRow> rows = {virtual_row(10, 31, std::string(32, 'a'), 3)};
    rows[0].cpu_ns = 1'234'567'891'234;
    std::string json = render_profile_json(rows, sample_info());
    EXPECT_NE(json.find("\"samples\":3,\"cpu_ms\":1234567.891234,"), std::string::npos) << json;
}

// A stack the kernel took but could not store (its bucket in the stack map held another) is
// counted once, as lost, and the part that is missing is named where it would be.
TEST(ProfileReport, AStackWithALostPartIsCountedOnceAndNamed) {
    const std::string a(32, 'a');
    std::vector<ProfileRow> rows = {
        virtual_row(10, 31, a, 6, {"thread_native_entry", "A.spin"}),
        virtual_row(10, 31, a, 2, {"[user stack lost]", "do_syscall_64_[k]"}),
        virtual_row(10, 31, a, 1, {"thread_native_entry", "A.spin", "[kernel stack lost]"})};
    rows[1].stack_lost = rows[2].stack_lost = true;
    ProfileInfo info = sample_info();
    info.stack_errors = 3;
    std::string text = render_profile_text(rows, info);
    EXPECT_NE(text.find("Stacks: 6 of 9 samples with a stack; 0 virtual-thread samples marked truncated"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("; 3 with their user or kernel stack lost"), std::string::npos) << text;
    EXPECT_NE(
        render_profile_json(rows, info).find("\"samples_with_stack\":6,\"truncated_samples\":0,\"stack_errors\":3"),
        std::string::npos);
    std::string folded = render_folded(fold_stacks(rows, info));
    EXPECT_NE(folded.find("trace " + a + ";[user stack lost];do_syscall_64_[k] 2\n"), std::string::npos) << folded;
    EXPECT_NE(folded.find("trace " + a + ";thread_native_entry;A.spin;[kernel stack lost] 1\n"), std::string::npos)
        << folded;
}

// Steal: said in the text above 1%, always given in the JSON (null when unknown).
TEST(ProfileReport, StealShareIsSaidAboveOnePercentAndAlwaysInTheJson) {
    ProfileInfo info = sample_info();
    EXPECT_EQ(render_profile_text(sample_rows(), info).find("stole"), std::string::npos);
    EXPECT_NE(render_profile_json(sample_rows(), info).find("\"steal_share\":null,"), std::string::npos);
    info.steal_share = 0.004;
    EXPECT_EQ(render_profile_text(sample_rows(), info).find("stole"), std::string::npos);
    info.steal_share = 0.062;
    std::string text = render_profile_text(sample_rows(), info);
    EXPECT_NE(text.find("warning: the hypervisor stole 6.2% of this machine's busy CPU time"), std::string::npos)
        << text;
    EXPECT_NE(render_profile_json(sample_rows(), info).find("\"steal_share\":0.062,"), std::string::npos);
}

TEST(ProcStat, BusyAndStealOfTheMachineLine) {
    auto times = parse_proc_stat("cpu  1509 7 1125 26012 316 3 19 14 0 0\ncpu0 432 0 324 13736 3 0 2 5 0 0\n");
    ASSERT_TRUE(times);
    EXPECT_EQ(times->busy, 1509u + 7 + 1125 + 3 + 19 + 14);
    EXPECT_EQ(times->steal, 14u);
    // Kernels before 2.6.11 had no steal field; a per-CPU line is not the machine's.
    EXPECT_FALSE(parse_proc_stat("cpu  1509 0 1125 26012 316 0 19\n"));
    EXPECT_FALSE(parse_proc_stat("cpu0 432 0 324 13736 3 0 2 5 0 0\n"));
    EXPECT_FALSE(parse_proc_stat(""));
    EXPECT_TRUE(read_proc_stat());

    CpuTimes before{1000, 10}, after{1200, 22};
    ASSERT_TRUE(steal_share(before, after));
    EXPECT_DOUBLE_EQ(*steal_share(before, after), 0.06);
    EXPECT_FALSE(steal_share(before, before));  // nothing busy
    EXPECT_FALSE(steal_share(after, before));   // backwards
}

TEST(ProfileReport, FoldedHasOneRootPerTraceAndMarksTruncation) {
    auto folded = fold_stacks(sample_rows(), sample_info());
    std::string text = render_folded(folded);
    EXPECT_NE(text.find("trace " + std::string(32, 'a') + ";thread_native_entry;A.slice;A.spin 200\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("trace " + std::string(32, 'b') + ";[truncated];A.slice;A.spin 100\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("[non-virtual] GC Thread#0;[no stack] 7\n"), std::string::npos) << text;
    EXPECT_NE(text.find("[unattributed invalid/torn_record];[no stack] 1\n"), std::string::npos) << text;
    ProfileInfo by_vthread = sample_info();
    by_vthread.by = "vthread";
    EXPECT_NE(render_folded(fold_stacks(sample_rows(), by_vthread)).find("vthread #32;[truncated];A.slice;A.spin 100"),
              std::string::npos);
}

// An application without vtscope's writer: the core names the mounted virtual thread but cannot
// say whether a span is current. Its CPU is the virtual thread's, under "context unknown", never
// under "no trace context" and never off the virtual threads' total.
TEST(ProfileReport, ContextUnknownSamplesOfAVirtualThreadCountAsVirtualNeverAsNoContext) {
    std::vector<ProfileRow> rows = {virtual_row(10, 40, "", 30, {"Spin.run"}), virtual_row(11, 41, "", 5)};
    rows[0].status = VTSCOPE_STATUS_CONTEXT_UNKNOWN;
    rows[0].reason = VTSCOPE_REASON_NO_RECORD_REGION;
    ProfileRow platform = rows[0];  // a platform thread whose context is unknown too
    platform.tid = 12;
    platform.java_id = 5;
    platform.mounted_virtual = false;
    platform.samples = 10;
    platform.cpu_ns = 20'000'000;
    rows.push_back(platform);
    EXPECT_EQ(row_kind(rows[0]), RowKind::kVirtual);
    EXPECT_EQ(row_kind(platform), RowKind::kNonVirtual);

    ProfileInfo info = sample_info();
    info.thread_names[12] = "main";
    std::string text = render_profile_text(rows, info);
    EXPECT_NE(text.find("45 samples of the target, 90.0 ms CPU; 70.0 ms (77.8%) on virtual threads"), std::string::npos)
        << text;
    EXPECT_NE(text.find("(virtual threads, context unknown)       30       60.0   66.7%  #40"), std::string::npos)
        << text;
    EXPECT_NE(text.find("(virtual threads, no trace context)        5       10.0   11.1%  #41"), std::string::npos)
        << text;
    EXPECT_NE(text.find("main (12)"), std::string::npos) << text;
    EXPECT_NE(text.find("context_unknown/no_record_region               40"), std::string::npos) << text;

    std::string json = render_profile_json(rows, info);
    EXPECT_NE(json.find("\"virtual\":{\"samples\":35,"), std::string::npos) << json;
    EXPECT_NE(json.find("\"virtual_no_context\":{\"samples\":5,"), std::string::npos) << json;
    EXPECT_NE(json.find("\"virtual_context_unknown\":{\"samples\":30,"), std::string::npos) << json;
    EXPECT_NE(
        json.find(
            "{\"java_id\":40,\"samples\":30,\"cpu_ms\":60,\"share\":0.666666666666667,\"traces\":{\"unknown\":30}}"),
        std::string::npos)
        << json;
    EXPECT_NE(json.find("\"traces\":{\"none\":5}"), std::string::npos) << json;

    info.by = "vthread";
    text = render_profile_text(rows, info);
    EXPECT_NE(text.find("vthread #40                            30       60.0   66.7%  (context unknown: 30 samples)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("vthread #41                             5       10.0   11.1%  (no context)"),
              std::string::npos)
        << text;
    EXPECT_NE(render_profile_json(rows, info).find("\"key\":\"vthread #40\",\"samples\":30,"), std::string::npos);
    EXPECT_NE(render_profile_json(rows, info).find("\"traces\":[],\"context_unknown_samples\":30}"), std::string::npos);

    info.by = "trace";
    std::string folded = render_folded(fold_stacks(rows, info));
    EXPECT_NE(folded.find("[virtual, context unknown];Spin.run 30\n"), std::string::npos) << folded;
    EXPECT_NE(folded.find("[virtual, no trace context];[no stack] 5\n"), std::string::npos) << folded;
    EXPECT_NE(folded.find("[non-virtual] main;Spin.run 10\n"), std::string::npos) << folded;
}

// JDK 21-23: a sample whose thread read a collection may have raced names no thread: unattributed
// under its GC reason, never counted as a platform thread's.
TEST(ProfileReport, ContextUnknownWithoutAThreadIsUnattributed) {
    ProfileRow row = virtual_row(10, 40, "", 3);
    row.status = VTSCOPE_STATUS_CONTEXT_UNKNOWN;
    row.reason = VTSCOPE_REASON_GC_POINTER_NOT_GOOD;
    row.java_id = 0;
    row.mounted_virtual = false;
    EXPECT_EQ(row_kind(row), RowKind::kUnattributed);
    EXPECT_EQ(unattributed_name(row), "context_unknown/gc_pointer_not_good");
}

TEST(Flamegraph, OneTowerPerRootFrameAndEscapedNames) {
    std::vector<FoldedStack> stacks = {
        {{"trace a", "x<y>&\"z\"", "leaf"}, 3}, {{"trace b", "leaf"}, 1}, {{"trace a", "w"}, 1}};
    std::string svg = render_flamegraph_svg(stacks, "t");
    size_t towers = 0;
    for (size_t at = 0; (at = svg.find("data-d=\"1\"", at)) != std::string::npos; at++) towers++;
    EXPECT_EQ(towers, 2u);
    EXPECT_NE(svg.find("x&lt;y&gt;&amp;&quot;z&quot;"), std::string::npos);
    EXPECT_NE(svg.find("<title>all (5 samples, 100.00%)</title>"), std::string::npos);
    // Labels are in the file, cut to the frame's width, for viewers that run no script.
    EXPECT_NE(svg.find(">all</text>"), std::string::npos);
    std::string wide(400, 'n');
    std::string one = render_flamegraph_svg({{{"trace a", wide}, 1}}, "t");
    EXPECT_NE(one.find(">" + wide.substr(0, 165) + "..</text>"), std::string::npos);
    EXPECT_NE(svg.find("function zoom"), std::string::npos);
    EXPECT_NE(svg.find("function search"), std::string::npos);
    EXPECT_NE(render_flamegraph_svg({}, "empty").find("</svg>"), std::string::npos);
}

// Thread names are cut at 15 bytes by the kernel, inside a character as often as not: JSON and
// the SVG get U+FFFD for what is no well-formed UTF-8 (RFC 3629), so their readers take them.
TEST(Json, WhatIsNoWellFormedUtf8BecomesTheReplacementCharacter) {
    const std::string replacement = "\xEF\xBF\xBD";
    const std::string fine = "ascii \xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E";  // é € 𝄞
    EXPECT_EQ(valid_utf8(fine), fine);
    EXPECT_EQ(valid_utf8("\xD0\x9F\xD1"), "\xD0\x9F" + replacement);                 // "П" and half a character
    EXPECT_EQ(valid_utf8("\xC0\xAF"), replacement + replacement);                    // an overlong "/"
    EXPECT_EQ(valid_utf8("\xED\xA0\x80"), replacement + replacement + replacement);  // a surrogate
    EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), replacement + replacement + replacement + replacement);  // > U+10FFFF
    EXPECT_EQ(valid_utf8("a\xFF"
                         "b"),
              "a" + replacement + "b");
    EXPECT_EQ(json_text(OrderedJson("\xD0\x9F\xD1")), "\"\xD0\x9F" + replacement + "\"");
}

// The summary JSON carries thread names and warnings of the target's: it stays JSON, with
// U+FFFD for what is no well-formed UTF-8.
TEST(ProfileReport, JsonOfThreadNamesCutInsideACharacter) {
    ProfileRow row;
    row.tid = 7;
    row.status = VTSCOPE_STATUS_UNMAPPED;
    row.reason = VTSCOPE_REASON_NOT_JAVA_THREAD;
    row.samples = 1;
    ProfileInfo info;
    info.thread_names = {{7, "\xD0\x9F\xD1"}};
    info.warnings = {"perf map \"x\xFF\""};
    std::string text = render_profile_json({row}, info);
    auto json = nlohmann::json::parse(text, nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << text;
    EXPECT_EQ(json["threads"][0]["name"], "\xD0\x9F\xEF\xBF\xBD");
    EXPECT_EQ(json["warnings"][0], "perf map \"x\xEF\xBF\xBD\"");
}

TEST(Flamegraph, NamesAreWellFormedUtf8AndLabelsAreCutBetweenCharacters) {
    std::string cyrillic;
    for (int i = 0; i < 200; i++) cyrillic += "\xD0\x96";  // Ж, two bytes each
    std::string svg = render_flamegraph_svg({{{"[non-virtual] \xD0\x9F\xD1", cyrillic}, 1}}, "t");
    EXPECT_EQ(valid_utf8(svg), svg) << "the SVG is not well-formed UTF-8";
    EXPECT_NE(svg.find("[non-virtual] \xD0\x9F\xEF\xBF\xBD"), std::string::npos);
    // The frame is 1,180 px wide: 167 bytes fit, the cut at 165 moves back to 164 (82 characters).
    std::string cut;
    for (int i = 0; i < 82; i++) cut += "\xD0\x96";
    EXPECT_NE(svg.find(">" + cut + "..</text>"), std::string::npos);
}

// A hostile target names its threads and symbols: U+FFFE or a control character once made the
// SVG a document no XML parser reads (XML 1.0 section 2.2 forbids them).
TEST(Flamegraph, CharactersXmlForbidsAreReplaced) {
    std::string hostile = "evil\xEF\xBF\xBE\xEF\xBF\xBF\x01\x1b[31m";
    std::string svg = render_flamegraph_svg({{{"[non-virtual] " + hostile, hostile + "frame"}, 1}}, hostile);
    EXPECT_EQ(svg.find("\xEF\xBF\xBE"), std::string::npos) << "U+FFFE in the SVG";
    EXPECT_EQ(svg.find("\xEF\xBF\xBF"), std::string::npos) << "U+FFFF in the SVG";
    for (char c : svg) EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n') << int(c);
    EXPECT_NE(svg.find("evil\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD[31mframe"), std::string::npos);
}

// A newline in an ELF symbol or a thread name once forged a line of the folded output
// ("f\nforged;stack 1000000" added a million samples); ';' inside a name split its frame.
TEST(ProfileReport, FoldedFramesCannotForgeLinesOrSplitFrames) {
    ProfileInfo info = sample_info();
    info.thread_names[20] = "gc\nforged;root 999";
    std::vector<ProfileRow> rows = sample_rows();
    rows[0].frames = {"thread_native_entry", "sym\nforged;stack 1000000", "a;b"};
    std::string text = render_folded(fold_stacks(rows, info));
    size_t lines = 0;
    for (char c : text) lines += c == '\n';
    EXPECT_EQ(lines, fold_stacks(rows, info).size()) << text;
    EXPECT_NE(text.find(";sym\\nforged:stack 1000000;a:b 200\n"), std::string::npos) << text;
    EXPECT_NE(text.find("[non-virtual] gc\\nforged:root 999;[no stack] 7\n"), std::string::npos) << text;
}

// Thread names (the target's comm) and warnings reach the user's terminal: escapes are shown,
// never run.
TEST(ProfileReport, TextShowsTerminalEscapesOfTheTargetAsText) {
    ProfileInfo info = sample_info();
    info.thread_names[20] = "gc\x1b]0;pwned\x07";
    info.warnings = {"perf map /tmp/perf-1.map: \x1b[2J"};
    std::string text = render_profile_text(sample_rows(), info);
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_NE(text.find("gc\\x1b]0;pwned\\x07 (20)"), std::string::npos) << text;
    EXPECT_NE(text.find("warning: perf map /tmp/perf-1.map: \\x1b[2J\n"), std::string::npos) << text;
}

// A target that makes a new trace, span or stack for every sample would grow profile's tables
// for as long as the session runs: past the bound a new key is refused (the caller counts its
// samples), a known key still counts.
TEST(ProfileBounds, ATableTakesNewKeysOnlyBelowItsBound) {
    std::map<int, uint64_t> table;
    uint64_t not_kept = 0;
    for (int key : {1, 2, 3, 1, 4, 2}) {
        uint64_t* slot = bounded_slot(table, key, 2);
        if (slot)
            *slot += 10;
        else
            not_kept += 10;
    }
    EXPECT_EQ(table.size(), 2u);
    EXPECT_EQ(table[1], 20u);
    EXPECT_EQ(table[2], 20u);
    EXPECT_EQ(not_kept, 20u);
}

TEST(ProfileBounds, SamplesNotKeptAreSaidInTheReportAndTheJson) {
    ProfileInfo info = sample_info();
    std::string quiet = render_profile_text(sample_rows(), info);
    EXPECT_EQ(quiet.find("not kept"), std::string::npos) << quiet;
    EXPECT_NE(render_profile_json(sample_rows(), info).find("\"samples_not_kept\":0,"), std::string::npos);
    info.samples_not_kept = 1234;
    std::string text = render_profile_text(sample_rows(), info);
    std::string line = "warning: 1234 samples not kept: over the bound of " + std::to_string(kMaxProfileRows) +
                       " distinct thread/trace/span/stack rows or " + std::to_string(kMaxProfileStacks) +
                       " distinct stacks (not in the counts below)\n";
    EXPECT_NE(text.find(line), std::string::npos) << text;
    Json json = vtscope::parse_json(render_profile_json(sample_rows(), info));
    ASSERT_FALSE(json.is_discarded());
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(json, "samples_not_kept")), 1234);
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(json, "rows_bound")), static_cast<double>(kMaxProfileRows));
}

TEST(StackSymbolizer, PerfMapAndSymbolTable) {
    SymbolTable table;
    parse_perf_map(
        "7f0000001000 100 long io.x.A.spin(long, int)\n"
        "7f0000002000 40 Interpreter\n"
        "garbage line\n"
        "7f0000003000 10 StubRoutines (1)\n",
        table);
    ASSERT_EQ(table.size(), 3u);
    ASSERT_NE(table.find(0x7f0000001010), nullptr);
    EXPECT_EQ(*table.find(0x7f0000001010), "io.x.A.spin");
    EXPECT_EQ(*table.find(0x7f0000002000), "Interpreter");
    EXPECT_EQ(*table.find(0x7f0000003005), "StubRoutines");
    EXPECT_EQ(table.find(0x7f0000001100), nullptr);
    EXPECT_EQ(table.find(0x10), nullptr);
}

// A hostile map of many tiny lines: at most max_entries (kMaxPerfMapEntries by default) are kept,
// across refreshes too, and a name is cut at kMaxFrameNameBytes: memory is bounded whatever the map.
TEST(StackSymbolizer, APerfMapKeepsAtMostItsCapOfEntriesAndOfNameBytes) {
    std::string text = "ffff0000 10 " + std::string(kMaxFrameNameBytes * 2, 'n') + "\n";
    for (int i = 0; i < 5000; i++) text += "1 1 a\n";
    SymbolTable table;
    parse_perf_map(text, table, 1000);
    EXPECT_EQ(table.size(), 1000u);
    ASSERT_NE(table.find(0xffff0001), nullptr);
    EXPECT_EQ(table.find(0xffff0001)->size(), kMaxFrameNameBytes);
    SymbolTable newer;
    parse_perf_map("2000 1 b\n", newer, 1000);
    newer.keep_older(table, 1000);
    EXPECT_EQ(newer.size(), 1000u);
    SymbolTable whole;
    parse_perf_map(text, whole);  // the default cap is far above 5,001 lines
    EXPECT_EQ(whole.size(), 5001u);
}

TEST(StackSymbolizer, ANewerPerfMapKeepsTheOlderNamesItDoesNotReplace) {
    SymbolTable older, newer;
    parse_perf_map("1000 100 old.A\n2000 100 old.B\n", older);
    parse_perf_map("2050 20 new.C\n3000 10 new.D\n", newer);
    newer.keep_older(older);
    ASSERT_NE(newer.find(0x1010), nullptr);
    EXPECT_EQ(*newer.find(0x1010), "old.A");  // freed since: samples taken while it lived keep its name
    ASSERT_NE(newer.find(0x2055), nullptr);
    EXPECT_EQ(*newer.find(0x2055), "new.C");
    EXPECT_EQ(newer.find(0x2010), nullptr);  // old.B's range holds new code now: not old.B any more
    ASSERT_NE(newer.find(0x3005), nullptr);
    EXPECT_EQ(*newer.find(0x3005), "new.D");
    EXPECT_EQ(newer.size(), 3u);
}

// A JVM under systemd's PrivateTmp= (or in another mount namespace) writes its perf map into a
// /tmp this process does not see: it is read through /proc/PID/root.
TEST(StackSymbolizer, APerfMapInTheTargetsOwnTmpIsRead) {
    if (geteuid() != 0) {
        std::fprintf(stderr, "\n*** SKIPPED: needs root (a mount namespace with its own /tmp) ***\n\n");
        GTEST_SKIP() << "SKIPPED: needs root (a mount namespace with its own /tmp)";
    }
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // The child: its own mount namespace with a tmpfs on /tmp, and a perf map in it.
        close(ready[0]);
        if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            mount("tmpfs", "/tmp", "tmpfs", 0, nullptr) != 0)
            _exit(1);
        std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
        FILE* map = std::fopen(path.c_str(), "w");
        if (!map || std::fputs("7f0000001000 40 LPrivateTmp;::handle\n", map) < 0 || std::fclose(map) != 0) _exit(1);
        if (write(ready[1], "r", 1) != 1) _exit(1);
        pause();
        _exit(0);
    }
    close(ready[1]);
    char byte = 0;
    bool child_ready = read(ready[0], &byte, 1) == 1;
    close(ready[0]);
    // The host's /tmp may hold a map of an earlier process with this pid, never this one.
    std::ifstream host_map("/tmp/perf-" + std::to_string(child) + ".map");
    std::string host_text((std::istreambuf_iterator<char>(host_map)), std::istreambuf_iterator<char>());
    bool on_the_host = host_text.find("LPrivateTmp") != std::string::npos;
    StackSymbolizer symbolizer(child);
    Status loaded = child_ready ? symbolizer.load_perf_map() : make_error("no child");
    std::string frame = symbolizer.user_frame(0x7f0000001010);
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    ASSERT_TRUE(child_ready) << "the child could not make its own /tmp";
    EXPECT_FALSE(on_the_host);
    EXPECT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(frame, "LPrivateTmp;::handle");
}

// After the JVM has exited, the map it wrote (-XX:+DumpPerfMapAtExit) is read from its own /tmp,
// kept reachable by the descriptor opened at the start, even once its mount namespace is gone;
// never from the host's /tmp, where anyone may have put a file of that name.
TEST(StackSymbolizer, AnExitedTargetsMapIsReadFromItsOwnTmpNeverTheHosts) {
    if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: needs root (a mount namespace with its own /tmp)";
    int ready[2], go[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(go), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        close(ready[0]);
        close(go[1]);
        if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            mount("tmpfs", "/tmp", "tmpfs", 0, nullptr) != 0 || write(ready[1], "r", 1) != 1)
            _exit(1);
        char byte;
        if (read(go[0], &byte, 1) != 1) _exit(1);
        std::ofstream("/tmp/perf-" + std::to_string(getpid()) + ".map") << "7f0000005000 40 Exited.inItsTmp\n";
        _exit(0);
    }
    close(ready[1]);
    close(go[0]);
    char byte = 0;
    bool child_ready = read(ready[0], &byte, 1) == 1;
    close(ready[0]);
    StackSymbolizer symbolizer(child);  // opens the child's root and /tmp
    std::string host_map = "/tmp/perf-" + std::to_string(child) + ".map";
    std::ofstream(host_map) << "7f0000005000 40 Host.fallback\n";
    EXPECT_EQ(write(go[1], "g", 1), 1);
    close(go[1]);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(child_ready && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    Status loaded = symbolizer.load_perf_map();
    EXPECT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(symbolizer.user_frame(0x7f0000005010), "Exited.inItsTmp");
    std::remove(host_map.c_str());
}

// A process that was gone before the symbolizer was made has no root to read: a map of its pid
// in the host's /tmp is not read (it may be anyone's).
TEST(StackSymbolizer, AGoneTargetsMapIsNotReadFromTheHostsTmp) {
    pid_t gone = fork();
    ASSERT_GE(gone, 0);
    if (gone == 0) _exit(0);
    ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
    StackSymbolizer symbolizer(gone);
    std::string path = "/tmp/perf-" + std::to_string(gone) + ".map";
    std::ofstream(path) << "7f0000002000 40 Exited.method\n";
    EXPECT_FALSE(symbolizer.load_perf_map());
    EXPECT_NE(symbolizer.user_frame(0x7f0000002010), "Exited.method");
    std::remove(path.c_str());
}

namespace {

bool have_root(const char* why) {
    if (geteuid() == 0) return true;
    std::fprintf(stderr, "\n*** SKIPPED: needs root (%s) ***\n\n", why);
    return false;
}

// A fake hostile target: a child in its own mount namespace with a private tmpfs on /tmp, where
// `plant` puts whatever it likes at /tmp/perf-PID.map (PID: the child's own). Killed on destruction.
class FakeTarget {
public:
    explicit FakeTarget(const std::function<bool(const std::string& perf_map)>& plant) {
        int ready[2];
        if (pipe(ready) != 0) return;
        pid_ = fork();
        if (pid_ == 0) {
            close(ready[0]);
            if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
                mount("tmpfs", "/tmp", "tmpfs", 0, nullptr) != 0)
                _exit(1);
            if (!plant("/tmp/perf-" + std::to_string(getpid()) + ".map") || write(ready[1], "r", 1) != 1) _exit(1);
            pause();
            _exit(0);
        }
        close(ready[1]);
        char byte = 0;
        ready_ = pid_ > 0 && read(ready[0], &byte, 1) == 1;
        close(ready[0]);
    }
    ~FakeTarget() {
        if (pid_ <= 0) return;
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    FakeTarget(const FakeTarget&) = delete;
    FakeTarget& operator=(const FakeTarget&) = delete;
    pid_t pid() const { return pid_; }
    bool ready() const { return ready_; }
    // Its perf map as this process reaches it (to release a reader blocked on a FIFO there).
    std::string perf_map_from_here() const {
        return "/proc/" + std::to_string(pid_) + "/root/tmp/perf-" + std::to_string(pid_) + ".map";
    }

private:
    pid_t pid_ = -1;
    bool ready_ = false;
};

// Runs work on another thread; true if it ends within the limit. A reader blocked on the FIFO
// `fifo` is released (a writer opens and closes it) until it ends, so a hang fails the test
// instead of stalling it.
bool ends_in_time(const std::function<void()>& work, const std::string& fifo, std::chrono::seconds limit) {
    auto done = std::async(std::launch::async, work);
    if (done.wait_for(limit) == std::future_status::ready) return true;
    while (done.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
        int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) close(fd);
    }
    return false;
}

bool why_not(const Status& status, std::string& problem) {
    if (!status) problem = status.error().message;
    return static_cast<bool>(status);
}

// A fake target's planted perf map, loaded by a symbolizer: whether the load ended in time,
// whether it loaded, and why not.
struct PlantedLoad {
    bool ended = false;
    bool loaded = true;
    std::string problem;
};

PlantedLoad load_planted_map(FakeTarget& target, StackSymbolizer& symbolizer) {
    PlantedLoad load;
    load.ended = ends_in_time([&] { load.loaded = why_not(symbolizer.load_perf_map(), load.problem); },
                              target.perf_map_from_here(), std::chrono::seconds(10));
    return load;
}

// A root-only host file with recognisable perf map lines, outside /tmp (the fake target has its own).
std::string make_host_secret(std::string& dir) {
    char tmpl[] = "/var/tmp/vtscope-secret-XXXXXX";
    if (!mkdtemp(tmpl)) return "";
    dir = tmpl;
    std::string path = dir + "/secret";
    std::ofstream(path) << "7f0000003000 40 HostSecret.line\n";
    chmod(path.c_str(), 0600);
    return path;
}

}  // namespace

// An absolute symlink in the target's /tmp must not lead vtscope (root) to a host file: its lines
// never become frame names.
TEST(StackSymbolizer, APerfMapSymlinkedToAHostFileIsRefused) {
    if (!have_root("a mount namespace with its own /tmp")) GTEST_SKIP() << "SKIPPED: needs root";
    std::string dir;
    std::string secret = make_host_secret(dir);
    ASSERT_FALSE(secret.empty());
    {
        FakeTarget target([&](const std::string& map) { return symlink(secret.c_str(), map.c_str()) == 0; });
        ASSERT_TRUE(target.ready());
        StackSymbolizer symbolizer(target.pid());
        PlantedLoad load = load_planted_map(target, symbolizer);
        EXPECT_TRUE(load.ended);
        EXPECT_FALSE(load.loaded);
        EXPECT_NE(load.problem.find("a symbolic link on the way (refused)"), std::string::npos) << load.problem;
        EXPECT_NE(symbolizer.user_frame(0x7f0000003010), "HostSecret.line");
    }
    std::remove(secret.c_str());
    rmdir(dir.c_str());
}

// A perf map that never ends (a symlink to /dev/zero) is refused before a byte is read.
TEST(StackSymbolizer, APerfMapSymlinkedToDevZeroIsRefused) {
    if (!have_root("a mount namespace with its own /tmp")) GTEST_SKIP() << "SKIPPED: needs root";
    FakeTarget target([](const std::string& map) { return symlink("/dev/zero", map.c_str()) == 0; });
    ASSERT_TRUE(target.ready());
    StackSymbolizer symbolizer(target.pid());
    PlantedLoad load = load_planted_map(target, symbolizer);
    EXPECT_TRUE(load.ended);
    EXPECT_FALSE(load.loaded);
    EXPECT_NE(load.problem.find("(refused)"), std::string::npos) << load.problem;
}

// A FIFO at the perf map's name would block the read (and the end of `profile`) forever.
TEST(StackSymbolizer, APerfMapFifoDoesNotHang) {
    if (!have_root("a mount namespace with its own /tmp")) GTEST_SKIP() << "SKIPPED: needs root";
    FakeTarget target([](const std::string& map) { return mkfifo(map.c_str(), 0666) == 0; });
    ASSERT_TRUE(target.ready());
    StackSymbolizer symbolizer(target.pid());
    PlantedLoad load = load_planted_map(target, symbolizer);
    EXPECT_TRUE(load.ended);
    EXPECT_FALSE(load.loaded);
    EXPECT_NE(load.problem.find("is not a regular file (refused)"), std::string::npos) << load.problem;
    // Nor is the JVM asked to write its map through it.
    EXPECT_FALSE(symbolizer.check_perf_map_before_write());
}

// perf's rule (dso__load, tools/perf/util/symbol.c: "not owned by current user or root, ignoring
// it"), with the target's uid for the current user: another user's file is not the JVM's map.
TEST(StackSymbolizer, APerfMapOwnedByAnotherUserIsSkipped) {
    if (!have_root("a mount namespace with its own /tmp")) GTEST_SKIP() << "SKIPPED: needs root";
    FakeTarget target([](const std::string& map) {
        std::ofstream(map) << "7f0000004000 40 Other.owner\n";
        return chown(map.c_str(), 12345, 12345) == 0;
    });
    ASSERT_TRUE(target.ready());
    StackSymbolizer symbolizer(target.pid());
    PlantedLoad load = load_planted_map(target, symbolizer);
    EXPECT_TRUE(load.ended);
    EXPECT_FALSE(load.loaded);
    EXPECT_NE(load.problem.find("owned by uid 12345, neither the JVM's user nor root"), std::string::npos)
        << load.problem;
    EXPECT_NE(symbolizer.user_frame(0x7f0000004010), "Other.owner");
    EXPECT_FALSE(symbolizer.check_perf_map_before_write());
}

// A mapped library whose file was deleted: its maps path ends in " (deleted)", and whatever now
// has that name on the host (here a FIFO) is not it. The mapped inode is read through map_files.
TEST(StackSymbolizer, ADeletedLibraryIsReadThroughItsMappingNotItsPath) {
    if (!have_root("/proc/PID/map_files")) GTEST_SKIP() << "SKIPPED: needs root";
    char tmpl[] = "/var/tmp/vtscope-deleted-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    std::string dir = tmpl, library = dir + "/x.so", fifo = library + " (deleted)";
    std::ofstream(library) << std::string(8192, 'x');
    int fd = open(library.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    void* mapped = mmap(nullptr, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    close(fd);
    ASSERT_NE(mapped, MAP_FAILED);
    ASSERT_EQ(unlink(library.c_str()), 0);
    ASSERT_EQ(mkfifo(fifo.c_str(), 0666), 0);
    StackSymbolizer symbolizer(getpid());
    symbolizer.snapshot_maps();
    std::string frame;
    EXPECT_TRUE(ends_in_time([&] { frame = symbolizer.user_frame(reinterpret_cast<uint64_t>(mapped) + 0x10); }, fifo,
                             std::chrono::seconds(10)));
    EXPECT_EQ(frame, "[x.so (deleted)+0x10]");
    munmap(mapped, 8192);
    unlink(fifo.c_str());
    rmdir(dir.c_str());
}

// HotSpot opens /tmp/perf-PID.map with O_CREAT|O_TRUNC and follows a symlink: the JVM is asked to
// write it only where no name is planted, or over a regular file of its own user with one link.
TEST(StackSymbolizer, TheJvmIsAskedForItsMapOnlyWhereNothingIsPlanted) {
    if (!have_root("a mount namespace with its own /tmp")) GTEST_SKIP() << "SKIPPED: needs root";
    auto asked = [](const std::function<bool(const std::string&)>& plant) {
        FakeTarget target(plant);
        return target.ready() && static_cast<bool>(StackSymbolizer(target.pid()).check_perf_map_before_write());
    };
    EXPECT_TRUE(asked([](const std::string&) { return true; })) << "no map yet";
    EXPECT_TRUE(asked([](const std::string& map) { return static_cast<bool>(std::ofstream(map) << "1 1 a\n"); }));
    EXPECT_FALSE(asked([](const std::string& map) { return symlink("/etc/passwd", map.c_str()) == 0; }));
    EXPECT_FALSE(asked([](const std::string& map) {
        std::ofstream("/tmp/victim") << "x";
        return link("/tmp/victim", map.c_str()) == 0;  // a hard link to a file HotSpot would truncate
    }));
}

// In its own pid namespace the JVM names its map with the pid it sees there (NSpid's last field).
TEST(StackSymbolizer, APerfMapIsNamedWithThePidTheTargetSees) {
    if (!have_root("pid and mount namespaces")) GTEST_SKIP() << "SKIPPED: needs root";
    int report[2];
    ASSERT_EQ(pipe(report), 0);
    pid_t outer = fork();
    ASSERT_GE(outer, 0);
    if (outer == 0) {
        if (unshare(CLONE_NEWNS | CLONE_NEWPID) != 0 ||
            mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            mount("tmpfs", "/tmp", "tmpfs", 0, nullptr) != 0)
            _exit(1);
        pid_t inner = fork();  // pid 1 of the new namespace
        if (inner == 0) {
            std::ofstream("/tmp/perf-" + std::to_string(getpid()) + ".map") << "7f0000006000 40 Ns.pid\n";
            pause();
            _exit(0);
        }
        usleep(200000);  // the map is written
        if (inner < 0 || write(report[1], &inner, sizeof(inner)) != sizeof(inner)) _exit(1);
        waitpid(inner, nullptr, 0);
        _exit(0);
    }
    close(report[1]);
    pid_t inner = -1;
    bool reported = read(report[0], &inner, sizeof(inner)) == sizeof(inner);
    close(report[0]);
    std::string name, frame;
    if (reported) {
        StackSymbolizer symbolizer(inner);
        name = symbolizer.perf_map_name();
        (void)symbolizer.load_perf_map();
        frame = symbolizer.user_frame(0x7f0000006010);
        kill(inner, SIGKILL);
    }
    waitpid(outer, nullptr, 0);
    ASSERT_TRUE(reported);
    EXPECT_EQ(name, "/tmp/perf-1.map");
    EXPECT_EQ(frame, "Ns.pid");
}

// After the JVM's exit, finish() reads the map it left; one of another user is skipped with one
// warning line that says so.
TEST(JvmStacks, AnExitedJvmsMapOfAnotherUserIsSkippedWithOneWarning) {
    if (!have_root("a mount namespace with its own /tmp")) GTEST_SKIP() << "SKIPPED: needs root";
    std::optional<FakeTarget> jvm;
    jvm.emplace([](const std::string& map) {
        std::ofstream(map) << "7f0000007000 40 Planted.frame\n";
        return chown(map.c_str(), 12345, 12345) == 0;
    });
    ASSERT_TRUE(jvm->ready());
    Target target(std::move(*ProcessHandle::open(jvm->pid())));
    JvmStacks stacks(target);  // its symbolizer opens the target's /tmp now
    jvm.reset();               // the JVM exits
    stacks.finish();
    stacks.finish();
    ASSERT_EQ(stacks.warnings().size(), 1u);
    EXPECT_NE(stacks.warnings()[0].find("owned by uid 12345, neither the JVM's user nor root"), std::string::npos)
        << stacks.warnings()[0];
    EXPECT_NE(stacks.symbolizer().user_frame(0x7f0000007010), "Planted.frame");
}

TEST(PerfMapSchedule, ARefreshIsDueWhenNeededAndWithinItsBudget) {
    PerfMapSchedule s(0.01);  // 1% of the target's CPU
    EXPECT_FALSE(s.due(0));   // no stack needs it
    s.unnamed(2);
    EXPECT_TRUE(s.due(0));                // the first one: no cost known yet
    s.refreshed(5'000'000, 100'000'000);  // it cost the target 5 ms
    EXPECT_EQ(s.pending(), 0u);
    EXPECT_FALSE(s.due(10'000'000'000));  // needed by nothing since
    s.unnamed(1);
    EXPECT_FALSE(s.due(100'000'000 + 499'000'000));  // 1% of 499 ms is under 5 ms
    EXPECT_TRUE(s.due(100'000'000 + 500'000'000));
    s.refreshed(20'000'000, 700'000'000);  // a bigger code cache: 20 ms
    s.unnamed(1);
    EXPECT_FALSE(s.due(700'000'000ull + 1'999'000'000ull));
    EXPECT_TRUE(s.due(700'000'000ull + 2'000'000'000ull));
    EXPECT_EQ(s.refreshes(), 2u);
    EXPECT_EQ(s.cost_ns(), 25'000'000u);
}

namespace {
int a_function_of_this_file() { return 7; }
}  // namespace

TEST(JvmStacks, OnlyJitCodeTheMapDoesNotNameMakesARefreshNeeded) {
    // Anonymous executable memory stands in for the JVM's code cache.
    void* code = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(code, MAP_FAILED);
    uint64_t jit = reinterpret_cast<uint64_t>(code) + 16;
    uint64_t file = reinterpret_cast<uint64_t>(&a_function_of_this_file);
    EXPECT_EQ(a_function_of_this_file(), 7);
    Target self(std::move(*ProcessHandle::open(getpid())));
    JvmStacks stacks(self);
    stacks.symbolizer().snapshot_maps();
    EXPECT_EQ(stacks.symbolizer().classify(jit), JitAddress::kUnnamed);
    EXPECT_EQ(stacks.symbolizer().classify(file), JitAddress::kNotJit);
    EXPECT_EQ(stacks.symbolizer().classify(0x10), JitAddress::kUnmapped);
    std::vector<uint64_t> ips = {file, jit, 0x10};
    stacks.note_user_stack(ips);
    EXPECT_EQ(stacks.schedule().pending(), 1u);
    // Once the perf map names it, the same stack needs nothing.
    std::string map = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    {
        std::ofstream f(map);
        char line[64];
        std::snprintf(line, sizeof(line), "%llx 100 io.x.Jit.run\n", static_cast<unsigned long long>(jit - 16));
        f << line;
    }
    ASSERT_TRUE(stacks.symbolizer().load_perf_map());
    std::remove(map.c_str());
    EXPECT_EQ(stacks.symbolizer().classify(jit), JitAddress::kNamed);
    std::vector<std::string> frames = stacks.user_frames(ips);
    ASSERT_EQ(frames.size(), 3u);
    EXPECT_EQ(frames[1], "io.x.Jit.run");
    EXPECT_EQ(stacks.schedule().pending(), 1u);
    munmap(code, 4096);
}

namespace {

// In a child without CAP_SYSLOG in its effective set: whether the symbolizer found the kernel's
// symbol addresses hidden.
bool kernel_symbols_hidden_without_cap_syslog() {
    pid_t child = fork();
    if (child == 0) {
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        __user_cap_data_struct data[2] = {};
        if (syscall(SYS_capget, &header, data) != 0) _exit(2);
        data[CAP_SYSLOG / 32].effective &= ~(1u << (CAP_SYSLOG % 32));
        if (syscall(SYS_capset, &header, data) != 0) _exit(2);
        vtscope::StackSymbolizer symbolizer(getpid());
        (void)symbolizer.kernel_frame(0xffffffff81000000ull);
        _exit(symbolizer.kernel_symbols_hidden() ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int read_sysctl(const char* path) {
    std::ifstream file(path);
    int value = 0;
    file >> value;
    return value;
}

}  // namespace

// Without CAP_SYSLOG, /proc/kallsyms lists every name at address 0 (kallsyms_show_value,
// kernel/kallsyms.c): the symbolizer says so, and the profile warns once, rather than leave
// hexadecimal kernel frames unexplained.
TEST(StackSymbolizer, KernelSymbolsHiddenWithoutCapSyslogAreNoticed) {
    if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: needs root to drop CAP_SYSLOG alone";
    if (read_sysctl("/proc/sys/kernel/kptr_restrict") == 0 && read_sysctl("/proc/sys/kernel/perf_event_paranoid") <= 1)
        GTEST_SKIP() << "SKIPPED: this kernel shows kernel symbol addresses to every user";
    EXPECT_TRUE(kernel_symbols_hidden_without_cap_syslog());
    if (read_sysctl("/proc/sys/kernel/kptr_restrict") < 2) {
        vtscope::StackSymbolizer symbolizer(getpid());
        (void)symbolizer.kernel_frame(0xffffffff81000000ull);
        EXPECT_FALSE(symbolizer.kernel_symbols_hidden());
    }
}

// A thousand traces, each a little CPU in the same hot method and a few in a rare one: grouped,
// 30 towers and one root for the other 970, so no tower is a sliver; merged, one tower whose hot
// method is a labelled frame, and its stacks equal, stack by stack, the sum over the per-trace
// towers of a fold that keeps every trace.
TEST(Flamegraph, AThousandTracesStayReadableAndMergedEqualsTheSumOfTraces) {
    std::vector<ProfileRow> rows;
    for (int t = 0; t < 1000; t++) {
        char trace[33];
        std::snprintf(trace, sizeof(trace), "%032x", t + 1);
        rows.push_back(virtual_row(10 + t % 2, 100 + t, trace, 5 + t % 7,
                                   {"thread_native_entry", "demo.Handler.handle", "demo.Pricing.hotLoop"}));
        if (t % 10 == 0) rows.push_back(virtual_row(10, 100 + t, trace, 1, {"thread_native_entry", "demo.Rare.path"}));
    }
    ProfileInfo info = sample_info();
    std::set<std::string> roots;
    for (const FoldedStack& s : fold_stacks(rows, info)) roots.insert(s.frames.front());
    EXPECT_EQ(roots.size(), 31u);
    EXPECT_TRUE(roots.count("[970 other traces]"));
    info.merged = true;
    std::vector<FoldedStack> merged = fold_stacks(rows, info);
    info.merged = false;
    info.groups = 1000000;
    std::map<std::vector<std::string>, uint64_t> sum;
    for (FoldedStack& s : fold_stacks(rows, info)) {
        ASSERT_EQ(s.frames.front().rfind("trace ", 0), 0u) << s.frames.front();
        s.frames.front() = "[virtual threads]";
        sum[s.frames] += s.count;
    }
    std::map<std::vector<std::string>, uint64_t> merged_stacks;
    for (const FoldedStack& s : merged) merged_stacks[s.frames] += s.count;
    EXPECT_EQ(merged_stacks, sum);
    EXPECT_EQ(merged_stacks.size(), 2u);
    std::string svg = render_flamegraph_svg(merged, "t");
    EXPECT_NE(svg.find(">demo.Pricing.hotLoop</text>"), std::string::npos) << "the hot method has no label";
}
