// SPDX-License-Identifier: Apache-2.0
// /proc/stat's machine-wide CPU time: how much of the busy time the hypervisor stole. The
// cpu-clock sampler counts stolen time in the samples of the task it interrupts, while the
// task's own CPU clock leaves it out, so `vtscope profile` says how large that share was.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vtscope {

// CPU time of all CPUs since boot, in USER_HZ ticks.
struct CpuTimes {
    uint64_t busy = 0;   // user, nice, system, irq, softirq and steal
    uint64_t steal = 0;  // runnable in the guest while the host ran something else
};

// Parses the "cpu " line of /proc/stat's text (fs/proc/stat.c: user nice system idle iowait irq
// softirq steal ...); nullopt when the line or its first eight fields are missing.
std::optional<CpuTimes> parse_proc_stat(std::string_view text);
std::optional<CpuTimes> read_proc_stat();

// The share of the busy time between two readings that was stolen; nullopt when nothing was busy
// or the counters went backwards.
std::optional<double> steal_share(const CpuTimes& before, const CpuTimes& after);

}  // namespace vtscope
