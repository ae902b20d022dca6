// SPDX-License-Identifier: Apache-2.0
#include "sources/block_source.h"

#include <bpf/bpf.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "block.skel.h"
#include "output/event_format.h"
#include "output/json.h"
#include "symbols/jvm_stacks.h"
#include "otlp/otlp_exporter.h"
#include "output/sinks.h"
#include "sources/syscall_names.h"

namespace vtscope {

const char* block_reason_name(unsigned reason) {
    switch (reason) {
        case VTSCOPE_BLOCK_SYSCALL: return "syscall";
        case VTSCOPE_BLOCK_PREEMPTED: return "preempted";
        default: return "other";
    }
}

std::string format_block_event(const vtscope_block_event& e, bool open, std::string_view more_fields) {
    std::string out;
    out.reserve(360);
    char buf[128];
    std::snprintf(buf, sizeof(buf), "{\"ts_ns\":%llu,\"duration_ns\":%llu,\"pid\":%u,\"tid\":%u,",
                  static_cast<unsigned long long>(e.ts_ns), static_cast<unsigned long long>(e.duration_ns), e.pid,
                  e.tid);
    out += buf;
    append_attribution(out, e.attribution);
    out += ",\"block_reason\":\"";
    out += block_reason_name(e.block_reason);
    out += "\",\"syscall\":";
    const char* name = syscall_name(e.syscall_nr);
    if (name) {
        out += '"';
        out += name;  // [a-z0-9_] from asm/unistd_64.h
        out += '"';
    } else {
        out += "null";
    }
    out += open ? ",\"open\":true" : ",\"open\":false";
    out += more_fields;
    out += '}';
    return out;
}

std::string format_block_stacks(const BlockStack& kernel, const BlockStack& user) {
    std::string out;
    auto add = [&out](const char* name, const BlockStack& stack) {
        out += ",\"";
        out += name;
        out += "\":";
        if (!stack.error.empty() && stack.frames.empty()) {
            out += "null";
        } else {
            out += '[';
            for (size_t i = 0; i < stack.frames.size(); i++) out += (i ? "," : "") + json_quote(stack.frames[i]);
            if (stack.truncated) out += stack.frames.empty() ? "\"[truncated]\"" : ",\"[truncated]\"";
            out += ']';
        }
        out += ",\"";
        out += name;
        out += "_error\":";
        out += stack.error.empty() ? "null" : json_quote(stack.error);
    };
    add("kernel_stack", kernel);
    add("user_stack", user);
    return out;
}

std::string BlockReason::name() const {
    std::string key = block_reason_name(reason);
    if (reason == VTSCOPE_BLOCK_SYSCALL) {
        const char* syscall_text = syscall_name(syscall);
        key += ":";
        key += syscall_text ? syscall_text : std::to_string(syscall);
    }
    return key;
}

void BlockTotals::add(BlockReason reason, uint64_t n, uint64_t ns, bool long_intervals) {
    count += n;
    total_ns += ns;
    if (long_intervals) reported += n;
    for (auto& [r, r_ns] : reasons_ns) {
        if (r == reason) {
            r_ns += ns;
            return;
        }
    }
    reasons_ns.emplace_back(reason, ns);
}

namespace {

// The reasons of t, most time first (then by name), at most n.
std::vector<std::pair<std::string, uint64_t>> top_reasons(const BlockTotals& t, size_t n) {
    std::vector<std::pair<std::string, uint64_t>> v;
    for (const auto& [reason, ns] : t.reasons_ns) v.emplace_back(reason.name(), ns);
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (v.size() > n) v.resize(n);
    return v;
}

std::string key_text(const TraceKey& k) { return hex_string(k.data(), k.size()); }
std::string key_text(int64_t k) { return std::to_string(k); }

// The top entries of a table, most blocked time first (then by key, so equal totals always come
// out in the same order), keys as the summary prints them.
template <typename Table>
std::vector<std::pair<std::string, const BlockTotals*>> top_entries(const Table& table, int top) {
    std::vector<std::pair<typename Table::key_type, const BlockTotals*>> v;
    for (const auto& [k, t] : table) v.emplace_back(k, &t);
    auto heavier = [](const auto& a, const auto& b) {
        return a.second->total_ns != b.second->total_ns ? a.second->total_ns > b.second->total_ns : a.first < b.first;
    };
    size_t n = std::min(v.size(), static_cast<size_t>(std::max(top, 0)));
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), v.end(), heavier);
    std::vector<std::pair<std::string, const BlockTotals*>> out;
    for (size_t i = 0; i < n; i++) out.emplace_back(key_text(v[i].first), v[i].second);
    return out;
}

