// SPDX-License-Identifier: Apache-2.0
#include "core/top_model.h"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <unordered_set>

#include "core/block_model.h"
#include "output/event_format.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

// A thread of the target with a virtual thread mounted once is a carrier; a JVM has a few (the
// scheduler's parallelism, 2 here) to a few hundred (blocking calls compensated by new ones),
// so the pane keeps at most this many rather than trusting the target.
constexpr size_t kMaxCarriers = 4096;

bool pins(const vtscope_block_event& e) {
    return e.attribution.mounted_virtual && e.block_reason != VTSCOPE_BLOCK_PREEMPTED;
}

std::string trace_of(const vtscope_attribution& a) {
    return a.status == VTSCOPE_STATUS_OK ? hex_string(a.trace_id, sizeof(a.trace_id)) : std::string();
}

// The virtual thread an attribution names, as block's model counts them (block_source.cpp: a
// mounted virtual thread resolved to a positive id), 0 otherwise.
int64_t vthread_of(int64_t java_id, bool mounted_virtual, unsigned status) {
    return mounted_virtual && java_id > 0 && status != VTSCOPE_STATUS_UNMAPPED ? java_id : 0;
}

}  // namespace

const char* grouping_name(TopGrouping grouping) {
    switch (grouping) {
        case TopGrouping::kTrace: return "trace";
        case TopGrouping::kSpan: return "span";
        case TopGrouping::kVthread: return "vthread";
    }
    return "trace";
}

const char* sort_name(TopSort sort) {
    switch (sort) {
        case TopSort::kCpu: return "cpu";
        case TopSort::kBlocked: return "blocked";
        case TopSort::kPinned: return "pinned";
        case TopSort::kSyscalls: return "syscalls";
    }
    return "cpu";
}

TopTotals& TopTotals::operator+=(const TopTotals& other) {
    samples += other.samples;
    cpu_ns += other.cpu_ns;
    blocked_ns += other.blocked_ns;
    pinned_ns += other.pinned_ns;
    syscalls += other.syscalls;
    bytes += other.bytes;
    return *this;
}

const std::vector<TopRow>& TopFrame::rows(TopGrouping grouping) const {
    switch (grouping) {
        case TopGrouping::kSpan: return spans;
        case TopGrouping::kVthread: return vthreads;
        case TopGrouping::kTrace: break;
    }
    return traces;
}

size_t TopModel::SpanKeyHash::operator()(const SpanKey& k) const {
    TraceKey trace;
    std::memcpy(trace.data(), k.data(), trace.size());
    uint64_t span;
    std::memcpy(&span, k.data() + trace.size(), sizeof(span));
    return TraceKeyHash{}(trace) ^ std::hash<uint64_t>{}(span * 0x9e3779b97f4a7c15ull);
}

void TopModel::add(const Key& key, const TopTotals& t) {
    totals_ += t;
    if (key.has_trace) {
        Sums& row = traces_[key.trace];
        row.totals += t;
        if (key.vthread) row.vthread = key.vthread;
        if (key.has_span) {
            SpanKey span;
            std::memcpy(span.data(), key.trace.data(), key.trace.size());
            std::memcpy(span.data() + key.trace.size(), key.span.data(), key.span.size());
            Sums& s = spans_[span];
            s.totals += t;
            if (key.vthread) s.vthread = key.vthread;
        }
    }
    if (key.vthread) {
        Sums& row = vthreads_[key.vthread];
        row.totals += t;
        if (key.has_trace) {
            row.trace = key.trace;
            row.has_trace = true;
        }
    }
}

void TopModel::on_syscalls(const vtscope_stat_key& key, uint64_t calls, uint64_t bytes) {
    Key k;
    k.has_trace = key.status == VTSCOPE_STATUS_OK;
    if (k.has_trace) std::memcpy(k.trace.data(), key.trace_id, k.trace.size());
    k.vthread = vthread_of(key.java_id, key.mounted_virtual, key.status);
    TopTotals t;
    t.syscalls = calls;
    t.bytes = bytes;
    add(k, t);
}

