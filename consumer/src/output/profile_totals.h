// SPDX-License-Identifier: Apache-2.0
// The sums the profile renderers (text and JSON) make of the rows: samples, CPU time, and the
// virtual threads and traces behind them, per group and ranked.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../bpf/attribution.h"
#include "core/profile_model.h"

namespace vtscope {

struct ProfileTotals {
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

// Biggest first, then by key, so equal counts print in a stable order.
template <typename Key>
std::vector<std::pair<Key, ProfileTotals>> ranked(const std::map<Key, ProfileTotals>& groups) {
    std::vector<std::pair<Key, ProfileTotals>> out(groups.begin(), groups.end());
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.second.samples > b.second.samples; });
    return out;
}

inline double profile_ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }
// part of whole in percent, 0 of nothing.
inline double profile_share(uint64_t part, uint64_t whole) {
    return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Samples that had a stack, and those whose stack is marked truncated.
struct StackCounts {
    uint64_t with_stack = 0, truncated = 0;
    void add(const ProfileRow& row) {
        if (!row.frames.empty() && !row.stack_lost) with_stack += row.samples;
        if (row.truncated) truncated += row.samples;
    }
};

}  // namespace vtscope
