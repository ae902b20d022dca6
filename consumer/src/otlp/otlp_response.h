// SPDX-License-Identifier: Apache-2.0
// What an OTLP/HTTP response body says: how many of the request's items the receiver rejected.
#pragma once

#include <cstdint>
#include <string>

#include "otlp/otlp_protocol.h"

namespace vtscope {

// The partial_success of a signal's ("logs", "metrics", "profiles") Export*ServiceResponse in the
// body of a 2xx reply, binary (http/protobuf) or JSON (http/json): its rejected_log_records,
// rejected_data_points or rejected_profiles; 0 when absent or when the body is not a response
// (a proxy's page, say).
uint64_t rejected_in_response(const std::string& signal, OtlpProtocol protocol, const std::string& body);

}  // namespace vtscope
