// SPDX-License-Identifier: Apache-2.0
// vtscope block's pieces that need neither privilege nor a JVM: the JSON line, the syscall
// names, the options and the summary section.
#include <gtest/gtest.h>

#include <cstdint>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <nlohmann/json.hpp>
#include <set>

#include "process/unprivileged_run.h"
#include "sources/block_jfr.h"
#include "sources/jfr_events.h"
#include "sources/jfr_join.h"
#include "cli/block_options.h"
#include "core/block_model.h"
#include "output/block_format.h"
#include "output/event_format.h"
#include "output/json_io.h"
#include "output/block_summary.h"
#include "cli/options.h"
#include "sources/syscall_names.h"

TEST(BlockFormat, BlockedVirtualThreadInASyscall) {
    vtscope_block_event e{};
    e.ts_ns = 1000;
    e.duration_ns = 60000000;
    e.pid = 10;
    e.tid = 11;
    e.attribution.status = VTSCOPE_STATUS_OK;
    e.attribution.java_id = 77;
    e.attribution.mounted_virtual = 1;
    e.attribution.trace_flags = 1;
    for (int i = 0; i < 16; i++) e.attribution.trace_id[i] = static_cast<__u8>(0xa0 + i);
    for (int i = 0; i < 8; i++) e.attribution.span_id[i] = static_cast<__u8>(i);
    e.syscall_nr = 230;  // clock_nanosleep on x86_64
    e.block_reason = VTSCOPE_BLOCK_SYSCALL;
    EXPECT_EQ(vtscope::format_block_event(e, false),
              "{\"ts_ns\":1000,\"duration_ns\":60000000,\"pid\":10,\"tid\":11,\"vthread\":77,\"java_thread\":77,"
              "\"trace_id\":\"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\",\"span_id\":\"0001020304050607\",\"trace_flags\":1,"
              "\"status\":\"ok\",\"block_reason\":\"syscall\",\"syscall\":\"clock_nanosleep\",\"open\":false}");
}

// The interval line is written field by field (block_format.cpp); it must be the text of the same
// object built through nlohmann, byte for byte, for every status, reason, block reason and
// syscall (known, unknown, none), open or not.
TEST(BlockFormat, DirectLineIsTheJsonObjectsText) {
    for (unsigned status = 0; status <= VTSCOPE_STATUS_CONTEXT_UNKNOWN + 1; status++)
        for (unsigned reason = 0; reason <= VTSCOPE_REASON_NO_CONTEXT_WRITER + 1; reason++)
            for (int nr : {230, -1, 100000})
                for (bool open : {false, true}) {
                    vtscope_block_event e{};
                    e.ts_ns = 1000 + status;
                    e.duration_ns = 60000000;
                    e.pid = 10;
                    e.tid = 11;
                    e.attribution.status = status;
                    e.attribution.reason = reason;
                    e.attribution.java_id = 40 + status;
                    e.attribution.mounted_virtual = reason % 2;
                    e.attribution.trace_flags = 1;
                    e.attribution.trace_id[15] = 0xab;
                    e.attribution.span_id[0] = 0x0c;
                    e.syscall_nr = nr;
                    e.block_reason = (status + reason) % (VTSCOPE_BLOCK_OTHER + 1);
                    vtscope::OrderedJson j;
                    j["ts_ns"] = e.ts_ns;
                    j["duration_ns"] = e.duration_ns;
                    j["pid"] = e.pid;
                    j["tid"] = e.tid;
                    vtscope::add_attribution(j, e.attribution);
                    j["block_reason"] = vtscope::block_reason_name(e.block_reason);
                    const char* name = vtscope::syscall_name(nr);
                    j["syscall"] = name ? vtscope::OrderedJson(name) : vtscope::OrderedJson(nullptr);
                    j["open"] = open;
                    EXPECT_EQ(vtscope::format_block_event(e, open), vtscope::json_text(j))
                        << "status " << status << " reason " << reason << " syscall " << nr;
                }
}

