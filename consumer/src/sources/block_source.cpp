// SPDX-License-Identifier: Apache-2.0
#include "sources/block_source.h"

#include <bpf/bpf.h>
#include <time.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <optional>
#include <vector>

#include "block.skel.h"
#include "core/block_model.h"
#include "otlp/block_metrics.h"
#include "otlp/otlp_exporter.h"
#include "output/block_format.h"
#include "output/block_summary.h"
#include "output/event_format.h"
#include "output/json_io.h"
#include "output/perfetto_timeline.h"
#include "output/safe_text.h"
#include "output/namespace_fields.h"
#include "output/sinks.h"
#include "sources/block_jfr.h"
#include "sources/jfr_events.h"
#include "sources/jfr_join.h"
#include "symbols/jvm_stacks.h"

namespace vtscope {

namespace {

struct SkeletonDeleter {
    void operator()(block_bpf* skel) const { block_bpf__destroy(skel); }
};

uint64_t clock_ns(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
uint64_t monotonic_ns() { return clock_ns(CLOCK_MONOTONIC); }

// The first line of a /proc file of the target (a comm), made safe: the target names its threads.
std::string proc_name(const std::string& path, const std::string& fallback) {
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line) || line.empty()) return fallback;
    return valid_utf8(terminal_safe(line));
}

// The symbolised stacks of one interval (--stacks).
struct Stacks {
    BlockStack kernel, user;
};

unsigned clamp_status(unsigned status) {
    return status < VTSCOPE_STATUS_COUNT ? status : unsigned{VTSCOPE_STATUS_INVALID};
}

// Why a stack of bpf_get_stack's is missing: its negative return.
std::string stack_error(int32_t bytes) {
    if (bytes == -ENOENT) return "not taken (the task's stack entry could not be created: the map was full)";
    return std::string("not readable (") + std::strerror(-bytes) + ")";
}

// Whether the kernel's sched_clock is stable across CPUs, so that block may time intervals on
// the run queues' clocks: on x86, where the TSC is the clocksource. The kernel marks sched_clock
// unstable exactly when it marks the TSC unstable, which also takes the TSC off the clocksource
// list (mark_tsc_unstable, arch/x86/kernel/tsc.c). Elsewhere block times them on CLOCK_MONOTONIC.
bool sched_clock_is_stable() {
#if defined(__x86_64__)
    std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    std::string source;
    return static_cast<bool>(in >> source) && source == "tsc";
#else
    return false;
#endif
}

class BlockSource final : public EventSource {
public:
    BlockSource(const BlockOptions& options, const Target& target, OutputFile& output,
                std::unique_ptr<OtlpSession> otlp, SourceObserver* observer)
        : options_(options),
          target_(target),
          output_(output),
          otlp_(std::move(otlp)),
          observer_(observer),
          stacks_(target),
          namespace_fields_(target.pid, target.ns_pid) {}

    Status open(const AttributionCore& core) {
        skel_.reset(block_bpf__open());
        if (!skel_) return make_error(std::string("cannot open the BPF object: ") + std::strerror(errno));
        core.configure(skel_->obj, &skel_->rodata->attribution_config);
        threshold_ns_ = static_cast<uint64_t>(options_.threshold_ms * 1e6);
        aggregate_.keep = kept_entries(options_.top);
        skel_->rodata->threshold_ns = threshold_ns_;
        skel_->rodata->all_threads = options_.all_threads ? 1 : 0;
        skel_->rodata->collect_stacks = options_.stacks ? 1 : 0;
        skel_->rodata->sched_clock_stable = sched_clock_is_stable() ? 1 : 0;
        if (!options_.stacks) bpf_map__set_max_entries(skel_->maps.open_stacks, 1);
        if (int err = block_bpf__load(skel_.get())) return load_error(err, "block");
        if (!options_.perfetto.empty()) {
            auto file = OutputFile::open(options_.perfetto, "perfetto trace " + options_.perfetto);
            if (!file) return file.error();
            perfetto_file_ = std::move(*file);
            std::string pid = std::to_string(target_.pid);
            timeline_.emplace(target_.pid, proc_name("/proc/" + pid + "/comm", "pid " + pid));
        }
        auto ring = RingBufferReader::open(skel_->maps.events, [this](std::span<const uint8_t> r) { on_event(r); });
        if (!ring) return ring.error();
        ring_ = std::move(*ring);
        return ok_status();
    }

