// SPDX-License-Identifier: Apache-2.0
// `jfr print --json` output (the target JDK's own jfr tool reads a recording the target wrote):
// parse_jfr_pinned_json over the whole input, and its two value parsers on each line.
#include <cstdint>
#include <string>
#include <string_view>

#include "sources/jfr_events.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    vtscope::fuzz::FuzzInput input(data, size);
    auto offset_ns = input.take<int64_t>();
    std::string json(input.rest());
    (void)vtscope::parse_jfr_pinned_json(json, offset_ns);

    // Each line as a startTime ("2026-12-01T08:34:46.444669170Z") and a duration ("PT0.06S").
    size_t pos = 0;
    while (pos <= json.size()) {
        size_t end = json.find('\n', pos);
        if (end == std::string::npos) end = json.size();
        std::string line = json.substr(pos, end - pos);
        int64_t epoch_ns = 0;
        uint64_t ns = 0;
        (void)vtscope::parse_jfr_instant(line, &epoch_ns);
        (void)vtscope::parse_jfr_duration(line, &ns);
        pos = end + 1;
    }
    return 0;
}
