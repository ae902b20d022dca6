// SPDX-License-Identifier: Apache-2.0
// How vtscope reads and writes JSON: with nlohmann-json. Documents it writes are
// nlohmann::ordered_json (field order is part of the output format), turned into text by
// json_text; documents it reads (`jfr print --json`, JMH results, summaries, JSON lines) are parsed
// by parse_json, which never throws.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace vtscope {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Compact JSON text (one line for a JSON lines file). A string the target supplied (a thread name
// cut at 15 bytes by the kernel, a symbol) may be invalid UTF-8: each ill-formed sequence is
// written as U+FFFD (valid_utf8 first, where a reader depends on one U+FFFD per byte), so the
// output stays valid JSON, instead of throwing.
inline std::string json_text(const OrderedJson& value) {
    return value.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

// text as JSON; a discarded value (is_discarded()) when it is no JSON or nests deeper than
// max_depth. The text may come from the target (its JDK's `jfr print --json`): no exception, and
// a bound on nesting as the reader this replaced had.
inline Json parse_json(std::string_view text, int max_depth = 64) {
    bool too_deep = false;
    Json::parser_callback_t bound = [&](int depth, Json::parse_event_t, Json&) {
        if (depth > max_depth) too_deep = true;
        return !too_deep;
    };
    Json value = Json::parse(text, bound, false);
    return too_deep ? Json(Json::value_t::discarded) : value;
}

// j[key], or null when j is no object or has no such key (nlohmann's const operator[] requires
// the key to exist).
inline const Json& json_member(const Json& j, const std::string& key) {
    static const Json null_value;
    if (!j.is_object()) return null_value;
    auto it = j.find(key);
    return it == j.end() ? null_value : *it;
}

// j[k1][k2]..., null where a key is missing: for documents whose shape is not guaranteed.
template <typename... Keys>
const Json& json_at(const Json& j, const std::string& key, const Keys&... rest) {
    if constexpr (sizeof...(rest) == 0)
        return json_member(j, key);
    else
        return json_at(json_member(j, key), rest...);
}

// v's elements, none when v is no array.
inline const Json::array_t& json_array(const Json& v) {
    static const Json::array_t empty;
    return v.is_array() ? v.get_ref<const Json::array_t&>() : empty;
}

// v's text, empty when v is no string.
inline std::string json_string(const Json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

// v's value when it is a number, else 0.
inline double json_number(const Json& v) { return v.is_number() ? v.get<double>() : 0; }

// True when v is the boolean true.
inline bool json_bool(const Json& v) { return v.is_boolean() && v.get<bool>(); }

// j[key] as an integer of int64_t's range, if it is one.
inline std::optional<int64_t> json_int_member(const Json& j, const std::string& key) {
    const Json& v = json_member(j, key);
    if (!v.is_number_integer()) return std::nullopt;
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) return std::nullopt;
    return v.get<int64_t>();
}

// j[key] if it is a string.
inline std::optional<std::string> json_string_member(const Json& j, const std::string& key) {
    const Json& v = json_member(j, key);
    if (!v.is_string()) return std::nullopt;
    return v.get<std::string>();
}

// A double of the summary JSON, to 15 significant digits (DBL_DIG: every digit a double keeps,
// so cpu_ms is exact to the microsecond in any session, and 2/3 reads 0.666666666666667), written
// as C's %.15g writes it: a whole number without a fraction ("500", not "500.0"). Not finite:
// null, which JSON can hold and "inf" is not.
inline nlohmann::ordered_json json_double15(double value) {
    if (!std::isfinite(value)) return nullptr;
    char text[32];
    std::snprintf(text, sizeof(text), "%.15g", value);
    double rounded = std::strtod(text, nullptr);
    if (rounded == std::trunc(rounded) && std::fabs(rounded) < 1e15) return static_cast<int64_t>(rounded);
    return rounded;
}

}  // namespace vtscope
