// SPDX-License-Identifier: Apache-2.0
// vtscope top's model, renderers, keys and options, without BPF: the sources' observer calls are
// made here with the keys and intervals their kernels would hand over.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "cli/top_view.h"
#include "core/top_model.h"
#include "output/top_render.h"

namespace vtscope {
namespace {

struct FakeClock {
    uint64_t now = 1'000'000'000;
};

vtscope_attribution attribution(int64_t vthread, unsigned char trace_byte, unsigned char span_byte = 0) {
    vtscope_attribution a{};
    a.java_id = vthread;
    a.mounted_virtual = vthread > 0;
    a.status = trace_byte ? VTSCOPE_STATUS_OK : VTSCOPE_STATUS_NO_CONTEXT;
    if (trace_byte) std::memset(a.trace_id, trace_byte, sizeof(a.trace_id));
    if (span_byte) std::memset(a.span_id, span_byte, sizeof(a.span_id));
    return a;
}

vtscope_stat_key stat_key(int64_t vthread, unsigned char trace_byte) {
    vtscope_attribution a = attribution(vthread, trace_byte);
    vtscope_stat_key k{};
    k.java_id = a.java_id;
    k.mounted_virtual = a.mounted_virtual;
    k.status = a.status;
    std::memcpy(k.trace_id, a.trace_id, sizeof(k.trace_id));
    return k;
}

vtscope_profile_key profile_key(uint32_t tid, int64_t vthread, unsigned char trace_byte, unsigned char span_byte) {
    vtscope_attribution a = attribution(vthread, trace_byte, span_byte);
    vtscope_profile_key k{};
    k.tid = tid;
    k.java_id = a.java_id;
    k.mounted_virtual = a.mounted_virtual;
    k.status = a.status;
    std::memcpy(k.trace_id, a.trace_id, sizeof(k.trace_id));
    std::memcpy(k.span_id, a.span_id, sizeof(k.span_id));
    return k;
}

std::string trace(unsigned char byte) {
    char hex[3];
    std::snprintf(hex, sizeof(hex), "%02x", byte);
    std::string out;
    for (int i = 0; i < 16; i++) out += hex;
    return out;
}

class TopModelTest : public ::testing::Test {
protected:
    FakeClock clock;
    TopModel model{[this] { return clock.now; },
                   [](uint32_t tid) { return "worker-" + std::to_string(tid) + "\x1b[2J"; }};
};

TEST_F(TopModelTest, SumsEachSourceUnderItsTraceSpanAndVirtualThread) {
    model.start();
    clock.now += 2'000'000'000;  // a 2 s interval
    model.on_syscalls(stat_key(7, 0xaa), 10, 4096);
    model.on_syscalls(stat_key(0, 0), 5, 100);  // no virtual thread, no context: totals only
    model.on_samples(profile_key(100, 7, 0xaa, 0x11), 3, 30'000'000);
    model.on_samples(profile_key(100, 8, 0xbb, 0x22), 1, 10'000'000);
    // A reported interval (tid, span) asleep and a summed one (no tid) preempted.
    model.on_blocked(attribution(7, 0xaa, 0x11), 100, clock.now - 50'000'000, VTSCOPE_BLOCK_SYSCALL, 1, 40'000'000);
    model.on_blocked(attribution(8, 0xbb), 0, 0, VTSCOPE_BLOCK_PREEMPTED, 4, 2'000'000);
    TopFrame f = model.take();
    EXPECT_EQ(f.seq, 1u);
    EXPECT_DOUBLE_EQ(f.interval_s, 2.0);
    EXPECT_EQ(f.totals.syscalls, 15u);
    EXPECT_EQ(f.totals.bytes, 4196u);
    EXPECT_EQ(f.totals.samples, 4u);
    EXPECT_EQ(f.totals.cpu_ns, 40'000'000u);
    EXPECT_EQ(f.totals.blocked_ns, 42'000'000u);
    EXPECT_EQ(f.totals.pinned_ns, 40'000'000u);  // the run-queue wait is not pinning
    ASSERT_EQ(f.traces.size(), 2u);
    sort_rows(f.traces, TopSort::kCpu);
    EXPECT_EQ(f.traces[0].trace_id, trace(0xaa));
    EXPECT_EQ(f.traces[0].totals.syscalls, 10u);
    EXPECT_EQ(f.traces[0].totals.cpu_ns, 30'000'000u);
    EXPECT_EQ(f.traces[0].totals.pinned_ns, 40'000'000u);
    EXPECT_EQ(f.traces[0].vthread, 7);
    EXPECT_EQ(f.traces[0].state, "running");
    EXPECT_EQ(f.traces[1].totals.blocked_ns, 2'000'000u);
    EXPECT_EQ(f.traces[1].totals.pinned_ns, 0u);
    // Spans: the samples and the reported interval; stat's counts have no span.
    ASSERT_EQ(f.spans.size(), 2u);
    sort_rows(f.spans, TopSort::kBlocked);
    EXPECT_EQ(f.spans[0].span_id, "1111111111111111");
    EXPECT_EQ(f.spans[0].totals.blocked_ns, 40'000'000u);
    EXPECT_EQ(f.spans[0].totals.syscalls, 0u);
    ASSERT_EQ(f.vthreads.size(), 2u);
    // The next interval starts empty.
    clock.now += 1'000'000'000;
    TopFrame next = model.take();
    EXPECT_EQ(next.seq, 2u);
    EXPECT_EQ(next.totals.syscalls, 0u);
    EXPECT_TRUE(next.traces.empty());
}

TEST_F(TopModelTest, CarriersShowTheLatestEventAndAnOpenPinnedInterval) {
    model.start();
    model.on_samples(profile_key(100, 7, 0xaa, 0x11), 1, 10'000'000);
    model.on_samples(profile_key(200, 0, 0, 0), 1, 10'000'000);  // never a carrier: not listed
    clock.now += 500'000'000;
    model.on_samples(profile_key(100, 9, 0xcc, 0x33), 1, 10'000'000);
    TopFrame f = model.take();
    ASSERT_EQ(f.carriers.size(), 1u);
    EXPECT_EQ(f.carriers[0].tid, 100u);
    EXPECT_EQ(f.carriers[0].vthread, 9);
    EXPECT_EQ(f.carriers[0].trace_id, trace(0xcc));
    EXPECT_EQ(f.carriers[0].since_ns, clock.now);
    EXPECT_FALSE(f.carriers[0].pinned);
    EXPECT_EQ(f.carriers[0].name, "worker-100\\x1b[2J");  // made safe for the terminal

    // An older reported interval changes nothing; an open one pins the carrier since its start.
    model.on_blocked(attribution(7, 0xaa), 100, clock.now - 400'000'000, VTSCOPE_BLOCK_SYSCALL, 1, 1'000'000);
    vtscope_block_event open{};
    open.tid = 100;
    open.ts_ns = clock.now - 100'000'000;
    open.attribution = attribution(9, 0xcc, 0x33);
    open.block_reason = VTSCOPE_BLOCK_SYSCALL;
    open.syscall_nr = 0;  // read
    model.begin_open_intervals();
    model.on_open_interval(open);
    model.end_open_intervals();
    clock.now += 1'000'000'000;
    f = model.take();
    ASSERT_EQ(f.carriers.size(), 1u);
    EXPECT_EQ(f.carriers[0].vthread, 9);
    EXPECT_TRUE(f.carriers[0].pinned);
    EXPECT_EQ(f.carriers[0].since_ns, open.ts_ns);
    EXPECT_EQ(f.carriers[0].reason, "syscall:read");
    // The pinned thread's rows show though nothing of it closed in the interval.
    ASSERT_EQ(f.traces.size(), 2u);
    auto pinned = std::find_if(f.traces.begin(), f.traces.end(), [](const TopRow& r) { return r.state == "pinned"; });
    ASSERT_NE(pinned, f.traces.end());
    EXPECT_EQ(pinned->trace_id, trace(0xcc));
    ASSERT_EQ(f.vthreads.size(), 2u);
}

TEST(TopRows, SortAndFilter) {
    std::vector<TopRow> rows(3);
    rows[0].trace_id = trace(0x01);
    rows[0].totals.cpu_ns = 5;
    rows[0].totals.syscalls = 100;
    rows[1].trace_id = trace(0x02);
    rows[1].totals.cpu_ns = 50;
    rows[1].totals.pinned_ns = 7;
    rows[2].trace_id = trace(0x03);
    rows[2].vthread = 4711;
    rows[2].totals.blocked_ns = 9;
    sort_rows(rows, TopSort::kCpu);
    EXPECT_EQ(rows[0].trace_id, trace(0x02));
    sort_rows(rows, TopSort::kSyscalls);
    EXPECT_EQ(rows[0].trace_id, trace(0x01));
    sort_rows(rows, TopSort::kBlocked);
    EXPECT_EQ(rows[0].trace_id, trace(0x03));
    sort_rows(rows, TopSort::kPinned);
    EXPECT_EQ(rows[0].trace_id, trace(0x02));
    EXPECT_EQ(filter_rows(rows, "").size(), 3u);
    ASSERT_EQ(filter_rows(rows, "471").size(), 1u);
    EXPECT_EQ(filter_rows(rows, "0202").size(), 1u);
    EXPECT_TRUE(filter_rows(rows, "zz").empty());
}

TopFrame sample_frame() {
    TopFrame f;
    f.seq = 3;
    f.interval_s = 2;
    f.end_ns = 10'000'000'000;
    f.totals.cpu_ns = 1'000'000'000;  // 50% of one core over 2 s
    f.totals.samples = 100;
    f.totals.syscalls = 2000;
    for (int i = 0; i < 30; i++) {
        TopRow r;
        r.trace_id = trace(static_cast<unsigned char>(i + 1));
        r.totals.cpu_ns = static_cast<uint64_t>(i) * 10'000'000;
        r.state = "running";
        f.traces.push_back(r);
    }
    TopCarrier c;
    c.tid = 42;
    c.name = "ForkJoinPool-1-";
    c.vthread = 77;
    c.trace_id = trace(0x1e);
    c.pinned = true;
    c.reason = "syscall:read";
    c.since_ns = 9'500'000'000;
    f.carriers.push_back(c);
    return f;
}

TEST(TopRender, ScreenFitsTheTerminalWithTheBusiestRowsFirstAndTheCarriers) {
    TopViewState view;
    view.pid = 1234;
    auto lines = render_top_screen(sample_frame(), view, 120, 20);
    ASSERT_EQ(lines.size(), 20u);
    for (const std::string& line : lines) EXPECT_LE(line.size(), 120u) << line;
    EXPECT_EQ(lines[0].rfind("vtscope top - pid 1234 - refresh 3, 2.0 s - rows by trace, sorted by cpu", 0), 0u);
    EXPECT_NE(lines[1].find("CPU 50.0% (100 samples)"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find("syscalls 1.0k/s"), std::string::npos) << lines[1];
    EXPECT_EQ(lines[5].rfind(trace(30), 0), 0u) << lines[5];  // the busiest (14.5% of a core)
    EXPECT_NE(lines[5].find("14.5"), std::string::npos) << lines[5];
    EXPECT_NE(lines[18].find("TID"), std::string::npos) << lines[18];
    EXPECT_EQ(lines[19].rfind("42       ForkJoinPool-1-      77", 0), 0u) << lines[19];
    EXPECT_NE(lines[19].find("0.5s pinned syscall:read"), std::string::npos) << lines[19];

    view.filter = "1d1d";
    view.paused = true;
    lines = render_top_screen(sample_frame(), view, 200, 40);
    EXPECT_NE(lines[0].find("filter: 1d1d  [paused]"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[5].rfind(trace(0x1d), 0), 0u) << lines[5];
    EXPECT_EQ(lines[6], "");
}

TEST(TopRender, BatchObjectHasTheDocumentedFields) {
    TopViewState view;
    view.pid = 1234;
    view.top = 2;
    auto j = nlohmann::json::parse(render_top_json(sample_frame(), view));
    EXPECT_EQ(j["refresh"], 3);
    EXPECT_EQ(j["pid"], 1234);
    EXPECT_EQ(j["interval_s"], 2);
    EXPECT_EQ(j["by"], "trace");
    EXPECT_EQ(j["sort"], "cpu");
    EXPECT_EQ(j["totals"]["cpu_percent"], 50);
    EXPECT_EQ(j["totals"]["syscalls_per_s"], 1000);
    EXPECT_EQ(j["row_count"], 30);
    ASSERT_EQ(j["rows"].size(), 2u);
    EXPECT_EQ(j["rows"][0]["trace_id"], trace(30));
    EXPECT_EQ(j["rows"][0]["cpu_ns"], 290'000'000);
    EXPECT_TRUE(j["rows"][0]["span_id"].is_null());
    EXPECT_EQ(j["rows"][0]["state"], "running");
    ASSERT_EQ(j["carriers"].size(), 1u);
    EXPECT_EQ(j["carriers"][0]["tid"], 42);
    EXPECT_EQ(j["carriers"][0]["vthread"], 77);
    EXPECT_EQ(j["carriers"][0]["state"], "pinned");
    EXPECT_EQ(j["carriers"][0]["reason"], "syscall:read");
    EXPECT_EQ(j["carriers"][0]["since_ns"], 9'500'000'000);
}

TEST(TopKeys, SwitchSortFilterPauseQuit) {
    TopViewState view;
    for (char k : std::string("vb")) EXPECT_FALSE(apply_top_key(view, static_cast<unsigned char>(k)));
    EXPECT_EQ(view.by, TopGrouping::kVthread);
    EXPECT_EQ(view.sort, TopSort::kBlocked);
    apply_top_key(view, 's');
    apply_top_key(view, 'p');
    EXPECT_EQ(view.by, TopGrouping::kSpan);
    EXPECT_EQ(view.sort, TopSort::kPinned);
    // While a filter is typed, letters are text, not keys; Enter ends it, Esc clears it.
    for (char k : std::string("/ab\x7f"
                              "c\x01q"))
        apply_top_key(view, static_cast<unsigned char>(k));
    EXPECT_TRUE(view.editing_filter);
    EXPECT_EQ(view.filter, "acq");
    apply_top_key(view, '\r');
    EXPECT_FALSE(view.editing_filter);
    EXPECT_EQ(view.filter, "acq");
    apply_top_key(view, '/');
    apply_top_key(view, 'x');
    apply_top_key(view, 0x1b);
    EXPECT_EQ(view.filter, "");
    apply_top_key(view, ' ');
    EXPECT_TRUE(view.paused);
    apply_top_key(view, 'y');
    apply_top_key(view, 't');
    apply_top_key(view, 'c');
    EXPECT_EQ(view.by, TopGrouping::kTrace);
    EXPECT_EQ(view.sort, TopSort::kCpu);
    EXPECT_TRUE(apply_top_key(view, 'q'));
}

TEST(TopOptions, DefaultsValuesAndErrors) {
    auto o = parse_options({"top", "-p", "42"});
    ASSERT_TRUE(static_cast<bool>(o)) << o.error().message;
    EXPECT_EQ(o->command, Command::kTop);
    EXPECT_EQ(o->top.pid, 42);
    EXPECT_EQ(o->top.interval_seconds, 1);
    EXPECT_EQ(o->top.iterations, 0);
    EXPECT_FALSE(o->top.batch);
    EXPECT_EQ(o->top.by, "trace");
    EXPECT_EQ(o->top.sort, "cpu");
    o = parse_options({"top", "--pid", "42", "--interval", "0.5", "--iterations", "3", "-b", "--by", "vthread",
                       "--sort", "pinned", "-n", "5", "--hz", "49", "-d", "10"});
    ASSERT_TRUE(static_cast<bool>(o)) << o.error().message;
    EXPECT_EQ(o->top.interval_seconds, 0.5);
    EXPECT_EQ(o->top.iterations, 3);
    EXPECT_TRUE(o->top.batch);
    EXPECT_EQ(o->top.by, "vthread");
    EXPECT_EQ(o->top.sort, "pinned");
    EXPECT_EQ(o->top.top, 5);
    EXPECT_EQ(o->top.hz, 49);
    EXPECT_EQ(o->top.duration_seconds, 10);
    for (const std::vector<std::string>& bad : {std::vector<std::string>{"top"},
                                                {"top", "-p", "42", "--interval", "0"},
                                                {"top", "-p", "42", "--interval", "x"},
                                                {"top", "-p", "42", "--iterations", "0"},
                                                {"top", "-p", "42", "--sort", "memory"},
                                                {"top", "-p", "42", "--by", "thread"}})
        EXPECT_FALSE(static_cast<bool>(parse_options(bad))) << bad.back();
}

}  // namespace
}  // namespace vtscope
