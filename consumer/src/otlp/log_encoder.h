// SPDX-License-Identifier: Apache-2.0
// The logs signal: the syscall entries of `vtscope trace` and the blocking intervals of `vtscope
// block` as an ExportLogsServiceRequest (the generated message of opentelemetry-proto's
// logs_service.proto; otlp_protocol.h encodes it for the wire).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "../../bpf/block.h"
#include "../../bpf/syscalls.h"
#include "opentelemetry/proto/collector/logs/v1/logs_service.pb.h"
#include "otlp/otlp_model.h"

namespace vtscope {

// A blocking interval of `vtscope block` (open: still open when the session ended).
struct BlockLogEvent {
    vtscope_block_event event;
    bool open = false;
};
// What one log record is made of.
using OtlpLogEvent = std::variant<vtscope_syscall_event, BlockLogEvent>;

// ExportLogsServiceRequest: one log record per event. Event times are CLOCK_MONOTONIC; adding
// realtime_offset_ns gives Unix time. observed_ns is the Unix time of the export. syscall_names:
// the names of a syscall event's syscall_index (--syscalls).
opentelemetry::proto::collector::logs::v1::ExportLogsServiceRequest encode_logs_request(
    const std::vector<OtlpAttribute>& resource, std::span<const OtlpLogEvent> events,
    const std::vector<std::string>& syscall_names, int64_t realtime_offset_ns, uint64_t observed_ns);

}  // namespace vtscope