    bpf_object* object() override { return skel_->obj; }

    Status attach(Links& links) override {
        if (options_.stacks) stacks_.prepare();
        attached_ns_ = monotonic_ns();
        bpf_link* link = bpf_program__attach(skel_->progs.on_sched_switch);
        if (!link) return attach_error("tp_btf/sched_switch");
        links.emplace_back(link);
        link = bpf_program__attach(skel_->progs.on_block_task_exit);
        if (!link) return attach_error("tracepoint sched:sched_process_exit");
        links.emplace_back(link);
        if (options_.jfr) {
            auto recording = JfrRecording::start(target_.pid, threshold_ns_, options_.jfr_jdk);
            if (!recording) return recording.error();
            jfr_.emplace(std::move(*recording));
        }
        return ok_status();
    }

    Status poll(std::chrono::milliseconds timeout) override { return ring_->poll(timeout); }

    void sync() override {
        if (otlp_ && ++sync_rounds_ % 4 == 0) publish_histograms();  // every second
        if (options_.stacks) stacks_.sync_round();
        if (observer_) observe_open_intervals();
    }

    void finish() override {
        if (options_.stacks) stacks_.finish();  // the last perf map, for the final drain
        ring_->drain();
        close_open_intervals();
        if (otlp_) {
            publish_histograms();
            otlp_->shutdown();  // sends what is queued, for at most --otlp-timeout
        }
        aggregate_.session_ns = attached_ns_ ? monotonic_ns() - attached_ns_ : 0;
        aggregate_.compute_carriers(spans_);
        auto anomalies = read_percpu_counters(skel_->maps.block_anomalies, VTSCOPE_BLOCK_ANOMALY_COUNT);
        aggregate_.missed_switch_ins = anomalies[VTSCOPE_BLOCK_SWITCH_IN_UNSEEN];
        aggregate_.dropped_end_unknown += anomalies[VTSCOPE_BLOCK_END_UNKNOWN];
        bpf_prog_info info{};
        uint32_t info_len = sizeof(info);
        if (bpf_obj_get_info_by_fd(bpf_program__fd(skel_->progs.on_sched_switch), &info, &info_len) == 0)
            aggregate_.program_misses = info.recursion_misses;
        if (jfr_) join_jfr();
        output_.flush();
        if (timeline_) {
            uint64_t mono = monotonic_ns(), boot = clock_ns(CLOCK_BOOTTIME);
            perfetto_file_->write(timeline_->serialize(mono, boot));
            perfetto_file_->flush();
        }
    }

    int output_error() const override {
        if (output_.error() == 0 && perfetto_file_) return perfetto_file_->error();
        return output_.error();
    }

    void summarise(Summary& summary) const override {
        if (!jfr_error_.empty()) summary.error = jfr_error_;
        for (unsigned s = 0; s < VTSCOPE_STATUS_COUNT; s++) summary.delivered[s] = delivered_[s];
        summary.lost_cause = "the ring buffer or the open-interval map was full";
        summary.section_name = "block";
        summary.section_text = render_block_text(aggregate_, options_.top);
        summary.section_json = render_block_json(aggregate_, options_.top);
        if (otlp_) otlp_->summarise(summary);
    }

private:
    // block --otlp: the histograms so far, and their exemplars since the last export.
    void publish_histograms() { otlp_->metrics()->publish(block_duration_metrics(histograms_)); }

    // Every interval, reported or counted, goes into the summary's totals here.
    void add(const vtscope_attribution& a, unsigned block_reason, int syscall_nr, uint64_t n, uint64_t ns,
             bool long_interval, uint32_t tid = 0, uint64_t ts_ns = 0) {
        if (observer_) observer_->on_blocked(a, tid, ts_ns, block_reason, n, ns);
        BlockReason reason{block_reason, block_reason == VTSCOPE_BLOCK_SYSCALL ? syscall_nr : -1};
        auto add_n = [&](BlockTotals& t) { t.add(reason, n, ns, long_interval); };
        if (a.mounted_virtual && block_reason != VTSCOPE_BLOCK_PREEMPTED) aggregate_.carrier_blocked_ns += ns;
        add_n(aggregate_.all);
        auto blocked_ns = [](const BlockTotals& t) { return t.total_ns; };
        if (a.status == VTSCOPE_STATUS_OK) {
            TraceKey trace;
            static_assert(sizeof(a.trace_id) == sizeof(trace));
            std::memcpy(trace.data(), a.trace_id, sizeof(trace));
            add_n(aggregate_.by_trace[trace]);
            fold_lightest(aggregate_.by_trace, aggregate_.keep, blocked_ns, blocked_ns, &aggregate_.folded_traces);
        }
        if (a.mounted_virtual && a.java_id > 0 && a.status != VTSCOPE_STATUS_UNMAPPED) {
            add_n(aggregate_.by_vthread[a.java_id]);
            fold_lightest(aggregate_.by_vthread, aggregate_.keep, blocked_ns, blocked_ns, &aggregate_.folded_vthreads);
        }
    }

