// SPDX-License-Identifier: Apache-2.0
// The model of `vtscope block`: why an interval was off-CPU, the blocked time per trace and per
// virtual thread (over reported and counted intervals) and the process's carriers. The event
// source fills it; the summary renders it (output/block_summary.h); OTLP names its reasons.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../../bpf/block.h"
#include "core/bounded_totals.h"

namespace vtscope {

// "syscall", "preempted" or "other": a block reason of block.h.
const char* block_reason_name(unsigned reason);

// Why an interval was off-CPU: a block reason (block.h) and, for VTSCOPE_BLOCK_SYSCALL, the
// syscall's number (-1 otherwise). Named only when a summary is rendered ("syscall:read",
// "preempted", "other"): the consumer adds every interval, and a name per interval was a string
// built and compared in several tables (bench/RESULTS.md, the consumer's own CPU).
struct BlockReason {
    unsigned reason = 0;
    int syscall = -1;
    bool operator==(const BlockReason&) const = default;
    std::string name() const;
};

// Off-CPU time of one trace or virtual thread, over reported and counted intervals, blocking
// apart from waiting for a CPU: a preempted interval (still runnable at switch-out) is run-queue
// wait, which a busy neighbour causes and the thread's own code does not, so it is kept out of
// the blocked time, the reasons and the rankings, and counted on its own.
struct BlockTotals {
    uint64_t count = 0;     // blocking intervals (every reason but preempted)
    uint64_t total_ns = 0;  // their time: the blocked time
    uint64_t reported = 0;  // of count: at least the threshold long (JSON lines)
    struct CpuWait {
        uint64_t count = 0, ns = 0, reported = 0;
    } cpu_wait;  // preempted intervals
    // Blocked time per reason; a handful per entry, so a flat list searched in order.
    std::vector<std::pair<BlockReason, uint64_t>> reasons_ns;
    void add(BlockReason reason, uint64_t n, uint64_t ns, bool long_intervals);
};

// A trace id as the record holds it. Hashed over all 16 bytes: W3C asks only the right-most 7
// to be random, and an id generator that varies only the high half must not put every trace
// in one bucket.
using TraceKey = std::array<unsigned char, 16>;
struct TraceKeyHash {
    size_t operator()(const TraceKey& k) const {
        uint64_t high, low;
        std::memcpy(&high, k.data(), sizeof(high));
        std::memcpy(&low, k.data() + 8, sizeof(low));
        return std::hash<uint64_t>{}(low ^ (high * 0x9e3779b97f4a7c15ull));  // golden-ratio multiplier
    }
};

struct BlockAggregate {
    // A session on a service with a trace and a virtual thread per request would keep every one:
    // past 2 * keep entries the ones with the least blocked time are folded (bounded_totals.h).
    size_t keep = kKeptEntriesAtLeast;
    std::unordered_map<TraceKey, BlockTotals, TraceKeyHash> by_trace;  // only status ok
    std::unordered_map<int64_t, BlockTotals> by_vthread;               // Java id of the virtual thread
    FoldedKeys folded_traces, folded_vthreads;
    BlockTotals all;           // every interval kept, any status
    uint64_t open_at_end = 0;  // intervals closed by the session's end
    bool jfr = false;          // --jfr: the counts below are set
    uint64_t jfr_events = 0, jfr_joined = 0, jfr_only = 0, reported_not_in_jfr = 0;
    uint64_t jfr_below_threshold = 0;  // events JFR wrote though shorter than the threshold: left out
    // The process: carriers = the threads seen blocked with a virtual thread mounted (reported
    // intervals); their blocked time (every interval, reported or counted, but run-queue waits)
    // against their time in the session; and the time during which all of them were blocked at
    // once, from the reported intervals (at least the threshold long).
    // Switch-ins the kernel made without firing sched_switch (block.h, vtscope_block_anomaly):
    // closed at the arrival the kernel recorded, or, when more than one went unseen, dropped.
    uint64_t missed_switch_ins = 0;
    uint64_t dropped_end_unknown = 0;
    uint64_t program_misses = 0;  // the kernel skipped the program (bpf_prog_info.recursion_misses)
    uint64_t session_ns = 0;
    uint64_t carriers = 0;
    uint64_t carrier_blocked_ns = 0;
    uint64_t all_carriers_blocked_ns = 0;
    struct Span {
        uint64_t start, end;
        uint32_t tid;
    };
    void compute_carriers(const std::vector<Span>& spans);
};

}  // namespace vtscope
