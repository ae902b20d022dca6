// SPDX-License-Identifier: Apache-2.0
// The join of block --jfr: each JFR pinned event to the vtscope interval of its virtual thread
// that overlaps it most.
#pragma once

#include <cstdint>
#include <vector>

#include "sources/jfr_events.h"

namespace vtscope {

// An interval vtscope reported, as the JFR join sees it.
struct JfrJoinInterval {
    int64_t vthread = 0;    // the mounted virtual thread's Java id
    bool eligible = false;  // a virtual thread was mounted (else it joins nothing)
    uint64_t start_ns = 0, end_ns = 0;
};
// Joins each event (in order) to the interval of the same virtual thread that overlaps it most,
// its span widened by slack_ns on both sides; an interval takes at most one event, ties go to the
// earlier interval. intervals: sorted by start_ns. Returns, per event, the index of its interval
// or -1. O((n + m) log n) for n intervals and m events.
std::vector<long> join_pinned_events(const std::vector<JfrJoinInterval>& intervals,
                                     const std::vector<JfrPinnedEvent>& events, uint64_t slack_ns);

}  // namespace vtscope