std::string ms(uint64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f ms", static_cast<double>(ns) / 1e6);
    return buf;
}

std::string format_share(uint64_t part, uint64_t whole) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f%%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return buf;
}

std::string reasons_text(const BlockTotals& t) {
    std::string s;
    for (const auto& [reason, ns] : top_reasons(t, 3)) s += (s.empty() ? "" : ", ") + reason + " " + ms(ns);
    return s;
}

std::string totals_json(const BlockTotals& t) {
    std::ostringstream js;
    js << "\"count\":" << t.count << ",\"reported\":" << t.reported << ",\"blocked_ns\":" << t.total_ns
       << ",\"top_reasons\":[";
    bool first = true;
    for (const auto& [reason, ns] : top_reasons(t, 3)) {
        js << (first ? "" : ",") << "{\"reason\":" << json_quote(reason) << ",\"blocked_ns\":" << ns << "}";
        first = false;
    }
    js << "]";
    return js.str();
}

}  // namespace

void BlockAggregate::compute_carriers(const std::vector<Span>& spans) {
    std::set<uint32_t> tids;
    std::vector<std::pair<uint64_t, int>> edges;  // (time, +1 blocked / -1 running again)
    for (const Span& s : spans) {
        tids.insert(s.tid);
        edges.emplace_back(s.start, 1);
        edges.emplace_back(s.end, -1);
    }
    carriers = tids.size();
    std::sort(edges.begin(), edges.end());  // at equal times the end (-1) first
    int blocked = 0;
    uint64_t since = 0;
    all_carriers_blocked_ns = 0;
    for (const auto& [t, d] : edges) {
        if (carriers > 0 && blocked == static_cast<int>(carriers)) all_carriers_blocked_ns += t - since;
        blocked += d;
        since = t;
    }
}

std::string BlockAggregate::render_text(int top) const {
    std::string text = "vtscope: block: " + std::to_string(all.count) + " intervals with a virtual thread mounted (" +
                       std::to_string(all.reported) + " reported), " + ms(all.total_ns) + " blocked";
    if (open_at_end) text += ", " + std::to_string(open_at_end) + " still open at the end";
    text += "\n";
    if (missed_switch_ins)
        text += "vtscope: block: note: " + std::to_string(missed_switch_ins) +
                " switch-ins made without a sched_switch event; their intervals end at the arrival the kernel "
                "recorded\n";
    if (dropped_end_unknown || program_misses)
        text += "vtscope: warning: block: " + std::to_string(dropped_end_unknown) +
                " intervals dropped (their end was not seen) and " + std::to_string(program_misses) +
                " sched_switch events the program missed\n";
    if (carriers > 0)
        text += "vtscope: block: carriers: " + std::to_string(carriers) + " seen blocked, " +
                format_share(carrier_blocked_ns, carriers * session_ns) + " of their time blocked (" +
                ms(carrier_blocked_ns) + " of " + ms(carriers * session_ns) + "); all " + std::to_string(carriers) +
                " blocked at once for " + ms(all_carriers_blocked_ns) + "\n";
    if (jfr)
        text += "vtscope: block: JFR jdk.VirtualThreadPinned: " + std::to_string(jfr_events) + " events, " +
                std::to_string(jfr_joined) + " joined to an interval, " + std::to_string(jfr_only) +
                " seen by JFR only; " + std::to_string(reported_not_in_jfr) + " reported intervals JFR did not see\n";
    if (folded_traces.keys || folded_vthreads.keys)
        text += "vtscope: block: note: " + std::to_string(folded_traces.keys) + " traces (" + ms(folded_traces.weight) +
                ") and " + std::to_string(folded_vthreads.keys) + " virtual threads (" + ms(folded_vthreads.weight) +
                ") with the least blocked time left the lists below, which keep " + std::to_string(keep) +
                " of each in memory; their time stays in the totals\n";
    for (const auto& [trace, t] : top_entries(by_trace, top))
        text += "vtscope: block: trace " + trace + ": " + std::to_string(t->count) + " intervals, " + ms(t->total_ns) +
                " (" + reasons_text(*t) + ")\n";
    for (const auto& [vthread, t] : top_entries(by_vthread, top))
        text += "vtscope: block: vthread " + vthread + ": " + std::to_string(t->count) + " intervals, " +
                ms(t->total_ns) + " (" + reasons_text(*t) + ")\n";
    return text;
}