TEST(BlockFormat, UnmappedOutsideASyscallStillOpen) {
    vtscope_block_event e{};
    e.attribution.status = VTSCOPE_STATUS_UNMAPPED;
    e.attribution.reason = VTSCOPE_REASON_READ_FAULT;
    e.syscall_nr = -1;
    e.block_reason = VTSCOPE_BLOCK_OTHER;
    std::string line = vtscope::format_block_event(e, true);
    EXPECT_NE(line.find("\"vthread\":null,\"java_thread\":null,\"trace_id\":null"), std::string::npos) << line;
    EXPECT_NE(line.find("\"status\":\"unmapped\",\"reason\":\"read_fault\",\"block_reason\":\"other\",\"syscall\":null,"
                        "\"open\":true}"),
              std::string::npos)
        << line;
}

TEST(BlockFormat, SyscallNamesFromTheUapiHeader) {
    EXPECT_STREQ(vtscope::syscall_name(0), "read");
    EXPECT_STREQ(vtscope::syscall_name(202), "futex");
    EXPECT_STREQ(vtscope::syscall_name(230), "clock_nanosleep");
    EXPECT_EQ(vtscope::syscall_name(-1), nullptr);
    EXPECT_EQ(vtscope::syscall_name(100000), nullptr);
}

TEST(BlockOptions, DefaultsAndValues) {
    auto o = vtscope::parse_options({"block", "--pid", "42"});
    ASSERT_TRUE(o) << o.error().message;
    EXPECT_EQ(o->command, vtscope::Command::kBlock);
    EXPECT_EQ(o->block.pid, 42);
    EXPECT_EQ(o->block.threshold_ms, 20);
    EXPECT_EQ(o->block.identity, vtscope::IdentityChannel::kVmStructs);
    EXPECT_FALSE(o->block.all_threads);
    o = vtscope::parse_options({"block", "--pid=7", "--threshold", "5", "--all-threads", "--duration", "2.5",
                                "--output", "x.jsonl", "--summary-json", "s.json", "--identity", "otep-tls"});
    ASSERT_TRUE(o) << o.error().message;
    EXPECT_EQ(o->block.threshold_ms, 5);
    EXPECT_TRUE(o->block.all_threads);
    EXPECT_EQ(*o->block.duration_seconds, 2.5);
    EXPECT_EQ(o->block.output, "x.jsonl");
    EXPECT_EQ(o->block.identity, vtscope::IdentityChannel::kOtepTls);
    o = vtscope::parse_options({"block", "--help"});
    ASSERT_TRUE(o);
    EXPECT_EQ(o->command, vtscope::Command::kHelp);
    EXPECT_EQ(o->help_topic, "block");
    EXPECT_NE(vtscope::usage("block").find("--threshold MS"), std::string::npos);
}

TEST(BlockOptions, BadInput) {
    EXPECT_FALSE(vtscope::parse_options({"block"}));
    EXPECT_FALSE(vtscope::parse_options({"block", "--pid", "0"}));
    EXPECT_EQ(vtscope::parse_options({"block", "--pid", "x"})->block.pid_name, "x");  // a name, resolved at run
    EXPECT_FALSE(vtscope::parse_options({"block", "--pid", "1", "--threshold", "-3"}));
    EXPECT_FALSE(vtscope::parse_options({"block", "--pid", "1", "--threshold"}));
    EXPECT_FALSE(vtscope::parse_options({"block", "--pid", "1", "--duration", "0"}));
    EXPECT_FALSE(vtscope::parse_options({"block", "--pid", "1", "--identity", "nope"}));
    EXPECT_FALSE(vtscope::parse_options({"block", "--pid", "1", "--output", ""}));
    EXPECT_TRUE(vtscope::parse_options({"block", "--pid", "1", "--jfr"})->block.jfr);
    EXPECT_FALSE(vtscope::parse_options({"block", "--pid", "1"})->block.stacks);
    EXPECT_TRUE(vtscope::parse_options({"block", "--pid", "1", "--stacks"})->block.stacks);
}

