// SPDX-License-Identifier: Apache-2.0
#include "core/block_model.h"

#include <algorithm>
#include <set>

#include "sources/syscall_names.h"

namespace vtscope {

const char* block_reason_name(unsigned reason) {
    switch (reason) {
        case VTSCOPE_BLOCK_SYSCALL: return "syscall";
        case VTSCOPE_BLOCK_PREEMPTED: return "preempted";
        default: return "other";
    }
}

std::string BlockReason::name() const {
    std::string key = block_reason_name(reason);
    if (reason == VTSCOPE_BLOCK_SYSCALL) {
        const char* syscall_text = syscall_name(syscall);
        key += ":";
        key += syscall_text ? syscall_text : std::to_string(syscall);
    }
    return key;
}

void BlockTotals::add(BlockReason reason, uint64_t n, uint64_t ns, bool long_intervals) {
    if (reason.reason == VTSCOPE_BLOCK_PREEMPTED) {
        cpu_wait.count += n;
        cpu_wait.ns += ns;
        if (long_intervals) cpu_wait.reported += n;
        return;
    }
    count += n;
    total_ns += ns;
    if (long_intervals) reported += n;
    for (auto& [r, r_ns] : reasons_ns) {
        if (r == reason) {
            r_ns += ns;
            return;
        }
    }
    reasons_ns.emplace_back(reason, ns);
}

void BlockAggregate::compute_carriers(const std::vector<Span>& spans) {
    std::set<uint32_t> tids;
    std::vector<std::pair<uint64_t, int>> edges;  // (time, +1 blocked / -1 running again)
    for (const Span& s : spans) {
        tids.insert(s.tid);
        edges.emplace_back(s.start, 1);
        edges.emplace_back(s.end, -1);
    }
    carriers = tids.size();
    std::sort(edges.begin(), edges.end());  // at equal times the end (-1) first
    int blocked = 0;
    uint64_t since = 0;
    all_carriers_blocked_ns = 0;
    for (const auto& [t, d] : edges) {
        if (carriers > 0 && blocked == static_cast<int>(carriers)) all_carriers_blocked_ns += t - since;
        blocked += d;
        since = t;
    }
}

}  // namespace vtscope
