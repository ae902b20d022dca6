// SPDX-License-Identifier: Apache-2.0
// The model of `vtscope profile`: the attributed samples (one row per distinct thread, context,
// status and stack), what the session was (ProfileInfo), the bounds on what it keeps, and how a
// row is classified (its kind, its group). The source fills it (sources/profile_source.h); the
// renderers (output/profile_report.h) and the OTLP profiles encoder read it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vtscope {

// Samples that share a thread, an attribution and (with --stacks) a symbolised stack.
struct ProfileRow {
    uint32_t tid = 0;
    int64_t java_id = 0;  // 0 when the core resolved none
    bool mounted_virtual = false;
    unsigned status = 0;   // enum vtscope_status
    unsigned reason = 0;   // enum vtscope_reason
    std::string trace_id;  // hex, empty unless status is ok
    std::string span_id;
    std::vector<std::string> frames;  // root first; empty without --stacks or when no stack was taken
    bool truncated = false;           // the stack stops before the thread's entry frame
    // Its user or kernel stack (or both) could not be stored in the kernel's stack map (its bucket
    // held another stack, or the map was full): the part is named by a "[user stack lost]" or
    // "[kernel stack lost]" frame where it would be.
    bool stack_lost = false;
    uint64_t samples = 0;
    uint64_t cpu_ns = 0;  // estimated CPU time of these samples
};

// What `vtscope profile` keeps in memory, whatever the target does: it chooses its threads, trace
// and span ids (its own records) and stacks, and a row of each distinct combination holds its
// symbolised frames (up to 127 of them). At most kMaxProfileRows distinct thread/trace/span/stack
// rows and kMaxProfileStacks distinct stacks are kept; a sample that would need one more is not
// kept, and counted (ProfileInfo::samples_not_kept), said in the report and the summary JSON.
constexpr size_t kMaxProfileRows = 100000;
constexpr size_t kMaxProfileStacks = 65536;
constexpr size_t kMaxProfileThreadNames = 65536;  // comm read per thread; later threads show "?"

// The value of key in table, added when the table holds fewer than bound keys; null when the key
// is new and the table full (the caller counts what it could not keep).
template <typename Table>
typename Table::mapped_type* bounded_slot(Table& table, const typename Table::key_type& key, size_t bound) {
    if (auto it = table.find(key); it != table.end()) return &it->second;
    if (table.size() >= bound) return nullptr;
    return &table[key];
}

struct ProfileInfo {
    std::string event;                    // "cpu-clock" or "cycles"
    std::string sampling = "per-thread";  // or "per-cpu"
    int hz = 0;
    double seconds = 0;  // how long the session sampled
    std::string by = "trace";
    int top = 10;
    // The flame graph and --folded: the groups (traces, spans, virtual threads) with the most
    // samples that keep a tower of their own; the rest share one root. merged: one tower per
    // stack whatever its group.
    int groups = 30;
    bool merged = false;
    bool stacks = false;
    std::map<uint32_t, std::string> thread_names;  // kernel tid -> comm
    std::vector<std::string> warnings;             // printed at the top of the report
    uint64_t stack_errors = 0;                     // samples with stack_lost
    uint64_t samples_not_kept = 0;                 // over kMaxProfileRows or kMaxProfileStacks
    // The share of the machine's busy CPU time the hypervisor stole during the session (cpu-clock
    // only: its samples count stolen time, the threads' CPU clocks do not); nullopt when unknown.
    std::optional<double> steal_share;
};

// The grouping key of a row: trace id, "trace/span", or the virtual thread's id.
std::string profile_group(const ProfileRow& row, const std::string& by);
// Is the row's time that of a mounted virtual thread, of a non-virtual thread (a Java platform
// thread, a carrier with nothing mounted, or a thread that is not a Java thread: GC, VM), or
// unattributed (unmapped for another reason, or invalid)? A context_unknown row names its thread,
// so it is virtual or non-virtual; only its trace context is unknown.
enum class RowKind { kVirtual, kNonVirtual, kUnattributed };
RowKind row_kind(const ProfileRow& row);

// A row whose thread is known: ok, no_context, and context_unknown ("identity known; whether a
// span is current cannot be known", attribution.h). Its CPU is that thread's whatever its context.
bool identity_known(const ProfileRow& row);
// "STATUS/REASON" of a row not attributed to a trace or to no context.
std::string unattributed_name(const ProfileRow& row);
// The thread's comm as info holds it, "?" when unknown.
std::string profile_thread_name(const ProfileInfo& info, uint32_t tid);

}  // namespace vtscope