// --stacks: leaf first, a truncated stack marked by a last "[truncated]" frame, a missing one null
// with its reason; the fields go before the closing brace.
TEST(BlockFormat, StackFields) {
    vtscope::BlockStack kernel{{"__schedule_[k]", "schedule_[k]"}, "", false};
    vtscope::BlockStack user{{"clock_nanosleep", "a.B.c"}, "", true};
    std::string fields = vtscope::format_block_stacks(kernel, user);
    EXPECT_EQ(fields,
              ",\"kernel_stack\":[\"__schedule_[k]\",\"schedule_[k]\"],\"kernel_stack_error\":null,"
              "\"user_stack\":[\"clock_nanosleep\",\"a.B.c\",\"[truncated]\"],\"user_stack_error\":null");
    vtscope::BlockStack missing{{}, "not readable (Bad address)", false};
    fields = vtscope::format_block_stacks(kernel, missing);
    EXPECT_NE(fields.find(",\"user_stack\":null,\"user_stack_error\":\"not readable (Bad address)\""),
              std::string::npos)
        << fields;
    vtscope_block_event e{};
    std::string line = vtscope::format_block_event(e, false, fields);
    EXPECT_NE(line.find("\"open\":false,\"kernel_stack\":["), std::string::npos) << line;
    EXPECT_EQ(line.back(), '}');
}

// A symbol or a JFR frame of the target's may be no well-formed UTF-8 (a name cut inside a
// character): the line stays JSON, each such byte one U+FFFD, and quotes stay escaped.
TEST(BlockFormat, TargetStringsStayValidJson) {
    vtscope::BlockStack kernel{{"\xD0\x9F\xD1"}, "", false}, user{{"a\"b"}, "", false};
    std::string line =
        vtscope::format_block_event(vtscope_block_event{}, false, vtscope::format_block_stacks(kernel, user));
    auto json = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << line;
    EXPECT_EQ(json["kernel_stack"][0], "\xD0\x9F\xEF\xBF\xBD");
    EXPECT_EQ(json["user_stack"][0], "a\"b");
    vtscope::JfrPinnedEvent jfr;
    jfr.vthread = 9;
    jfr.pinned_reason = "Native frame\xFF";
    jfr.stack = {"x.Y.z:1"};
    auto only = nlohmann::json::parse(vtscope::format_jfr_only_line(jfr, 4), nullptr, false);
    ASSERT_FALSE(only.is_discarded());
    EXPECT_EQ(only["jfr_only"], true);
    EXPECT_EQ(only["vthread"], 9);
    EXPECT_EQ(only["jfr_pinned_reason"], "Native frame\xEF\xBF\xBD");
    EXPECT_EQ(only["jfr_stack"][0], "x.Y.z:1");
    EXPECT_EQ(vtscope::format_jfr_fields(nullptr),
              ",\"jfr_pinned_reason\":null,\"jfr_blocking_operation\":null,\"jfr_stack\":null");
}

