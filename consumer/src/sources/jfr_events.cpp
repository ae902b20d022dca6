// SPDX-License-Identifier: Apache-2.0
#include "sources/jfr_events.h"

#include <time.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "output/json_io.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

// A JSON number that is a whole int64 (a recording's numbers are the target's: 1e300 or NaN
// cast to an integer is undefined behaviour).
bool json_integer(const Json& value, int64_t* out) {
    if (!value.is_number()) return false;
    double v = value.get<double>();
    if (!std::isfinite(v) || v != std::trunc(v) || v < -9.2e18 || v > 9.2e18) return false;
    *out = static_cast<int64_t>(v);
    return true;
}

std::string frame_text(const Json& frame) {
    const Json& method = json_member(frame, "method");
    std::string type = json_string(json_at(method, "type", "name"));
    for (char& c : type)
        if (c == '/') c = '.';
    std::string text = type + "." + json_string(json_member(method, "name"));
    if (int64_t line = 0; json_integer(json_member(frame, "lineNumber"), &line) && line >= 0)
        text += ":" + std::to_string(line);
    return text;
}

}  // namespace

bool parse_jfr_instant(const std::string& text, int64_t* epoch_ns) {
    int y, mo, d, h, mi, s, used = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &used) != 6) return false;
    // Within what an int64 of nanoseconds since the epoch holds (to 2262), and a real date.
    if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 ||
        s > 60)
        return false;
    int64_t frac = 0;
    size_t pos = static_cast<size_t>(used);
    if (pos < text.size() && text[pos] == '.') {
        int digits = 0;
        for (pos++; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; pos++)
            if (digits < 9) {
                frac = frac * 10 + (text[pos] - '0');
                digits++;
            }
        for (; digits < 9; digits++) frac *= 10;
    }
    if (pos >= text.size() || text[pos] != 'Z') return false;  // jfr print writes UTC
    tm t{};
    t.tm_year = y - 1900;
    t.tm_mon = mo - 1;
    t.tm_mday = d;
    t.tm_hour = h;
    t.tm_min = mi;
    t.tm_sec = s;
    *epoch_ns = static_cast<int64_t>(timegm(&t)) * 1000000000LL + frac;
    return true;
}

bool parse_jfr_duration(const std::string& text, uint64_t* ns) {
    if (text.rfind("PT", 0) != 0) return false;
    double total = 0;
    size_t pos = 2;
    bool any = false;
    while (pos < text.size()) {
        char* end = nullptr;
        double v = std::strtod(text.c_str() + pos, &end);
        size_t unit = static_cast<size_t>(end - text.c_str());
        if (end == text.c_str() + pos || unit >= text.size() || !std::isfinite(v) || v < 0) return false;
        switch (text[unit]) {
            case 'H': total += v * 3600; break;
            case 'M': total += v * 60; break;
            case 'S': total += v; break;
            default: return false;
        }
        any = true;
        pos = unit + 1;
    }
    // At most a year (a pinned interval of a session); beyond it, or NaN, is not a duration.
    constexpr double kMaxSeconds = 366.0 * 24 * 3600;
    if (!any || !(total >= 0 && total <= kMaxSeconds)) return false;
    *ns = static_cast<uint64_t>(total * 1e9 + 0.5);
    return true;
}

Expected<std::vector<JfrPinnedEvent>> parse_jfr_pinned_json(const std::string& json, int64_t offset_ns) {
    Json root = parse_json(json);
    if (root.is_discarded())
        return make_error("cannot parse the output of jfr print --json: no JSON, or nested deeper than 64");
    std::vector<JfrPinnedEvent> events;
    for (const Json& e : json_array(json_at(root, "recording", "events"))) {
        if (json_string(json_member(e, "type")) != "jdk.VirtualThreadPinned") continue;
        const Json& v = json_member(e, "values");
        std::string start = json_string(json_member(v, "startTime"));
        std::string duration = json_string(json_member(v, "duration"));
        JfrPinnedEvent p;
        int64_t epoch = 0;
        if (!parse_jfr_instant(start, &epoch) || !parse_jfr_duration(duration, &p.duration_ns))
            // The recording is the target's: its text is escaped and shortened in the message.
            return make_error("unexpected time in a JFR event: '" + terminal_safe(start.substr(0, 64)) + "', '" +
                              terminal_safe(duration.substr(0, 64)) + "'");
        int64_t since_boot = 0;  // before this machine booted, it is not an event of this session
        if (__builtin_sub_overflow(epoch, offset_ns, &since_boot) || since_boot < 0)
            return make_error("unexpected time in a JFR event: '" + terminal_safe(start.substr(0, 64)) +
                              "' is before boot");
        p.start_ns = static_cast<uint64_t>(since_boot);
        if (!json_integer(json_at(v, "eventThread", "javaThreadId"), &p.vthread))
            return make_error("unexpected thread id in a JFR event");
        p.pinned_reason = json_string(json_member(v, "pinnedReason"));
        p.blocking_operation = json_string(json_member(v, "blockingOperation"));
        for (const Json& frame : json_array(json_at(v, "stackTrace", "frames"))) p.stack.push_back(frame_text(frame));
        events.push_back(std::move(p));
    }
    return events;
}

}  // namespace vtscope
