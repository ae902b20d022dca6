// SPDX-License-Identifier: Apache-2.0
// The three transports of the OTLP specification (protocol/exporter.md, "Specify Protocol"):
// grpc, http/protobuf (the default) and http/json, and the body each sends of a request.
#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <string_view>

#include "core/expected.h"

namespace vtscope {

enum class OtlpProtocol { kGrpc, kHttpProtobuf, kHttpJson };

// "grpc", "http/protobuf" or "http/json" (the values of OTEL_EXPORTER_OTLP_PROTOCOL).
Expected<OtlpProtocol> parse_otlp_protocol(std::string_view name);
const char* otlp_protocol_name(OtlpProtocol protocol);
// Which one a signal uses (--otlp-protocol, OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL, ...) is
// resolve_otlp_protocol (otlp_config.h).
// The port an endpoint without one gets: 4317 for gRPC, 4318 for OTLP/HTTP (the specification's
// defaults, which the Collector's otlp receiver listens on).
const char* otlp_default_port(OtlpProtocol protocol);

// An OTLP/HTTP request body: the serialized message (application/x-protobuf) or its OTLP JSON
// (application/json).
struct OtlpBody {
    std::string bytes;
    const char* content_type;
};
OtlpBody encode_otlp_body(const google::protobuf::Message& request, OtlpProtocol protocol);

}  // namespace vtscope
