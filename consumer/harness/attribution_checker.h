// SPDX-License-Identifier: Apache-2.0
// The dual-channel check of the paper's harness (sections 5.4 and 7.2): the workload's own
// ground truth (which thread wrote each marker, under which span) against what vtscope
// attributed to the same write. A marker's length names its sender independently of any context,
// and a sender's markers appear in order, so each observed write is matched to one expected one.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace vtscope::testing {

// One plane's classification of the markers (paper Table 6).
struct PlaneCounts {
    int correct = 0;
    int unmapped = 0;       // nothing attributed on this plane (no thread / no context)
    int invalid = 0;        // content plane: a record that could not be read consistently
    int misattributed = 0;  // a well-formed but wrong attribution
};

struct CheckResult {
    int expected = 0;
    int observed = 0;              // marker writes found in the trace
    int correct = 0;               // right thread and right trace, span and flags
    int misattributed = 0;         // a well-formed attribution that is wrong on either plane
    int unattributed = 0;          // honestly marked: unmapped, invalid, context_unknown or no_context
    int missing = 0;               // expected markers absent from the trace
    int extra = 0;                 // marker-sized writes on the marker fd that were not expected
    int failures_after_first = 0;  // misattributed or unattributed markers other than a sender's first
    PlaneCounts identity;          // which thread
    PlaneCounts content;           // which trace and span
    int content_foreign = 0;       // content misattributions carrying another trace's context
    int content_wrong_span = 0;    // content misattributions with the right trace but a wrong span
    std::map<std::string, int> unattributed_causes;  // "status/reason" -> count
    std::vector<std::string> misattribution_examples;
    std::string summary() const;
};

CheckResult check_markers(const std::vector<std::string>& expected_lines, const std::vector<std::string>& trace_lines);

}  // namespace vtscope::testing
