// SPDX-License-Identifier: Apache-2.0
// What an OTLP/HTTP response body says: how many of the request's items the receiver rejected,
// and why (its partial_success, OTLP specification "Partial Success").
#pragma once

#include <cstdint>
#include <string>

namespace vtscope {

struct OtlpPartialSuccess {
    uint64_t rejected = 0;  // rejectedLogRecords / rejectedDataPoints / rejectedProfiles
    std::string message;    // errorMessage: the receiver's words (may be set with 0 rejected: a warning)
};

// partialSuccess of a response body (all zero and empty when absent, or not JSON).
OtlpPartialSuccess partial_success_in_response(const std::string& body);
// partial_success_in_response(body).rejected.
uint64_t rejected_in_response(const std::string& body);

}  // namespace vtscope
