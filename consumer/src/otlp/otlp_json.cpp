// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_json.h"

namespace vtscope {

namespace {

nlohmann::ordered_json keyed(std::string_view key, nlohmann::ordered_json value) {
    nlohmann::ordered_json a;
    a["key"] = std::string(key);
    a["value"] = std::move(value);
    return a;
}

}  // namespace

nlohmann::ordered_json string_attribute(std::string_view key, std::string_view value) {
    return keyed(key, {{"stringValue", std::string(value)}});
}

// int64 is a JSON string in the protobuf JSON mapping.
nlohmann::ordered_json int_attribute(std::string_view key, int64_t value) {
    return keyed(key, {{"intValue", std::to_string(value)}});
}

nlohmann::ordered_json bool_attribute(std::string_view key, bool value) { return keyed(key, {{"boolValue", value}}); }

nlohmann::ordered_json attribute_json(const OtlpAttribute& a) {
    switch (a.kind) {
        case OtlpAttribute::Kind::kInt: return int_attribute(a.key, a.number);
        case OtlpAttribute::Kind::kBool: return bool_attribute(a.key, a.flag);
        case OtlpAttribute::Kind::kString: break;
    }
    return string_attribute(a.key, a.text);
}

nlohmann::ordered_json export_request(const std::string& signal, const std::vector<OtlpAttribute>& resource,
                                      const char* items_key, nlohmann::ordered_json items) {
    nlohmann::ordered_json attributes = nlohmann::ordered_json::array();
    for (const OtlpAttribute& a : resource) attributes.push_back(attribute_json(a));
    nlohmann::ordered_json scope;
    scope["scope"] = {{"name", "vtscope"}};
    scope[items_key] = std::move(items);
    nlohmann::ordered_json entry;
    entry["resource"] = {{"attributes", std::move(attributes)}};
    entry["scope" + signal] = nlohmann::ordered_json::array({std::move(scope)});
    nlohmann::ordered_json request;
    request["resource" + signal] = nlohmann::ordered_json::array({std::move(entry)});
    return request;
}

}  // namespace vtscope
