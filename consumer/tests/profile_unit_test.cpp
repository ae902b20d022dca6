// vtscope profile's pure parts: options, the report and folding, the flame graph, the perf map
// and symbol table look-ups. No privilege, no JVM.
#include <gtest/gtest.h>

#include "../bpf/attribution.h"
#include "flamegraph.h"
#include "options.h"
#include "profile_report.h"
#include "stack_symbolizer.h"

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
    EXPECT_FALSE(o->profile.per_cpu);
    EXPECT_TRUE(parse_options({"profile", "--pid", "1", "--per-cpu"})->profile.per_cpu);
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
    EXPECT_NE(usage().find("--flamegraph FILE.svg"), std::string::npos);
    for (auto args : std::vector<std::vector<std::string>>{{"profile"},
                                                           {"profile", "--pid", "1", "--hz", "10001"},
                                                           {"profile", "--pid", "1", "--by", "x"},
                                                           {"profile", "--pid", "1", "--folded"},
                                                           {"profile", "--pid", "1", "--duration", "-1"}})
        EXPECT_FALSE(parse_options(args).ok()) << ::testing::PrintToString(args);
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