    // --stacks: one interval's stacks, symbolised now (the perf map names the JIT code that is
    // there now; one that names none of a JIT frame is written again, at most once a second, and
    // the stack read again).
    Stacks symbolise(const vtscope_block_stacks* s) {
        if (!s) return {{{}, stack_error(-ENOENT), false}, {{}, stack_error(-ENOENT), false}};
        auto frames_of = [](int32_t bytes, const __u64* ips) {
            size_t n = std::min<size_t>(static_cast<size_t>(bytes) / sizeof(__u64), VTSCOPE_BLOCK_STACK_DEPTH);
            return std::vector<uint64_t>(ips, ips + n);
        };
        BlockStack kernel, user;
        if (s->kernel_bytes < 0) {
            kernel.error = stack_error(s->kernel_bytes);
        } else {
            auto ips = frames_of(s->kernel_bytes, s->kernel);
            kernel.frames = stacks_.kernel_frames(ips);
            // The walk starts in the tracepoint's machinery (the program, bpf_trace_run4,
            // __traceiter_sched_switch, kernel/trace/bpf_trace.c); the task's own stack starts at
            // __schedule below it.
            auto machinery = [](const std::string& f) {
                return f.starts_with("bpf_prog_") || f.starts_with("bpf_trace_run") || f.starts_with("__bpf_trace_") ||
                       f.starts_with("__traceiter_");
            };
            auto first = std::find_if_not(kernel.frames.begin(), kernel.frames.end(), machinery);
            kernel.frames.erase(kernel.frames.begin(), first);
            kernel.truncated = ips.size() == VTSCOPE_BLOCK_STACK_DEPTH;
        }
        if (s->user_bytes < 0) {
            user.error = stack_error(s->user_bytes);
        } else {
            auto ips = frames_of(s->user_bytes, s->user);
            user.frames = stacks_.user_frames(ips);
            auto unnamed_jit = [](const std::string& f) { return f == "[unknown]" || f.starts_with("[anon"); };
            if (std::any_of(user.frames.begin(), user.frames.end(), unnamed_jit)) {
                uint64_t now = monotonic_ns();
                if (now - perf_map_written_ns_ >= 1000000000ull && target_.alive()) {
                    perf_map_written_ns_ = now;
                    if (stacks_.refresh_perf_map()) user.frames = stacks_.user_frames(ips);
                }
            }
            // A stack walked by frame pointer stops early at code without one (JIT code without
            // -XX:+PreserveFramePointer): complete only if it reaches the thread's entry frame.
            user.truncated = ips.size() == VTSCOPE_BLOCK_STACK_DEPTH ||
                             std::none_of(user.frames.begin(), user.frames.end(), is_entry_frame);
        }
        return {std::move(kernel), std::move(user)};
    }

    // --perfetto: the interval on its carrier's track, with the attribution its JSON line has.
    void add_to_timeline(const vtscope_block_event& e, bool open, const Stacks* stacks) {
        if (!timeline_->has_thread(e.tid)) {
            std::string task = "/proc/" + std::to_string(target_.pid) + "/task/" + std::to_string(e.tid) + "/comm";
            timeline_->name_thread(e.tid, proc_name(task, "thread " + std::to_string(e.tid)));
        }
        OrderedJson a;
        add_attribution(a, e.attribution);
        TimelineInterval i;
        i.start_ns = e.ts_ns;
        i.end_ns = e.ts_ns + e.duration_ns;
        i.tid = e.tid;
        i.vthread = a["vthread"].is_number() ? a["vthread"].get<int64_t>() : 0;
        if (a.contains("trace_id") && a["trace_id"].is_string()) i.trace_id = a["trace_id"].get<std::string>();
        if (a.contains("span_id") && a["span_id"].is_string()) i.span_id = a["span_id"].get<std::string>();
        i.status = status_name(e.attribution.status);
        i.reason = BlockReason{e.block_reason, e.block_reason == VTSCOPE_BLOCK_SYSCALL ? e.syscall_nr : -1}.name();
        i.open = open;
        if (stacks) {
            for (const BlockStack* s : {&stacks->kernel, &stacks->user}) {
                auto& frames = s == &stacks->kernel ? i.kernel_stack : i.user_stack;
                for (const std::string& f : s->frames) frames.push_back(valid_utf8(f));
                if (s->truncated) frames.push_back("[truncated]");
            }
        }
        timeline_->add(std::move(i));
    }

