// SPDX-License-Identifier: Apache-2.0
// /proc/PID/status text: parse_proc_status (the kernel writes it; fuzzed because its parser, like
// every /proc parser, must stay within the text whatever the text is, and take only numbers in
// range: a pid it returns is positive, and NSpid has at most kMaxNsPidFields fields).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "process/proc_status.h"
#include "symbols/stack_symbolizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    vtscope::ProcStatus s = vtscope::parse_proc_status(text);
    if (s.ns_levels < 0 || s.ns_levels > vtscope::kMaxNsPidFields) std::abort();
    if (s.ns_levels > 0 && s.ns_pid <= 0) std::abort();
    if (s.ns_levels == 0 && s.ns_pid != 0) std::abort();
    vtscope::TargetIds ids = vtscope::parse_target_ids(text, 4242);
    if (ids.ns_pid <= 0) std::abort();
    return 0;
}
