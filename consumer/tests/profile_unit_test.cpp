// vtscope profile's pure parts: options, the report and folding, the flame graph, the perf map
// and symbol table look-ups, when the perf map is refreshed. No privilege, no JVM.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "../bpf/attribution.h"
#include "flamegraph.h"
#include "jvm_stacks.h"
#include "options.h"
#include "proc_stat.h"
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
    EXPECT_NE(json.find("{\"java_id\":40,\"samples\":30,\"cpu_ms\":60,\"share\":0.666667,\"traces\":{\"unknown\":30}}"),
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
    Target self(getpid());
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
