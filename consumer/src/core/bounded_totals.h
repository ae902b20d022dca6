// SPDX-License-Identifier: Apache-2.0
// Per-key totals in bounded memory. A session can run for hours on a service with a trace and a
// virtual thread per request, so a summary's per-trace and per-thread tables cannot keep every
// key (vtscope block kept about 0.6 KB per request, bench/RESULTS.md). Once a table holds twice
// the keys it is meant to keep, the lighter half is folded: removed, its keys and weight counted.
// The heaviest keys, the ones a summary lists, stay exact unless a key was folded and came back,
// which it can only do while it is among the lightest; the process totals never pass through
// here and stay exact.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vtscope {

// Entries a summary keeps per table: enough for any list it prints (--top), and 20,000 at least.
constexpr size_t kKeptEntriesAtLeast = 20000;
inline size_t kept_entries(int top) { return std::max(kKeptEntriesAtLeast, static_cast<size_t>(std::max(top, 0))); }

struct FoldedKeys {
    uint64_t keys = 0;    // entries folded (a key folded twice counts twice)
    uint64_t weight = 0;  // their weight (nanoseconds, samples, ...) when folded
};

// After an insert into `table` (a std::map or std::unordered_map): when it holds more than
// 2 * keep entries, keeps the `keep` first by rank(value) (greater first) and folds the rest
// into *folded, summing weight(value). Amortised O(1) per insert.
template <typename Table, typename Rank, typename Weight>
void fold_lightest(Table& table, size_t keep, Rank rank, Weight weight, FoldedKeys* folded) {
    if (table.size() <= 2 * keep) return;
    std::vector<typename Table::iterator> entries;
    entries.reserve(table.size());
    for (auto it = table.begin(); it != table.end(); ++it) entries.push_back(it);
    auto heavier = [&](const auto& a, const auto& b) { return rank(a->second) > rank(b->second); };
    std::nth_element(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(keep), entries.end(), heavier);
    for (size_t i = keep; i < entries.size(); i++) {
        folded->keys++;
        folded->weight += weight(entries[i]->second);
        table.erase(entries[i]);
    }
}

}  // namespace vtscope
