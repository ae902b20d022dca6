// SPDX-License-Identifier: Apache-2.0
#include "output/folded_stacks.h"

#include <map>

#include "../../bpf/attribution.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

// A virtual thread's samples outside any trace: "no context" is a fact the thread's record
// states; "context unknown" says nothing could tell (no record region yet, say), and must never
// read as the first.
constexpr const char* kVirtualNoContextRoot = "[virtual, no trace context]";
constexpr const char* kVirtualContextUnknownRoot = "[virtual, context unknown]";

std::string root_frame(const ProfileRow& row, const ProfileInfo& info) {
    switch (row_kind(row)) {
        case RowKind::kVirtual: {
            std::string group = profile_group(row, info.by);
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
    std::map<std::vector<std::string>, uint64_t> folded;
    for (const ProfileRow& row : rows) {
        std::vector<std::string> frames{root_frame(row, info)};
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
