// SPDX-License-Identifier: Apache-2.0
// `vtscope report`: a per-trace summary of a trace file (syscalls and bytes per trace id).
#pragma once

#include <array>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>

#include "core/bounded_totals.h"
#include "cli/options.h"

namespace vtscope {

// The fields of one JSON line that the report uses; missing or null fields are empty.
struct ParsedEvent {
    uint32_t pid = 0;
    uint32_t tid = 0;
    std::string status;
    std::string reason;
    std::string trace_id;
    std::string span_id;
    std::string syscall;
    std::optional<int64_t> vthread;
    std::optional<int64_t> java_thread;
    std::optional<int> trace_flags;
    std::optional<int64_t> fd;
    std::optional<uint64_t> count;
};

// A string field of the JSON object on a line; nullopt when the line is no JSON object or the
// field is absent or no string.
std::optional<std::string> json_string_field(std::string_view line, const std::string& key);
// An integer field (of int64_t's range); nullopt when absent, null or not an integer.
std::optional<int64_t> json_int_field(std::string_view line, const std::string& key);

// The members of a trace line that ParsedEvent holds, as read: a string, an integer of int64_t's
// range, or absent (missing, null, or of another type).
struct ParsedFields {
    enum Field {
        kPid,
        kTid,
        kStatus,
        kReason,
        kTraceId,
        kSpanId,
        kSyscall,
        kVthread,
        kJavaThread,
        kTraceFlags,
        kFd,
        kCount
    };
    static constexpr std::array<std::string_view, 12> kNames = {"pid",         "tid",         "status",  "reason",
                                                                "trace_id",    "span_id",     "syscall", "vthread",
                                                                "java_thread", "trace_flags", "fd",      "count"};
    struct Absent {};
    using Value = std::variant<Absent, int64_t, std::string>;
    std::array<Value, kNames.size()> values;

    void set(const std::string& key, Value v);  // a key of another name is ignored
    std::optional<std::string> string(Field f) const;
    std::optional<int64_t> integer(Field f) const;
};

// Parses one line written by `vtscope trace`; nullopt when it is not such a line.
std::optional<ParsedEvent> parse_event_line(std::string_view line);

struct TraceTotals {
    uint64_t syscalls = 0;
    uint64_t bytes = 0;
    std::set<int64_t> vthreads;
    std::map<std::string, uint64_t> by_syscall;
};

struct ReportData {
    uint64_t lines = 0;
    uint64_t malformed = 0;
    std::map<std::string, uint64_t> by_status;
    std::map<std::string, TraceTotals> traces;
    // A long session has a trace per request: past 2 * keep_traces the traces with the fewest
    // bytes (then syscalls) are folded (bounded_totals.h); by_status stays exact.
    size_t keep_traces = kKeptEntriesAtLeast;
    FoldedKeys folded_traces;  // weight: syscalls
};

// Counts n syscall entries of one kind into the report: trace_id empty unless status is ok;
// bytes only for syscalls that take a byte count; vthread when a virtual thread was mounted.
void add_to_report(ReportData& data, std::string_view status, const std::string& trace_id, const std::string& syscall,
                   uint64_t n, std::optional<uint64_t> bytes, std::optional<int64_t> vthread);

ReportData collect_report(std::istream& in, size_t keep_traces = kKeptEntriesAtLeast);
std::string render_report(const ReportData& data, int top);
int run_report(const ReportOptions& options);

}  // namespace vtscope
