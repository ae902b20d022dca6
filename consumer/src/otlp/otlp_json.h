// SPDX-License-Identifier: Apache-2.0
// The parts of the OTLP/HTTP JSON encoding every signal shares (the protobuf JSON mapping of the
// OTLP protos: 64-bit integers as strings): attributes, and the resource and scope around a
// request's items.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "otlp/otlp_model.h"

namespace vtscope {

// {"key":..,"value":{"stringValue"|"intValue"|"boolValue":..}}
nlohmann::ordered_json attribute_json(const OtlpAttribute& attribute);
nlohmann::ordered_json string_attribute(std::string_view key, std::string_view value);
nlohmann::ordered_json int_attribute(std::string_view key, int64_t value);
nlohmann::ordered_json bool_attribute(std::string_view key, bool value);

// {"resourceSIGNAL":[{"resource":{"attributes":[..]},"scopeSIGNAL":[{"scope":{"name":"vtscope"},
// ITEMS:items}]}]}, SIGNAL "Logs", "Metrics" or "Profiles".
nlohmann::ordered_json export_request(const std::string& signal, const std::vector<OtlpAttribute>& resource,
                                      const char* items_key, nlohmann::ordered_json items);

}  // namespace vtscope
