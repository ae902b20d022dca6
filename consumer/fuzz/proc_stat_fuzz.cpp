// SPDX-License-Identifier: Apache-2.0
// /proc/stat text: parse_proc_stat (the kernel writes it; fuzzed because its parser, like every
// /proc parser, must stay within the text whatever the text is).
#include <cstdint>
#include <string_view>

#include "process/proc_stat.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto before = vtscope::parse_proc_stat(text.substr(0, size / 2));
    auto after = vtscope::parse_proc_stat(text.substr(size / 2));
    if (before && after) (void)vtscope::steal_share(*before, *after);
    return 0;
}
