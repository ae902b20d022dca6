// SPDX-License-Identifier: Apache-2.0
// The consumer's reader of the OTEP 4719 process context, with no JVM: the protobuf decoder on
// bytes encoded by hand (valid, and malformed in each way the wire format can be), and the
// header protocol on a fake address space (unpublished, torn, oversized, unreadable).
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <cstring>
#include <string>
#include <vector>

#include "fake_memory.h"
#include "channels/process_context.h"

namespace vtscope {
namespace {

using Bytes = std::vector<uint8_t>;

void put_varint(Bytes& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<uint8_t>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
}
void put_tag(Bytes& out, uint32_t field, uint32_t wire) { put_varint(out, (uint64_t{field} << 3) | wire); }
void put_len(Bytes& out, uint32_t field, const Bytes& body) {
    put_tag(out, field, 2);
    put_varint(out, body.size());
    out.insert(out.end(), body.begin(), body.end());
}
Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes key_value(const std::string& key, const Bytes& any_value) {
    Bytes kv;
    put_len(kv, 1, text(key));
    put_len(kv, 2, any_value);
    return kv;
}
Bytes any_string(const std::string& s) {
    Bytes a;
    put_len(a, 1, text(s));
    return a;
}
Bytes any_int(int64_t v) {
    Bytes a;
    put_tag(a, 3, 0);
    put_varint(a, static_cast<uint64_t>(v));
    return a;
}

// ProcessContext { resource { attributes... }, attributes: threadlocal.schema_version }.
Bytes process_context(const std::vector<Bytes>& resource_attributes) {
    Bytes resource;
    for (const Bytes& kv : resource_attributes) put_len(resource, 1, kv);
    put_tag(resource, 2, 0);  // dropped_attributes_count: skipped
    put_varint(resource, 0);
    Bytes pc;
    put_len(pc, 1, resource);
    put_len(pc, 2, key_value("threadlocal.schema_version", any_string("tlsdesc_v1_dev")));
    return pc;
}

TEST(ProcessContextDecoder, ResourceAttributesOfEachKind) {
    Bytes any_bool;
    put_tag(any_bool, 2, 0);
    put_varint(any_bool, 1);
    Bytes any_double;
    put_tag(any_double, 4, 1);
    double d = 2.5;
    uint8_t raw[8];
    std::memcpy(raw, &d, 8);
    any_double.insert(any_double.end(), raw, raw + 8);
    Bytes array;  // ArrayValue { values: [ "x" ] }
    put_len(array, 1, any_string("x"));
    Bytes any_array;
    put_len(any_array, 5, array);  // an array value: skipped
    Bytes payload = process_context({key_value("service.name", any_string("svc")), key_value("n", any_int(-3)),
                                     key_value("b", any_bool), key_value("d", any_double),
                                     key_value("skipped", any_array), key_value("service.name", any_string("last"))});
    auto attributes = decode_process_context_resource(payload);
    ASSERT_TRUE(attributes) << attributes.error().message;
    ASSERT_EQ(attributes->size(), 4u);
    EXPECT_EQ((*attributes)[0].key, "service.name");
    EXPECT_EQ((*attributes)[0].text, "last");  // a repeated key: the last one
    EXPECT_EQ((*attributes)[1].kind, OtlpAttribute::Kind::kInt);
    EXPECT_EQ((*attributes)[1].number, -3);
    EXPECT_EQ((*attributes)[2].kind, OtlpAttribute::Kind::kBool);
    EXPECT_TRUE((*attributes)[2].flag);
    EXPECT_EQ((*attributes)[3].text, "2.5");
    // The context's own attributes (field 2) are not the resource.
    for (const OtlpAttribute& a : *attributes) EXPECT_NE(a.key, "threadlocal.schema_version");
}

TEST(ProcessContextDecoder, EmptyAndUnknownFields) {
    auto empty = decode_process_context_resource({});
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->empty());
    Bytes payload = process_context({key_value("k", any_string("v"))});
    put_tag(payload, 9, 5);  // an unknown I32 field
    payload.insert(payload.end(), {1, 2, 3, 4});
    put_tag(payload, 10, 1);  // an unknown I64 field
    payload.insert(payload.end(), 8, 0);
    auto a = decode_process_context_resource(payload);
    ASSERT_TRUE(a) << a.error().message;
    ASSERT_EQ(a->size(), 1u);
    EXPECT_EQ((*a)[0].text, "v");
}

TEST(ProcessContextDecoder, MalformedPayloadsAreErrors) {
    Bytes good = process_context({key_value("service.name", any_string("svc"))});
    for (size_t cut = 1; cut < good.size(); cut++) {
        Bytes truncated(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
        auto r = decode_process_context_resource(truncated);
        // A cut at a field boundary of the outer message is a shorter valid message; any other
        // cut leaves a length past the end or a truncated varint.
        if (r) continue;
        EXPECT_NE(r.error().message.find("malformed process context payload"), std::string::npos);
    }
    Bytes past_end;
    put_tag(past_end, 1, 2);
    put_varint(past_end, 100);
    EXPECT_FALSE(decode_process_context_resource(past_end));
    Bytes group;
    put_tag(group, 7, 3);
    EXPECT_FALSE(decode_process_context_resource(group));
    Bytes wire7;
    put_tag(wire7, 7, 7);
    EXPECT_FALSE(decode_process_context_resource(wire7));
    Bytes long_varint;
    put_tag(long_varint, 3, 0);
    long_varint.insert(long_varint.end(), 11, 0xff);
    EXPECT_FALSE(decode_process_context_resource(long_varint));
    Bytes bad_inner;  // a resource whose KeyValue holds a truncated varint
    Bytes kv = {0x0a, 0x05, 'a'};
    Bytes resource;
    put_len(resource, 1, kv);
    put_len(bad_inner, 1, resource);
    EXPECT_FALSE(decode_process_context_resource(bad_inner));
}

// A payload of distinct integer attributes "k0", "k1", ... of about `bytes` bytes.
Bytes distinct_keys(size_t bytes) {
    std::vector<Bytes> kvs;
    size_t size = 0;
    for (int i = 0; size < bytes - 64; i++) {
        kvs.push_back(key_value("k" + std::to_string(i), any_int(i)));
        size += kvs.back().size() + 2;
    }
    return process_context(kvs);
}

// CPU seconds of one decode (CPU, not wall time: the machine may be shared).
double decode_cpu_seconds(const Bytes& payload, size_t* kept) {
    std::clock_t started = std::clock();
    auto attributes = decode_process_context_resource(payload);
    double seconds = static_cast<double>(std::clock() - started) / CLOCKS_PER_SEC;
    *kept = attributes ? attributes->size() : 0;
    return seconds;
}

// A hostile target chooses its whole payload (up to 1 MiB): one of distinct keys once cost a
// scan of every kept key per key (9.6 s of CPU, quadratic: 8 times the keys took 64 times the
// time). Now the work is linear and the resource holds at most kMaxProcessContextAttributes.
TEST(ProcessContextDecoder, AMebibyteOfDistinctKeysIsLinearAndCapped) {
    Bytes eighth = distinct_keys(1u << 17), whole = distinct_keys(1u << 20);
    ASSERT_LE(whole.size(), 1u << 20);
    size_t kept = 0;
    double small = decode_cpu_seconds(eighth, &kept);
    double large = decode_cpu_seconds(whole, &kept);
    std::printf("CPU to decode distinct keys: %zu bytes %.3f s, %zu bytes %.3f s\n", eighth.size(), small, whole.size(),
                large);
    EXPECT_LT(large, 24 * small + 0.05) << "eight times the keys took " << large / small << " times the CPU";
    EXPECT_EQ(kept, kMaxProcessContextAttributes);
    auto attributes = decode_process_context_resource(whole);
    ASSERT_TRUE(attributes) << attributes.error().message;
    EXPECT_EQ(attributes->front().key, "k0");
    EXPECT_EQ(attributes->back().key, "k" + std::to_string(kMaxProcessContextAttributes - 1));
}

TEST(ProcessContextDecoder, KeysAndValuesAreBoundedAndWellFormed) {
    std::string long_key(kMaxProcessContextKeyBytes + 1, 'k');
    std::string long_value(kMaxProcessContextValueBytes + 100, 'v');
    std::vector<Bytes> kvs = {key_value(long_key, any_string("dropped")), key_value("long", any_string(long_value)),
                              key_value("svc", any_string("one"))};
    for (size_t i = 0; i < kMaxProcessContextAttributes; i++)
        kvs.push_back(key_value("x" + std::to_string(i), any_int(1)));
    kvs.push_back(key_value("svc", any_string("two")));  // a kept key repeated past the cap: still the last one
    auto attributes = decode_process_context_resource(process_context(kvs));
    ASSERT_TRUE(attributes) << attributes.error().message;
    ASSERT_EQ(attributes->size(), kMaxProcessContextAttributes);
    EXPECT_EQ((*attributes)[0].key, "long");
    EXPECT_EQ((*attributes)[0].text, std::string(kMaxProcessContextValueBytes, 'v'));
    EXPECT_EQ((*attributes)[1].key, "svc");
    EXPECT_EQ((*attributes)[1].text, "two");
}

// A proto3 string must be UTF-8: the generated parser refuses a payload with one that is not
// (as the Collector's decoder would refuse an export carrying it), whole, with one error.
TEST(ProcessContextDecoder, StringsThatAreNotUtf8RefuseThePayload) {
    for (const Bytes& kv : {key_value("bad\xff", any_string("ok")), key_value("ok", any_string("a\xc3"))}) {
        auto attributes = decode_process_context_resource(process_context({key_value("svc", any_string("one")), kv}));
        ASSERT_FALSE(attributes);
        EXPECT_NE(attributes.error().message.find("malformed process context payload"), std::string::npos);
    }
    // A value cut at 4 KiB inside a character is made well-formed again.
    std::string value(kMaxProcessContextValueBytes - 1, 'v');
    value += "\xc3\xa9";  // U+00E9 across the cut
    auto cut = decode_process_context_resource(process_context({key_value("cut", any_string(value))}));
    ASSERT_TRUE(cut) << cut.error().message;
    EXPECT_EQ(cut->at(0).text, std::string(kMaxProcessContextValueBytes - 1, 'v') + "\xef\xbf\xbd");
}

struct Header {
    char signature[8];
    uint32_t version;
    uint32_t payload_size;
    uint64_t published;
    uint64_t payload;
};

TEST(ProcessContextReader, HeaderProtocolOnFakeMemory) {
    constexpr uint64_t kHeader = 0x10000, kPayload = 0x20000;
    Bytes payload = process_context({key_value("service.name", any_string("from-ctx"))});
    auto memory_with = [&](Header h, bool with_payload) {
        testing::FakeMemory m;
        m.put_value(kHeader, h);
        if (with_payload) m.put(kPayload, payload.data(), payload.size());
        return m;
    };
    Header h{};
    std::memcpy(h.signature, "OTEL_CTX", 8);
    h.version = 2;
    h.payload_size = static_cast<uint32_t>(payload.size());
    h.published = 12345;
    h.payload = kPayload;
    auto ok = read_process_context(memory_with(h, true), kHeader);
    ASSERT_TRUE(ok) << ok.error().message;
    ASSERT_EQ(ok->size(), 1u);
    EXPECT_EQ((*ok)[0].text, "from-ctx");

    EXPECT_FALSE(read_process_context(testing::FakeMemory(), kHeader));  // nothing mapped
    EXPECT_FALSE(read_process_context(memory_with(h, false), kHeader));  // payload unreadable
    Header bad = h;
    bad.signature[0] = 'X';
    EXPECT_FALSE(read_process_context(memory_with(bad, true), kHeader));
    bad = h;
    bad.version = 3;
    EXPECT_FALSE(read_process_context(memory_with(bad, true), kHeader));
    bad = h;
    bad.payload_size = 2u << 20;
    EXPECT_FALSE(read_process_context(memory_with(bad, true), kHeader));
    bad = h;
    bad.published = 0;  // always being updated: gives up after three attempts
    auto busy = read_process_context(memory_with(bad, true), kHeader);
    ASSERT_FALSE(busy);
    EXPECT_NE(busy.error().message.find("being updated"), std::string::npos) << busy.error().message;
}

TEST(ProcessContextReader, FindsEachNameOfTheMapping) {
    for (const char* name : {"[anon:OTEL_CTX]", "[anon_shmem:OTEL_CTX]", "/memfd:OTEL_CTX (deleted)"}) {
        std::string maps =
            "7f0000000000-7f0000001000 r--p 00000000 00:00 0 [heap]\n"
            "7f1000000000-7f1000001000 r--p 00000000 00:01 77 " +
            std::string(name) + "\n";
        auto at = find_process_context(parse_maps(maps));
        ASSERT_TRUE(at) << name;
        EXPECT_EQ(*at, 0x7f1000000000u);
    }
    EXPECT_FALSE(find_process_context(parse_maps("7f00-7f01 r--p 00000000 00:00 0 /lib/OTEL_CTX.so\n")));
}

TEST(OtlpResource, ProcessContextPrecedence) {
    std::vector<OtlpAttribute> context = {
        OtlpAttribute::string("service.name", "app"), OtlpAttribute::string("service.instance.id", "sdk-instance"),
        OtlpAttribute::string("deployment.environment.name", "ctx"), OtlpAttribute::integer("process.pid", 999)};
    auto env = [](const char* name) -> const char* {
        std::string n = name;
        if (n == "OTEL_SERVICE_NAME") return "env-service";
        if (n == "OTEL_RESOURCE_ATTRIBUTES") return "deployment.environment.name=env,team=t";
        return nullptr;
    };
    auto r = make_resource("", env, 42, "host", "random", context);
    ASSERT_TRUE(r) << r.error().message;
    auto value = [&](const std::string& key) -> const OtlpAttribute* {
        for (const OtlpAttribute& a : *r)
            if (a.key == key) return &a;
        return nullptr;
    };
    EXPECT_EQ(value("service.name")->text, "app");  // the application's own over vtscope's environment
    EXPECT_EQ(value("service.instance.id")->text, "sdk-instance");
    EXPECT_EQ(value("process.pid")->number, 42);  // the target vtscope attached to
    EXPECT_EQ(value("deployment.environment.name")->text, "ctx");
    EXPECT_EQ(value("team")->text, "t");  // the environment adds what the context does not name
    size_t pids = 0;
    for (const OtlpAttribute& a : *r) pids += a.key == "process.pid";
    EXPECT_EQ(pids, 1u);
    auto flag = make_resource("flag", env, 42, "host", "random", context);
    ASSERT_TRUE(flag);
    EXPECT_EQ((*flag)[0].text, "flag");  // --service over everything
    auto without = make_resource("", env, 42, "host", "random", {});
    ASSERT_TRUE(without);
    EXPECT_EQ((*without)[0].text, "env-service");
}

}  // namespace
}  // namespace vtscope
