// SPDX-License-Identifier: Apache-2.0
// The development-stage profiles signal: profile's CPU samples as an ExportProfilesServiceRequest.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/profile_model.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"
#include "otlp/otlp_model.h"

namespace vtscope {

// ExportProfilesServiceRequest of the development-stage profiles signal, as the pdata of the
// pinned Collector (v0.165.0, pdata v1.71.0: internal/generated_proto_*.go, profiles
// development version 1) decodes it: one Profile of the session's CPU samples, its tables in
// the request's dictionary, entry 0 of each table the empty value the format reserves. A row
// is one sample: its stack (leaf first), its CPU time in nanoseconds (sample type and period
// type cpu/nanoseconds, period period_ns), its thread and attribution as attributes, and its
// trace context as a link. The profile spans [start_ns, now_ns] (Unix times). The message is
// opentelemetry-proto 1.11.0's, the same fields as pdata v1.71.0 decodes.
opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest encode_profiles_request(
    const std::vector<OtlpAttribute>& resource, std::span<const ProfileRow> rows, uint64_t period_ns, uint64_t start_ns,
    uint64_t now_ns, const std::string& profile_id_hex);

}  // namespace vtscope