// Pinned as block's summary counts a carrier's blocked time (block_source.cpp, carrier_blocked_ns):
// off-CPU with a virtual thread mounted, for a reason other than a run-queue wait.
void TopModel::on_blocked(const vtscope_attribution& a, uint32_t tid, uint64_t ts_ns, unsigned reason, uint64_t n,
                          uint64_t ns) {
    (void)n;
    Key k;
    k.has_trace = a.status == VTSCOPE_STATUS_OK;
    if (k.has_trace) std::memcpy(k.trace.data(), a.trace_id, k.trace.size());
    // Only a reported interval carries the span (the kernel's sums are keyed without it, block.h).
    k.has_span = k.has_trace && tid != 0;
    if (k.has_span) std::memcpy(k.span.data(), a.span_id, k.span.size());
    k.vthread = vthread_of(a.java_id, a.mounted_virtual, a.status);
    TopTotals t;
    t.blocked_ns = ns;
    if (a.mounted_virtual && reason != VTSCOPE_BLOCK_PREEMPTED) t.pinned_ns = ns;
    add(k, t);
    // While a carrier is off-CPU its mounted thread cannot change: it still had it at switch-in.
    if (tid != 0 && k.vthread) observe(tid, k.vthread, trace_of(a), ts_ns + ns);
}

void TopModel::on_open_interval(const vtscope_block_event& interval) {
    if (open_.size() < kMaxCarriers) open_.push_back(interval);
}

void TopModel::on_samples(const vtscope_profile_key& key, uint64_t samples, uint64_t cpu_ns) {
    Key k;
    k.has_trace = k.has_span = key.status == VTSCOPE_STATUS_OK;
    if (k.has_trace) {
        std::memcpy(k.trace.data(), key.trace_id, k.trace.size());
        std::memcpy(k.span.data(), key.span_id, k.span.size());
    }
    k.vthread = vthread_of(key.java_id, key.mounted_virtual, key.status);
    TopTotals t;
    t.samples = samples;
    t.cpu_ns = cpu_ns;
    add(k, t);
    // Counts drained in one sync round carry no time: they are stamped with the drain's.
    if (k.vthread || carriers_.count(key.tid))
        observe(key.tid, k.vthread, k.has_trace ? hex_string(key.trace_id, sizeof(key.trace_id)) : "", clock_());
}

// The latest event of a carrier says what it runs; an older one (a reported interval that closed
// before the last sample) changes nothing.
void TopModel::observe(uint32_t tid, int64_t vthread, const std::string& trace_id, uint64_t at_ns) {
    auto it = carriers_.find(tid);
    if (it == carriers_.end()) {
        if (vthread == 0 || carriers_.size() >= kMaxCarriers) return;
        TopCarrier c;
        c.tid = tid;
        c.name = terminal_safe(thread_name_(tid));
        it = carriers_.emplace(tid, std::move(c)).first;
    }
    TopCarrier& c = it->second;
    if (at_ns < c.seen_ns) return;
    if (c.vthread != vthread || c.seen_ns == 0) c.since_ns = at_ns;
    c.vthread = vthread;
    c.trace_id = trace_id;
    c.seen_ns = at_ns;
}

std::vector<TopCarrier> TopModel::carriers(uint64_t now) const {
    std::map<uint32_t, TopCarrier> out = carriers_;
    for (const vtscope_block_event& e : open_) {
        int64_t vthread = vthread_of(e.attribution.java_id, e.attribution.mounted_virtual, e.attribution.status);
        if (!vthread) continue;
        auto it = out.find(e.tid);
        if (it == out.end()) {
            if (out.size() >= kMaxCarriers) continue;
            TopCarrier fresh;
            fresh.tid = e.tid;
            fresh.name = terminal_safe(thread_name_(e.tid));
            it = out.emplace(e.tid, std::move(fresh)).first;
        }
        TopCarrier& c = it->second;
        if (c.vthread != vthread) c.since_ns = e.ts_ns;
        c.seen_ns = std::max(c.seen_ns, now);
        c.vthread = vthread;
        c.trace_id = trace_of(e.attribution);
        c.pinned = pins(e);
        if (c.pinned) {
            c.since_ns = e.ts_ns;
            c.reason = BlockReason{e.block_reason, e.block_reason == VTSCOPE_BLOCK_SYSCALL ? e.syscall_nr : -1}.name();
        }
    }
    std::vector<TopCarrier> list;
    for (auto& [tid, c] : out) list.push_back(std::move(c));
    return list;
}

