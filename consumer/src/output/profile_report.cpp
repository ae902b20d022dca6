// SPDX-License-Identifier: Apache-2.0
#include "output/profile_report.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <type_traits>

#include "../../bpf/attribution.h"
#include "output/event_format.h"
#include "output/json.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

// Below 1% of steal the CPU times are as good as the sampling makes them; above it, say so.
constexpr double kStealWorthSaying = 0.01;

// printf into a string of whatever length it takes (a row names thread names and trace ids).
std::string format(const char* fmt, auto... args) {
    int length = std::snprintf(nullptr, 0, fmt, args...);
    if (length <= 0) return {};
    std::string out(static_cast<size_t>(length) + 1, '\0');
    std::snprintf(out.data(), out.size(), fmt, args...);
    out.pop_back();
    return out;
}

unsigned long long u(uint64_t v) { return static_cast<unsigned long long>(v); }
double ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }
double share(uint64_t part, uint64_t whole) {
    return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

struct Totals {
    uint64_t samples = 0;
    uint64_t cpu_ns = 0;
    uint64_t context_unknown_samples = 0;  // of a known thread whose context nothing can tell
    std::set<int64_t> vthreads;
    std::set<std::string> traces;
    void add(const ProfileRow& row) {
        samples += row.samples;
        cpu_ns += row.cpu_ns;
        if (row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN) context_unknown_samples += row.samples;
        if (row.mounted_virtual && row.java_id) vthreads.insert(row.java_id);
        if (!row.trace_id.empty()) traces.insert(row.trace_id);
    }
};

// A row whose thread is known: ok, no_context, and context_unknown ("identity known; whether a
// span is current cannot be known", attribution.h). Its CPU is that thread's whatever its context.
bool identity_known(const ProfileRow& row) {
    return row.status == VTSCOPE_STATUS_OK || row.status == VTSCOPE_STATUS_NO_CONTEXT ||
           row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN;
}

// A virtual thread's samples outside any trace, in the text report and as folded roots: "no
// context" is a fact the thread's record states; "context unknown" says nothing could tell (no
// record region yet, say), and must never read as the first.
constexpr const char* kVirtualNoContextRow = "(virtual threads, no trace context)";
constexpr const char* kVirtualContextUnknownRow = "(virtual threads, context unknown)";
constexpr const char* kVirtualNoContextRoot = "[virtual, no trace context]";
constexpr const char* kVirtualContextUnknownRoot = "[virtual, context unknown]";

// Biggest first, then by key, so equal counts print in a stable order.
template <typename Key>
std::vector<std::pair<Key, Totals>> ranked(const std::map<Key, Totals>& groups) {
    std::vector<std::pair<Key, Totals>> out(groups.begin(), groups.end());
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.second.samples > b.second.samples; });
    return out;
}

std::string thread_name(const ProfileInfo& info, uint32_t tid) {
    auto it = info.thread_names.find(tid);
    return it == info.thread_names.end() || it->second.empty() ? "?" : it->second;
}

std::string unattributed_name(const ProfileRow& row) {
    return std::string(status_name(row.status)) + "/" + reason_name(row.reason);
}

// The first max of them, then how many there are in all; "-" for none.
template <typename T>
std::string join_at_most(const std::set<T>& items, size_t max, const std::string& prefix) {
    std::string out;
    size_t n = 0;
    for (const T& item : items) {
        if (n++ == max) return out + ", ... (" + std::to_string(items.size()) + ")";
        std::string text;
        if constexpr (std::is_same_v<T, std::string>)
            text = item;
        else
            text = std::to_string(item);
        out += (out.empty() ? "" : ", ") + prefix + text;
    }
    return out.empty() ? "-" : out;
}

std::string join_ids(const std::set<int64_t>& ids, size_t max) { return join_at_most(ids, max, "#"); }

}  // namespace

