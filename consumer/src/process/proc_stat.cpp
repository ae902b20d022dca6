// SPDX-License-Identifier: Apache-2.0
#include "process/proc_stat.h"

#include <fstream>
#include <sstream>
#include <string>

namespace vtscope {

std::optional<CpuTimes> parse_proc_stat(std::string_view text) {
    if (text.substr(0, 4) != "cpu ") return std::nullopt;
    std::istringstream line(std::string(text.substr(4, text.find('\n') - 4)));
    uint64_t field[8];
    for (uint64_t& f : field)
        if (!(line >> f)) return std::nullopt;
    CpuTimes times;
    enum { kUser, kNice, kSystem, kIdle, kIowait, kIrq, kSoftirq, kSteal };
    times.steal = field[kSteal];
    times.busy = field[kUser] + field[kNice] + field[kSystem] + field[kIrq] + field[kSoftirq] + field[kSteal];
    return times;
}

std::optional<CpuTimes> read_proc_stat() {
    std::ifstream file("/proc/stat");
    std::string first;
    if (!std::getline(file, first)) return std::nullopt;
    return parse_proc_stat(first);
}

std::optional<double> steal_share(const CpuTimes& before, const CpuTimes& after) {
    if (after.busy <= before.busy || after.steal < before.steal) return std::nullopt;
    return static_cast<double>(after.steal - before.steal) / static_cast<double>(after.busy - before.busy);
}

}  // namespace vtscope
