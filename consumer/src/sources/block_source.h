// SPDX-License-Identifier: Apache-2.0
// The block event source (consumer/bpf/block.bpf.c): off-CPU intervals of the target's threads
// with a virtual thread mounted, attributed by the core at switch-out; intervals at least the
// threshold long are JSON lines, shorter ones are counted in the kernel. The summary adds the
// blocked time per trace and per virtual thread (both kinds of intervals) and its top reasons.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../../bpf/block.h"
#include "core/attribution_core.h"
#include "core/bounded_totals.h"
#include "cli/block_options.h"
#include "output/output_file.h"
#include "sources/block_jfr.h"
#include "core/session.h"
#include "target/target.h"

namespace vtscope {

const char* block_reason_name(unsigned reason);
// One JSON line (no newline) of `vtscope block`; open: the interval was still open at the end;
// more_fields (",\"name\":value..."): the --stacks and --jfr fields, before the closing brace.
std::string format_block_event(const vtscope_block_event& event, bool open, std::string_view more_fields = {});

// One stack of an interval (--stacks), symbolised, leaf first.
struct BlockStack {
    std::vector<std::string> frames;
    std::string error;       // why there is no stack (frames empty then), or empty
    bool truncated = false;  // it stops before the thread's entry frame, or at the depth limit
};
// The --stacks fields: ,"kernel_stack":[...]|null,"kernel_stack_error":null|"...", and the same for
// the user stack; a truncated stack ends with a "[truncated]" frame.
std::string format_block_stacks(const BlockStack& kernel, const BlockStack& user);

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

// Blocked time of one trace or virtual thread, over reported and counted intervals.
struct BlockTotals {
    uint64_t count = 0;
    uint64_t total_ns = 0;
    uint64_t reported = 0;  // of count: at least the threshold long (JSON lines)
    // Time per reason; a handful per entry, so a flat list searched in order.
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
    // The summary's block section: text lines and one JSON object.
    std::string render_text(int top) const;
    std::string render_json(int top) const;
};

Expected<std::unique_ptr<EventSource>> open_block_source(const BlockOptions& options, const Target& target,
                                                         const AttributionCore& core, OutputFile& output);

}  // namespace vtscope
