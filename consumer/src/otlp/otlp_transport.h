// SPDX-License-Identifier: Apache-2.0
// What the exporter's retry loop needs of a transport: one attempt at sending a request, and
// what came of it. OTLP/HTTP goes through libcurl (otlp_exporter.cpp), gRPC through libgrpc++
// (grpc_transport.h).
#pragma once

#include <google/protobuf/message.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace vtscope {

struct OtlpReply {
    bool delivered = false;
    bool retryable = false;
    uint64_t rejected = 0;  // partial success: the request's items the receiver rejected
    std::string error;      // when not delivered
};

// The files of a TLS connection (an empty path: the system's default CA, no client
// certificate). Filled from the OTLP configuration of the endpoint (its _CERTIFICATE,
// _CLIENT_CERTIFICATE and _CLIENT_KEY variables and options) and used only for https endpoints.
struct OtlpTlsFiles {
    std::string ca_file;
    std::string client_certificate_file;
    std::string client_key_file;
};

class OtlpTransport {
public:
    virtual ~OtlpTransport() = default;
    // One attempt; the request is the signal's Export*ServiceRequest.
    virtual OtlpReply send(const google::protobuf::Message& request, std::chrono::milliseconds timeout) = 0;
};

}  // namespace vtscope