    void report(const vtscope_block_event& e, bool open, const Stacks* symbolised = nullptr) {
        std::string stacks = symbolised ? format_block_stacks(symbolised->kernel, symbolised->user) : std::string();
        if (timeline_) add_to_timeline(e, open, symbolised);
        delivered_[clamp_status(e.attribution.status)]++;
        add(e.attribution, e.block_reason, e.syscall_nr, 1, e.duration_ns, true, e.tid, e.ts_ns);
        if (open) aggregate_.open_at_end++;
        if (otlp_) {
            otlp_->logs()->offer(BlockLogEvent{e, open});  // queued or counted dropped, never waits
            int syscall = e.block_reason == VTSCOPE_BLOCK_SYSCALL ? e.syscall_nr : -1;
            histograms_[{e.block_reason, syscall}].add(
                e, static_cast<uint64_t>(static_cast<int64_t>(e.ts_ns) + realtime_offset_ns_));
        }
        if (e.attribution.mounted_virtual && e.block_reason != VTSCOPE_BLOCK_PREEMPTED)
            spans_.push_back({e.ts_ns, e.ts_ns + e.duration_ns, e.tid});
        // Looked up now, while the thread is most likely still there.
        std::string ns_fields = namespace_fields_.fields(e.tid);
        if (jfr_) {
            pending_.push_back({e, open, std::move(stacks), nullptr, std::move(ns_fields)});  // written by join_jfr
            return;
        }
        std::string line = format_block_event(e, open, stacks, ns_fields);
        line.push_back('\n');
        output_.write(line);
    }

    // Three record types, told apart by size (block.h).
    void on_event(std::span<const uint8_t> record) {
        if (record.size() == sizeof(vtscope_block_summary)) {
            return count(record.subspan(offsetof(vtscope_block_summary, key), sizeof(vtscope_block_key)),
                         record.subspan(offsetof(vtscope_block_summary, value), sizeof(vtscope_block_value)));
        }
        if (record.size() < sizeof(vtscope_block_event)) return;
        vtscope_block_event e;
        std::memcpy(&e, record.data(), sizeof(e));
        if (!options_.stacks) return report(e, false);
        if (record.size() < sizeof(vtscope_block_record)) {
            Stacks none = symbolise(nullptr);
            return report(e, false, &none);
        }
        auto stacks = std::make_unique<vtscope_block_stacks>();
        std::memcpy(stacks.get(), record.data() + offsetof(vtscope_block_record, stacks), sizeof(*stacks));
        Stacks symbolised = symbolise(stacks.get());
        report(e, false, &symbolised);
    }

    void count(std::span<const uint8_t> key_bytes, std::span<const uint8_t> value_bytes) {
        vtscope_block_key key;
        vtscope_block_value total;
        if (key_bytes.size() != sizeof(key) || value_bytes.size() != sizeof(total)) return;
        std::memcpy(&key, key_bytes.data(), sizeof(key));
        std::memcpy(&total, value_bytes.data(), sizeof(total));
        if (total.count == 0) return;
        delivered_[clamp_status(key.status)] += total.count;
        vtscope_attribution a{};
        a.java_id = key.java_id;
        a.status = key.status;
        a.mounted_virtual = key.mounted_virtual;
        std::memcpy(a.trace_id, key.trace_id, sizeof(a.trace_id));
        add(a, key.block_reason, key.syscall_nr, total.count, total.total_ns, false);
    }