std::string BlockAggregate::render_json(int top) const {
    std::ostringstream js;
    js << "{" << totals_json(all) << ",\"open_at_end\":" << open_at_end;
    js << ",\"carriers\":{\"seen\":" << carriers << ",\"session_ns\":" << session_ns
       << ",\"blocked_ns\":" << carrier_blocked_ns << ",\"all_blocked_ns\":" << all_carriers_blocked_ns << "}";
    js << ",\"folded\":{\"traces\":" << folded_traces.keys << ",\"traces_blocked_ns\":" << folded_traces.weight
       << ",\"vthreads\":" << folded_vthreads.keys << ",\"vthreads_blocked_ns\":" << folded_vthreads.weight << "}";
    js << ",\"missed_switch_ins\":" << missed_switch_ins << ",\"dropped_end_unknown\":" << dropped_end_unknown
       << ",\"program_misses\":" << program_misses;
    if (jfr)
        js << ",\"jfr\":{\"events\":" << jfr_events << ",\"joined\":" << jfr_joined << ",\"jfr_only\":" << jfr_only
           << ",\"reported_not_in_jfr\":" << reported_not_in_jfr << "}";
    js << ",\"traces\":[";
    bool first = true;
    for (const auto& [trace, t] : top_entries(by_trace, top)) {
        js << (first ? "" : ",") << "{\"trace_id\":" << json_quote(trace) << "," << totals_json(*t) << "}";
        first = false;
    }
    js << "],\"vthreads\":[";
    first = true;
    for (const auto& [vthread, t] : top_entries(by_vthread, top)) {
        js << (first ? "" : ",") << "{\"vthread\":" << vthread << "," << totals_json(*t) << "}";
        first = false;
    }
    js << "]}";
    return js.str();
}

namespace {

struct SkeletonDeleter {
    void operator()(block_bpf* skel) const { block_bpf__destroy(skel); }
};

uint64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

unsigned clamp_status(unsigned status) {
    return status < VTSCOPE_STATUS_COUNT ? status : unsigned{VTSCOPE_STATUS_INVALID};
}

// Why a stack of bpf_get_stack's is missing: its negative return.
std::string stack_error(int32_t bytes) {
    if (bytes == -ENOENT) return "not taken (the task's stack entry could not be created: the map was full)";
    return std::string("not readable (") + std::strerror(-bytes) + ")";
}

// Upper bounds (seconds) of the blocked-time histogram's buckets: from 1 ms (below the default
// 20 ms threshold, for --threshold 0 or 1) to 10 s, the last bucket open-ended.
const std::vector<double> kBlockBounds = {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10};

// The blocked time of the reported intervals of one block reason and syscall (--otlp), and one
// exemplar per bucket: its latest interval with a trace context since the last export, as the
// OpenTelemetry SDKs' AlignedHistogramBucketExemplarReservoir keeps.
struct BlockHistogram {
    uint64_t count = 0;
    double sum = 0;
    std::vector<uint64_t> buckets = std::vector<uint64_t>(kBlockBounds.size() + 1, 0);
    std::vector<std::optional<OtlpExemplar>> exemplars = std::vector<std::optional<OtlpExemplar>>(buckets.size());

