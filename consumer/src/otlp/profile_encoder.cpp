// SPDX-License-Identifier: Apache-2.0
#include "otlp/profile_encoder.h"

#include <map>
#include <tuple>

#include "../../bpf/attribution.h"
#include "otlp/otlp_json.h"
#include "output/event_format.h"
#include "output/json_io.h"

namespace vtscope {
namespace {

using nlohmann::ordered_json;

// A table of the profiles dictionary: values interned to their index, entry 0 reserved.
template <typename Key>
class Table {
public:
    explicit Table(Key zero) { index(zero); }
    int32_t index(const Key& key) {
        auto [it, fresh] = indices_.try_emplace(key, static_cast<int32_t>(keys_.size()));
        if (fresh) keys_.push_back(key);
        return it->second;
    }
    const std::vector<Key>& keys() const { return keys_; }

private:
    std::map<Key, int32_t> indices_;
    std::vector<Key> keys_;
};

// Entry 0 is the reserved empty value; the others as write makes them.
template <typename Key, typename Write>
ordered_json table_json(const Table<Key>& table, Write write) {
    ordered_json out = ordered_json::array();
    out.push_back(ordered_json::object());
    for (size_t i = 1; i < table.keys().size(); i++) out.push_back(write(table.keys()[i]));
    return out;
}

struct Sample {
    int32_t stack, link;
    std::vector<int32_t> attributes;
    uint64_t cpu_ns;
};

// The request's dictionary, filled as the samples are interned.
struct Dictionary {
    Table<std::string> strings{""};
    Table<int32_t> functions{0};             // by name's string index
    Table<int32_t> locations{0};             // by function index (one line each)
    Table<std::vector<int32_t>> stacks{{}};  // location indices, leaf first
    Table<std::pair<std::string, std::string>> links{{"", ""}};
    // (key string index, kind, value): kind 0 string (value's string), 1 int, 2 bool.
    Table<std::tuple<int32_t, int, std::string>> attributes{{0, 0, ""}};

    Sample intern(const ProfileRow& row);
    ordered_json to_json() const;
};

Sample Dictionary::intern(const ProfileRow& row) {
    std::vector<int32_t> stack;
    for (auto frame = row.frames.rbegin(); frame != row.frames.rend(); ++frame)
        stack.push_back(locations.index(functions.index(strings.index(*frame))));
    Sample sample{stacks.index(stack), 0, {}, row.cpu_ns};
    if (row.status == VTSCOPE_STATUS_OK) sample.link = links.index({row.trace_id, row.span_id});
    auto attribute = [&](const char* key, int kind, std::string value) {
        sample.attributes.push_back(attributes.index({strings.index(key), kind, std::move(value)}));
    };
    bool identity = row.status == VTSCOPE_STATUS_OK || row.status == VTSCOPE_STATUS_NO_CONTEXT ||
                    row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN;
    if (identity && row.java_id > 0) {
        attribute("thread.id", 1, std::to_string(row.java_id));
        attribute("vtscope.thread.virtual", 2, row.mounted_virtual ? "true" : "false");
    }
    attribute("vtscope.os_thread.id", 1, std::to_string(row.tid));
    attribute("vtscope.status", 0, status_name(row.status));
    return sample;
}

ordered_json Dictionary::to_json() const {
    ordered_json d;
    d["stringTable"] = strings.keys();
    d["functionTable"] = table_json(functions, [](int32_t name) { return ordered_json{{"nameStrindex", name}}; });
    d["locationTable"] = table_json(locations, [](int32_t function) {
        return ordered_json{{"lines", ordered_json::array({ordered_json{{"functionIndex", function}}})}};
    });
    d["stackTable"] = table_json(stacks, [](const std::vector<int32_t>& stack) {
        return ordered_json{{"locationIndices", stack}};
    });
    d["linkTable"] = table_json(links, [](const std::pair<std::string, std::string>& link) {
        return ordered_json{{"traceId", link.first}, {"spanId", link.second}};
    });
    d["attributeTable"] = table_json(attributes, [](const std::tuple<int32_t, int, std::string>& a) {
        const auto& [key, kind, value] = a;
        ordered_json v;
        if (kind == 0) v["stringValue"] = value;
        if (kind == 1) v["intValue"] = value;
        if (kind == 2) v["boolValue"] = value == "true";
        return ordered_json{{"keyStrindex", key}, {"value", std::move(v)}};
    });
    return d;
}

ordered_json sample_json(const Sample& sample) {
    ordered_json s;
    s["stackIndex"] = sample.stack;
    s["values"] = ordered_json::array({std::to_string(sample.cpu_ns)});
    s["attributeIndices"] = sample.attributes;
    if (sample.link) s["linkIndex"] = sample.link;
    return s;
}

}  // namespace

std::string encode_profiles_request(const std::vector<OtlpAttribute>& resource, std::span<const ProfileRow> rows,
                                    uint64_t period_ns, uint64_t start_ns, uint64_t now_ns,
                                    const std::string& profile_id_hex) {
    Dictionary dictionary;
    const int32_t cpu = dictionary.strings.index("cpu"), nanoseconds = dictionary.strings.index("nanoseconds");
    ordered_json samples = ordered_json::array();
    for (const ProfileRow& row : rows) samples.push_back(sample_json(dictionary.intern(row)));
    ordered_json profile;
    profile["sampleType"] = {{"typeStrindex", cpu}, {"unitStrindex", nanoseconds}};
    profile["periodType"] = {{"typeStrindex", cpu}, {"unitStrindex", nanoseconds}};
    profile["period"] = std::to_string(period_ns);
    profile["timeUnixNano"] = std::to_string(start_ns);
    profile["durationNano"] = std::to_string(now_ns > start_ns ? now_ns - start_ns : 0);
    profile["profileId"] = profile_id_hex;
    profile["samples"] = std::move(samples);
    ordered_json request = export_request("Profiles", resource, "profiles", ordered_json::array({std::move(profile)}));
    request["dictionary"] = dictionary.to_json();
    return json_text(request);
}

}  // namespace vtscope
