// SPDX-License-Identifier: Apache-2.0
#include "otlp_records.h"

namespace vtscope::testing {
namespace {

// The text of the first object in a "logRecords" array of line that has a non-empty traceId, as
// written (a scan for balanced braces outside strings).
std::string first_record_with_trace(const std::string& line) {
    for (size_t at = line.find("\"logRecords\":["); at != std::string::npos;
         at = line.find("\"logRecords\":[", at + 1)) {
        size_t i = at + 14;
        int depth = 0;
        bool in_string = false;
        size_t start = 0;
        for (; i < line.size(); i++) {
            char c = line[i];
            if (in_string) {
                if (c == '\\')
                    i++;
                else if (c == '"')
                    in_string = false;
                continue;
            }
            if (c == '"') {
                in_string = true;
            } else if (c == '{') {
                if (depth++ == 0) start = i;
            } else if (c == '}') {
                if (--depth == 0) {
                    std::string record = line.substr(start, i - start + 1);
                    size_t t = record.find("\"traceId\":\"");
                    if (t != std::string::npos && record[t + 11] != '"') return record;
                }
            } else if (c == ']' && depth == 0) {
                break;
            }
        }
    }
    return "";
}

}  // namespace

const Json& otlp_attribute(const Json& list, const std::string& key) {
    static const Json null;
    for (const Json& a : json_array(list))
        if (json_string(json_member(a, "key")) == key) return json_member(a, "value");
    return null;
}

std::multiset<OtlpKey> local_keys(const std::vector<std::string>& lines, size_t* bad) {
    std::multiset<OtlpKey> keys;
    for (const std::string& line : lines) {
        Json j = parse_json(line);
        if (j.is_discarded()) {
            if (bad) ++*bad;
            continue;
        }
        const Json& n = json_member(j, "count");
        std::string count = n.is_number() ? std::to_string(static_cast<long long>(n.get<double>())) : "";
        keys.insert({json_string(json_member(j, "trace_id")), json_string(json_member(j, "span_id")),
                     json_string(json_member(j, "syscall")), count});
    }
    return keys;
}

CollectorLogs collector_logs(const std::vector<std::string>& lines) {
    CollectorLogs logs;
    for (const std::string& line : lines) {
        Json j = parse_json(line);
        if (j.is_discarded()) {
            logs.bad_lines++;
            continue;
        }
        for (const Json& rl : json_array(json_member(j, "resourceLogs"))) {
            logs.resources.push_back(json_member(rl, "resource"));
            for (const Json& sl : json_array(json_member(rl, "scopeLogs")))
                for (const Json& r : json_array(json_member(sl, "logRecords"))) {
                    const Json& attrs = json_member(r, "attributes");
                    logs.keys.insert({json_string(json_member(r, "traceId")), json_string(json_member(r, "spanId")),
                                      json_string(json_member(otlp_attribute(attrs, "vtscope.syscall"), "stringValue")),
                                      json_string(json_member(otlp_attribute(attrs, "vtscope.bytes"), "intValue"))});
                }
        }
        if (logs.example.empty()) logs.example = first_record_with_trace(line);
    }
    return logs;
}

bool is_sub_multiset(const std::multiset<OtlpKey>& small, std::multiset<OtlpKey> big) {
    for (const OtlpKey& k : small) {
        auto it = big.find(k);
        if (it == big.end()) return false;
        big.erase(it);
    }
    return true;
}

}  // namespace vtscope::testing
