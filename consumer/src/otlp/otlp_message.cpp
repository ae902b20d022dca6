// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_message.h"

#include <string>

namespace vtscope {

void set_any_value(otlp_common::AnyValue* value, const OtlpAttribute& a) {
    switch (a.kind) {
        case OtlpAttribute::Kind::kInt: value->set_int_value(a.number); return;
        case OtlpAttribute::Kind::kBool: value->set_bool_value(a.flag); return;
        case OtlpAttribute::Kind::kString: break;
    }
    value->set_string_value(a.text);
}

void add_attribute(OtlpKeyValues* attributes, const OtlpAttribute& a) {
    otlp_common::KeyValue* kv = attributes->Add();
    kv->set_key(a.key);
    set_any_value(kv->mutable_value(), a);
}

void add_string_attribute(OtlpKeyValues* attributes, std::string_view key, std::string_view value) {
    otlp_common::KeyValue* kv = attributes->Add();
    kv->set_key(std::string(key));
    kv->mutable_value()->set_string_value(std::string(value));
}

void add_int_attribute(OtlpKeyValues* attributes, std::string_view key, int64_t value) {
    otlp_common::KeyValue* kv = attributes->Add();
    kv->set_key(std::string(key));
    kv->mutable_value()->set_int_value(value);
}

void add_bool_attribute(OtlpKeyValues* attributes, std::string_view key, bool value) {
    otlp_common::KeyValue* kv = attributes->Add();
    kv->set_key(std::string(key));
    kv->mutable_value()->set_bool_value(value);
}

void set_resource(opentelemetry::proto::resource::v1::Resource* resource,
                  const std::vector<OtlpAttribute>& attributes) {
    for (const OtlpAttribute& a : attributes) add_attribute(resource->mutable_attributes(), a);
}

void set_scope(otlp_common::InstrumentationScope* scope) { scope->set_name("vtscope"); }

}  // namespace vtscope