    void add(const vtscope_block_event& e, uint64_t unix_ns) {
        double seconds = static_cast<double>(e.duration_ns) / 1e9;
        // Buckets are (bound[i-1], bound[i]] (opentelemetry/proto/metrics/v1/metrics.proto).
        size_t bucket = static_cast<size_t>(std::lower_bound(kBlockBounds.begin(), kBlockBounds.end(), seconds) -
                                            kBlockBounds.begin());
        count++;
        sum += seconds;
        buckets[bucket]++;
        const vtscope_attribution& a = e.attribution;
        if (a.status != VTSCOPE_STATUS_OK) return;
        OtlpExemplar x;
        x.time_unix_ns = unix_ns;
        x.value = seconds;
        std::memcpy(x.trace_id.data(), a.trace_id, x.trace_id.size());
        SpanId span;
        std::memcpy(span.data(), a.span_id, span.size());
        x.span_id = span;
        exemplars[bucket] = x;
    }
};

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
                std::unique_ptr<OtlpSession> otlp)
        : options_(options), target_(target), output_(output), otlp_(std::move(otlp)), stacks_(target) {}

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
    }

    int output_error() const override { return output_.error(); }

    void summarise(Summary& summary) const override {
        if (!jfr_error_.empty()) summary.error = jfr_error_;
        for (unsigned s = 0; s < VTSCOPE_STATUS_COUNT; s++) summary.delivered[s] = delivered_[s];
        summary.lost_cause = "the ring buffer or the open-interval map was full";
        summary.section_name = "block";
        summary.section_text = aggregate_.render_text(options_.top);
        summary.section_json = aggregate_.render_json(options_.top);
        if (otlp_) otlp_->summarise(summary);
    }

