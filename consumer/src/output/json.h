// SPDX-License-Identifier: Apache-2.0
// Transitional: the names otlp_encoding.cpp, block_source.cpp and profile_report.cpp still call
// while they are rewritten on another branch, now over nlohmann-json (no hand-written parser or
// escaping left). Delete this file once those three use output/json_io.h; never include both.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "output/safe_text.h"

namespace vtscope {

// The old reader's tree, filled from nlohmann's: a missing key reads as null.
struct LegacyJson {
    enum class Type { Null, Bool, Number, String, Array, Object };
    Type type = Type::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<LegacyJson> array;
    std::map<std::string, LegacyJson> object;

    const LegacyJson& operator[](const std::string& key) const;
    bool is_number() const { return type == Type::Number; }
};

using Json = LegacyJson;

// text parsed by nlohmann-json; false (and *error set) when it is no JSON or nests deeper than 64.
bool parse_json(std::string_view text, Json* out, std::string* error);

// "text" as a JSON string, as valid UTF-8 (nlohmann's escaping).
std::string json_quote(std::string_view text);

}  // namespace vtscope
