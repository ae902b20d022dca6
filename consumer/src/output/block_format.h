// SPDX-License-Identifier: Apache-2.0
// The JSON lines of `vtscope block`: one per interval (with its --stacks and --jfr fields) and one
// per JFR event no interval took.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "../../bpf/block.h"

namespace vtscope {

struct JfrPinnedEvent;  // sources/jfr_events.h

// One JSON line (no newline) of `vtscope block`; open: the interval was still open at the end;
// more_fields (",\"name\":value..."): the --stacks and --jfr fields, before the closing brace;
// after_tid: fields written after "tid" (",\"ns_pid\":..", output/namespace_fields.h).
std::string format_block_event(const vtscope_block_event& event, bool open, std::string_view more_fields = {},
                               std::string_view after_tid = {});

// One stack of an interval (--stacks), symbolised, leaf first.
struct BlockStack {
    std::vector<std::string> frames;
    std::string error;       // why there is no stack (frames empty then), or empty
    bool truncated = false;  // it stops before the thread's entry frame, or at the depth limit
};
// The --stacks fields: ,"kernel_stack":[...]|null,"kernel_stack_error":null|"...", and the same for
// the user stack; a truncated stack ends with a "[truncated]" frame.
std::string format_block_stacks(const BlockStack& kernel, const BlockStack& user);

// The --jfr fields of an interval: ,"jfr_pinned_reason":..,"jfr_blocking_operation":..,
// "jfr_stack":[..], all null when no JFR event joined it (jfr null).
std::string format_jfr_fields(const JfrPinnedEvent* jfr);
// The JSON line (no newline) of a JFR event no interval took: "jfr_only":true, its time, the
// target's pid, its virtual thread and its fields.
std::string format_jfr_only_line(const JfrPinnedEvent& jfr, int pid);

}  // namespace vtscope
