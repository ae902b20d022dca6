// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_protocol.h"

#include "otlp/otlp_json.h"

namespace vtscope {

Expected<OtlpProtocol> parse_otlp_protocol(std::string_view name) {
    if (name == "grpc") return OtlpProtocol::kGrpc;
    if (name == "http/protobuf") return OtlpProtocol::kHttpProtobuf;
    if (name == "http/json") return OtlpProtocol::kHttpJson;
    return make_error("unknown OTLP protocol '" + std::string(name) + "' (grpc, http/protobuf or http/json)");
}

const char* otlp_protocol_name(OtlpProtocol protocol) {
    switch (protocol) {
        case OtlpProtocol::kGrpc: return "grpc";
        case OtlpProtocol::kHttpJson: return "http/json";
        case OtlpProtocol::kHttpProtobuf: break;
    }
    return "http/protobuf";
}

const char* otlp_default_port(OtlpProtocol protocol) { return protocol == OtlpProtocol::kGrpc ? "4317" : "4318"; }

OtlpBody encode_otlp_body(const google::protobuf::Message& request, OtlpProtocol protocol) {
    // OTLP/HTTP: "application/x-protobuf" for the binary encoding, "application/json" for the
    // JSON one (protocol/otlp.md, "OTLP/HTTP Request").
    if (protocol == OtlpProtocol::kHttpJson) return {otlp_json(request), "application/json"};
    return {request.SerializeAsString(), "application/x-protobuf"};
}

}  // namespace vtscope
