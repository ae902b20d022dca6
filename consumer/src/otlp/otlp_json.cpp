// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_json.h"

#include <google/protobuf/util/json_util.h>

#include <array>
#include <string_view>

#include "output/event_format.h"

namespace vtscope {
namespace {

// The bytes fields OTLP JSON writes as hex (the specification names traceId and spanId; the
// profiles signal's profileId is an id of the same kind, and pdata's JSON decoder reads it as
// hex too: pdata/internal/json, ReadProfileID).
// Each as the start of its JSON key, up to the "Id" they end with.
constexpr std::array<std::string_view, 4> kIdStems = {"\"trace", "\"span", "\"parentSpan", "\"profile"};

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;  // the printer writes standard base64; '-' and '_' are the URL-safe forms
    if (c == '/' || c == '_') return 63;
    return -1;
}

// base64 (with or without '=' padding) to lowercase hex; the text as it was when it is not
// base64, which the printer never writes.
std::string base64_to_hex(std::string_view text) {
    std::string bytes;
    uint32_t bits = 0;
    int nbits = 0;
    for (char c : text) {
        if (c == '=') break;
        int v = base64_value(c);
        if (v < 0) return std::string(text);
        bits = (bits << 6) | static_cast<uint32_t>(v);
        nbits += 6;
        if (nbits >= 8) {
            nbits -= 8;
            bytes.push_back(static_cast<char>((bits >> nbits) & 0xff));
        }
    }
    return hex_string(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

// The printer's output is compact and escapes every '"' inside a string as \", so the sequence
// "NAME":" occurs only where a field NAME starts its string value: attribute keys and values
// cannot fake one, and one scan for the common tail Id":" does without parsing the document
// again.
std::string hex_ids_in_json(const std::string& json) {
    static constexpr std::string_view kTail = "Id\":\"";
    std::string out;
    out.reserve(json.size());
    size_t at = 0;
    for (size_t tail = json.find(kTail); tail != std::string::npos; tail = json.find(kTail, at)) {
        const size_t value = tail + kTail.size();
        bool id = false;
        for (std::string_view stem : kIdStems)
            id = id || (tail >= stem.size() && std::string_view(json).substr(tail - stem.size(), stem.size()) == stem);
        size_t end = json.find('"', value);
        if (!id || end == std::string::npos) {
            out.append(json, at, value - at);
            at = value;
            continue;
        }
        out.append(json, at, value - at);
        out += base64_to_hex(std::string_view(json).substr(value, end - value));
        at = end;
    }
    out.append(json, at, std::string::npos);
    return out;
}

std::string otlp_json(const google::protobuf::Message& request) {
    google::protobuf::util::JsonPrintOptions options;
    options.always_print_enums_as_ints = true;  // OTLP JSON: "Values of enum fields MUST be encoded as integer values"
    std::string json;
    // The printer fails only on a message it cannot describe (none of the generated ones).
    (void)google::protobuf::util::MessageToJsonString(request, &json, options);
    return hex_ids_in_json(json);
}

}  // namespace vtscope
