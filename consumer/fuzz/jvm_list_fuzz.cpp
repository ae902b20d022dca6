// SPDX-License-Identifier: Apache-2.0
// `vtscope list` and `--pid NAME`: a JVM's main class or jar read off its command line, its JDK
// version read off its release file, and the table and JSON lines that print them, all from the
// target's own bytes. Input: the command line (arguments separated by NUL, as in /proc), then
// after a \x01 the release file, then after another \x01 a service name, then after another
// \x01 the name a user selects by. Each table row must stay one terminal-safe line, each JSON
// line valid JSON, and a selection error one terminal-safe line.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "jvm/jvm_discovery.h"
#include "output/jvm_list.h"
#include "fuzz_input.h"
#include "utf8_check.h"

namespace {

using vtscope::fuzz::split;

void check_line(const std::string& line) {
    if (!vtscope::fuzz::is_strict_utf8(line) || !vtscope::fuzz::terminal_printable(line)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> sections = split(std::string_view(reinterpret_cast<const char*>(data), size), '\x01');
    sections.resize(4);
    vtscope::JvmProcess jvm;
    jvm.pid = 42;
    jvm.main = vtscope::java_main(split(sections[0], '\0'));
    jvm.java_version = vtscope::release_java_version(sections[1]);
    if (jvm.java_version.size() > 64) std::abort();
    jvm.service_name = sections[2];
    jvm.writer = "none";
    std::vector<vtscope::JvmProcess> jvms = {jvm, jvm};
    jvms[1].pid = 43;
    for (const std::string& row : split(vtscope::render_jvm_table(jvms), '\n')) check_line(row);
    for (const std::string& line : split(vtscope::render_jvm_json_lines(jvms), '\n')) {
        if (line.empty()) continue;
        if (!vtscope::fuzz::is_strict_utf8(line) || nlohmann::json::parse(line, nullptr, false).is_discarded())
            std::abort();
    }
    auto selected = vtscope::select_jvm(sections[3], jvms);
    if (selected) std::abort();  // two JVMs alike: never one selected
    check_line(selected.error().message);
    return 0;
}
