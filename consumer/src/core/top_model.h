// SPDX-License-Identifier: Apache-2.0
// The model of `vtscope top`: what the syscall, block and profile sources drained in one refresh
// interval, summed per trace, per span and per virtual thread, and the carriers: which virtual
// thread each runs now and whether it is pinned. The sources hand it their counts
// (SourceObserver); the renderers (output/top_render.h) read the frames it takes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/block_model.h"
#include "core/source_observer.h"

namespace vtscope {

enum class TopGrouping { kTrace, kSpan, kVthread };
enum class TopSort { kCpu, kBlocked, kPinned, kSyscalls };

const char* grouping_name(TopGrouping grouping);  // "trace", "span", "vthread"
const char* sort_name(TopSort sort);              // "cpu", "blocked", "pinned", "syscalls"

// What one row (or the whole process) did in an interval.
struct TopTotals {
    uint64_t samples = 0;     // CPU samples
    uint64_t cpu_ns = 0;      // the CPU time they stand for (profile's cpu_ns)
    uint64_t blocked_ns = 0;  // off-CPU time, any reason (run-queue waits too)
    uint64_t pinned_ns = 0;   // of it: asleep with a virtual thread mounted (the carrier held)
    uint64_t syscalls = 0;    // syscall entries
    uint64_t bytes = 0;       // third arguments of read/write-like entries: the bytes asked for
    TopTotals& operator+=(const TopTotals& other);
};

struct TopRow {
    std::string trace_id;  // hex; empty for a virtual thread row whose activity had no trace
    std::string span_id;   // span rows only
    int64_t vthread = 0;   // virtual thread rows; else the last virtual thread seen under the key
    TopTotals totals;
    // "pinned" (a carrier is off-CPU holding it now), "running" (sampled on a CPU in the
    // interval), "blocked" (off-CPU time in the interval) or "idle".
    std::string state;
};

struct TopCarrier {
    uint32_t tid = 0;
    std::string name;       // the thread's name, terminal_safe
    int64_t vthread = 0;    // mounted now (the latest event); 0: none
    std::string trace_id;   // of that event, hex; empty when none
    bool pinned = false;    // off-CPU with the virtual thread mounted (an open block interval)
    std::string reason;     // pinned: why (block_reason_name, or "syscall:NAME")
    uint64_t since_ns = 0;  // CLOCK_MONOTONIC: since the vthread was first seen on it, or the pin began
    uint64_t seen_ns = 0;   // the latest event of the carrier
};

struct TopFrame {
    uint64_t seq = 0;
    uint64_t end_ns = 0;    // CLOCK_MONOTONIC at the end of the interval
    double interval_s = 0;  // its length
    TopTotals totals;       // every count of the interval, any attribution status
    std::vector<TopRow> traces, spans, vthreads;
    std::vector<TopCarrier> carriers;  // by tid
    const std::vector<TopRow>& rows(TopGrouping grouping) const;
};

class TopModel final : public SourceObserver {
public:
    using Clock = std::function<uint64_t()>;                  // CLOCK_MONOTONIC ns
    using ThreadName = std::function<std::string(uint32_t)>;  // a thread's raw name
    TopModel(Clock clock, ThreadName thread_name) : clock_(std::move(clock)), thread_name_(std::move(thread_name)) {}

    void on_syscalls(const vtscope_stat_key& key, uint64_t calls, uint64_t bytes) override;
    void on_blocked(const vtscope_attribution& a, uint32_t tid, uint64_t ts_ns, unsigned reason, uint64_t n,
                    uint64_t ns) override;
    void begin_open_intervals() override { open_.clear(); }
    void on_open_interval(const vtscope_block_event& interval) override;
    void on_samples(const vtscope_profile_key& key, uint64_t samples, uint64_t cpu_ns) override;

    // The first interval starts here (the session's attach).
    void start() { started_ns_ = clock_(); }
    // The interval since the last take: its rows, unsorted, and the carriers now; the interval's
    // sums start again from zero.
    TopFrame take();

private:
    // The sums are keyed by the kernel's bytes; a row's ids become text once a take.
    using SpanKey = std::array<unsigned char, 24>;  // trace id, then span id
    struct SpanKeyHash {
        size_t operator()(const SpanKey& k) const;
    };
    struct Key {
        bool has_trace = false;
        TraceKey trace{};
        bool has_span = false;  // the source's key has a span
        std::array<unsigned char, 8> span{};
        int64_t vthread = 0;  // 0: no virtual thread mounted, or not resolved
    };
    struct Sums {
        TopTotals totals;
        int64_t vthread = 0;  // the last seen under the key
        TraceKey trace{};     // virtual thread rows: the last trace seen
        bool has_trace = false;
    };
    void add(const Key& key, const TopTotals& t);
    void observe(uint32_t tid, int64_t vthread, const std::string& trace_id, uint64_t at_ns);
    std::vector<TopCarrier> carriers(uint64_t now) const;
    void collect(TopFrame& frame);

    Clock clock_;
    ThreadName thread_name_;
    uint64_t seq_ = 0;
    uint64_t started_ns_ = 0;  // the interval's start; 0 before the first event or take
    TopTotals totals_;
    std::unordered_map<TraceKey, Sums, TraceKeyHash> traces_;
    std::unordered_map<SpanKey, Sums, SpanKeyHash> spans_;
    std::unordered_map<int64_t, Sums> vthreads_;
    std::map<uint32_t, TopCarrier> carriers_;  // every thread ever seen with a virtual thread mounted
    std::vector<vtscope_block_event> open_;    // the open intervals of the last sync round
};

// Rows sorted by the column (descending; ties: the other columns, then the key), and the rows
// whose trace id, span id or virtual thread id contain `filter` (all when it is empty).
bool row_before(const TopRow& a, const TopRow& b, TopSort sort);
bool row_matches(const TopRow& row, const std::string& filter);
void sort_rows(std::vector<TopRow>& rows, TopSort sort);
std::vector<TopRow> filter_rows(const std::vector<TopRow>& rows, const std::string& filter);
// The first `limit` rows that match, in order; the rows of how many matched are not all sorted.
std::vector<const TopRow*> top_rows(const std::vector<TopRow>& rows, TopSort sort, const std::string& filter,
                                    size_t limit);

}  // namespace vtscope
