// SPDX-License-Identifier: Apache-2.0
// What vtscope exports over OTLP, apart from its encoding: attributes, metrics with their points
// and exemplars, and the exemplar reservoir of a sum point.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vtscope {

struct OtlpAttribute {
    enum class Kind { kString, kInt, kBool };
    std::string key;
    Kind kind = Kind::kString;
    std::string text;
    int64_t number = 0;
    bool flag = false;
    static OtlpAttribute string(std::string key, std::string value);
    static OtlpAttribute integer(std::string key, int64_t value);
    static OtlpAttribute boolean(std::string key, bool value);
};

using TraceId = std::array<uint8_t, 16>;
using SpanId = std::array<uint8_t, 8>;

// A measurement of a metric point, with the trace context it was taken in: how a backend goes
// from a metric to the traces behind it without trace ids as labels (which would make every
// trace its own time series).
struct OtlpExemplar {
    uint64_t time_unix_ns = 0;
    double value = 0;
    TraceId trace_id{};
    std::optional<SpanId> span_id;  // stat's kernel table keeps no span id
};

// Exemplars per sum point and export at most: a few trace contexts are enough to go from a point
// to its traces, and the request stays bounded (points x 4) however many traces there are.
constexpr size_t kExemplarsPerPoint = 4;
// CLOCK_REALTIME in ns: the time of an exemplar or a point.
uint64_t unix_now_ns();

// One point of a metric: a sum (as_int, or as_double when the metric is not an integer) or a
// histogram (count, sum, bucket_counts: one more than the metric's bounds).
struct OtlpDataPoint {
    std::vector<OtlpAttribute> attributes;
    uint64_t as_int = 0;
    double as_double = 0;
    uint64_t count = 0;
    double sum = 0;
    std::vector<uint64_t> bucket_counts;
    std::vector<OtlpExemplar> exemplars;
};

// A cumulative metric over the session: a monotonic sum (integer or not) or an explicit-bucket
// histogram.
struct OtlpMetric {
    enum class Kind { kIntSum, kDoubleSum, kHistogram };
    OtlpMetric(std::string name_, std::string unit_, std::string description_, Kind kind_)
        : name(std::move(name_)), unit(std::move(unit_)), description(std::move(description_)), kind(kind_) {}
    std::string name;
    std::string unit;
    std::string description;
    Kind kind;
    std::vector<double> bounds;  // kHistogram: the explicit bucket bounds, ascending
    std::vector<OtlpDataPoint> points;
};

// The exemplars of one sum point between two exports: the k trace contexts that added most to
// it (the sum's measurements are counts in the kernel, so the value of an exemplar is what one
// trace context added since the last export, at the time of that drain).
class ExemplarReservoir {
public:
    void add(const TraceId& trace, const std::optional<SpanId>& span, double value, uint64_t time_unix_ns);
    // The k largest, largest first; the reservoir is empty afterwards.
    std::vector<OtlpExemplar> take(size_t k);
    bool empty() const { return by_context_.empty(); }

private:
    std::map<std::pair<TraceId, SpanId>, OtlpExemplar> by_context_;
};

}  // namespace vtscope