// The rows of the interval, with their state: pinned when an open interval of the last sync round
// holds a carrier under the row's key (shown even with nothing counted in the interval: the
// interval is added when it closes), else by what was counted.
void TopModel::collect(TopFrame& frame) {
    std::unordered_set<TraceKey, TraceKeyHash> pinned_traces;
    std::unordered_set<SpanKey, SpanKeyHash> pinned_spans;
    std::unordered_set<int64_t> pinned_vthreads;
    for (const vtscope_block_event& e : open_) {
        if (!pins(e)) continue;
        const vtscope_attribution& a = e.attribution;
        int64_t vthread = vthread_of(a.java_id, a.mounted_virtual, a.status);
        Sums* by_vthread = vthread ? &vthreads_[vthread] : nullptr;
        if (vthread) pinned_vthreads.insert(vthread);
        if (a.status != VTSCOPE_STATUS_OK) continue;
        TraceKey trace;
        std::memcpy(trace.data(), a.trace_id, trace.size());
        pinned_traces.insert(trace);
        Sums& by_trace = traces_[trace];
        if (!by_trace.vthread) by_trace.vthread = vthread;
        if (by_vthread && !by_vthread->has_trace) {
            by_vthread->trace = trace;
            by_vthread->has_trace = true;
        }
        SpanKey span;
        std::memcpy(span.data(), a.trace_id, trace.size());
        std::memcpy(span.data() + trace.size(), a.span_id, sizeof(a.span_id));
        pinned_spans.insert(span);
    }
    auto state = [](bool pinned, const TopTotals& t) {
        return pinned ? "pinned" : t.samples ? "running" : t.blocked_ns ? "blocked" : "idle";
    };
    frame.traces.reserve(traces_.size());
    frame.spans.reserve(spans_.size());
    frame.vthreads.reserve(vthreads_.size());
    for (const auto& [trace, sums] : traces_)
        frame.traces.push_back({hex_string(trace.data(), trace.size()), "", sums.vthread, sums.totals,
                                state(pinned_traces.count(trace), sums.totals)});
    for (const auto& [span, sums] : spans_)
        frame.spans.push_back({hex_string(span.data(), 16), hex_string(span.data() + 16, 8), sums.vthread, sums.totals,
                               state(pinned_spans.count(span), sums.totals)});
    for (const auto& [vthread, sums] : vthreads_)
        frame.vthreads.push_back({sums.has_trace ? hex_string(sums.trace.data(), sums.trace.size()) : "", "", vthread,
                                  sums.totals, state(pinned_vthreads.count(vthread), sums.totals)});
    traces_.clear();
    spans_.clear();
    vthreads_.clear();
}

TopFrame TopModel::take() {
    uint64_t now = clock_();
    TopFrame frame;
    frame.seq = ++seq_;
    frame.end_ns = now;
    frame.interval_s = started_ns_ && now > started_ns_ ? static_cast<double>(now - started_ns_) / 1e9 : 0;
    frame.totals = totals_;
    collect(frame);
    frame.carriers = carriers(now);
    totals_ = {};
    started_ns_ = now;
    return frame;
}

bool row_before(const TopRow& a, const TopRow& b, TopSort sort) {
    auto rank = [sort](const TopRow& r) {
        const TopTotals& t = r.totals;
        switch (sort) {
            case TopSort::kBlocked: return std::make_tuple(t.blocked_ns, t.pinned_ns, t.cpu_ns, t.syscalls);
            case TopSort::kPinned: return std::make_tuple(t.pinned_ns, t.blocked_ns, t.cpu_ns, t.syscalls);
            case TopSort::kSyscalls: return std::make_tuple(t.syscalls, t.bytes, t.cpu_ns, t.blocked_ns);
            case TopSort::kCpu: break;
        }
        return std::make_tuple(t.cpu_ns, t.samples, t.syscalls, t.blocked_ns);
    };
    auto ra = rank(a), rb = rank(b);
    if (ra != rb) return ra > rb;
    return std::tie(a.trace_id, a.span_id, a.vthread) < std::tie(b.trace_id, b.span_id, b.vthread);
}

void sort_rows(std::vector<TopRow>& rows, TopSort sort) {
    std::sort(rows.begin(), rows.end(), [sort](const TopRow& a, const TopRow& b) { return row_before(a, b, sort); });
}

bool row_matches(const TopRow& r, const std::string& filter) {
    return filter.empty() || r.trace_id.find(filter) != std::string::npos ||
           r.span_id.find(filter) != std::string::npos ||
           (r.vthread && std::to_string(r.vthread).find(filter) != std::string::npos);
}

std::vector<TopRow> filter_rows(const std::vector<TopRow>& rows, const std::string& filter) {
    std::vector<TopRow> out;
    for (const TopRow& r : rows)
        if (row_matches(r, filter)) out.push_back(r);
    return out;
}

// A refresh of 10,000 rows shows 20: the first `limit` are found without sorting, or copying, all.
std::vector<const TopRow*> top_rows(const std::vector<TopRow>& rows, TopSort sort, const std::string& filter,
                                    size_t limit) {
    std::vector<const TopRow*> out;
    out.reserve(rows.size());
    for (const TopRow& r : rows)
        if (row_matches(r, filter)) out.push_back(&r);
    auto before = [sort](const TopRow* a, const TopRow* b) { return row_before(*a, *b, sort); };
    size_t n = std::min(limit, out.size());
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), out.end(), before);
    out.resize(n);
    return out;
}

}  // namespace vtscope
