// SPDX-License-Identifier: Apache-2.0
#include "output/block_summary.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <type_traits>

#include "output/diagnostics.h"
#include "output/event_format.h"
#include "output/json_io.h"

namespace vtscope {
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
// out in the same order).
template <typename Table>
std::vector<std::pair<typename Table::key_type, const BlockTotals*>> top_entries(const Table& table, int top) {
    std::vector<std::pair<typename Table::key_type, const BlockTotals*>> v;
    for (const auto& [k, t] : table)
        if (t.count) v.emplace_back(k, &t);  // an entry that only waited for a CPU never blocked
    auto heavier = [](const auto& a, const auto& b) {
        return a.second->total_ns != b.second->total_ns ? a.second->total_ns > b.second->total_ns : a.first < b.first;
    };
    size_t n = std::min(v.size(), static_cast<size_t>(std::max(top, 0)));
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), v.end(), heavier);
    v.resize(n);
    return v;
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
    if (t.cpu_wait.ns) s += "; " + ms(t.cpu_wait.ns) + " waiting for a CPU";
    return s;
}

// The lines before the lists: the totals, what the session missed, the carriers and JFR.
std::string totals_text(const BlockAggregate& a) {
    std::string text = "vtscope: block: " + std::to_string(a.all.count) +
                       " blocking intervals with a virtual thread mounted (" + std::to_string(a.all.reported) +
                       " reported), " + ms(a.all.total_ns) + " blocked";
    if (a.open_at_end) text += ", " + std::to_string(a.open_at_end) + " still open at the end";
    text += "\n";
    if (a.all.cpu_wait.count)
        text += "vtscope: block: waiting for a CPU (preempted, not blocking): " + std::to_string(a.all.cpu_wait.count) +
                " intervals (" + std::to_string(a.all.cpu_wait.reported) + " reported), " + ms(a.all.cpu_wait.ns) +
                "\n";
    if (a.missed_switch_ins)
        text += diagnostics::line(diagnostics::Kind::kNote,
                                  "block: " + std::to_string(a.missed_switch_ins) +
                                      " switch-ins made without a sched_switch event; their intervals end at the "
                                      "arrival the kernel recorded");
    if (a.dropped_end_unknown || a.program_misses)
        text += diagnostics::line(diagnostics::Kind::kWarning, "block: " + std::to_string(a.dropped_end_unknown) +
                                                                   " intervals dropped (their end was not seen) and " +
                                                                   std::to_string(a.program_misses) +
                                                                   " sched_switch events the program missed");
    if (a.carriers > 0)
        text += "vtscope: block: carriers: " + std::to_string(a.carriers) + " seen blocked, " +
                format_share(a.carrier_blocked_ns, a.carriers * a.session_ns) + " of their time blocked (" +
                ms(a.carrier_blocked_ns) + " of " + ms(a.carriers * a.session_ns) + "); all " +
                std::to_string(a.carriers) + " blocked at once for " + ms(a.all_carriers_blocked_ns) + "\n";
    if (a.jfr) {
        text += "vtscope: block: JFR jdk.VirtualThreadPinned: " + std::to_string(a.jfr_events) + " events, " +
                std::to_string(a.jfr_joined) + " joined to an interval, " + std::to_string(a.jfr_only) +
                " seen by JFR only; " + std::to_string(a.reported_not_in_jfr) + " reported intervals JFR did not see";
        if (a.jfr_below_threshold)
            text += "; " + std::to_string(a.jfr_below_threshold) + " events shorter than the threshold left out";
        text += "\n";
    }
    return text;
}

// The totals' members, in the order of the summary: count, reported, blocked_ns, top_reasons.
void add_totals(nlohmann::ordered_json& object, const BlockTotals& t) {
    object["count"] = t.count;
    object["reported"] = t.reported;
    object["blocked_ns"] = t.total_ns;
    nlohmann::ordered_json reasons = nlohmann::ordered_json::array();
    for (const auto& [reason, ns] : top_reasons(t, 3))
        reasons.push_back(nlohmann::ordered_json{{"reason", reason}, {"blocked_ns", ns}});
    object["top_reasons"] = std::move(reasons);
    object["cpu_wait"] = {{"count", t.cpu_wait.count}, {"reported", t.cpu_wait.reported}, {"wait_ns", t.cpu_wait.ns}};
}

// One entry of the traces or vthreads list: its key first, then its totals.
template <typename Key>
nlohmann::ordered_json entry_json(const char* key_name, const Key& key, const BlockTotals& t) {
    nlohmann::ordered_json entry;
    if constexpr (std::is_same_v<Key, TraceKey>)
        entry[key_name] = key_text(key);
    else
        entry[key_name] = key;
    add_totals(entry, t);
    return entry;
}

}  // namespace

std::string render_block_text(const BlockAggregate& a, int top) {
    std::string text = totals_text(a);
    if (a.folded_traces.keys || a.folded_vthreads.keys)
        text += diagnostics::line(diagnostics::Kind::kNote,
                                  "block: " + std::to_string(a.folded_traces.keys) + " traces (" +
                                      ms(a.folded_traces.weight) + ") and " + std::to_string(a.folded_vthreads.keys) +
                                      " virtual threads (" + ms(a.folded_vthreads.weight) +
                                      ") with the least blocked time left the lists below, which keep " +
                                      std::to_string(a.keep) + " of each in memory; their time stays in the totals");
    for (const auto& [trace, t] : top_entries(a.by_trace, top))
        text += "vtscope: block: trace " + key_text(trace) + ": " + std::to_string(t->count) + " intervals, " +
                ms(t->total_ns) + " (" + reasons_text(*t) + ")\n";
    for (const auto& [vthread, t] : top_entries(a.by_vthread, top))
        text += "vtscope: block: vthread " + key_text(vthread) + ": " + std::to_string(t->count) + " intervals, " +
                ms(t->total_ns) + " (" + reasons_text(*t) + ")\n";
    return text;
}

std::string render_block_json(const BlockAggregate& a, int top) {
    nlohmann::ordered_json js;
    add_totals(js, a.all);
    js["open_at_end"] = a.open_at_end;
    js["carriers"] = {{"seen", a.carriers},
                      {"session_ns", a.session_ns},
                      {"blocked_ns", a.carrier_blocked_ns},
                      {"all_blocked_ns", a.all_carriers_blocked_ns}};
    js["folded"] = {{"traces", a.folded_traces.keys},
                    {"traces_blocked_ns", a.folded_traces.weight},
                    {"vthreads", a.folded_vthreads.keys},
                    {"vthreads_blocked_ns", a.folded_vthreads.weight}};
    js["missed_switch_ins"] = a.missed_switch_ins;
    js["dropped_end_unknown"] = a.dropped_end_unknown;
    js["program_misses"] = a.program_misses;
    if (a.jfr)
        js["jfr"] = {{"events", a.jfr_events},
                     {"joined", a.jfr_joined},
                     {"jfr_only", a.jfr_only},
                     {"below_threshold", a.jfr_below_threshold},
                     {"reported_not_in_jfr", a.reported_not_in_jfr}};
    js["traces"] = nlohmann::ordered_json::array();
    for (const auto& [trace, t] : top_entries(a.by_trace, top))
        js["traces"].push_back(entry_json("trace_id", trace, *t));
    js["vthreads"] = nlohmann::ordered_json::array();
    for (const auto& [vthread, t] : top_entries(a.by_vthread, top))
        js["vthreads"].push_back(entry_json("vthread", vthread, *t));
    return json_text(js);
}

}  // namespace vtscope