RowKind row_kind(const ProfileRow& row) {
    if (identity_known(row)) return row.mounted_virtual ? RowKind::kVirtual : RowKind::kNonVirtual;
    // Not (yet) a live JavaThread: a GC or VM thread, or a Java thread before JavaThread::run,
    // which has mounted nothing yet. Either way no virtual thread runs on it.
    if (row.status == VTSCOPE_STATUS_UNMAPPED && row.reason == VTSCOPE_REASON_NOT_JAVA_THREAD)
        return RowKind::kNonVirtual;
    return RowKind::kUnattributed;
}

std::string profile_group(const ProfileRow& row, const std::string& by) {
    if (by == "vthread") return row.java_id ? "vthread #" + std::to_string(row.java_id) : "";
    if (by == "span") return row.trace_id.empty() ? "" : row.trace_id + "/" + row.span_id;
    return row.trace_id;
}

std::string render_profile_text(const std::vector<ProfileRow>& rows, const ProfileInfo& info) {
    Totals all, virtual_no_context, virtual_context_unknown, virtual_all;
    std::map<std::string, Totals> groups;
    std::map<uint32_t, Totals> non_virtual;
    std::map<std::string, Totals> unattributed;
    for (const ProfileRow& row : rows) {
        all.add(row);
        RowKind kind = row_kind(row);
        if (kind == RowKind::kVirtual) {
            virtual_all.add(row);
            if (info.by == "vthread" || row.status == VTSCOPE_STATUS_OK)
                groups[profile_group(row, info.by)].add(row);
            else if (row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN)
                virtual_context_unknown.add(row);
            else
                virtual_no_context.add(row);
        } else if (kind == RowKind::kNonVirtual) {
            non_virtual[row.tid].add(row);
        }
        if (row.status != VTSCOPE_STATUS_OK && row.status != VTSCOPE_STATUS_NO_CONTEXT)
            unattributed[unattributed_name(row)].add(row);
    }
    std::string out = format(
        "vtscope profile: %s %s at %d Hz for %.1f s: %llu samples of the target, %.1f ms CPU; "
        "%.1f ms (%.1f%%) on virtual threads\n",
        info.event.c_str(), info.sampling.c_str(), info.hz, info.seconds, u(all.samples), ms(all.cpu_ns),
        ms(virtual_all.cpu_ns), share(virtual_all.samples, all.samples));
    if (info.samples_not_kept)
        out += format(
            "warning: %llu samples not kept: over the bound of %zu distinct thread/trace/span/stack rows or "
            "%zu distinct stacks (not in the counts below)\n",
            u(info.samples_not_kept), kMaxProfileRows, kMaxProfileStacks);
    // Warnings and thread names carry the target's strings (its comm, its perf map's path).
    for (const std::string& w : info.warnings) out += "warning: " + terminal_safe(w) + "\n";
    if (info.steal_share && *info.steal_share >= kStealWorthSaying)
        out += format(
            "warning: the hypervisor stole %.1f%% of this machine's busy CPU time during the session "
            "(/proc/stat): samples count stolen time, the threads' CPU clocks do not, so the CPU times below "
            "can exceed theirs by up to that share\n",
            100.0 * *info.steal_share);

    const char* what = info.by == "vthread" ? "virtual thread" : info.by == "span" ? "span" : "trace";
    auto ranked_groups = ranked(groups);
    out += format("\nCPU per %s (%zu; top %d):\n", what, ranked_groups.size(), info.top);
    int width = info.by == "span" ? 49 : 32;
    out += format("  %-*s %8s %10s %7s  %s\n", width, what, "samples", "cpu_ms", "share",
                  info.by == "vthread" ? "traces" : "virtual threads");
    int shown = 0;
    for (const auto& [key, t] : ranked_groups) {
        if (shown++ == info.top) break;
        std::string extra;
        if (info.by == "vthread") {
            if (!t.traces.empty()) extra = join_at_most(t.traces, 8, "");
            if (t.context_unknown_samples)
                extra += (extra.empty() ? "" : ", ") +
                         format("(context unknown: %llu samples)", u(t.context_unknown_samples));
            if (extra.empty()) extra = "(no context)";
        } else {
            extra = join_ids(t.vthreads, 8);
        }
        out += format("  %-*s %8llu %10.1f %6.1f%%  %s\n", width, key.c_str(), u(t.samples), ms(t.cpu_ns),
                      share(t.samples, all.samples), extra.c_str());
    }
    for (auto [label, t] : {std::pair{kVirtualNoContextRow, &virtual_no_context},
                            std::pair{kVirtualContextUnknownRow, &virtual_context_unknown}})
        if (t->samples)
            out += format("  %-*s %8llu %10.1f %6.1f%%  %s\n", width, label, u(t->samples), ms(t->cpu_ns),
                          share(t->samples, all.samples), join_ids(t->vthreads, 8).c_str());

    auto ranked_threads = ranked(non_virtual);
    out += format(
        "\nNon-virtual threads (Java platform threads, carriers with nothing mounted, GC and VM threads; %zu):\n",
        ranked_threads.size());
    out += format("  %-40s %8s %10s %7s\n", "thread (tid)", "samples", "cpu_ms", "share");
    shown = 0;
    for (const auto& [tid, t] : ranked_threads) {
        if (shown++ == info.top) {
            out += format("  ... %zu more\n", ranked_threads.size() - static_cast<size_t>(info.top));
            break;
        }
        std::string name = terminal_safe(thread_name(info, tid)) + " (" + std::to_string(tid) + ")";
        out += format("  %-40s %8llu %10.1f %6.1f%%\n", name.c_str(), u(t.samples), ms(t.cpu_ns),
                      share(t.samples, all.samples));
    }

    out +=
        "\nSamples not attributed to a trace or to no context, by status/reason (unmapped/not_java_thread are the "
        "non-Java threads above; context_unknown ones are counted above by their thread):\n";
    if (unattributed.empty()) out += "  none\n";
    for (const auto& [name, t] : ranked(unattributed))
        out += format("  %-40s %8llu %10.1f %6.1f%%\n", name.c_str(), u(t.samples), ms(t.cpu_ns),
                      share(t.samples, all.samples));
    if (info.stacks) {
        uint64_t with_stack = 0, truncated = 0;
        for (const ProfileRow& row : rows) {
            if (!row.frames.empty() && !row.stack_lost) with_stack += row.samples;
            if (row.truncated) truncated += row.samples;
        }
        out += format(
            "\nStacks: %llu of %llu samples with a stack; %llu virtual-thread samples marked truncated (their "
            "stack stops before the thread's entry frame); %llu with their user or kernel stack lost (not stored in "
            "the kernel's stack map: its bucket held another stack; [user stack lost] or [kernel stack lost] in "
            "the folded stacks)\n",
            u(with_stack), u(all.samples), u(truncated), u(info.stack_errors));
    }
    return out;
}

