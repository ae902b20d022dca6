// SPDX-License-Identifier: Apache-2.0
// A small JSON reader (JMH's -rf json output, vtscope's --summary-json) and string escaping for the writer.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vtscope {

struct Json {
    enum class Type { Null, Bool, Number, String, Array, Object };
    Type type = Type::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Json> array;
    std::map<std::string, Json> object;

    // Member lookup; a shared null for a missing key or a non-object.
    const Json& operator[](const std::string& key) const;
    bool is_number() const { return type == Type::Number; }
};

// Parses text; on failure returns false and sets *error.
bool parse_json(std::string_view text, Json* out, std::string* error);

// text with each byte that starts no well-formed UTF-8 character (RFC 3629: thread names cut at
// 15 bytes by the kernel, say) replaced by U+FFFD, so JSON and XML readers take it.
std::string valid_utf8(std::string_view text);

// "text" with JSON escapes, as valid UTF-8.
std::string json_quote(std::string_view text);

}  // namespace vtscope
