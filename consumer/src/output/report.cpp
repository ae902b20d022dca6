// SPDX-License-Identifier: Apache-2.0
#include "output/report.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "output/json_io.h"
#include "output/safe_text.h"
#include "output/diagnostics.h"

namespace vtscope {

std::optional<std::string> json_string_field(std::string_view line, const std::string& key) {
    return json_string_member(parse_json(line), key);
}

std::optional<int64_t> json_int_field(std::string_view line, const std::string& key) {
    return json_int_member(parse_json(line), key);
}

namespace {

// One trace line's top-level members, read through nlohmann's SAX interface: no document is built.
// With the whole document parsed, `vtscope report` took about 11 us a line, and the sanitized
// tests that check millions of lines ran past their timeouts. The result is the one the document
// would give (EventLine.SaxReadingEqualsTheDocumentsMembers checks it): the last of duplicate
// keys wins, a member of another type (a float, an object, null) is absent, and the nesting bound
// is parse_json's, applied at the depths its callback sees (enclosing containers).
class EventLineReader final : public nlohmann::json_sax<Json> {
    using Absent = ParsedFields::Absent;

public:
    ParsedFields fields;

    bool null() override { return value(Absent{}); }
    bool boolean(bool) override { return value(Absent{}); }
    bool number_integer(number_integer_t v) override { return value(static_cast<int64_t>(v)); }
    bool number_unsigned(number_unsigned_t v) override {
        return v > uint64_t(INT64_MAX) ? value(Absent{}) : value(static_cast<int64_t>(v));
    }
    bool number_float(number_float_t, const string_t&) override { return value(Absent{}); }
    bool string(string_t& v) override { return value(std::move(v)); }
    bool binary(binary_t&) override { return value(Absent{}); }
    bool start_object(std::size_t) override { return open(); }
    bool start_array(std::size_t) override { return open(); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        if (depth_ > kMaxDepth) return false;
        if (depth_ == 1) key_ = std::move(k);
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    static constexpr int kMaxDepth = 64;  // parse_json's default bound
    int depth_ = 0;                       // containers open
    std::string key_;                     // the current top-level member's key

    bool open() {
        if (depth_ > kMaxDepth) return false;
        if (depth_ == 1) fields.set(key_, Absent{});  // a member that is an object or array
        depth_++;
        return true;
    }
    bool close() {
        depth_--;
        return true;
    }
    bool value(ParsedFields::Value v) {
        if (depth_ > kMaxDepth) return false;
        if (depth_ == 1) fields.set(key_, std::move(v));
        return depth_ > 0;  // a line that is a bare scalar is no event
    }
};

}  // namespace

void ParsedFields::set(const std::string& key, Value v) {
    auto it = std::find(kNames.begin(), kNames.end(), key);
    if (it != kNames.end()) values[static_cast<size_t>(it - kNames.begin())] = std::move(v);
}

std::optional<std::string> ParsedFields::string(Field f) const {
    const auto* s = std::get_if<std::string>(&values[f]);
    return s ? std::optional<std::string>(*s) : std::nullopt;
}

std::optional<int64_t> ParsedFields::integer(Field f) const {
    const auto* n = std::get_if<int64_t>(&values[f]);
    return n ? std::optional<int64_t>(*n) : std::nullopt;
}

std::optional<ParsedEvent> parse_event_line(std::string_view line) {
    EventLineReader reader;
    if (!Json::sax_parse(line, &reader)) return std::nullopt;
    const ParsedFields& f = reader.fields;
    auto status = f.string(ParsedFields::kStatus), syscall = f.string(ParsedFields::kSyscall);
    auto pid = f.integer(ParsedFields::kPid), tid = f.integer(ParsedFields::kTid);
    if (!status || !syscall || !pid || !tid) return std::nullopt;
    ParsedEvent e;
    e.pid = static_cast<uint32_t>(*pid);
    e.tid = static_cast<uint32_t>(*tid);
    e.status = *status;
    e.syscall = *syscall;
    e.reason = f.string(ParsedFields::kReason).value_or("");
    e.trace_id = f.string(ParsedFields::kTraceId).value_or("");
    e.span_id = f.string(ParsedFields::kSpanId).value_or("");
    e.vthread = f.integer(ParsedFields::kVthread);
    e.java_thread = f.integer(ParsedFields::kJavaThread);
    if (auto flags = f.integer(ParsedFields::kTraceFlags)) e.trace_flags = static_cast<int>(*flags);
    e.fd = f.integer(ParsedFields::kFd);
    if (auto count = f.integer(ParsedFields::kCount); count && *count >= 0) e.count = static_cast<uint64_t>(*count);
    return e;
}

ReportData collect_report(std::istream& in, size_t keep_traces) {
    ReportData data;
    data.keep_traces = keep_traces;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        auto e = parse_event_line(line);
        if (!e) {
            data.lines++;
            data.malformed++;
            continue;
        }
        add_to_report(data, e->status, e->trace_id, e->syscall, 1, e->count, e->vthread);
    }
    return data;
}

void add_to_report(ReportData& data, std::string_view status, const std::string& trace_id, const std::string& syscall,
                   uint64_t n, std::optional<uint64_t> bytes, std::optional<int64_t> vthread) {
    data.lines += n;
    data.by_status[std::string(status)] += n;
    if (trace_id.empty()) return;
    TraceTotals& t = data.traces[trace_id];
    t.syscalls += n;
    if (bytes) t.bytes += *bytes;
    if (vthread) t.vthreads.insert(*vthread);
    t.by_syscall[syscall] += n;
    // The report's own order (bytes, then syscalls) decides what stays.
    fold_lightest(
        data.traces, data.keep_traces, [](const TraceTotals& x) { return std::pair(x.bytes, x.syscalls); },
        [](const TraceTotals& x) { return x.syscalls; }, &data.folded_traces);
}

std::string render_report(const ReportData& data, int top) {
    std::ostringstream out;
    uint64_t events = data.lines - data.malformed;
    out << "events: " << events;
    for (const char* status : {"ok", "no_context", "context_unknown", "invalid", "unmapped"}) {
        auto it = data.by_status.find(status);
        uint64_t n = it == data.by_status.end() ? 0 : it->second;
        char pct[32];
        std::snprintf(pct, sizeof(pct), "%.1f", events ? 100.0 * n / events : 0.0);
        out << ", " << status << ' ' << n << " (" << pct << "%)";
    }
    out << '\n';
    if (data.malformed) out << "skipped " << data.malformed << " lines that are not vtscope events\n";
    uint64_t total_bytes = 0;
    for (const auto& [id, t] : data.traces) total_bytes += t.bytes;
    out << "traces: " << data.traces.size() << " distinct trace ids, " << total_bytes
        << " bytes requested by attributed syscalls that take a byte count\n";
    if (data.folded_traces.keys)
        out << "traces: " << data.folded_traces.keys << " more (" << data.folded_traces.weight
            << " syscalls) with the fewest bytes left this list, which keeps " << data.keep_traces
            << " in memory; their syscalls stay in the counts above\n";
    if (data.traces.empty()) return out.str();

    std::vector<const std::pair<const std::string, TraceTotals>*> order;
    for (const auto& entry : data.traces) order.push_back(&entry);
    std::sort(order.begin(), order.end(), [](auto* a, auto* b) {
        if (a->second.bytes != b->second.bytes) return a->second.bytes > b->second.bytes;
        if (a->second.syscalls != b->second.syscalls) return a->second.syscalls > b->second.syscalls;
        return a->first < b->first;
    });
    size_t shown = std::min<size_t>(order.size(), static_cast<size_t>(top));
    out << "top " << shown << " traces by bytes requested:\n";
    char header[160];
    std::snprintf(header, sizeof(header), "  %-32s %9s %11s %9s  %s\n", "trace_id", "syscalls", "bytes", "vthreads",
                  "syscalls by name");
    out << header;
    for (size_t i = 0; i < shown; i++) {
        const auto& [id, t] = *order[i];
        std::string names;
        for (const auto& [name, n] : t.by_syscall)
            names += (names.empty() ? "" : ", ") + terminal_safe(name) + ' ' + std::to_string(n);
        char row[200];
        // The trace file is input: its ids and names are written as text a terminal cannot act on.
        std::snprintf(row, sizeof(row), "  %-32s %9llu %11llu %9zu  ", terminal_safe(id).c_str(),
                      static_cast<unsigned long long>(t.syscalls), static_cast<unsigned long long>(t.bytes),
                      t.vthreads.size());
        out << row << names << '\n';
    }
    return out.str();
}

int run_report(const ReportOptions& options) {
    std::ifstream file;
    std::istream* in = &std::cin;
    if (options.input != "-") {
        std::error_code ec;
        if (std::filesystem::is_directory(options.input, ec)) {
            diagnostics::error("cannot read " + options.input +
                               ": it is a directory (vtscope report takes a trace file)");
            return 1;
        }
        file.open(options.input);
        if (!file) {
            diagnostics::error("cannot read " + options.input + ": " + std::strerror(errno));
            return 1;
        }
        in = &file;
    }
    ReportData data = collect_report(*in, kept_entries(options.top));
    std::fputs(render_report(data, options.top).c_str(), stdout);
    return 0;
}

}  // namespace vtscope
