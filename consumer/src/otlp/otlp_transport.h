// SPDX-License-Identifier: Apache-2.0
// What the exporter's retry loop needs of a transport: one attempt at sending a request, and
// what came of it. OTLP/HTTP goes through libcurl (otlp_exporter.cpp), gRPC through libgrpc++
// (grpc_transport.h).
#pragma once

#include <google/protobuf/message.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace vtscope {

struct OtlpReply {
    bool delivered = false;
    bool retryable = false;
    uint64_t rejected = 0;            // partial success: the request's items the receiver rejected
    std::string partial_message;      // partial success: the receiver's error_message, when delivered
    std::optional<long> retry_after;  // seconds, from a 429 or 503's Retry-After (OTLP/HTTP)
    std::string error;                // when not delivered
};

class OtlpTransport {
public:
    virtual ~OtlpTransport() = default;
    // One attempt; the request is the signal's Export*ServiceRequest.
    virtual OtlpReply send(const google::protobuf::Message& request, std::chrono::milliseconds timeout) = 0;
};

}  // namespace vtscope
