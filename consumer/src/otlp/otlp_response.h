// SPDX-License-Identifier: Apache-2.0
// What an OTLP/HTTP response body says: how many of the request's items the receiver rejected.
#pragma once

#include <cstdint>
#include <string>

namespace vtscope {

// partialSuccess.rejectedLogRecords / rejectedDataPoints / rejectedProfiles of a response body
// (0 when absent).
uint64_t rejected_in_response(const std::string& body);

}  // namespace vtscope
