// SPDX-License-Identifier: Apache-2.0
#include "core/profile_model.h"

#include "../../bpf/attribution.h"
#include "output/event_format.h"

namespace vtscope {

// context_unknown names a thread only when the core resolved one: on JDK 21-23 a read that a
// collection may have raced (gc_pause, gc_pointer_not_good, gc_phase_changed) leaves java_id 0.
bool identity_known(const ProfileRow& row) {
    return row.status == VTSCOPE_STATUS_OK || row.status == VTSCOPE_STATUS_NO_CONTEXT ||
           (row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN && row.java_id > 0);
}

RowKind row_kind(const ProfileRow& row) {
    if (identity_known(row)) return row.mounted_virtual ? RowKind::kVirtual : RowKind::kNonVirtual;
    // Not (yet) a live JavaThread: a GC or VM thread, or a Java thread before JavaThread::run,
    // which has mounted nothing yet. Either way no virtual thread runs on it.
    if (row.status == VTSCOPE_STATUS_UNMAPPED && row.reason == VTSCOPE_REASON_NOT_JAVA_THREAD)
        return RowKind::kNonVirtual;
    return RowKind::kUnattributed;
}

std::string profile_group(const ProfileRow& row, const std::string& by) {
    if (by == "vthread") return row.java_id ? "vthread #" + std::to_string(row.java_id) : "";
    if (by == "span") return row.trace_id.empty() ? "" : row.trace_id + "/" + row.span_id;
    return row.trace_id;
}

std::string unattributed_name(const ProfileRow& row) {
    return std::string(status_name(row.status)) + "/" + reason_name(row.reason);
}

std::string profile_thread_name(const ProfileInfo& info, uint32_t tid) {
    auto it = info.thread_names.find(tid);
    return it == info.thread_names.end() || it->second.empty() ? "?" : it->second;
}

}  // namespace vtscope