    // Whether t's task has been on a CPU since the switch-out that opened its interval, which
    // sched_switch did not show (block.h): the kernel's count of its arrivals, schedstat's third
    // field (proc_pid_schedstat, fs/proc/base.c), grew. A task that is gone is taken as not: its
    // exit, while the program was attached, closed its interval.
    bool ran_since(const vtscope_block_task& t) const {
        if (t.out_runs == 0) return false;  // no CONFIG_SCHED_INFO
        std::ifstream in("/proc/" + std::to_string(target_.pid) + "/task/" + std::to_string(t.interval.tid) +
                         "/schedstat");
        uint64_t on_cpu_ns = 0, waited_ns = 0, runs = 0;
        if (!(in >> on_cpu_ns >> waited_ns >> runs)) return false;
        return runs != t.out_runs;
    }

    // vtscope top: the intervals open now, which say which carrier is held by which virtual thread
    // and since when. The map holds one entry per task ever seen switching out with a virtual
    // thread mounted (the carriers; every thread with --all-threads), so a walk is short.
    void observe_open_intervals() {
        int fd = bpf_map__fd(skel_->maps.open_intervals);
        uint32_t key = 0, next = 0;
        bool first = true;
        observer_->begin_open_intervals();
        while (bpf_map_get_next_key(fd, first ? nullptr : &key, &next) == 0) {
            first = false;
            key = next;
            vtscope_block_task t;
            if (bpf_map_lookup_elem(fd, &key, &t) == 0 && t.interval.ts_ns != 0)
                observer_->on_open_interval(t.interval);
        }
        observer_->end_open_intervals();
    }

    // The intervals still open when the session ended (threads off-CPU at the detach): closed
    // now, so the run loses none of them; and the short intervals still pending in a task's
    // entry (block.h) are counted.
    void close_open_intervals() {
        int fd = bpf_map__fd(skel_->maps.open_intervals);
        uint64_t now = monotonic_ns();
        uint32_t key = 0, next = 0;
        bool first = true;
        std::vector<vtscope_block_event> open;
        while (bpf_map_get_next_key(fd, first ? nullptr : &key, &next) == 0) {
            first = false;
            key = next;
            vtscope_block_task t;
            if (bpf_map_lookup_elem(fd, &key, &t) != 0) continue;
            if (t.interval.ts_ns != 0) {  // 0: closed
                if (ran_since(t)) {
                    aggregate_.dropped_end_unknown++;  // its switch-in went unseen, at an unknown time
                } else {
                    open.push_back(t.interval);
                }
            }
            if (t.pending.count != 0)
                count({reinterpret_cast<const uint8_t*>(&t.pending_key), sizeof(t.pending_key)},
                      {reinterpret_cast<const uint8_t*>(&t.pending), sizeof(t.pending)});
        }
        std::sort(open.begin(), open.end(), [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; });
        for (vtscope_block_event& e : open) {
            e.duration_ns = now > e.ts_ns ? now - e.ts_ns : 0;
            if (e.duration_ns >= threshold_ns_) {
                if (!options_.stacks) {
                    report(e, true);
                    continue;
                }
                auto stacks = std::make_unique<vtscope_block_stacks>();
                bool found = bpf_map_lookup_elem(bpf_map__fd(skel_->maps.open_stacks), &e.tid, stacks.get()) == 0;
                Stacks symbolised = symbolise(found ? stacks.get() : nullptr);
                report(e, true, &symbolised);
            } else {
                delivered_[clamp_status(e.attribution.status)]++;
                add(e.attribution, e.block_reason, e.syscall_nr, 1, e.duration_ns, false, e.tid, e.ts_ns);
            }
        }
    }

