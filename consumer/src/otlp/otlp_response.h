// SPDX-License-Identifier: Apache-2.0
// What an OTLP/HTTP response body says: how many of the request's items the receiver rejected,
// and why (its partial_success, OTLP specification "Partial Success").
#pragma once

#include <cstdint>
#include <string>

#include "otlp/otlp_protocol.h"

namespace vtscope {

struct OtlpPartialSuccess {
    uint64_t rejected = 0;  // rejected_log_records / rejected_data_points / rejected_profiles
    std::string message;    // error_message: the receiver's words (may be set with 0 rejected: a warning)
};

// The partial_success of a signal's ("logs", "metrics", "profiles") Export*ServiceResponse in the
// body of a 2xx reply, binary (http/protobuf) or JSON (http/json); all zero and empty when absent
// or when the body is not a response (a proxy's page, say).
OtlpPartialSuccess partial_success_in_response(const std::string& signal, OtlpProtocol protocol,
                                               const std::string& body);
// What an error reply's body says, to quote: OTLP/HTTP answers an error with a google.rpc.Status
// in the request's encoding (protocol/otlp.md, "Failures"), so for http/protobuf its message
// (field 2) when the body is one; else the body as it is (JSON, a proxy's page).
std::string error_text_in_body(OtlpProtocol protocol, const std::string& body);
// partial_success_in_response(signal, protocol, body).rejected.
uint64_t rejected_in_response(const std::string& signal, OtlpProtocol protocol, const std::string& body);

}  // namespace vtscope
