// SPDX-License-Identifier: Apache-2.0
#include "sources/jfr_join.h"

#include <algorithm>
#include <unordered_map>

namespace vtscope {
namespace {

// A virtual thread is off-CPU in one interval at a time, so a window meets a handful of untaken
// ones; a target whose thread ids make more overlap at once gets the latest kMaxJoinCandidates
// only, so the join stays O(n log n) whatever it writes.
constexpr size_t kMaxJoinCandidates = 64;

// The intervals of one virtual thread in start order, with the latest end up to each of them:
// a backward scan from the last interval that starts before an event's window stops at the first
// whose prefix reaches no further than the window's start (none before it can overlap). Taken
// intervals are skipped in one step: untaken_[p] leads (with path halving) to the nearest untaken
// position below p (positions counted from 1; 0: none).
class ThreadIntervals {
public:
    void add(size_t index, uint64_t end_ns) {
        reach_.push_back(std::max(reach_.empty() ? 0 : reach_.back(), end_ns));
        index_.push_back(index);
        untaken_.push_back(untaken_.size());
    }

    // The interval overlapping [lo, hi) most (the earlier of equals), taken; -1 if none.
    long take_best(const std::vector<JfrJoinInterval>& intervals, uint64_t lo, uint64_t hi) {
        auto first_after =
            std::partition_point(index_.begin(), index_.end(), [&](size_t i) { return intervals[i].start_ns < hi; });
        size_t best = 0;  // a position, 0: none
        uint64_t best_overlap = 0;
        size_t scanned = 0;
        for (size_t p = untaken(static_cast<size_t>(first_after - index_.begin()));
             p > 0 && reach_[p - 1] > lo && scanned < kMaxJoinCandidates; p = untaken(p - 1), scanned++) {
            const JfrJoinInterval& interval = intervals[index_[p - 1]];
            uint64_t from = std::max(interval.start_ns, lo), to = std::min(interval.end_ns, hi);
            // >=: scanning backwards, the earlier of two equal overlaps wins, as in start order.
            if (to > from && to - from >= best_overlap) {
                best_overlap = to - from;
                best = p;
            }
        }
        if (best == 0) return -1;
        untaken_[best] = best - 1;
        return static_cast<long>(index_[best - 1]);
    }

private:
    size_t untaken(size_t p) {
        while (untaken_[p] != p) p = untaken_[p] = untaken_[untaken_[p]];
        return p;
    }
    std::vector<size_t> index_;
    std::vector<uint64_t> reach_;
    std::vector<size_t> untaken_ = {0};
};

}  // namespace

std::vector<long> join_pinned_events(const std::vector<JfrJoinInterval>& intervals,
                                     const std::vector<JfrPinnedEvent>& events, uint64_t slack_ns) {
    std::unordered_map<int64_t, ThreadIntervals> threads;
    for (size_t i = 0; i < intervals.size(); i++)
        if (intervals[i].eligible) threads[intervals[i].vthread].add(i, intervals[i].end_ns);
    std::vector<long> joined(events.size(), -1);
    for (size_t e = 0; e < events.size(); e++) {
        auto thread = threads.find(events[e].vthread);
        if (thread == threads.end()) continue;
        uint64_t lo = events[e].start_ns > slack_ns ? events[e].start_ns - slack_ns : 0;
        uint64_t hi = events[e].start_ns + events[e].duration_ns + slack_ns;
        joined[e] = thread->second.take_best(intervals, lo, hi);
    }
    return joined;
}

}  // namespace vtscope
