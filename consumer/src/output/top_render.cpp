// SPDX-License-Identifier: Apache-2.0
#include "output/top_render.h"

#include <algorithm>
#include <cstdio>

#include "output/json_io.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

double per_second(uint64_t n, double seconds) { return seconds > 0 ? static_cast<double>(n) / seconds : 0; }

// CPU% of one core, as top(1) shows a thread's.
double cpu_percent(uint64_t cpu_ns, double seconds) { return seconds > 0 ? cpu_ns / (seconds * 1e7) : 0; }

std::string format(const char* fmt, auto... args) {
    char buf[512];
    std::snprintf(buf, sizeof(buf), fmt, args...);
    return buf;
}

// 1234567 -> "1.2M": five columns for any count.
std::string human(double value) {
    const char* units[] = {"", "k", "M", "G", "T"};
    int unit = 0;
    while (value >= 999.5 && unit < 4) {
        value /= 1000;
        unit++;
    }
    return unit == 0 ? format("%.0f", value) : format("%.1f%s", value, units[unit]);
}

std::string ms(uint64_t ns) { return format("%.1f", static_cast<double>(ns) / 1e6); }

std::string row_key(const TopRow& row, TopGrouping by) {
    switch (by) {
        case TopGrouping::kSpan: return row.trace_id + " " + row.span_id;
        case TopGrouping::kVthread: return format("%-10lld ", static_cast<long long>(row.vthread)) + row.trace_id;
        case TopGrouping::kTrace: break;
    }
    return row.trace_id;
}

const char* key_title(TopGrouping by) {
    switch (by) {
        case TopGrouping::kSpan: return "TRACE                            SPAN";
        case TopGrouping::kVthread: return "VTHREAD    TRACE";
        case TopGrouping::kTrace: break;
    }
    return "TRACE";
}

int key_width(TopGrouping by) { return by == TopGrouping::kSpan ? 49 : by == TopGrouping::kVthread ? 43 : 32; }

std::string clip(std::string line, int width) {
    if (width > 0 && static_cast<int>(line.size()) > width) line.resize(static_cast<size_t>(width));
    return line;
}

std::string row_line(const TopRow& row, TopGrouping by, double seconds) {
    const TopTotals& t = row.totals;
    return format("%-*s %6.1f %9s %9s %7s %7s %s", key_width(by), row_key(row, by).c_str(),
                  cpu_percent(t.cpu_ns, seconds), ms(t.blocked_ns).c_str(), ms(t.pinned_ns).c_str(),
                  human(per_second(t.syscalls, seconds)).c_str(), human(per_second(t.bytes, seconds)).c_str(),
                  row.state.c_str());
}

std::string carrier_line(const TopCarrier& c, uint64_t now_ns) {
    std::string state = c.pinned ? "pinned " + c.reason : c.vthread ? "running" : "idle";
    double since = now_ns > c.since_ns ? static_cast<double>(now_ns - c.since_ns) / 1e9 : 0;
    std::string vthread = c.vthread ? std::to_string(c.vthread) : "-";
    return format("%-8u %-20s %-10s %-32s %7.1fs %s", c.tid, c.name.c_str(), vthread.c_str(),
                  c.trace_id.empty() ? "-" : c.trace_id.c_str(), since, state.c_str());
}

}  // namespace

const char* top_help_line() {
    return "keys: t/s/v rows by trace/span/vthread  c/b/p/y sort by cpu/blocked/pinned/syscalls  / filter  "
           "space pause  q quit";
}

