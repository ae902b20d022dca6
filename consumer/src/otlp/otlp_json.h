// SPDX-License-Identifier: Apache-2.0
// The OTLP JSON encoding of a request (http/json): protobuf's JSON printer (the proto3 JSON
// mapping: lowerCamelCase names, 64-bit integers as strings), with the two differences the OTLP
// specification makes (protocol/otlp.md, "JSON Protobuf Encoding"): trace and span ids are hex
// strings, not base64, and enums are integers, not names.
#pragma once

#include <google/protobuf/message.h>

#include <string>

namespace vtscope {

// The request's OTLP JSON text.
std::string otlp_json(const google::protobuf::Message& request);

// The id fix-up applied to the printer's compact output: the base64 value of every traceId,
// spanId, parentSpanId and profileId field rewritten as lowercase hex.
std::string hex_ids_in_json(const std::string& proto3_json);

}  // namespace vtscope
