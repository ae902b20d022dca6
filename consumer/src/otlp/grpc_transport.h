// SPDX-License-Identifier: Apache-2.0
// OTLP/gRPC (--otlp-protocol grpc): the Export RPC of the logs, metrics or profiles service
// (opentelemetry-proto's collector/*_service.proto, generated with grpc_cpp_plugin), over
// plaintext HTTP/2 unless the endpoint is https (resolve_otlp_signal gives a scheme-less endpoint
// https unless insecure); the signal's headers as metadata, gzip as the channel's compression.
#pragma once

#include <grpcpp/support/status.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/expected.h"
#include "otlp/otlp_config.h"
#include "otlp/otlp_transport.h"

namespace vtscope {

// The name of a gRPC status code as the gRPC specification writes it (doc/statuscodes.md):
// "UNAUTHENTICATED", "UNAVAILABLE", ...
const char* grpc_code_name(grpc::StatusCode code);
// What a gRPC status means to the exporter, per the OTLP specification (protocol/otlp.md,
// "Failures" and "OTLP/gRPC Throttling"): CANCELLED, DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE,
// UNAVAILABLE and DATA_LOSS are retryable, RESOURCE_EXHAUSTED only when the server says when to
// retry (a google.rpc.RetryInfo in the status details), every other code is not.
OtlpReply grpc_reply(const grpc::Status& status);
// Whether the details of a status (a serialized google.rpc.Status) carry a google.rpc.RetryInfo.
bool grpc_details_have_retry_info(const std::string& details);

// The host:port a gRPC channel connects to, from an endpoint URL ("http://HOST:PORT[/PATH]" or
// "https://..."; the path is not used by gRPC); whether the endpoint wants TLS.
struct GrpcTarget {
    std::string authority;
    bool tls = false;
};
Expected<GrpcTarget> grpc_target(const std::string& endpoint);

class GrpcTransport final : public OtlpTransport {
public:
    // The signal's settings (endpoint, headers, compression, TLS files); extra: vtscope's own
    // metadata ("name: value").
    static Expected<std::unique_ptr<GrpcTransport>> create(const OtlpSignalConfig& config,
                                                           const std::vector<std::string>& extra = {});
    ~GrpcTransport() override;
    OtlpReply send(const google::protobuf::Message& request, std::chrono::milliseconds timeout) override;

    struct Stubs;

private:
    explicit GrpcTransport(std::unique_ptr<Stubs> stubs);
    std::unique_ptr<Stubs> stubs_;
};

}  // namespace vtscope