std::vector<std::string> render_top_screen(const TopFrame& frame, const TopViewState& view, int width, int height) {
    std::vector<std::string> lines;
    const TopTotals& t = frame.totals;
    double s = frame.interval_s;
    std::string filter = view.editing_filter   ? "  filter: " + view.filter + "_"
                         : view.filter.empty() ? ""
                                               : "  filter: " + view.filter;
    lines.push_back(format("vtscope top - pid %d - refresh %llu, %.1f s - rows by %s, sorted by %s%s%s", view.pid,
                           static_cast<unsigned long long>(frame.seq), s, grouping_name(view.by), sort_name(view.sort),
                           filter.c_str(), view.paused ? "  [paused]" : ""));
    lines.push_back(
        format("CPU %.1f%% (%llu samples)  blocked %s ms  pinned %s ms  syscalls %s/s  bytes %s/s  "
               "carriers %zu",
               cpu_percent(t.cpu_ns, s), static_cast<unsigned long long>(t.samples), ms(t.blocked_ns).c_str(),
               ms(t.pinned_ns).c_str(), human(per_second(t.syscalls, s)).c_str(), human(per_second(t.bytes, s)).c_str(),
               frame.carriers.size()));
    lines.push_back(top_help_line());
    lines.push_back("");
    lines.push_back(format("%-*s %6s %9s %9s %7s %7s %s", key_width(view.by), key_title(view.by), "CPU%", "BLOCKEDms",
                           "PINNEDms", "SYSC/s", "BYTES/s", "STATE"));
    // The carriers pane below keeps its lines (a header, a title and one line per carrier);
    // the rows take what is left.
    int pane = static_cast<int>(frame.carriers.size()) + 3;
    int room = std::max(1, height - static_cast<int>(lines.size()) - pane);
    std::vector<const TopRow*> rows = top_rows(frame.rows(view.by), view.sort, view.filter, static_cast<size_t>(room));
    for (const TopRow* row : rows) lines.push_back(row_line(*row, view.by, s));
    if (rows.empty()) lines.push_back("(no activity in this interval)");
    lines.push_back("");
    lines.push_back(
        format("CARRIERS (%zu): the virtual thread each runs now (its latest event)", frame.carriers.size()));
    lines.push_back(format("%-8s %-20s %-10s %-32s %8s %s", "TID", "NAME", "VTHREAD", "TRACE", "SINCE", "STATE"));
    for (const TopCarrier& c : frame.carriers) lines.push_back(carrier_line(c, frame.end_ns));
    if (height > 0 && static_cast<int>(lines.size()) > height) lines.resize(static_cast<size_t>(height));
    for (std::string& line : lines) line = clip(std::move(line), width);
    return lines;
}

std::string render_top_json(const TopFrame& frame, const TopViewState& view) {
    double s = frame.interval_s;
    auto totals = [s](OrderedJson& j, const TopTotals& t) {
        j["cpu_samples"] = t.samples;
        j["cpu_ns"] = t.cpu_ns;
        j["cpu_percent"] = json_double15(cpu_percent(t.cpu_ns, s));
        j["blocked_ns"] = t.blocked_ns;
        j["pinned_ns"] = t.pinned_ns;
        j["syscalls"] = t.syscalls;
        j["syscalls_per_s"] = json_double15(per_second(t.syscalls, s));
        j["bytes"] = t.bytes;
        j["bytes_per_s"] = json_double15(per_second(t.bytes, s));
    };
    OrderedJson out;
    out["refresh"] = frame.seq;
    out["pid"] = view.pid;
    out["end_ns"] = frame.end_ns;
    out["interval_s"] = json_double15(s);
    out["by"] = grouping_name(view.by);
    out["sort"] = sort_name(view.sort);
    OrderedJson all;
    totals(all, frame.totals);
    out["totals"] = std::move(all);
    const std::vector<TopRow>& rows = frame.rows(view.by);
    auto matches = [&](const TopRow& r) { return row_matches(r, view.filter); };
    out["row_count"] = static_cast<size_t>(std::count_if(rows.begin(), rows.end(), matches));
    OrderedJson list = OrderedJson::array();
    for (const TopRow* shown : top_rows(rows, view.sort, view.filter, static_cast<size_t>(view.top))) {
        const TopRow& r = *shown;
        OrderedJson row;
        row["trace_id"] = r.trace_id.empty() ? OrderedJson() : OrderedJson(r.trace_id);
        row["span_id"] = r.span_id.empty() ? OrderedJson() : OrderedJson(r.span_id);
        row["vthread"] = r.vthread ? OrderedJson(r.vthread) : OrderedJson();
        totals(row, r.totals);
        row["state"] = r.state;
        list.push_back(std::move(row));
    }
    out["rows"] = std::move(list);
    OrderedJson carriers = OrderedJson::array();
    for (const TopCarrier& c : frame.carriers) {
        OrderedJson j;
        j["tid"] = c.tid;
        j["name"] = c.name;
        j["vthread"] = c.vthread ? OrderedJson(c.vthread) : OrderedJson();
        j["trace_id"] = c.trace_id.empty() ? OrderedJson() : OrderedJson(c.trace_id);
        j["state"] = c.pinned ? "pinned" : c.vthread ? "running" : "idle";
        j["pinned"] = c.pinned;
        j["reason"] = c.pinned ? OrderedJson(c.reason) : OrderedJson();
        j["since_ns"] = c.since_ns;
        carriers.push_back(std::move(j));
    }
    out["carriers"] = std::move(carriers);
    return json_text(out);
}

}  // namespace vtscope