private:
    // block --otlp: the histograms so far, and their exemplars since the last export.
    void publish_histograms() {
        OtlpMetric metric{"vtscope.block.duration", "s",
                          "off-CPU intervals with a virtual thread mounted, at least the --threshold long, by "
                          "block reason and syscall",
                          OtlpMetric::Kind::kHistogram};
        metric.bounds = kBlockBounds;
        for (auto& [key, h] : histograms_) {
            OtlpDataPoint p;
            p.attributes.push_back(OtlpAttribute::string("vtscope.block.reason", block_reason_name(key.first)));
            if (const char* name = key.first == VTSCOPE_BLOCK_SYSCALL ? syscall_name(key.second) : nullptr)
                p.attributes.push_back(OtlpAttribute::string("vtscope.syscall", name));
            p.count = h.count;
            p.sum = h.sum;
            p.bucket_counts = h.buckets;
            for (auto& x : h.exemplars) {
                if (x) p.exemplars.push_back(*x);
                x.reset();
            }
            metric.points.push_back(std::move(p));
        }
        otlp_->metrics()->publish({std::move(metric)});
    }

    // Every interval, reported or counted, goes into the summary's totals here.
    void add(const vtscope_attribution& a, unsigned block_reason, int syscall_nr, uint64_t n, uint64_t ns,
             bool long_interval) {
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

    // --stacks: the fields of one interval's stacks, symbolised now (the perf map names the JIT
    // code that is there now; one that names none of a JIT frame is written again, at most once a
    // second, and the stack read again).
    std::string stack_fields(const vtscope_block_stacks* s) {
        if (!s) return format_block_stacks({{}, stack_error(-ENOENT), false}, {{}, stack_error(-ENOENT), false});
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
        return format_block_stacks(kernel, user);
    }

    void report(const vtscope_block_event& e, bool open, std::string stacks = {}) {
        delivered_[clamp_status(e.attribution.status)]++;
        add(e.attribution, e.block_reason, e.syscall_nr, 1, e.duration_ns, true);
        if (open) aggregate_.open_at_end++;
        if (otlp_) {
            otlp_->logs()->offer(BlockLogEvent{e, open});  // queued or counted dropped, never waits
            int syscall = e.block_reason == VTSCOPE_BLOCK_SYSCALL ? e.syscall_nr : -1;
            histograms_[{e.block_reason, syscall}].add(
                e, static_cast<uint64_t>(static_cast<int64_t>(e.ts_ns) + realtime_offset_ns_));
        }
        if (e.attribution.mounted_virtual && e.block_reason != VTSCOPE_BLOCK_PREEMPTED)
            spans_.push_back({e.ts_ns, e.ts_ns + e.duration_ns, e.tid});
        if (jfr_) {
            pending_.push_back({e, open, std::move(stacks), nullptr});  // written by join_jfr
            return;
        }
        std::string line = format_block_event(e, open, stacks);
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
        if (record.size() < sizeof(vtscope_block_record)) return report(e, false, stack_fields(nullptr));
        auto stacks = std::make_unique<vtscope_block_stacks>();
        std::memcpy(stacks.get(), record.data() + offsetof(vtscope_block_record, stacks), sizeof(*stacks));
        report(e, false, stack_fields(stacks.get()));
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
                report(e, true, stack_fields(found ? stacks.get() : nullptr));
            } else {
                delivered_[clamp_status(e.attribution.status)]++;
                add(e.attribution, e.block_reason, e.syscall_nr, 1, e.duration_ns, false);
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
            std::string fields = p.stacks;
            append_jfr_fields(fields, p.jfr);
            std::string line = format_block_event(p.event, p.open, fields);
            line.push_back('\n');
            output_.write(line);
        }
        for (const JfrPinnedEvent* j : unjoined) {
            char buf[160];
            std::snprintf(buf, sizeof(buf),
                          "{\"jfr_only\":true,\"ts_ns\":%llu,\"duration_ns\":%llu,\"pid\":%d,\"vthread\":%lld",
                          static_cast<unsigned long long>(j->start_ns), static_cast<unsigned long long>(j->duration_ns),
                          static_cast<int>(target_.pid), static_cast<long long>(j->vthread));
            std::string line = buf;
            append_jfr_fields(line, j);
            line += "}\n";
            output_.write(line);
        }
    }

    static void append_jfr_fields(std::string& line, const JfrPinnedEvent* j) {
        if (!j) {
            line += ",\"jfr_pinned_reason\":null,\"jfr_blocking_operation\":null,\"jfr_stack\":null";
            return;
        }
        line += ",\"jfr_pinned_reason\":" + json_quote(j->pinned_reason) +
                ",\"jfr_blocking_operation\":" + json_quote(j->blocking_operation) + ",\"jfr_stack\":[";
        for (size_t i = 0; i < j->stack.size(); i++) line += (i ? "," : "") + json_quote(j->stack[i]);
        line += "]";
    }

    const BlockOptions& options_;
    const Target& target_;
    OutputFile& output_;
    std::unique_ptr<OtlpSession> otlp_;                              // --otlp
    std::map<std::pair<unsigned, int>, BlockHistogram> histograms_;  // by block reason and syscall
    int64_t realtime_offset_ns_ = static_cast<int64_t>(unix_now_ns()) - static_cast<int64_t>(monotonic_ns());
    unsigned sync_rounds_ = 0;
    uint64_t threshold_ns_ = 0;
    std::unique_ptr<block_bpf, SkeletonDeleter> skel_;
    std::unique_ptr<RingBufferReader> ring_;
    BlockAggregate aggregate_;
    uint64_t attached_ns_ = 0;
    JvmStacks stacks_;                         // --stacks
    uint64_t perf_map_written_ns_ = 0;         // --stacks: when an unnamed JIT frame last had it written
    std::vector<BlockAggregate::Span> spans_;  // reported intervals of carriers, for the stall time
    // --jfr: the intervals, held back until the recording is read, and its events.
    struct Pending {
        vtscope_block_event event;
        bool open;
        std::string stacks;  // --stacks: its fields
        const JfrPinnedEvent* jfr;
    };
    std::optional<JfrRecording> jfr_;
    std::vector<Pending> pending_;
    std::vector<JfrPinnedEvent> jfr_events_;
    std::string jfr_error_;
    uint64_t delivered_[VTSCOPE_STATUS_COUNT] = {};
};

}  // namespace

Expected<std::unique_ptr<EventSource>> open_block_source(const BlockOptions& options, const Target& target,
                                                         const AttributionCore& core, OutputFile& output) {
    OtlpSession::Signals signals;
    signals.logs = signals.metrics = true;
    auto otlp = OtlpSession::start(options.otlp, target.pid, signals);
    if (!otlp) return otlp.error();
    auto source = std::make_unique<BlockSource>(options, target, output, std::move(*otlp));
    if (auto status = source->open(core); !status) return status.error();
    return std::unique_ptr<EventSource>(std::move(source));
}

}  // namespace vtscope
