// SPDX-License-Identifier: Apache-2.0
#include "output/json.h"

#include <cstdio>
#include <cstdlib>

namespace vtscope {
namespace {

class Parser {
public:
    explicit Parser(std::string_view text) : text_(text) {}

    bool parse(Json* out, std::string* error) {
        if (!value(out, 0) || (skip_space(), pos_ != text_.size())) {
            *error = error_.empty() ? "trailing characters at offset " + std::to_string(pos_) : error_;
            return false;
        }
        return true;
    }

private:
    void skip_space() {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
            pos_++;
    }
    bool fail(const std::string& what) {
        if (error_.empty()) error_ = what + " at offset " + std::to_string(pos_);
        return false;
    }
    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) return fail("bad literal");
        pos_ += word.size();
        return true;
    }
    bool string(std::string* out) {
        if (pos_ >= text_.size() || text_[pos_] != '"') return fail("expected a string");
        pos_++;
        while (pos_ < text_.size() && text_[pos_] != '"') {
            char c = text_[pos_++];
            if (c != '\\') {
                out->push_back(c);
                continue;
            }
            if (pos_ >= text_.size()) return fail("bad escape");
            char e = text_[pos_++];
            switch (e) {
                case 'n': out->push_back('\n'); break;
                case 't': out->push_back('\t'); break;
                case 'r': out->push_back('\r'); break;
                case 'b': out->push_back('\b'); break;
                case 'f': out->push_back('\f'); break;
                case 'u': {
                    if (pos_ + 4 > text_.size()) return fail("bad \\u escape");
                    unsigned code =
                        static_cast<unsigned>(std::strtoul(std::string(text_.substr(pos_, 4)).c_str(), nullptr, 16));
                    pos_ += 4;
                    if (code < 0x80) {
                        out->push_back(static_cast<char>(code));
                    } else if (code < 0x800) {
                        out->push_back(static_cast<char>(0xc0 | (code >> 6)));
                        out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
                    } else {
                        out->push_back(static_cast<char>(0xe0 | (code >> 12)));
                        out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
                        out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
                    }
                    break;
                }
                default: out->push_back(e);
            }
        }
        if (pos_ >= text_.size()) return fail("unterminated string");
        pos_++;
        return true;
    }
    bool value(Json* out, int depth) {
        if (depth > 64) return fail("nesting too deep");
        skip_space();
        if (pos_ >= text_.size()) return fail("unexpected end");
        char c = text_[pos_];
        if (c == '{') {
            out->type = Json::Type::Object;
            pos_++;
            skip_space();
            if (pos_ < text_.size() && text_[pos_] == '}') return pos_++, true;
            for (;;) {
                skip_space();
                std::string key;
                if (!string(&key)) return false;
                skip_space();
                if (pos_ >= text_.size() || text_[pos_] != ':') return fail("expected ':'");
                pos_++;
                if (!value(&out->object[key], depth + 1)) return false;
                skip_space();
                if (pos_ < text_.size() && text_[pos_] == ',') {
                    pos_++;
                    continue;
                }
                if (pos_ < text_.size() && text_[pos_] == '}') return pos_++, true;
                return fail("expected ',' or '}'");
            }
        }
        if (c == '[') {
            out->type = Json::Type::Array;
            pos_++;
            skip_space();
            if (pos_ < text_.size() && text_[pos_] == ']') return pos_++, true;
            for (;;) {
                out->array.emplace_back();
                if (!value(&out->array.back(), depth + 1)) return false;
                skip_space();
                if (pos_ < text_.size() && text_[pos_] == ',') {
                    pos_++;
                    continue;
                }
                if (pos_ < text_.size() && text_[pos_] == ']') return pos_++, true;
                return fail("expected ',' or ']'");
            }
        }
        if (c == '"') {
            out->type = Json::Type::String;
            return string(&out->string);
        }
        if (c == 't') return out->type = Json::Type::Bool, out->boolean = true, literal("true");
        if (c == 'f') return out->type = Json::Type::Bool, out->boolean = false, literal("false");
        if (c == 'n') return out->type = Json::Type::Null, literal("null");
        // JMH writes "NaN" for an undefined error.
        if (c == 'N') return out->type = Json::Type::Number, out->number = std::strtod("nan", nullptr), literal("NaN");
        std::string number;
        while (pos_ < text_.size() && std::string_view("+-0123456789.eE").find(text_[pos_]) != std::string_view::npos)
            number.push_back(text_[pos_++]);
        char* end = nullptr;
        out->type = Json::Type::Number;
        out->number = std::strtod(number.c_str(), &end);
        if (number.empty() || *end != '\0') return fail("bad number");
        return true;
    }

    std::string_view text_;
    size_t pos_ = 0;
    std::string error_;
};

}  // namespace

const Json& Json::operator[](const std::string& key) const {
    static const Json null_value;
    if (type != Type::Object) return null_value;
    auto it = object.find(key);
    return it == object.end() ? null_value : it->second;
}

bool parse_json(std::string_view text, Json* out, std::string* error) {
    *out = Json{};
    return Parser(text).parse(out, error);
}

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

std::string json_quote(std::string_view text) {
    std::string out = "\"";
    for (char c : valid_utf8(text)) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof(buf), "\\u%04x", c);
                    out += buf;
                } else {
                    out.push_back(c);
                }
        }
    }
    return out + "\"";
}

}  // namespace vtscope
