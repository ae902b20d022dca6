// SPDX-License-Identifier: Apache-2.0
#include "otlp/syscall_metrics.h"

namespace vtscope {

std::vector<OtlpMetric> syscall_metrics(std::span<const SyscallTotals> points) {
    OtlpMetric calls{"vtscope.syscall.calls", "{call}",
                     "syscall entries of the target, by syscall and attribution status", OtlpMetric::Kind::kIntSum};
    OtlpMetric bytes{"vtscope.syscall.bytes", "By", "bytes requested by read/write-like syscalls (third argument)",
                     OtlpMetric::Kind::kIntSum};
    for (const SyscallTotals& t : points) {
        OtlpDataPoint p;
        p.attributes = {OtlpAttribute::string("vtscope.syscall", t.syscall),
                        OtlpAttribute::string("vtscope.status", t.status)};
        p.as_int = t.calls;
        p.exemplars = t.exemplars;
        if (t.bytes) {
            OtlpDataPoint b = p;
            b.as_int = *t.bytes;
            b.exemplars.clear();  // an exemplar's value is calls: it belongs to the calls point
            bytes.points.push_back(std::move(b));
        }
        calls.points.push_back(std::move(p));
    }
    return {std::move(calls), std::move(bytes)};
}

}  // namespace vtscope
