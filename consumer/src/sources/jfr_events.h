// SPDX-License-Identifier: Apache-2.0
// The jdk.VirtualThreadPinned events of `jfr print --json` output (block --jfr): the trusted JDK's
// jfr tool reads the recording the target wrote, so vtscope parses no JFR file itself, only this
// JSON, which is still the target's text and is validated as such.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"

namespace vtscope {

struct JfrPinnedEvent {
    int64_t vthread = 0;    // eventThread.javaThreadId
    uint64_t start_ns = 0;  // CLOCK_MONOTONIC (converted from the event's UTC startTime)
    uint64_t duration_ns = 0;
    std::string pinned_reason;
    std::string blocking_operation;
    std::vector<std::string> stack;  // "pkg.Class.method:line", innermost first
};

// "2026-12-01T08:34:46.444669170Z" -> ns since the epoch; "PT0.060084904S" -> ns. False on bad text.
bool parse_jfr_instant(const std::string& text, int64_t* epoch_ns);
bool parse_jfr_duration(const std::string& text, uint64_t* ns);
// The jdk.VirtualThreadPinned events of `jfr print --json` output; realtime_minus_monotonic_ns
// converts their start times to CLOCK_MONOTONIC.
Expected<std::vector<JfrPinnedEvent>> parse_jfr_pinned_json(const std::string& json,
                                                            int64_t realtime_minus_monotonic_ns);

}  // namespace vtscope
