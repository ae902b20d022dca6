// SPDX-License-Identifier: Apache-2.0
#include "output/profile_text.h"

#include <cstdio>
#include <type_traits>

#include "output/profile_totals.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

// Below 1% of steal the CPU times are as good as the sampling makes them; above it, say so.
constexpr double kStealWorthSaying = 0.01;

// A virtual thread's samples outside any trace, as rows of the groups' table: "no context" is a
// fact the thread's record states; "context unknown" says nothing could tell (no record region
// yet, say), and must never read as the first.
constexpr const char* kVirtualNoContextRow = "(virtual threads, no trace context)";
constexpr const char* kVirtualContextUnknownRow = "(virtual threads, context unknown)";

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

// The rows summed as the text report shows them.
struct TextTally {
    ProfileTotals all, virtual_no_context, virtual_context_unknown, virtual_all;
    std::map<std::string, ProfileTotals> groups;
    std::map<uint32_t, ProfileTotals> non_virtual;
    std::map<std::string, ProfileTotals> unattributed;
    StackCounts stacks;

    TextTally(const std::vector<ProfileRow>& rows, const ProfileInfo& info) {
        for (const ProfileRow& row : rows) {
            all.add(row);
            stacks.add(row);
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
    }
};

// The session in one line, then the warnings.
std::string session_text(const TextTally& t, const ProfileInfo& info) {
    std::string out = format(
        "vtscope profile: %s %s at %d Hz for %.1f s: %llu samples of the target, %.1f ms CPU; "
        "%.1f ms (%.1f%%) on virtual threads\n",
        info.event.c_str(), info.sampling.c_str(), info.hz, info.seconds, u(t.all.samples), profile_ms(t.all.cpu_ns),
        profile_ms(t.virtual_all.cpu_ns), profile_share(t.virtual_all.samples, t.all.samples));
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
    return out;
}

// What the groups' last column says of a group: its traces (by vthread) or its virtual threads.
std::string group_extra(const ProfileTotals& t, const ProfileInfo& info) {
    if (info.by != "vthread") return join_ids(t.vthreads, 8);
    std::string extra;
    if (!t.traces.empty()) extra = join_at_most(t.traces, 8, "");
    if (t.context_unknown_samples)
        extra += (extra.empty() ? "" : ", ") + format("(context unknown: %llu samples)", u(t.context_unknown_samples));
    return extra.empty() ? "(no context)" : extra;
}

// CPU per trace, span or virtual thread, the top of them, then the virtual threads outside any.
std::string groups_text(const TextTally& tally, const ProfileInfo& info) {
    const char* what = info.by == "vthread" ? "virtual thread" : info.by == "span" ? "span" : "trace";
    auto ranked_groups = ranked(tally.groups);
    std::string out = format("\nCPU per %s (%zu; top %d):\n", what, ranked_groups.size(), info.top);
    int width = info.by == "span" ? 49 : 32;
    out += format("  %-*s %8s %10s %7s  %s\n", width, what, "samples", "cpu_ms", "share",
                  info.by == "vthread" ? "traces" : "virtual threads");
    int shown = 0;
    const uint64_t all = tally.all.samples;
    for (const auto& [key, t] : ranked_groups) {
        if (shown++ == info.top) break;
        out += format("  %-*s %8llu %10.1f %6.1f%%  %s\n", width, key.c_str(), u(t.samples), profile_ms(t.cpu_ns),
                      profile_share(t.samples, all), group_extra(t, info).c_str());
    }
    for (auto [label, t] : {std::pair{kVirtualNoContextRow, &tally.virtual_no_context},
                            std::pair{kVirtualContextUnknownRow, &tally.virtual_context_unknown}})
        if (t->samples)
            out += format("  %-*s %8llu %10.1f %6.1f%%  %s\n", width, label, u(t->samples), profile_ms(t->cpu_ns),
                          profile_share(t->samples, all), join_ids(t->vthreads, 8).c_str());
    return out;
}

std::string non_virtual_text(const TextTally& tally, const ProfileInfo& info) {
    auto ranked_threads = ranked(tally.non_virtual);
    std::string out = format(
        "\nNon-virtual threads (Java platform threads, carriers with nothing mounted, GC and VM threads; %zu):\n",
        ranked_threads.size());
    out += format("  %-40s %8s %10s %7s\n", "thread (tid)", "samples", "cpu_ms", "share");
    int shown = 0;
    for (const auto& [tid, t] : ranked_threads) {
        if (shown++ == info.top) {
            out += format("  ... %zu more\n", ranked_threads.size() - static_cast<size_t>(info.top));
            break;
        }
        std::string name = terminal_safe(profile_thread_name(info, tid)) + " (" + std::to_string(tid) + ")";
        out += format("  %-40s %8llu %10.1f %6.1f%%\n", name.c_str(), u(t.samples), profile_ms(t.cpu_ns),
                      profile_share(t.samples, tally.all.samples));
    }
    return out;
}

std::string unattributed_text(const TextTally& tally) {
    std::string out =
        "\nSamples not attributed to a trace or to no context, by status/reason (unmapped/not_java_thread are the "
        "non-Java threads above; context_unknown ones are counted above by their thread):\n";
    if (tally.unattributed.empty()) out += "  none\n";
    for (const auto& [name, t] : ranked(tally.unattributed))
        out += format("  %-40s %8llu %10.1f %6.1f%%\n", name.c_str(), u(t.samples), profile_ms(t.cpu_ns),
                      profile_share(t.samples, tally.all.samples));
    return out;
}

std::string stacks_text(const TextTally& tally, const ProfileInfo& info) {
    return format(
        "\nStacks: %llu of %llu samples with a stack; %llu virtual-thread samples marked truncated (their "
        "stack stops before the thread's entry frame); %llu with their user or kernel stack lost (not stored in "
        "the kernel's stack map: its bucket held another stack; [user stack lost] or [kernel stack lost] in "
        "the folded stacks)\n",
        u(tally.stacks.with_stack), u(tally.all.samples), u(tally.stacks.truncated), u(info.stack_errors));
}

}  // namespace

std::string render_profile_text(const std::vector<ProfileRow>& rows, const ProfileInfo& info) {
    TextTally tally(rows, info);
    std::string out =
        session_text(tally, info) + groups_text(tally, info) + non_virtual_text(tally, info) + unattributed_text(tally);
    if (info.stacks) out += stacks_text(tally, info);
    return out;
}

}  // namespace vtscope
