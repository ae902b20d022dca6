// SPDX-License-Identifier: Apache-2.0
// parse_json (nlohmann-json, output/json_io.h) over any text (the JSON of `jfr print --json` comes
// from the target's JDK), and the escaping that makes a target's string safe in vtscope's outputs:
// valid_utf8, json_text and terminal_safe, checked against properties of their output rather
// than fixed answers.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "output/json_io.h"
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

    // Never throws, whatever the text; what it accepts is JSON again when written.
    vtscope::Json parsed = vtscope::parse_json(text);
    if (!parsed.is_discarded())
        check(
            !vtscope::parse_json(parsed.dump(-1, ' ', false, vtscope::Json::error_handler_t::replace)).is_discarded());

    // valid_utf8: well-formed, idempotent, and the identity on text that already is.
    std::string valid = vtscope::valid_utf8(text);
    check(is_strict_utf8(valid));
    check(vtscope::valid_utf8(valid) == valid);
    if (is_strict_utf8(text)) check(valid == text);

    // json_text of a string: well-formed, no raw control character, read back as a string that is
    // well-formed, and as the text itself when that was well-formed (of valid_utf8(text), always).
    std::string quoted = vtscope::json_text(vtscope::OrderedJson(std::string(text)));
    check(is_strict_utf8(quoted) && !has_raw_control(quoted));
    vtscope::Json round_trip = vtscope::parse_json(quoted);
    check(round_trip.is_string() && is_strict_utf8(round_trip.get<std::string>()));
    if (is_strict_utf8(text)) check(round_trip.get<std::string>() == text);
    check(vtscope::parse_json(vtscope::json_text(vtscope::OrderedJson(valid))).get<std::string>() == valid);

    // terminal_safe: well-formed and nothing that drives or reorders a terminal.
    std::string safe = vtscope::terminal_safe(text);
    check(is_strict_utf8(safe) && vtscope::fuzz::terminal_printable(safe));
    return 0;
}
