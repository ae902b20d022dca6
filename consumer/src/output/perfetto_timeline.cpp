// SPDX-License-Identifier: Apache-2.0
#include "output/perfetto_timeline.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "vtscope_perfetto.pb.h"

namespace vtscope {

namespace pb = ::vtscope::perfetto;

namespace {

// common/builtin_clock.proto: BUILTIN_CLOCK_MONOTONIC, BUILTIN_CLOCK_BOOTTIME.
constexpr uint32_t kClockMonotonic = 3;
constexpr uint32_t kClockBoottime = 6;
// Every packet is on one writer sequence (trusted_packet_sequence_id); any non-zero id serves.
constexpr uint32_t kSequence = 1;
// TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED (trace/trace_packet.proto).
constexpr uint32_t kIncrementalStateCleared = 1;

uint64_t process_uuid(pid_t pid) { return static_cast<uint64_t>(static_cast<uint32_t>(pid)) + 1; }
uint64_t thread_uuid(uint32_t tid) { return (uint64_t{1} << 32) | tid; }

// When several events share a timestamp, Perfetto nests them in the order the trace gives them
// (its sorter is stable within a sequence): ends of inner slices first, then ends of outer ones,
// then begins of outer slices, then begins of inner ones.
enum class Order { kEndInner = 0, kEndOuter = 1, kBeginOuter = 2, kBeginInner = 3 };

struct Event {
    uint64_t ts;
    Order order;
    pb::TrackEvent event;
};

void annotate(pb::TrackEvent& e, const char* name, int64_t value) {
    auto* a = e.add_debug_annotations();
    a->set_name(name);
    a->set_int_value(value);
}
void annotate(pb::TrackEvent& e, const char* name, const std::string& value) {
    auto* a = e.add_debug_annotations();
    a->set_name(name);
    a->set_string_value(value);
}
void annotate(pb::TrackEvent& e, const char* name, const std::vector<std::string>& frames) {
    auto* a = e.add_debug_annotations();
    a->set_name(name);
    for (const std::string& f : frames) a->add_array_values()->set_string_value(f);
}

void add_context(pb::TrackEvent& e, int64_t vthread, const std::string& trace_id, const std::string& span_id) {
    if (vthread > 0) annotate(e, "vthread", vthread);
    if (!trace_id.empty()) annotate(e, "trace_id", trace_id);
    if (!span_id.empty()) annotate(e, "span_id", span_id);
}

// A slice: its begin (carrying the name, arguments and flows) and its end.
void add_slice(std::vector<Event>& out, uint64_t start, uint64_t end, bool inner, pb::TrackEvent begin) {
    uint64_t track = begin.track_uuid();
    begin.set_type(pb::TrackEvent::TYPE_SLICE_BEGIN);
    out.push_back({start, inner ? Order::kBeginInner : Order::kBeginOuter, std::move(begin)});
    pb::TrackEvent e;
    e.set_type(pb::TrackEvent::TYPE_SLICE_END);
    e.set_track_uuid(track);
    out.push_back({end, inner ? Order::kEndInner : Order::kEndOuter, std::move(e)});
}

std::string interval_name(const TimelineInterval& i) {
    if (i.reason == "preempted") return "preempted";  // runnable, waiting for a CPU: not blocking
    return (i.vthread > 0 ? "pinned: " : "off-CPU: ") + i.reason;
}

void add_interval(std::vector<Event>& out, const TimelineInterval& i) {
    pb::TrackEvent e;
    e.set_track_uuid(thread_uuid(i.tid));
    e.set_name(interval_name(i));
    e.add_categories("block");
    add_context(e, i.vthread, i.trace_id, i.span_id);
    annotate(e, "status", i.status);
    annotate(e, "block_reason", i.reason);
    if (i.open) {
        auto* a = e.add_debug_annotations();
        a->set_name("open_at_end");
        a->set_bool_value(true);
    }
    if (!i.kernel_stack.empty()) annotate(e, "kernel_stack", i.kernel_stack);
    if (!i.user_stack.empty()) annotate(e, "user_stack", i.user_stack);
    add_slice(out, i.start_ns, i.end_ns, true, std::move(e));
}

// The mount runs, with a flow through the runs of each virtual thread seen in more than one.
void add_runs(std::vector<Event>& out, const std::vector<MountRun>& runs) {
    std::map<int64_t, size_t> runs_of;
    for (const MountRun& r : runs) runs_of[r.vthread]++;
    for (const MountRun& r : runs) {
        pb::TrackEvent e;
        e.set_track_uuid(thread_uuid(r.tid));
        e.set_name("vthread " + std::to_string(r.vthread));
        e.add_categories("mount");
        add_context(e, r.vthread, r.trace_id, r.span_id);
        annotate(e, "intervals", static_cast<int64_t>(r.intervals));
        // Flow ids are trace-wide (track_event.proto); the Java ids of one JVM's threads are unique.
        if (runs_of[r.vthread] > 1) e.add_flow_ids(static_cast<uint64_t>(r.vthread));
        add_slice(out, r.start_ns, r.end_ns, false, std::move(e));
    }
}

pb::TracePacket* descriptor(pb::Trace& trace) {
    auto* p = trace.add_packet();
    p->set_trusted_packet_sequence_id(kSequence);
    return p;
}

}  // namespace

std::vector<MountRun> mount_runs(std::vector<TimelineInterval> intervals) {
    std::stable_sort(intervals.begin(), intervals.end(), [](const auto& a, const auto& b) {
        return std::tie(a.tid, a.start_ns) < std::tie(b.tid, b.start_ns);
    });
    std::vector<MountRun> runs;
    for (const TimelineInterval& i : intervals) {
        // A thread with no virtual thread mounted (--all-threads) ends the run: another ran there.
        if (i.vthread <= 0) {
            runs.push_back({i.tid, 0, {}, {}, i.start_ns, i.end_ns, 0});
            continue;
        }
        MountRun* last = runs.empty() ? nullptr : &runs.back();
        if (last && last->tid == i.tid && last->vthread == i.vthread && last->trace_id == i.trace_id &&
            last->span_id == i.span_id) {
            last->end_ns = std::max(last->end_ns, i.end_ns);
            last->intervals++;
            continue;
        }
        runs.push_back({i.tid, i.vthread, i.trace_id, i.span_id, i.start_ns, i.end_ns, 1});
    }
    std::erase_if(runs, [](const MountRun& r) { return r.vthread <= 0; });
    return runs;
}

std::string PerfettoTimeline::serialize(uint64_t monotonic_ns, uint64_t boottime_ns) const {
    pb::Trace trace;
    auto* first = trace.add_packet();
    first->set_trusted_packet_sequence_id(kSequence);
    first->set_sequence_flags(kIncrementalStateCleared);
    first->set_timestamp(boottime_ns);  // a ClockSnapshot's own timestamp is on the trace clock
    auto* snapshot = first->mutable_clock_snapshot();
    auto* mono = snapshot->add_clocks();
    mono->set_clock_id(kClockMonotonic);
    mono->set_timestamp(monotonic_ns);
    auto* boot = snapshot->add_clocks();
    boot->set_clock_id(kClockBoottime);
    boot->set_timestamp(boottime_ns);

    auto* process = descriptor(trace)->mutable_track_descriptor();
    process->set_uuid(process_uuid(pid_));
    process->mutable_process()->set_pid(pid_);
    process->mutable_process()->set_process_name(process_name_);
    std::map<uint32_t, std::string> names = thread_names_;
    for (const TimelineInterval& i : intervals_) names.emplace(i.tid, "thread " + std::to_string(i.tid));
    for (const auto& [tid, name] : names) {
        auto* track = descriptor(trace)->mutable_track_descriptor();
        track->set_uuid(thread_uuid(tid));
        track->set_parent_uuid(process_uuid(pid_));
        track->mutable_thread()->set_pid(pid_);
        track->mutable_thread()->set_tid(tid);
        track->mutable_thread()->set_thread_name(name);
    }

    std::vector<Event> events;
    events.reserve(4 * intervals_.size());
    add_runs(events, mount_runs(intervals_));
    for (const TimelineInterval& i : intervals_) add_interval(events, i);
    std::stable_sort(events.begin(), events.end(),
                     [](const Event& a, const Event& b) { return std::tie(a.ts, a.order) < std::tie(b.ts, b.order); });
    for (Event& e : events) {
        auto* p = trace.add_packet();
        p->set_trusted_packet_sequence_id(kSequence);
        p->set_timestamp(e.ts);
        p->set_timestamp_clock_id(kClockMonotonic);
        *p->mutable_track_event() = std::move(e.event);
    }
    return trace.SerializeAsString();
}

}  // namespace vtscope
