// SPDX-License-Identifier: Apache-2.0
// Reading what an OTLP export produced, for the OTLP tests and `make demo-otlp`'s check: the
// (trace id, span id, syscall, bytes) of vtscope's own JSON lines and of the log records an
// OpenTelemetry Collector's file exporter wrote (JSON lines, one export request per line).
#pragma once

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "output/json_io.h"

namespace vtscope::testing {

// (trace id, span id, syscall, bytes), "" for what an event does not have.
using OtlpKey = std::tuple<std::string, std::string, std::string, std::string>;

// vtscope trace's lines; lines that do not parse are counted in *bad.
std::multiset<OtlpKey> local_keys(const std::vector<std::string>& lines, size_t* bad);

struct CollectorLogs {
    std::multiset<OtlpKey> keys;
    std::vector<Json> resources;  // one per resourceLogs entry
    std::string example;          // the first log record with a trace id, as the Collector wrote it
    size_t bad_lines = 0;
};
CollectorLogs collector_logs(const std::vector<std::string>& lines);

// The value object of attribute key in an OTLP attribute list (a shared null when absent).
const Json& otlp_attribute(const Json& list, const std::string& key);
// True when every element of small is in big (as many times).
bool is_sub_multiset(const std::multiset<OtlpKey>& small, std::multiset<OtlpKey> big);

}  // namespace vtscope::testing
