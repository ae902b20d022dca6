// SPDX-License-Identifier: Apache-2.0
// The Perfetto timeline of `vtscope block --perfetto` (output/perfetto_timeline.h): its mount runs,
// and the trace read back with the messages it was written with (block_test.cpp decodes a real
// one with Perfetto's own proto).
#include "output/perfetto_timeline.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "vtscope_perfetto.pb.h"

namespace vtscope {
namespace {

TimelineInterval interval(uint32_t tid, int64_t vthread, uint64_t start, uint64_t end, std::string trace = "t1") {
    TimelineInterval i;
    i.tid = tid;
    i.vthread = vthread;
    i.start_ns = start;
    i.end_ns = end;
    i.trace_id = vthread > 0 ? trace : "";
    i.span_id = vthread > 0 ? "s1" : "";
    i.status = vthread > 0 ? "ok" : "no_context";
    i.reason = "syscall:futex";
    return i;
}

TEST(PerfettoTimeline, RunsJoinOneVirtualThreadsConsecutiveIntervalsOnACarrier) {
    std::vector<TimelineInterval> intervals = {
        interval(10, 1, 20, 30),       interval(10, 1, 0, 10),   // out of order: sorted by start
        interval(10, 2, 40, 50),       interval(10, 1, 60, 70),  // another thread between: a new run
        interval(10, 0, 75, 76),       interval(10, 1, 80, 85),  // a platform thread's interval too
        interval(10, 1, 90, 95, "t2"),                           // another trace: a new run
        interval(11, 1, 100, 110)};
    std::vector<MountRun> runs = mount_runs(intervals);
    ASSERT_EQ(runs.size(), 6u);
    EXPECT_EQ(runs[0].tid, 10u);
    EXPECT_EQ(runs[0].vthread, 1);
    EXPECT_EQ(runs[0].start_ns, 0u);
    EXPECT_EQ(runs[0].end_ns, 30u);
    EXPECT_EQ(runs[0].intervals, 2u);
    EXPECT_EQ(runs[1].vthread, 2);
    EXPECT_EQ(runs[2].start_ns, 60u);
    EXPECT_EQ(runs[2].end_ns, 70u);
    EXPECT_EQ(runs[3].start_ns, 80u);
    EXPECT_EQ(runs[4].trace_id, "t2");
    EXPECT_EQ(runs[5].tid, 11u);
}

TEST(PerfettoTimeline, TraceCarriesTheClockTracksSlicesAndFlows) {
    PerfettoTimeline timeline(4242, "java");
    timeline.name_thread(10, "ForkJoinPool-1-");
    timeline.add(interval(10, 7, 1000, 2000));
    timeline.add(interval(11, 7, 3000, 4000));  // no name given: "thread 11"
    timeline.add(interval(10, 8, 5000, 6000));
    perfetto::Trace trace;
    ASSERT_TRUE(trace.ParseFromString(timeline.serialize(123, 456)));
    ASSERT_GT(trace.packet_size(), 0);
    const auto& snapshot = trace.packet(0).clock_snapshot();
    ASSERT_EQ(snapshot.clocks_size(), 2);
    EXPECT_EQ(snapshot.clocks(0).clock_id(), 3u);  // MONOTONIC
    EXPECT_EQ(snapshot.clocks(0).timestamp(), 123u);
    EXPECT_EQ(snapshot.clocks(1).clock_id(), 6u);  // BOOTTIME
    EXPECT_EQ(snapshot.clocks(1).timestamp(), 456u);
    std::map<uint64_t, std::string> thread_names;
    std::map<uint64_t, uint64_t> tid_of;
    std::vector<const perfetto::TracePacket*> events;
    for (const auto& p : trace.packet()) {
        EXPECT_EQ(p.trusted_packet_sequence_id(), 1u);
        if (p.has_track_descriptor() && p.track_descriptor().has_thread()) {
            thread_names[p.track_descriptor().uuid()] = p.track_descriptor().thread().thread_name();
            tid_of[p.track_descriptor().uuid()] = static_cast<uint64_t>(p.track_descriptor().thread().tid());
            EXPECT_EQ(p.track_descriptor().thread().pid(), 4242);
        }
        if (p.has_track_event()) {
            EXPECT_EQ(p.timestamp_clock_id(), 3u);
            events.push_back(&p);
        }
    }
    ASSERT_EQ(thread_names.size(), 2u);
    EXPECT_EQ(thread_names.begin()->second, "ForkJoinPool-1-");
    EXPECT_EQ(std::next(thread_names.begin())->second, "thread 11");
    // Three runs and three intervals, a begin and an end each; at 1000 the run begins first.
    ASSERT_EQ(events.size(), 12u);
    EXPECT_EQ(events[0]->timestamp(), 1000u);
    EXPECT_EQ(events[0]->track_event().name(), "vthread 7");
    EXPECT_EQ(events[1]->track_event().name(), "pinned: syscall:futex");
    EXPECT_EQ(events[2]->track_event().type(), perfetto::TrackEvent::TYPE_SLICE_END);
    EXPECT_EQ(tid_of[events[0]->track_event().track_uuid()], 10u);
    // vthread 7 ran on two carriers: its two runs share a flow; vthread 8 has none.
    std::map<std::string, std::vector<uint64_t>> flows;
    for (const auto* e : events)
        for (uint64_t f : e->track_event().flow_ids()) flows[e->track_event().name()].push_back(f);
    EXPECT_EQ(flows["vthread 7"], (std::vector<uint64_t>{7, 7}));
    EXPECT_EQ(flows.count("vthread 8"), 0u);
    std::map<std::string, std::string> args;
    for (const auto& a : events[1]->track_event().debug_annotations())
        args[a.name()] = a.has_string_value() ? a.string_value() : std::to_string(a.int_value());
    EXPECT_EQ(args["vthread"], "7");
    EXPECT_EQ(args["trace_id"], "t1");
    EXPECT_EQ(args["span_id"], "s1");
    EXPECT_EQ(args["block_reason"], "syscall:futex");
}

}  // namespace
}  // namespace vtscope
