// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_model.h"

#include <time.h>

#include <algorithm>
#include <cstddef>

namespace vtscope {

OtlpAttribute OtlpAttribute::string(std::string key, std::string value) {
    OtlpAttribute a;
    a.key = std::move(key);
    a.kind = Kind::kString;
    a.text = std::move(value);
    return a;
}

OtlpAttribute OtlpAttribute::integer(std::string key, int64_t value) {
    OtlpAttribute a;
    a.key = std::move(key);
    a.kind = Kind::kInt;
    a.number = value;
    return a;
}

OtlpAttribute OtlpAttribute::boolean(std::string key, bool value) {
    OtlpAttribute a;
    a.key = std::move(key);
    a.kind = Kind::kBool;
    a.flag = value;
    return a;
}

uint64_t unix_now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void ExemplarReservoir::add(const TraceId& trace, const std::optional<SpanId>& span, double value,
                            uint64_t time_unix_ns) {
    OtlpExemplar& e = by_context_[{trace, span.value_or(SpanId{})}];
    e.trace_id = trace;
    e.span_id = span;
    e.value += value;
    e.time_unix_ns = time_unix_ns;
}

std::vector<OtlpExemplar> ExemplarReservoir::take(size_t k) {
    std::vector<OtlpExemplar> all;
    all.reserve(by_context_.size());
    for (auto& [context, e] : by_context_) all.push_back(e);
    by_context_.clear();
    size_t n = std::min(k, all.size());
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                      [](const OtlpExemplar& a, const OtlpExemplar& b) { return a.value > b.value; });
    all.resize(n);
    return all;
}

}  // namespace vtscope