std::string render_profile_json(const std::vector<ProfileRow>& rows, const ProfileInfo& info) {
    Totals all, virtual_all, virtual_no_context, virtual_context_unknown;
    std::map<std::string, Totals> groups, traces, unattributed;
    std::map<int64_t, Totals> vthreads;
    std::map<int64_t, std::map<std::string, uint64_t>> vthread_traces;
    std::map<uint32_t, Totals> non_virtual;
    struct ThreadTotals {
        uint64_t samples = 0, cpu_ns = 0, virtual_samples = 0;
        uint64_t by_status[VTSCOPE_STATUS_COUNT] = {};
    };
    std::map<uint32_t, ThreadTotals> threads;
    uint64_t with_stack = 0, truncated = 0;
    for (const ProfileRow& row : rows) {
        all.add(row);
        RowKind kind = row_kind(row);
        ThreadTotals& t = threads[row.tid];
        t.samples += row.samples;
        t.cpu_ns += row.cpu_ns;
        if (row.status < VTSCOPE_STATUS_COUNT) t.by_status[row.status] += row.samples;
        if (kind == RowKind::kVirtual) {
            t.virtual_samples += row.samples;
            virtual_all.add(row);
            vthreads[row.java_id].add(row);
            // "none": the record says no span is current; "unknown": nothing can say.
            vthread_traces[row.java_id][row.status == VTSCOPE_STATUS_OK                ? row.trace_id
                                        : row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN ? "unknown"
                                                                                       : "none"] += row.samples;
            if (row.status == VTSCOPE_STATUS_OK) {
                traces[row.trace_id].add(row);
                groups[profile_group(row, info.by)].add(row);
            } else {
                (row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN ? virtual_context_unknown : virtual_no_context).add(row);
                if (info.by == "vthread") groups[profile_group(row, info.by)].add(row);
            }
        } else if (kind == RowKind::kNonVirtual) {
            non_virtual[row.tid].add(row);
        }
        if (row.status != VTSCOPE_STATUS_OK && row.status != VTSCOPE_STATUS_NO_CONTEXT)
            unattributed[unattributed_name(row)].add(row);
        if (!row.frames.empty() && !row.stack_lost) with_stack += row.samples;
        if (row.truncated) truncated += row.samples;
    }
    std::ostringstream js;
    // Every digit a double keeps (DBL_DIG): cpu_ms to the microsecond in any session, where the
    // default 6 would write 1234567.891 ms as 1.23457e+06.
    js.precision(15);
    auto totals = [&](const Totals& t) {
        js << "\"samples\":" << t.samples << ",\"cpu_ms\":" << ms(t.cpu_ns)
           << ",\"share\":" << share(t.samples, all.samples) / 100.0;
    };
    js << "{\"event\":" << json_quote(info.event) << ",\"sampling\":" << json_quote(info.sampling)
       << ",\"hz\":" << info.hz << ",\"seconds\":" << info.seconds << ",\"steal_share\":";
    if (info.steal_share)
        js << *info.steal_share;
    else
        js << "null";
    js << ",\"by\":" << json_quote(info.by) << ",";
    totals(all);
    js << ",\"virtual\":{";
    totals(virtual_all);
    js << "},\"virtual_no_context\":{";
    totals(virtual_no_context);
    js << "},\"virtual_context_unknown\":{";
    totals(virtual_context_unknown);
    js << "},\"groups\":[";
    bool first = true;
    for (const auto& [key, t] : ranked(groups)) {
        js << (first ? "" : ",") << "{\"key\":" << json_quote(key) << ",";
        first = false;
        totals(t);
        js << ",\"vthreads\":[";
        bool f = true;
        for (int64_t id : t.vthreads) js << (f ? "" : ",") << id, f = false;
        js << "],\"traces\":[";
        f = true;
        for (const std::string& trace : t.traces) js << (f ? "" : ",") << json_quote(trace), f = false;
        js << "],\"context_unknown_samples\":" << t.context_unknown_samples << "}";
    }
    js << "],\"traces\":[";
    first = true;
    for (const auto& [trace, t] : ranked(traces)) {
        js << (first ? "" : ",") << "{\"trace_id\":" << json_quote(trace) << ",";
        first = false;
        totals(t);
        js << ",\"vthreads\":[";
        bool f = true;
        for (int64_t id : t.vthreads) js << (f ? "" : ",") << id, f = false;
        js << "]}";
    }
    js << "],\"vthreads\":[";
    first = true;
    for (const auto& [id, t] : ranked(vthreads)) {
        js << (first ? "" : ",") << "{\"java_id\":" << id << ",";
        first = false;
        totals(t);
        js << ",\"traces\":{";
        bool f = true;
        for (const auto& [trace, n] : vthread_traces[id])
            js << (f ? "" : ",") << json_quote(trace) << ":" << n, f = false;
        js << "}}";
    }
    js << "],\"threads\":[";
    first = true;
    for (const auto& [tid, t] : threads) {
        js << (first ? "" : ",") << "{\"tid\":" << tid << ",\"name\":" << json_quote(thread_name(info, tid))
           << ",\"samples\":" << t.samples << ",\"cpu_ms\":" << ms(t.cpu_ns)
           << ",\"virtual_samples\":" << t.virtual_samples;
        first = false;
        for (unsigned s = 0; s < VTSCOPE_STATUS_COUNT; s++)
            js << "," << json_quote(status_name(s)) << ":" << t.by_status[s];
        js << "}";
    }
    js << "],\"non_virtual\":[";
    first = true;
    for (const auto& [tid, t] : ranked(non_virtual)) {
        js << (first ? "" : ",") << "{\"tid\":" << tid << ",\"name\":" << json_quote(thread_name(info, tid)) << ",";
        first = false;
        totals(t);
        js << "}";
    }
    js << "],\"unattributed\":[";
    first = true;
    for (const auto& [name, t] : ranked(unattributed)) {
        auto slash = name.find('/');
        js << (first ? "" : ",") << "{\"status\":" << json_quote(name.substr(0, slash))
           << ",\"reason\":" << json_quote(name.substr(slash + 1)) << ",";
        first = false;
        totals(t);
        js << "}";
    }
    js << "],\"stacks\":";
    if (info.stacks)
        js << "{\"samples_with_stack\":" << with_stack << ",\"truncated_samples\":" << truncated
           << ",\"stack_errors\":" << info.stack_errors << "}";
    else
        js << "null";
    js << ",\"samples_not_kept\":" << info.samples_not_kept << ",\"rows_bound\":" << kMaxProfileRows
       << ",\"stacks_bound\":" << kMaxProfileStacks;
    js << ",\"warnings\":[";
    first = true;
    for (const std::string& w : info.warnings) js << (first ? "" : ",") << json_quote(w), first = false;
    js << "]}";
    return js.str();
}

