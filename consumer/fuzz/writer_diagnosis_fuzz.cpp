// SPDX-License-Identifier: Apache-2.0
// The sentences that say why a target has no record region or no context writer, made from its
// /proc/PID/cmdline, CLASSPATH and open files (all the target's choice) and printed on the
// terminal ("vtscope: note: ...") and in the summary. Input: the command line (arguments
// separated by NUL, as in /proc), then after a \x01 the CLASSPATH, then after another \x01 the
// open files (NUL-separated). Each sentence must stay one line a terminal shows as it is.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.h"
#include "utf8_check.h"
#include "channels/writer_diagnosis.h"

namespace {

using vtscope::fuzz::split;

void check_sentence(const std::string& sentence) {
    if (!vtscope::fuzz::is_strict_utf8(sentence) || !vtscope::fuzz::terminal_printable(sentence)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> sections = split(std::string_view(reinterpret_cast<const char*>(data), size), '\x01');
    sections.resize(3);
    vtscope::ProcessFacts facts;
    facts.arguments = split(sections[0], '\0');
    facts.class_path_env = sections[1];
    facts.open_files = split(sections[2], '\0');
    check_sentence(vtscope::explain_missing_region(facts));
    check_sentence(vtscope::explain_missing_writer(facts));
    return 0;
}
