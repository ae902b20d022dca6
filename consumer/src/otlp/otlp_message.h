// SPDX-License-Identifier: Apache-2.0
// The parts of the generated OTLP messages (opentelemetry-proto, cmake/OtlpProto.cmake) every
// signal shares: attributes, and the resource and scope around a request's items.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "opentelemetry/proto/common/v1/common.pb.h"
#include "opentelemetry/proto/resource/v1/resource.pb.h"
#include "otlp/otlp_model.h"

namespace vtscope {

namespace otlp_common = opentelemetry::proto::common::v1;
using OtlpKeyValues = google::protobuf::RepeatedPtrField<otlp_common::KeyValue>;

void set_any_value(otlp_common::AnyValue* value, const OtlpAttribute& attribute);
void add_attribute(OtlpKeyValues* attributes, const OtlpAttribute& attribute);
void add_string_attribute(OtlpKeyValues* attributes, std::string_view key, std::string_view value);
void add_int_attribute(OtlpKeyValues* attributes, std::string_view key, int64_t value);
void add_bool_attribute(OtlpKeyValues* attributes, std::string_view key, bool value);

// The resource of every request, and its one scope: vtscope.
void set_resource(opentelemetry::proto::resource::v1::Resource* resource, const std::vector<OtlpAttribute>& attributes);
void set_scope(otlp_common::InstrumentationScope* scope);

}  // namespace vtscope