    // --jfr: reads the recording, joins each jdk.VirtualThreadPinned event to the interval of
    // the same virtual thread that overlaps it most (each interval takes at most one), writes
    // every interval in time order, then the events no interval took ("jfr_only").
    void join_jfr() {
        auto events = jfr_->finish(target_.alive());
        if (!events) {
            jfr_error_ = events.error().message;
        } else {
            jfr_events_ = std::move(*events);
        }
        // The recording asks JFR for the same threshold, yet JDK 25 wrote events far below it
        // (42.8 us under a 5 ms threshold): only the ones that pass it are joined or printed,
        // the rest counted, so a jfr_only line means a pin at least the threshold long that no
        // interval matched.
        auto short_event = [&](const JfrPinnedEvent& j) { return j.duration_ns < threshold_ns_; };
        auto kept_end = std::remove_if(jfr_events_.begin(), jfr_events_.end(), short_event);
        aggregate_.jfr_below_threshold = static_cast<uint64_t>(jfr_events_.end() - kept_end);
        jfr_events_.erase(kept_end, jfr_events_.end());
        std::sort(pending_.begin(), pending_.end(),
                  [](const Pending& a, const Pending& b) { return a.event.ts_ns < b.event.ts_ns; });
        constexpr uint64_t kSlackNs = 2000000;  // JFR's clock and the kernel's, and the span it times
        std::vector<JfrJoinInterval> intervals;
        intervals.reserve(pending_.size());
        for (const Pending& p : pending_)
            intervals.push_back({p.event.attribution.java_id, p.event.attribution.mounted_virtual != 0, p.event.ts_ns,
                                 p.event.ts_ns + p.event.duration_ns});
        std::vector<long> joined = join_pinned_events(intervals, jfr_events_, kSlackNs);
        std::vector<const JfrPinnedEvent*> unjoined;
        for (size_t e = 0; e < jfr_events_.size(); e++) {
            if (joined[e] >= 0) {
                pending_[static_cast<size_t>(joined[e])].jfr = &jfr_events_[e];
            } else {
                unjoined.push_back(&jfr_events_[e]);
            }
        }
        aggregate_.jfr = true;
        aggregate_.jfr_events = jfr_events_.size();
        aggregate_.jfr_only = unjoined.size();
        aggregate_.jfr_joined = jfr_events_.size() - unjoined.size();
        for (const Pending& p : pending_) {
            if (!p.jfr) aggregate_.reported_not_in_jfr++;
            std::string line = format_block_event(p.event, p.open, p.stacks + format_jfr_fields(p.jfr), p.ns_fields);
            line.push_back('\n');
            output_.write(line);
        }
        for (const JfrPinnedEvent* j : unjoined) output_.write(format_jfr_only_line(*j, target_.pid) + "\n");
    }

    const BlockOptions& options_;
    const Target& target_;
    OutputFile& output_;
    std::unique_ptr<OtlpSession> otlp_;  // --otlp
    SourceObserver* observer_;           // vtscope top
    BlockHistograms histograms_;
    int64_t realtime_offset_ns_ = static_cast<int64_t>(unix_now_ns()) - static_cast<int64_t>(monotonic_ns());
    unsigned sync_rounds_ = 0;
    uint64_t threshold_ns_ = 0;
    std::unique_ptr<block_bpf, SkeletonDeleter> skel_;
    std::unique_ptr<RingBufferReader> ring_;
    BlockAggregate aggregate_;
    uint64_t attached_ns_ = 0;
    JvmStacks stacks_;                         // --stacks
    NamespaceFields namespace_fields_;         // ns_pid and ns_tid, for a target in a container
    uint64_t perf_map_written_ns_ = 0;         // --stacks: when an unnamed JIT frame last had it written
    std::vector<BlockAggregate::Span> spans_;  // reported intervals of carriers, for the stall time
    // --jfr: the intervals, held back until the recording is read, and its events.
    struct Pending {
        vtscope_block_event event;
        bool open;
        std::string stacks;  // --stacks: its fields
        const JfrPinnedEvent* jfr;
        std::string ns_fields;  // ns_pid and ns_tid, for a target in a container
    };
    std::optional<JfrRecording> jfr_;
    std::vector<Pending> pending_;
    std::vector<JfrPinnedEvent> jfr_events_;
    std::string jfr_error_;
    uint64_t delivered_[VTSCOPE_STATUS_COUNT] = {};
    std::unique_ptr<OutputFile> perfetto_file_;  // --perfetto
    std::optional<PerfettoTimeline> timeline_;
};

}  // namespace

Expected<std::unique_ptr<EventSource>> open_block_source(const BlockOptions& options, const Target& target,
                                                         const AttributionCore& core, OutputFile& output,
                                                         SourceObserver* observer) {
    OtlpSession::Signals signals;
    signals.logs = signals.metrics = true;
    auto otlp = OtlpSession::start(options.otlp, target.pid, signals);
    if (!otlp) return otlp.error();
    auto source = std::make_unique<BlockSource>(options, target, output, std::move(*otlp), observer);
    if (auto status = source->open(core); !status) return status.error();
    return std::unique_ptr<EventSource>(std::move(source));
}

}  // namespace vtscope
