// SPDX-License-Identifier: Apache-2.0
#include "output/folded_stacks.h"

#include <algorithm>
#include <map>
#include <set>

#include "../../bpf/attribution.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

// A virtual thread's samples outside any trace: "no context" is a fact the thread's record
// states; "context unknown" says nothing could tell (no record region yet, say), and must never
// read as the first.
constexpr const char* kVirtualNoContextRoot = "[virtual, no trace context]";
constexpr const char* kVirtualContextUnknownRoot = "[virtual, context unknown]";
// --merged: every virtual thread's sample under one root, so that a method hot in a thousand
// traces is one wide frame, not a thousand slivers.
constexpr const char* kMergedRoot = "[virtual threads]";

// The groups that keep a tower of their own: the info.groups with the most samples (then by
// name, so equal ones always come out the same).
std::set<std::string> kept_groups(const std::vector<ProfileRow>& rows, const ProfileInfo& info) {
    std::map<std::string, uint64_t> samples;
    for (const ProfileRow& row : rows)
        if (row_kind(row) == RowKind::kVirtual) samples[profile_group(row, info.by)] += row.samples;
    samples.erase("");
    std::vector<std::pair<std::string, uint64_t>> order(samples.begin(), samples.end());
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::set<std::string> kept;
    for (size_t i = 0; i < order.size() && i < static_cast<size_t>(std::max(info.groups, 0)); i++)
        kept.insert(order[i].first);
    return kept;
}

// The root of the groups that were not kept: "[3 other traces]".
std::string others_root(size_t others, const std::string& by) {
    const char* what = by == "vthread" ? "virtual threads" : by == "span" ? "spans" : "traces";
    return "[" + std::to_string(others) + " other " + what + "]";
}

struct Roots {
    std::set<std::string> kept;
    std::string others;  // the root of the rest
};

std::string root_frame(const ProfileRow& row, const ProfileInfo& info, const Roots& roots) {
    switch (row_kind(row)) {
        case RowKind::kVirtual: {
            if (info.merged) return kMergedRoot;
            std::string group = profile_group(row, info.by);
            if (!group.empty() && !roots.kept.count(group)) return roots.others;
            if (group.empty())
                return row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN ? kVirtualContextUnknownRoot
                                                                    : kVirtualNoContextRoot;
            if (info.by == "trace") return "trace " + group;
            if (info.by == "span") return "span " + group;
            return group;
        }
        case RowKind::kNonVirtual: return "[non-virtual] " + profile_thread_name(info, row.tid);
        case RowKind::kUnattributed: break;
    }
    return "[unattributed " + unattributed_name(row) + "]";
}

}  // namespace

std::vector<FoldedStack> fold_stacks(const std::vector<ProfileRow>& rows, const ProfileInfo& info) {
    Roots roots;
    if (!info.merged) {
        roots.kept = kept_groups(rows, info);
        std::set<std::string> all;
        for (const ProfileRow& row : rows)
            if (row_kind(row) == RowKind::kVirtual) all.insert(profile_group(row, info.by));
        all.erase("");
        roots.others = others_root(all.size() - roots.kept.size(), info.by);
    }
    std::map<std::vector<std::string>, uint64_t> folded;
    for (const ProfileRow& row : rows) {
        std::vector<std::string> frames{root_frame(row, info, roots)};
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
