// SPDX-License-Identifier: Apache-2.0
// stat --otlp's metrics: calls and bytes per syscall and attribution status.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "otlp/otlp_model.h"

namespace vtscope {

// One cumulative point of `vtscope stat`'s sums: calls (and bytes, for read/write-like calls)
// per syscall and status since start, and the exemplars of the calls since the last export.
struct SyscallTotals {
    std::string syscall;
    std::string status;
    uint64_t calls = 0;
    std::optional<uint64_t> bytes;
    std::vector<OtlpExemplar> exemplars;  // value: calls of that trace since the last export
};
// vtscope.syscall.calls and vtscope.syscall.bytes, attributes vtscope.syscall and vtscope.status
// only (bounded: trace ids are exemplars, never labels).
std::vector<OtlpMetric> syscall_metrics(std::span<const SyscallTotals> points);

}  // namespace vtscope