std::vector<FoldedStack> fold_stacks(const std::vector<ProfileRow>& rows, const ProfileInfo& info) {
    std::map<std::vector<std::string>, uint64_t> folded;
    for (const ProfileRow& row : rows) {
        std::vector<std::string> frames;
        switch (row_kind(row)) {
            case RowKind::kVirtual: {
                std::string group = profile_group(row, info.by);
                if (group.empty())
                    group = row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN ? kVirtualContextUnknownRoot
                                                                         : kVirtualNoContextRoot;
                else if (info.by == "trace")
                    group = "trace " + group;
                else if (info.by == "span")
                    group = "span " + group;
                frames.push_back(group);
                break;
            }
            case RowKind::kNonVirtual: frames.push_back("[non-virtual] " + thread_name(info, row.tid)); break;
            case RowKind::kUnattributed: frames.push_back("[unattributed " + unattributed_name(row) + "]"); break;
        }
        if (row.truncated) frames.push_back("[truncated]");
        if (row.frames.empty()) frames.push_back("[no stack]");
        frames.insert(frames.end(), row.frames.begin(), row.frames.end());
        folded[frames] += row.samples;
    }
    std::vector<FoldedStack> out;
    for (auto& [frames, count] : folded) out.push_back({frames, count});
    return out;
}

std::string render_folded(const std::vector<FoldedStack>& stacks) {
    std::string out;
    for (const FoldedStack& s : stacks) {
        std::string line;
        // Frames are the target's symbols and thread names: no newline may forge a line, no ";"
        // split a frame. The count follows the last space, so spaces inside frames ("trace ID",
        // "[non-virtual] NAME") are read as flamegraph.pl reads them.
        for (const std::string& f : s.frames) line += (line.empty() ? "" : ";") + folded_frame_safe(f);
        out += line + " " + std::to_string(s.count) + "\n";
    }
    return out;
}

}  // namespace vtscope
