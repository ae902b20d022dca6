// SPDX-License-Identifier: Apache-2.0
// What an event source hands a live view (vtscope top) besides its own output: every count and
// interval as the source drains it, in the source's own terms (its kernel key, its attribution),
// so the view sums the same numbers `stat`, `block` and `profile` report and copies none of
// their draining. A source without an observer pays one null check per drained entry.
#pragma once

#include <cstdint>

#include "../../bpf/attribution.h"
#include "../../bpf/block.h"
#include "../../bpf/profile.h"
#include "../../bpf/syscalls.h"

namespace vtscope {

class SourceObserver {
public:
    virtual ~SourceObserver() = default;
    // The syscall source (stat's counts): `calls` entries under one key, and the sum of their
    // third arguments when the syscall has a byte count (syscall_has_count: read, write, ...),
    // else 0. stat's key carries neither span nor thread.
    virtual void on_syscalls(const vtscope_stat_key& key, uint64_t calls, uint64_t bytes) = 0;
    // The block source: n intervals of ns in all, off-CPU for `reason` (block.h); tid is the
    // carrier's for a reported interval and 0 for the ones summed in the kernel (their key has
    // none); ts_ns its switch-out (CLOCK_MONOTONIC), 0 for summed ones.
    virtual void on_blocked(const vtscope_attribution& a, uint32_t tid, uint64_t ts_ns, unsigned reason, uint64_t n,
                            uint64_t ns) = 0;
    // The block source, every sync round: the intervals open now (carriers off-CPU with a virtual
    // thread mounted), between begin_open_intervals and end_open_intervals.
    virtual void begin_open_intervals() {}
    virtual void on_open_interval(const vtscope_block_event& /*interval*/) {}
    virtual void end_open_intervals() {}
    // The profile source: `samples` CPU samples of one key and the CPU time they stand for.
    virtual void on_samples(const vtscope_profile_key& key, uint64_t samples, uint64_t cpu_ns) = 0;
};

}  // namespace vtscope
