// SPDX-License-Identifier: Apache-2.0
#include "output/jvm_list.h"

#include <cstdio>

#include "output/json_io.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

// A column cut to at most width bytes (a long jar path would push the rest off the line), at a
// character boundary of the terminal-safe text.
std::string cell(const std::string& text, size_t width) {
    std::string safe = terminal_safe(text.empty() ? "-" : text);
    if (safe.size() <= width) return safe + std::string(width - safe.size(), ' ');
    size_t cut = width - 1;
    while (cut > 0 && (static_cast<unsigned char>(safe[cut]) & 0xC0) == 0x80) cut--;  // not inside a character
    return safe.substr(0, cut) + "~" + std::string(width - 1 - cut, ' ');
}

}  // namespace

std::string uptime_text(double seconds) {
    auto s = static_cast<unsigned long long>(seconds > 0 ? seconds : 0);
    char buf[32];
    if (s < 60)
        std::snprintf(buf, sizeof(buf), "%llus", s);
    else if (s < 3600)
        std::snprintf(buf, sizeof(buf), "%llum%02llus", s / 60, s % 60);
    else if (s < 86400)
        std::snprintf(buf, sizeof(buf), "%lluh%02llum", s / 3600, s % 3600 / 60);
    else
        std::snprintf(buf, sizeof(buf), "%llud%02lluh", s / 86400, s % 86400 / 3600);
    return buf;
}

std::string render_jvm_table(const std::vector<JvmProcess>& jvms) {
    std::string text = "PID      UPTIME   JDK        WRITER      SERVICE               MAIN\n";
    for (const JvmProcess& j : jvms) {
        char pid[16];
        std::snprintf(pid, sizeof(pid), "%-8d", static_cast<int>(j.pid));
        text += std::string(pid) + " " + cell(uptime_text(j.uptime_seconds), 8) + " " + cell(j.java_version, 10) + " " +
                cell(j.writer, 11) + " " + cell(j.service_name, 21) + " " + terminal_safe(j.main) + "\n";
    }
    return text;
}

std::string render_jvm_json_lines(const std::vector<JvmProcess>& jvms) {
    std::string text;
    for (const JvmProcess& j : jvms) {
        OrderedJson line;
        line["pid"] = j.pid;
        line["main"] = valid_utf8(j.main);
        line["service_name"] = j.service_name.empty() ? OrderedJson() : OrderedJson(valid_utf8(j.service_name));
        line["java_version"] = j.java_version.empty() ? OrderedJson() : OrderedJson(valid_utf8(j.java_version));
        line["uptime_s"] = static_cast<uint64_t>(j.uptime_seconds);
        line["writer"] = j.writer;
        text += json_text(line) + "\n";
    }
    return text;
}

}  // namespace vtscope
