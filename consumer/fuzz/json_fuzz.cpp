// SPDX-License-Identifier: Apache-2.0
// parse_json over any text (the JSON of `jfr print --json` comes from the target's JDK), and the
// escaping that makes a target's string safe in vtscope's outputs: valid_utf8, json_quote and
// terminal_safe, checked against properties of their output rather than fixed answers.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "output/json.h"
#include "output/safe_text.h"
#include "utf8_check.h"

namespace {

using vtscope::fuzz::is_strict_utf8;

void check(bool property) {
    if (!property) std::abort();  // libFuzzer keeps the input that broke a property as a crash
}

bool has_raw_control(std::string_view text) {
    for (char c : text)
        if (static_cast<unsigned char>(c) < 0x20) return true;
    return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);

    vtscope::Json parsed;
    std::string error;
    if (!vtscope::parse_json(text, &parsed, &error)) check(!error.empty());

    // valid_utf8: well-formed, idempotent, and the identity on text that already is.
    std::string valid = vtscope::valid_utf8(text);
    check(is_strict_utf8(valid));
    check(vtscope::valid_utf8(valid) == valid);
    if (is_strict_utf8(text)) check(valid == text);

    // json_quote: well-formed, no raw control character, and read back as valid_utf8(text).
    std::string quoted = vtscope::json_quote(text);
    check(is_strict_utf8(quoted) && !has_raw_control(quoted));
    vtscope::Json round_trip;
    check(vtscope::parse_json(quoted, &round_trip, &error));
    check(round_trip.type == vtscope::Json::Type::String && round_trip.string == valid);

    // terminal_safe: well-formed and nothing that drives or reorders a terminal.
    std::string safe = vtscope::terminal_safe(text);
    check(is_strict_utf8(safe) && vtscope::fuzz::terminal_printable(safe));
    return 0;
}
