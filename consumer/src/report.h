// `vtscope report`: a per-trace summary of a trace file (syscalls and bytes per trace id).
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "options.h"

namespace vtscope {

// The fields of one JSON line that the report uses; missing or null fields are empty.
struct ParsedEvent {
    std::string status;
    std::string trace_id;
    std::string syscall;
    std::optional<int64_t> vthread;
    std::optional<uint64_t> count;
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
};

ReportData collect_report(std::istream& in);
std::string render_report(const ReportData& data, int top);
int run_report(const ReportOptions& options);

}  // namespace vtscope
