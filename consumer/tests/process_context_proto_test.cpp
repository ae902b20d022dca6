// SPDX-License-Identifier: Apache-2.0
// The consumer's process-context decoder (consumer/src/channels/process_context.cpp) on payloads it did
// not encode itself: a ProcessContext built and serialised by libprotobuf from the
// messages generated from opentelemetry-proto (cmake/OtlpProto.cmake), and the payload libvtscope's
// writer publishes (native/src/otel_ctx.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "otel_ctx.h"
#include "opentelemetry/proto/processcontext/v1development/process_context.pb.h"
#include "channels/process_context.h"

// The generated messages of opentelemetry-proto 1.11.0 (cmake/OtlpProto.cmake).
namespace pb {
using opentelemetry::proto::common::v1::AnyValue;
using opentelemetry::proto::common::v1::KeyValue;
using opentelemetry::proto::processcontext::v1development::ProcessContext;
}  // namespace pb

namespace {

const vtscope::OtlpAttribute* find(const std::vector<vtscope::OtlpAttribute>& list, const std::string& key) {
    for (const auto& a : list)
        if (a.key == key) return &a;
    return nullptr;
}

}  // namespace

TEST(ProcessContextProtoDecode, LibprotobufEncodedResource) {
    pb::ProcessContext ctx;
    auto add = [&](const std::string& key) {
        pb::KeyValue* kv = ctx.mutable_resource()->add_attributes();
        kv->set_key(key);
        return kv->mutable_value();
    };
    add("service.name")->set_string_value("proto-svc");
    add("service.instance.id")->set_string_value("0b8e2a4c-1111-4222-8333-444455556666");
    add("process.runtime.version")->set_int_value(25);
    add("negative")->set_int_value(-7);
    add("flag")->set_bool_value(true);
    add("ratio")->set_double_value(0.25);
    add("list")->mutable_array_value()->add_values()->set_string_value("skipped");
    add("raw")->set_bytes_value("\x01\x02");
    ctx.mutable_resource()->set_dropped_attributes_count(3);
    ctx.mutable_resource()->add_entity_refs()->set_type("service");
    pb::KeyValue* own = ctx.add_attributes();
    own->set_key("threadlocal.schema_version");
    own->mutable_value()->set_string_value("tlsdesc_v1_dev");
    std::string bytes;
    ASSERT_TRUE(ctx.SerializeToString(&bytes));
    auto decoded =
        vtscope::decode_process_context_resource({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    ASSERT_TRUE(decoded) << decoded.error().message;
    EXPECT_EQ(decoded->size(), 6u);
    EXPECT_EQ(find(*decoded, "service.name")->text, "proto-svc");
    EXPECT_EQ(find(*decoded, "service.instance.id")->text, "0b8e2a4c-1111-4222-8333-444455556666");
    EXPECT_EQ(find(*decoded, "process.runtime.version")->number, 25);
    EXPECT_EQ(find(*decoded, "negative")->number, -7);
    EXPECT_TRUE(find(*decoded, "flag")->flag);
    EXPECT_EQ(find(*decoded, "ratio")->text, "0.25");
    EXPECT_EQ(find(*decoded, "list"), nullptr);
    EXPECT_EQ(find(*decoded, "raw"), nullptr);
    EXPECT_EQ(find(*decoded, "threadlocal.schema_version"), nullptr);
}

TEST(ProcessContextProtoDecode, LibvtscopeWriterPayload) {
    using vtscope::native::ContextAttribute;
    std::vector<ContextAttribute> resource(2);
    resource[0].key = "service.name";
    resource[0].string_value = "written-by-libvtscope";
    resource[1].key = "process.pid";
    resource[1].kind = ContextAttribute::Kind::Int;
    resource[1].int_value = 4321;
    std::vector<uint8_t> payload = vtscope::native::encode_process_context_payload(resource);
    auto decoded = vtscope::decode_process_context_resource(payload);
    ASSERT_TRUE(decoded) << decoded.error().message;
    ASSERT_EQ(decoded->size(), 2u);
    EXPECT_EQ(find(*decoded, "service.name")->text, "written-by-libvtscope");
    EXPECT_EQ(find(*decoded, "process.pid")->number, 4321);
    // No resource yet (the SDK not configured): a payload with the context's own attributes only.
    auto bare = vtscope::decode_process_context_resource(vtscope::native::encode_process_context_payload({}));
    ASSERT_TRUE(bare) << bare.error().message;
    EXPECT_TRUE(bare->empty());
}
