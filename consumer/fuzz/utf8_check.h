// SPDX-License-Identifier: Apache-2.0
// An independent strict UTF-8 decoder (RFC 3629, section 4: no overlong forms, no surrogates,
// nothing above U+10FFFF), so the fuzz targets check vtscope's escaping with code of their own.
#pragma once

#include <cstdint>
#include <string_view>

namespace vtscope::fuzz {

inline constexpr char32_t kInvalidUtf8 = 0xFFFFFFFF;

// The code point at text[i] and its length; kInvalidUtf8 (length 1) when ill-formed.
inline char32_t decode_utf8(std::string_view text, size_t i, size_t* length) {
    auto byte = [&](size_t k) -> char32_t { return static_cast<unsigned char>(text[i + k]); };
    char32_t lead = byte(0);
    *length = 1;
    if (lead < 0x80) return lead;
    // 0xF8-0xFF lead nothing (the mask below would read them as 0xF0-0xF7: found by the json target).
    size_t n = lead >= 0xF8 ? 0 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
    if (n == 0 || i + n > text.size()) return kInvalidUtf8;
    char32_t c = lead & (0x7F >> n);
    for (size_t k = 1; k < n; k++) {
        if ((byte(k) & 0xC0) != 0x80) return kInvalidUtf8;
        c = (c << 6) | (byte(k) & 0x3F);
    }
    static constexpr char32_t kSmallest[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < kSmallest[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return kInvalidUtf8;
    *length = n;
    return c;
}

inline bool is_strict_utf8(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        size_t length = 0;
        if (decode_utf8(text, i, &length) == kInvalidUtf8) return false;
        i += length;
    }
    return true;
}

// What a terminal shows as it is: no control character (C0, DEL, C1) and no bidirectional
// override or isolate (U+202A-U+202E, U+2066-U+2069), which reorder the text around them.
// Ill-formed bytes count as printable here: is_strict_utf8 judges them.
inline bool terminal_printable(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        size_t length = 0;
        char32_t c = decode_utf8(text, i, &length);
        if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069))
            return false;
        i += length;
    }
    return true;
}

}  // namespace vtscope::fuzz