TEST(BlockSummary, TotalsPerTraceAndVirtualThread) {
    vtscope::BlockAggregate agg;
    const vtscope::BlockReason futex{VTSCOPE_BLOCK_SYSCALL, SYS_futex}, preempted{VTSCOPE_BLOCK_PREEMPTED, -1};
    agg.all.add(futex, 2, 120000000, true);
    agg.by_trace[vtscope::TraceKey{0xab, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xcd}].add(futex, 2, 120000000,
                                                                                              true);
    agg.by_vthread[5].add(futex, 1, 60000000, true);
    agg.by_vthread[5].add(preempted, 3, 1000000, false);
    agg.by_vthread[5].add(futex, 0, 0, false);  // an existing reason: summed, not listed twice
    std::string text = vtscope::render_block_text(agg, 10);
    agg.all.add(preempted, 3, 1000000, false);
    agg.by_vthread[6].add(preempted, 1, 9000000, true);  // waited for a CPU only: not ranked
    EXPECT_NE(
        text.find("vtscope: block: 2 blocking intervals with a virtual thread mounted (2 reported), 120.0 ms blocked"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("vtscope: block: vthread 5: 1 intervals, 60.0 ms (syscall:futex 60.0 ms; 1.0 ms waiting "
                        "for a CPU)"),
              std::string::npos)
        << text;
    text = vtscope::render_block_text(agg, 10);
    EXPECT_NE(text.find("vtscope: block: waiting for a CPU (preempted, not blocking): 3 intervals (0 reported), "
                        "1.0 ms"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("vthread 6:"), std::string::npos) << text;
    std::string json = vtscope::render_block_json(agg, 10);
    EXPECT_NE(json.find("\"traces\":[{\"trace_id\":\"ab0000000000000000000000000000cd\",\"count\":2,\"reported\":2,"
                        "\"blocked_ns\":120000000"),
              std::string::npos)
        << json;
}

// The lists: most blocked time first, equal totals by key, at most --top of them.
TEST(BlockSummary, ListsAreOrderedAndCut) {
    vtscope::BlockAggregate agg;
    const vtscope::BlockReason other{VTSCOPE_BLOCK_OTHER, -1};
    for (int64_t id : {9, 7, 8}) agg.by_vthread[id].add(other, 1, 5000000, false);
    agg.by_vthread[3].add(other, 1, 1000000, false);
    agg.by_vthread[4].add(other, 1, 9000000, false);
    std::string text = vtscope::render_block_text(agg, 3);
    size_t v4 = text.find("vthread 4:"), v7 = text.find("vthread 7:"), v8 = text.find("vthread 8:");
    ASSERT_NE(v4, std::string::npos) << text;
    ASSERT_NE(v7, std::string::npos) << text;
    ASSERT_NE(v8, std::string::npos) << text;
    EXPECT_LT(v4, v7);
    EXPECT_LT(v7, v8);
    EXPECT_EQ(text.find("vthread 9:"), std::string::npos) << text;
    EXPECT_EQ(text.find("vthread 3:"), std::string::npos) << text;
}

// Trace ids that differ only in their high half (or only in their low half) still spread.
TEST(BlockSummary, TraceKeysHashOverBothHalves) {
    std::set<size_t> high_only, low_only;
    for (unsigned i = 0; i < 1000; i++) {
        vtscope::TraceKey high{}, low{};
        std::memcpy(high.data(), &i, sizeof(i));
        std::memcpy(low.data() + 8, &i, sizeof(i));
        high_only.insert(vtscope::TraceKeyHash{}(high));
        low_only.insert(vtscope::TraceKeyHash{}(low));
    }
    EXPECT_EQ(high_only.size(), 1000u);
    EXPECT_EQ(low_only.size(), 1000u);
}

// A table past twice its keep keeps the heaviest entries exact and counts what it folded.
TEST(BoundedTotals, FoldsTheLightestHalfPastTwiceTheKeep) {
    std::map<int, uint64_t> table;
    vtscope::FoldedKeys folded;
    auto weight = [](uint64_t w) { return w; };
    for (int k = 1; k <= 8; k++) {
        table[k] = 10 * k;
        vtscope::fold_lightest(table, 4, weight, weight, &folded);
    }
    EXPECT_EQ(table.size(), 8u);  // 2 * keep: nothing folded yet
    EXPECT_EQ(folded.keys, 0u);
    table[9] = 5;
    vtscope::fold_lightest(table, 4, weight, weight, &folded);
    ASSERT_EQ(table.size(), 4u);
    for (int k : {5, 6, 7, 8}) EXPECT_EQ(table.count(k), 1u) << k;
    EXPECT_EQ(folded.keys, 5u);
    EXPECT_EQ(folded.weight, 10u + 20 + 30 + 40 + 5);
}

TEST(BlockSummary, FoldedEntriesAreSaid) {
    vtscope::BlockAggregate agg;
    agg.folded_traces = {3, 4500000};
    agg.folded_vthreads = {2, 1000000};
    std::string text = vtscope::render_block_text(agg, 10);
    EXPECT_NE(
        text.find("note: block: 3 traces (4.5 ms) and 2 virtual threads (1.0 ms) with the least blocked time left the "
                  "lists below, which keep 20000 of each in memory"),
        std::string::npos)
        << text;
    std::string json = vtscope::render_block_json(agg, 10);
    EXPECT_NE(json.find("\"folded\":{\"traces\":3,\"traces_blocked_ns\":4500000,\"vthreads\":2,"
                        "\"vthreads_blocked_ns\":1000000}"),
              std::string::npos)
        << json;
}

TEST(BlockJfr, TimesAndEventsOfJfrPrintJson) {
    int64_t epoch = 0;
    ASSERT_TRUE(vtscope::parse_jfr_instant("1970-01-01T00:00:01.5Z", &epoch));
    EXPECT_EQ(epoch, 1500000000);
    ASSERT_TRUE(vtscope::parse_jfr_instant("2026-12-01T08:34:46.444669170Z", &epoch));
    EXPECT_EQ(epoch % 1000000000, 444669170);
    EXPECT_FALSE(vtscope::parse_jfr_instant("2026-12-01 08:34:46", &epoch));
    uint64_t ns = 0;
    ASSERT_TRUE(vtscope::parse_jfr_duration("PT0.060084904S", &ns));
    EXPECT_EQ(ns, 60084904u);
    ASSERT_TRUE(vtscope::parse_jfr_duration("PT1M2.5S", &ns));
    EXPECT_EQ(ns, 62500000000u);
    EXPECT_FALSE(vtscope::parse_jfr_duration("0.06", &ns));
    auto events = vtscope::parse_jfr_pinned_json(
        R"({"recording":{"events":[{"type":"jdk.VirtualThreadPinned","values":{"startTime":"1970-01-01T00:00:10Z",)"
        R"("duration":"PT0.06S","eventThread":{"javaThreadId":45,"virtual":true},"stackTrace":{"frames":[)"
        R"({"method":{"type":{"name":"java\/lang\/VirtualThread"},"name":"park"},"lineNumber":12}]},)"
        R"("blockingOperation":"LockSupport.park","pinnedReason":"Native or VM frame on stack"}}]}})",
        4000000000LL);
    ASSERT_TRUE(events) << events.error().message;
    ASSERT_EQ(events->size(), 1u);
    const auto& e = (*events)[0];
    EXPECT_EQ(e.vthread, 45);
    EXPECT_EQ(e.start_ns, 6000000000u);
    EXPECT_EQ(e.duration_ns, 60000000u);
    EXPECT_EQ(e.pinned_reason, "Native or VM frame on stack");
    EXPECT_EQ(e.blocking_operation, "LockSupport.park");
    ASSERT_EQ(e.stack.size(), 1u);
    EXPECT_EQ(e.stack[0], "java.lang.VirtualThread.park:12");
}

// A recording's times are the target's text: an error that shows them shows them escaped.
// Found by the jfr fuzz target (consumer/fuzz/regressions/jfr): a recording's numbers and times
// out of range were cast to integers (undefined behaviour) or wrapped.
TEST(BlockJfr, OutOfRangeTimesAndNumbersAreRefusedNotCast) {
    int64_t epoch = 0;
    uint64_t ns = 0;
    EXPECT_FALSE(vtscope::parse_jfr_instant("9999-12-07T13:43:04.9Z", &epoch));
    EXPECT_FALSE(vtscope::parse_jfr_instant("  26-2-7T3:3:0Z", &epoch));
    EXPECT_FALSE(vtscope::parse_jfr_instant("2026-13-07T13:43:04Z", &epoch));
    EXPECT_FALSE(vtscope::parse_jfr_duration("PT1e300S", &ns));
    EXPECT_FALSE(vtscope::parse_jfr_duration("PTnanS", &ns));
    EXPECT_FALSE(vtscope::parse_jfr_duration("PT-1S", &ns));
    auto event = [](const std::string& start, const std::string& thread_id, const std::string& line) {
        return "{\"recording\":{\"events\":[{\"type\":\"jdk.VirtualThreadPinned\",\"values\":{\"startTime\":\"" +
               start + "\",\"duration\":\"PT0.08S\",\"eventThread\":{\"javaThreadId\":" + thread_id +
               "},\"stackTrace\":{\"frames\":[{\"method\":{\"type\":{\"name\":\"a/B\"},\"name\":\"c\"},"
               "\"lineNumber\":" +
               line + "}]}}}]}}";
    };
    auto ok = vtscope::parse_jfr_pinned_json(event("2026-12-07T13:43:04Z", "27", "1e300"), 0);
    ASSERT_TRUE(ok) << ok.error().message;
    ASSERT_EQ(ok->size(), 1u);
    EXPECT_EQ((*ok)[0].vthread, 27);
    EXPECT_EQ((*ok)[0].stack, std::vector<std::string>{"a.B.c"});  // no line number rather than a cast
    EXPECT_FALSE(vtscope::parse_jfr_pinned_json(event("2026-12-07T13:43:04Z", "1e300", "3"), 0));
    int64_t later = 2000000000LL * 1000000000LL;  // the clock offset of a machine booted in 2033
    EXPECT_FALSE(vtscope::parse_jfr_pinned_json(event("2026-12-07T13:43:04Z", "27", "3"), later));
    EXPECT_FALSE(vtscope::parse_jfr_pinned_json(event("2026-12-07T13:43:04Z", "27", "3"), INT64_MIN));
}

TEST(BlockJfr, AnUnexpectedTimeIsShownEscaped) {
    auto events = vtscope::parse_jfr_pinned_json(
        R"({"recording":{"events":[{"type":"jdk.VirtualThreadPinned","values":{"startTime":"\u001b[2Jnow\n",)"
        R"("duration":"PT0.06S","eventThread":{"javaThreadId":45}}}]}})",
        0);
    ASSERT_FALSE(events);
    EXPECT_EQ(events.error().message.find('\x1b'), std::string::npos) << events.error().message;
    EXPECT_EQ(events.error().message.find('\n'), std::string::npos) << events.error().message;
    EXPECT_NE(events.error().message.find("\\x1b[2Jnow\\n"), std::string::npos) << events.error().message;
}

TEST(BlockSummary, CarriersBlockedAtOnce) {
    vtscope::BlockAggregate agg;
    // Carrier 1 blocked 0-100, carrier 2 blocked 50-120 and 130-200: both at once 50-100.
    agg.compute_carriers({{0, 100, 1}, {50, 120, 2}, {130, 200, 2}});
    EXPECT_EQ(agg.carriers, 2u);
    EXPECT_EQ(agg.all_carriers_blocked_ns, 50u);
    agg.compute_carriers({{0, 100, 1}, {100, 150, 1}});
    EXPECT_EQ(agg.carriers, 1u);
    EXPECT_EQ(agg.all_carriers_blocked_ns, 150u);
}

namespace {

// The join as it was first written (every event against every interval): the reference the
// indexed join must agree with.
std::vector<long> exhaustive_join(const std::vector<vtscope::JfrJoinInterval>& intervals,
                                  const std::vector<vtscope::JfrPinnedEvent>& events, uint64_t slack) {
    std::vector<char> taken(intervals.size(), 0);
    std::vector<long> joined;
    for (const auto& j : events) {
        long best = -1;
        uint64_t best_overlap = 0;
        for (size_t i = 0; i < intervals.size(); i++) {
            const auto& p = intervals[i];
            if (taken[i] || !p.eligible || p.vthread != j.vthread) continue;
            uint64_t lo = std::max<uint64_t>(p.start_ns, j.start_ns > slack ? j.start_ns - slack : 0);
            uint64_t hi = std::min<uint64_t>(p.end_ns, j.start_ns + j.duration_ns + slack);
            if (hi > lo && hi - lo > best_overlap) {
                best_overlap = hi - lo;
                best = static_cast<long>(i);
            }
        }
        if (best >= 0) taken[static_cast<size_t>(best)] = 1;
        joined.push_back(best);
    }
    return joined;
}

vtscope::JfrPinnedEvent pinned(int64_t vthread, uint64_t start, uint64_t duration) {
    vtscope::JfrPinnedEvent e;
    e.vthread = vthread;
    e.start_ns = start;
    e.duration_ns = duration;
    return e;
}

}  // namespace

// Overlapping intervals of a few threads, ineligible ones, equal overlaps, events at 0: the
// indexed join picks what the exhaustive one picks.
TEST(BlockJfr, JoinAgreesWithTheExhaustiveSearch) {
    std::mt19937_64 random(42);
    for (int round = 0; round < 200; round++) {
        std::vector<vtscope::JfrJoinInterval> intervals;
        for (int i = 0; i < 60; i++) {
            uint64_t start = random() % 1000, length = random() % 200;
            intervals.push_back({static_cast<int64_t>(random() % 4), random() % 8 != 0, start, start + length});
        }
        std::sort(intervals.begin(), intervals.end(),
                  [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
        std::vector<vtscope::JfrPinnedEvent> events;
        for (int e = 0; e < 50; e++)
            events.push_back(pinned(static_cast<int64_t>(random() % 5), random() % 1100, random() % 150));
        uint64_t slack = random() % 3 == 0 ? 0 : 20;
        ASSERT_EQ(vtscope::join_pinned_events(intervals, events, slack), exhaustive_join(intervals, events, slack))
            << "round " << round;
    }
}

// 100000 intervals and events of one virtual thread: the exhaustive join takes 1e10 steps.
TEST(BlockJfr, JoinIsNotQuadratic) {
    constexpr size_t kCount = 100000;
    std::vector<vtscope::JfrJoinInterval> intervals;
    std::vector<vtscope::JfrPinnedEvent> events;
    for (size_t i = 0; i < kCount; i++) {
        intervals.push_back({7, true, i * 100, i * 100 + 60});
        events.push_back(pinned(7, (kCount - 1 - i) * 100 + 10, 40));
    }
    auto started = std::chrono::steady_clock::now();
    auto joined = vtscope::join_pinned_events(intervals, events, 5);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
    ASSERT_EQ(joined.size(), kCount);
    for (size_t i = 0; i < kCount; i++) ASSERT_EQ(joined[i], static_cast<long>(kCount - 1 - i));
    // A target that makes all of them overlap at once still gets a bounded join.
    for (auto& interval : intervals) interval = {7, true, 0, 1ull << 40};
    started = std::chrono::steady_clock::now();
    joined = vtscope::join_pinned_events(intervals, events, 5);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

namespace {

// A directory below which only root may write (a fake JDK must be refused for its own sake, not
// for a world-writable /tmp above it).
std::string root_only_scratch() {
    char dir[] = "/run/vtscope-jfr-jdk-test-XXXXXX";
    return mkdtemp(dir) ? dir : "";
}

void write_script(const std::string& path, const std::string& marker) {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "#!/bin/sh\ntouch %s\n", marker.c_str());
    std::fclose(f);
    ASSERT_EQ(chmod(path.c_str(), 0755), 0);
}

}  // namespace

// --jfr-jdk must name a JDK root alone can change: each refusal names the path, and the refused
// jfr never runs (it would leave a marker).
TEST(BlockJfr, AJfrJdkOthersCanChangeIsRefusedAndNotRun) {
    if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: needs root (chown of a fake JDK)";
    struct stat st {};
    if (stat("/run", &st) != 0 || st.st_uid != 0 || (st.st_mode & 022)) GTEST_SKIP() << "SKIPPED: no root-only /run";
    std::string scratch = root_only_scratch();
    ASSERT_FALSE(scratch.empty());
    std::string jdk = scratch + "/jdk", marker = scratch + "/ran";
    ASSERT_EQ(mkdir(jdk.c_str(), 0755), 0);
    ASSERT_EQ(mkdir((jdk + "/bin").c_str(), 0755), 0);
    write_script(jdk + "/bin/jfr", marker);
    auto refusal = [&] {
        auto started = vtscope::JfrRecording::start(getpid(), 20000000, jdk);
        EXPECT_FALSE(started);
        return started ? std::string() : started.error().message;
    };
    ASSERT_EQ(chown(jdk.c_str(), 65534, 65534), 0);
    EXPECT_EQ(refusal(), "--jfr-jdk: " + jdk + " is not owned by root (refused)");
    ASSERT_EQ(chown(jdk.c_str(), 0, 0), 0);
    ASSERT_EQ(chmod(jdk.c_str(), 0775), 0);
    EXPECT_EQ(refusal(), "--jfr-jdk: " + jdk + " is group- or other-writable (refused)");
    ASSERT_EQ(chmod(jdk.c_str(), 0755), 0);
    ASSERT_EQ(chmod((jdk + "/bin").c_str(), 0757), 0);
    EXPECT_EQ(refusal(), "--jfr-jdk: " + jdk + "/bin is group- or other-writable (refused)");
    ASSERT_EQ(chmod((jdk + "/bin").c_str(), 0755), 0);
    ASSERT_EQ(chown((jdk + "/bin/jfr").c_str(), 65534, 65534), 0);
    EXPECT_EQ(refusal(), "--jfr-jdk: " + jdk + "/bin/jfr is not owned by root (refused)");
    ASSERT_EQ(chown((jdk + "/bin/jfr").c_str(), 0, 0), 0);
    auto trusted = vtscope::trusted_jfr_tool(jdk);
    ASSERT_TRUE(trusted) << trusted.error().message;
    EXPECT_EQ(*trusted, jdk + "/bin/jfr");
    // Below the world-writable /tmp, the JDK is refused for /tmp.
    auto under_tmp = vtscope::trusted_jfr_tool("/tmp");
    ASSERT_FALSE(under_tmp);
    EXPECT_EQ(under_tmp.error().message, "--jfr-jdk: /tmp is group- or other-writable (refused)");
    EXPECT_NE(access(marker.c_str(), F_OK), 0) << "a refused jfr ran";
    std::system(("rm -rf " + scratch).c_str());
}

TEST(BlockJfr, TheDefaultJfrJdkIsTrusted) {
    auto options = vtscope::parse_options({"block", "--pid", "1", "--jfr"});
    ASSERT_TRUE(options);
    auto trusted = vtscope::trusted_jfr_tool(options->block.jfr_jdk);
    EXPECT_TRUE(trusted) << trusted.error().message;
    EXPECT_EQ(vtscope::parse_options({"block", "--pid", "1", "--jfr-jdk", "/x"})->block.jfr_jdk, "/x");
}

// jfr print's runner: the given uid and gid and no other group, PATH and LANG only, output capped,
// time bounded.
TEST(BlockJfr, ToolsRunUnprivilegedInACleanEnvironment) {
    if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: needs root (setuid)";
    setenv("JAVA_TOOL_OPTIONS", "-Dinjected=1", 1);
    setenv("LD_PRELOAD", "", 1);
    vtscope::UnprivilegedRun run;
    run.uid = 65534;
    run.gid = 65534;
    run.max_stdout = 1 << 20;
    run.max_stderr = 1 << 10;
    run.timeout = std::chrono::seconds(10);
    int root_dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    run.cwd_fd = root_dir;
    run.argv = {"/bin/sh", "-c", "id -u; id -G; env | sort"};
    auto result = vtscope::run_unprivileged(run);
    close(root_dir);
    run.cwd_fd = -1;
    unsetenv("JAVA_TOOL_OPTIONS");
    unsetenv("LD_PRELOAD");
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->exit_code, 0);
    EXPECT_EQ(result->out, "65534\n65534\nLANG=C.UTF-8\nPATH=/usr/bin:/bin\nPWD=/\n") << result->err;
    run.argv = {"/bin/sh", "-c", "while :; do echo yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy; done"};
    auto flood = vtscope::run_unprivileged(run);
    ASSERT_FALSE(flood);
    EXPECT_NE(flood.error().message.find("wrote more than 1024 KiB (killed)"), std::string::npos)
        << flood.error().message;
    run.argv = {"/bin/sleep", "30"};
    run.timeout = std::chrono::milliseconds(300);
    auto started = std::chrono::steady_clock::now();
    auto slow = vtscope::run_unprivileged(run);
    ASSERT_FALSE(slow);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
    EXPECT_NE(slow.error().message.find("did not finish"), std::string::npos) << slow.error().message;
}
