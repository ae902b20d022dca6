// SPDX-License-Identifier: Apache-2.0
#include "output/safe_text.h"

#include <cstdio>

namespace vtscope {

std::string valid_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
        auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
        unsigned char lead = byte(i);
        size_t length = 0;
        unsigned char low = 0x80, high = 0xBF;  // the range of the second byte (RFC 3629, section 4)
        if (lead < 0x80) {
            length = 1;
        } else if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            if (lead == 0xE0) low = 0xA0;   // no overlong forms
            if (lead == 0xED) high = 0x9F;  // no surrogates
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            if (lead == 0xF0) low = 0x90;   // no overlong forms
            if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
        }
        bool valid = length > 0 && i + length <= text.size();
        for (size_t k = 1; valid && k < length; k++) {
            unsigned char c = byte(i + k);
            valid = k == 1 ? c >= low && c <= high : c >= 0x80 && c <= 0xBF;
        }
        if (valid) {
            out.append(text.substr(i, length));
            i += length;
        } else {
            out += "\xEF\xBF\xBD";  // U+FFFD for the byte that starts no character
            i++;
        }
    }
    return out;
}
namespace {

// The code point of the well-formed UTF-8 character at text[i] and its length (valid_utf8 has
// made every character well formed).
char32_t decode(std::string_view text, size_t i, size_t* length) {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
    unsigned char lead = byte(0);
    if (lead < 0x80) return *length = 1, lead;
    if (lead < 0xE0) return *length = 2, ((lead & 0x1Fu) << 6) | (byte(1) & 0x3Fu);
    if (lead < 0xF0) return *length = 3, ((lead & 0x0Fu) << 12) | ((byte(1) & 0x3Fu) << 6) | (byte(2) & 0x3Fu);
    *length = 4;
    return ((lead & 0x07u) << 18) | ((byte(1) & 0x3Fu) << 12) | ((byte(2) & 0x3Fu) << 6) | (byte(3) & 0x3Fu);
}

bool needs_escape(char32_t c) {
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

std::string escape(char32_t c) {
    switch (c) {
        case '\n': return "\\n";
        case '\t': return "\\t";
        case '\r': return "\\r";
        default: break;
    }
    char buffer[16];
    if (c < 0x80)
        std::snprintf(buffer, sizeof(buffer), "\\x%02x", static_cast<unsigned>(c));
    else
        std::snprintf(buffer, sizeof(buffer), "\\u{%04x}", static_cast<unsigned>(c));
    return buffer;
}

// text made well-formed UTF-8, then each character (its code point and its bytes) handed to
// write, which appends what stands for it.
template <typename Write>
std::string map_characters(std::string_view text, Write write) {
    std::string valid = valid_utf8(text);
    std::string out;
    out.reserve(valid.size());
    for (size_t i = 0; i < valid.size();) {
        size_t length = 1;
        char32_t c = decode(valid, i, &length);
        write(c, std::string_view(valid).substr(i, length), out);
        i += length;
    }
    return out;
}

}  // namespace

std::string terminal_safe(std::string_view text) {
    return map_characters(text, [](char32_t c, std::string_view character, std::string& out) {
        if (needs_escape(c))
            out += escape(c);
        else
            out += character;
    });
}

std::string folded_frame_safe(std::string_view text) {
    std::string out = terminal_safe(text);
    for (char& c : out)
        if (c == ';') c = ':';
    return out;
}

std::string xml_safe(std::string_view text) {
    return map_characters(text, [](char32_t c, std::string_view character, std::string& out) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            case '\t':
            case '\n':
            case '\r': out += ' '; break;
            default:
                if (c < 0x20 || c == 0xFFFE || c == 0xFFFF)
                    out += "\xEF\xBF\xBD";  // U+FFFD
                else
                    out += character;
        }
    });
}

}  // namespace vtscope
