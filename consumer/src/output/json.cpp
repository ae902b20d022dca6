// SPDX-License-Identifier: Apache-2.0
#include "output/json.h"

#include <nlohmann/json.hpp>

namespace vtscope {
namespace {

using Parsed = nlohmann::json;

// Recursive, so bounded: the old reader refused more than 64 levels too.
bool convert(const Parsed& from, LegacyJson* to, int depth) {
    if (depth > 64) return false;
    switch (from.type()) {
        case Parsed::value_t::boolean: to->type = LegacyJson::Type::Bool, to->boolean = from.get<bool>(); break;
        case Parsed::value_t::number_integer:
        case Parsed::value_t::number_unsigned:
        case Parsed::value_t::number_float: to->type = LegacyJson::Type::Number, to->number = from.get<double>(); break;
        case Parsed::value_t::string: to->type = LegacyJson::Type::String, to->string = from.get<std::string>(); break;
        case Parsed::value_t::array:
            to->type = LegacyJson::Type::Array;
            for (const Parsed& element : from)
                if (!convert(element, &to->array.emplace_back(), depth + 1)) return false;
            break;
        case Parsed::value_t::object:
            to->type = LegacyJson::Type::Object;
            for (const auto& [key, value] : from.items())
                if (!convert(value, &to->object[key], depth + 1)) return false;
            break;
        default: break;
    }
    return true;
}

}  // namespace

const LegacyJson& LegacyJson::operator[](const std::string& key) const {
    static const LegacyJson null_value;
    if (type != Type::Object) return null_value;
    auto it = object.find(key);
    return it == object.end() ? null_value : it->second;
}

bool parse_json(std::string_view text, Json* out, std::string* error) {
    *out = Json{};
    Parsed parsed = Parsed::parse(text, nullptr, false);
    if (parsed.is_discarded() || !convert(parsed, out, 0)) {
        *out = Json{};
        *error = "no JSON, or nested deeper than 64";
        return false;
    }
    return true;
}

std::string json_quote(std::string_view text) {
    return nlohmann::ordered_json(std::string(text))
        .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace vtscope
