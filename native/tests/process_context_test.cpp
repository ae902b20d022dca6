// SPDX-License-Identifier: Apache-2.0
// OTEP 4719 process context as a reader decodes it: libprotobuf parses the payload with the
// messages generated from opentelemetry-proto 1.11.0's process_context.proto (cmake/OtlpProto.cmake,
// protoc at build time), and the header is checked field by field, with its clock and the order
// in which the publisher writes it.
//
// Publication is once per process. ctest runs every test in a process of its own; run directly,
// the tests run in declaration order and the first publication test publishes first.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "otel_ctx.h"
#include "opentelemetry/proto/processcontext/v1development/process_context.pb.h"

// The generated messages of opentelemetry-proto 1.11.0 (cmake/OtlpProto.cmake).
namespace pb {
using opentelemetry::proto::common::v1::AnyValue;
using opentelemetry::proto::common::v1::KeyValue;
using opentelemetry::proto::processcontext::v1development::ProcessContext;
}  // namespace pb
using namespace vtscope::native;

namespace {

uint64_t boottime_ns() {
    timespec now{};
    clock_gettime(CLOCK_BOOTTIME, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

// Fails on any field the definitions do not know, anywhere in the message: a wrong field number
// or wire type would otherwise parse "successfully" into unknown fields.
void expect_no_unknown_fields(const google::protobuf::Message& m, const std::string& path) {
    const google::protobuf::Reflection* r = m.GetReflection();
    EXPECT_EQ(r->GetUnknownFields(m).field_count(), 0) << "unknown fields in " << path;
    std::vector<const google::protobuf::FieldDescriptor*> fields;
    r->ListFields(m, &fields);
    for (const auto* f : fields) {
        if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
        if (f->is_repeated()) {
            for (int i = 0; i < r->FieldSize(m, f); i++)
                expect_no_unknown_fields(r->GetRepeatedMessage(m, f, i),
                                         path + "." + f->name() + "[" + std::to_string(i) + "]");
        } else {
            expect_no_unknown_fields(r->GetMessage(m, f), path + "." + f->name());
        }
    }
}

pb::ProcessContext decode(const uint8_t* data, size_t size) {
    pb::ProcessContext ctx;
    EXPECT_TRUE(ctx.ParseFromArray(data, static_cast<int>(size))) << "libprotobuf rejects the payload";
    expect_no_unknown_fields(ctx, "ProcessContext");
    return ctx;
}

const pb::KeyValue* find(const google::protobuf::RepeatedPtrField<pb::KeyValue>& kvs, const std::string& key) {
    const pb::KeyValue* found = nullptr;
    for (const auto& kv : kvs) {
        if (kv.key() != key) continue;
        EXPECT_EQ(found, nullptr) << "duplicate key " << key;
        found = &kv;
    }
    return found;
}

// OTEP 4947's thread-local reference data, in ProcessContext.attributes (field 2), and nowhere
// in the resource.
void expect_threadlocal_attributes(const pb::ProcessContext& ctx) {
    ASSERT_EQ(ctx.attributes_size(), 2);
    const pb::KeyValue* schema = find(ctx.attributes(), "threadlocal.schema_version");
    ASSERT_NE(schema, nullptr);
    ASSERT_EQ(schema->value().value_case(), pb::AnyValue::kStringValue);
    EXPECT_EQ(schema->value().string_value(), "tlsdesc_v1_dev");
    const pb::KeyValue* key_map = find(ctx.attributes(), "threadlocal.attribute_key_map");
    ASSERT_NE(key_map, nullptr);
    ASSERT_EQ(key_map->value().value_case(), pb::AnyValue::kArrayValue) << "an array, even when empty";
    EXPECT_EQ(key_map->value().array_value().values_size(), 0) << "vtscope publishes no custom attributes";
    for (const auto& kv : ctx.resource().attributes())
        EXPECT_NE(kv.key().rfind("threadlocal.", 0), 0u) << kv.key() << " belongs in ProcessContext.attributes";
}

struct MapsEntry {
    uint64_t start = 0, end = 0;
    std::string perms, name;
};

// The mapping a reader finds by name (OTEP 4719 reading protocol, step 1).
bool find_context_mapping(MapsEntry* out) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        MapsEntry e;
        char perms[8] = {};
        int name_at = 0;
        unsigned long long start = 0, end = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx %7s %*s %*s %*s %n", &start, &end, perms, &name_at) < 3) continue;
        e.start = start;
        e.end = end;
        e.perms = perms;
        e.name = name_at > 0 ? line.substr(static_cast<size_t>(name_at)) : "";
        for (const char* prefix : {"[anon_shmem:OTEL_CTX]", "[anon:OTEL_CTX]", "/memfd:OTEL_CTX"}) {
            if (e.name.rfind(prefix, 0) == 0) {
                *out = e;
                return true;
            }
        }
    }
    return false;
}

// Snapshots of the header after every store the publisher makes.
struct Step {
    std::string field;
    ProcessContextHeader header;
};
std::vector<Step> g_steps;

void record_step(const ProcessContextHeader* header, const char* field) {
    Step s;
    s.field = field;
    std::memcpy(&s.header, header, sizeof(s.header));
    g_steps.push_back(s);
}

std::vector<ContextAttribute> sample_resource() {
    std::vector<ContextAttribute> r(3);
    r[0].key = "service.name";
    r[0].string_value = "checkout";
    r[1].key = "service.instance.id";
    r[1].string_value = "7f2a9c1e-0d4b-4f7a-9a51-3c2b8e6d1f00";
    r[2].key = "process.pid";
    r[2].kind = ContextAttribute::Kind::Int;
    r[2].int_value = 4242;
    return r;
}

}  // namespace

TEST(ProcessContextPayload, DecodesAsProcessContextWithoutResource) {
    std::vector<uint8_t> p = encode_process_context_payload({});
    pb::ProcessContext ctx = decode(p.data(), p.size());
    EXPECT_FALSE(ctx.has_resource()) << "no resource is known before the application gives one";
    expect_threadlocal_attributes(ctx);
}

TEST(ProcessContextPayload, DecodesAsProcessContextWithTheResource) {
    size_t dropped = 99;
    std::vector<uint8_t> p = encode_process_context_payload(sample_resource(), &dropped);
    EXPECT_EQ(dropped, 0u);
    pb::ProcessContext ctx = decode(p.data(), p.size());
    ASSERT_TRUE(ctx.has_resource());
    ASSERT_EQ(ctx.resource().attributes_size(), 3);
    EXPECT_EQ(ctx.resource().attributes(0).key(), "service.name");
    EXPECT_EQ(ctx.resource().attributes(0).value().string_value(), "checkout");
    EXPECT_EQ(ctx.resource().attributes(1).key(), "service.instance.id");
    EXPECT_EQ(ctx.resource().attributes(1).value().string_value(), "7f2a9c1e-0d4b-4f7a-9a51-3c2b8e6d1f00");
    EXPECT_EQ(ctx.resource().attributes(2).key(), "process.pid");
    ASSERT_EQ(ctx.resource().attributes(2).value().value_case(), pb::AnyValue::kIntValue);
    EXPECT_EQ(ctx.resource().attributes(2).value().int_value(), 4242);
    EXPECT_EQ(ctx.resource().dropped_attributes_count(), 0u);
    EXPECT_EQ(ctx.resource().entity_refs_size(), 0);
    expect_threadlocal_attributes(ctx);
}

TEST(ProcessContextPayload, OversizedAttributesAreLeftOutAndTheRestStaysDecodable) {
    std::vector<ContextAttribute> r = sample_resource();
    ContextAttribute huge;
    huge.key = "process.command_line";
    huge.string_value.assign(kMaxAttributeString + 1, 'x');
    r.insert(r.begin() + 1, huge);
    for (int i = 0; i < 8; i++) {  // 8 x 3000 bytes: more than kMaxPayload in all
        ContextAttribute a;
        a.key = "big." + std::to_string(i);
        a.string_value.assign(3000, 'y');
        r.push_back(a);
    }
    size_t dropped = 0;
    std::vector<uint8_t> p = encode_process_context_payload(r, &dropped);
    EXPECT_LE(p.size(), kMaxPayload);
    EXPECT_GE(dropped, 4u);
    pb::ProcessContext ctx = decode(p.data(), p.size());
    EXPECT_EQ(static_cast<size_t>(ctx.resource().attributes_size()), r.size() - dropped);
    EXPECT_EQ(find(ctx.resource().attributes(), "process.command_line"), nullptr);
    EXPECT_NE(find(ctx.resource().attributes(), "process.pid"), nullptr);
    expect_threadlocal_attributes(ctx);
}

TEST(ProcessContextPayload, ResourceEntriesFromTheCAbi) {
    // u8 kind, u16 key length, key, then u32 length + bytes (string) or 8 bytes (int64), LE.
    const uint8_t entries[] = {0, 12,  0,   's', 'e', 'r', 'v', 'i', 'c', 'e', '.',  'n',  'a', 'm', 'e', 3, 0, 0,
                               0, 'a', 'b', 'c', 1,   3,   0,   'p', 'i', 'd', 0x92, 0x10, 0,   0,   0,   0, 0, 0};
    std::vector<ContextAttribute> r;
    ASSERT_TRUE(decode_resource_entries(entries, sizeof(entries), &r));
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].key, "service.name");
    EXPECT_EQ(r[0].string_value, "abc");
    EXPECT_EQ(r[1].kind, ContextAttribute::Kind::Int);
    EXPECT_EQ(r[1].int_value, 4242);
    for (size_t cut = 1; cut < sizeof(entries); cut++) {
        if (cut == 22) continue;  // a whole first entry
        EXPECT_FALSE(decode_resource_entries(entries, cut, &r)) << "truncated at " << cut;
    }
    const uint8_t bad_kind[] = {2, 0, 0};
    EXPECT_FALSE(decode_resource_entries(bad_kind, sizeof(bad_kind), &r));
}

// The hand-over property's value (ProcessResource.RESOURCE_PROPERTY): the same entries in hex.
TEST(ProcessContextPayload, ResourcePropertyIsTheEntriesInHex) {
    std::vector<ContextAttribute> r;
    // "service.name" = "abc", as ResourceEntriesFromTheCAbi, written by HexFormat.formatHex.
    const std::string hex = "000c00736572766963652e6e616d6503000000616263";
    ASSERT_TRUE(decode_resource_property(hex, &r));
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].key, "service.name");
    EXPECT_EQ(r[0].string_value, "abc");
    std::string upper = hex;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    ASSERT_TRUE(decode_resource_property(upper, &r));
    EXPECT_EQ(r.size(), 1u);
    EXPECT_TRUE(decode_resource_property("", &r));
    EXPECT_TRUE(r.empty());
    EXPECT_FALSE(decode_resource_property(hex.substr(1), &r)) << "odd length";
    EXPECT_FALSE(decode_resource_property(hex.substr(0, hex.size() - 2), &r)) << "a truncated entry";
    std::string bad = hex;
    bad[5] = 'g';
    EXPECT_FALSE(decode_resource_property(bad, &r)) << "not a hex digit";
}

// The service the SDK's autoconfiguration will name: property over environment, otel.service.name
// over service.name among the resource attributes, the attributes' environment variable only when
// their property is unset, values percent-decoded.
TEST(ProcessContextPayload, ConfiguredServiceNameAsTheSdkReadsIt) {
    EXPECT_EQ(configured_service_name(nullptr, nullptr, nullptr, nullptr), "");
    EXPECT_EQ(configured_service_name("from-property", "from-env", "service.name=attrs", "service.name=env"),
              "from-property");
    EXPECT_EQ(configured_service_name(nullptr, "from-env", "service.name=attrs", nullptr), "from-env");
    EXPECT_EQ(configured_service_name(" ", nullptr, "a=1, service.name = checkout%20api ,b=2", nullptr),
              "checkout api");
    EXPECT_EQ(configured_service_name(nullptr, nullptr, nullptr, "service.name=env-attrs"), "env-attrs");
    EXPECT_EQ(configured_service_name(nullptr, nullptr, "a=1", "service.name=env-attrs"), "")
        << "the property replaces the variable as a whole";
    EXPECT_EQ(configured_service_name(nullptr, nullptr, "service.name=a%2,noequals,service.name=b%2Cc", nullptr), "b,c")
        << "the last pair wins; a malformed escape stays as it is";
    EXPECT_EQ(configured_service_name(nullptr, nullptr, "service.name=x%2", nullptr), "x%2");
}

// Runs body in a forked child, whose exit code is the number of the first check that failed (0:
// all held): the publisher is once per process, and a test that needs a process that has not
// published yet runs its publication there.
void expect_child_passes(int (*body)()) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) _exit(body());
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "child check failed at step " << WEXITSTATUS(status);
}

// A resource seeded from the configuration is the first publication's; the application's own
// (the C ABI) replaces it, and a seed after the publication changes nothing. In a child, as below.
TEST(ProcessContextPublication, TheSeededResourceIsPublishedUntilTheApplicationsComes) {
    ASSERT_EQ(published_process_context(), nullptr) << "this test needs a process that has not published";
    expect_child_passes([] {
        std::string error;
        ContextAttribute seeded;
        seeded.key = "service.name";
        seeded.string_value = "from-configuration";
        seed_process_resource({seeded});
        if (!publish_process_context(&error)) return 2;
        const ProcessContextHeader* h = published_process_context();
        pb::ProcessContext ctx;
        if (!ctx.ParseFromArray(reinterpret_cast<const void*>(h->payload), static_cast<int>(h->payload_size))) return 3;
        if (ctx.resource().attributes_size() != 1) return 4;
        if (ctx.resource().attributes(0).value().string_value() != "from-configuration") return 5;
        if (!update_process_resource(sample_resource(), nullptr, &error)) return 6;
        seeded.string_value = "late-seed";
        seed_process_resource({seeded});
        if (!ctx.ParseFromArray(reinterpret_cast<const void*>(h->payload), static_cast<int>(h->payload_size))) return 7;
        if (ctx.resource().attributes_size() != 3) return 8;
        if (ctx.resource().attributes(0).value().string_value() != "checkout") return 9;
        return 0;
    });
}

// A resource handed over before the first publication (a library loaded after the application's
// OpenTelemetry started) is in that publication. In a child: the publisher is once per process
// and the next test needs this process's first one.
TEST(ProcessContextPublication, AResourceAdoptedBeforePublicationIsInIt) {
    ASSERT_EQ(published_process_context(), nullptr) << "this test needs a process that has not published";
    expect_child_passes([] {
        std::string error;
        size_t dropped = 99;
        if (!adopt_process_resource(sample_resource(), &dropped, &error) || dropped != 0) return 2;
        if (!publish_process_context(&error)) return 3;
        const ProcessContextHeader* h = published_process_context();
        pb::ProcessContext ctx;
        if (!ctx.ParseFromArray(reinterpret_cast<const void*>(h->payload), static_cast<int>(h->payload_size))) return 4;
        if (ctx.resource().attributes_size() != 3) return 5;
        if (ctx.resource().attributes(0).value().string_value() != "checkout") return 6;
        if (ctx.attributes_size() != 2) return 7;  // the threadlocal.* keys as always
        return 0;
    });
}

TEST(ProcessContextPublication, HeaderClockWriteOrderAndMapping) {
    ASSERT_EQ(published_process_context(), nullptr) << "this test needs the process's first publication";
    g_steps.clear();
    set_publish_step_hook(record_step);
    uint64_t before = boottime_ns();
    std::string error;
    ASSERT_TRUE(publish_process_context(&error)) << error;
    uint64_t after = boottime_ns();
    set_publish_step_hook(nullptr);
    const ProcessContextHeader* h = published_process_context();
    ASSERT_NE(h, nullptr);

    // Reading protocol step 1: found by name, one page, starting at the header.
    MapsEntry m;
    ASSERT_TRUE(find_context_mapping(&m)) << "no OTEL_CTX mapping in /proc/self/maps";
    std::printf("[ mapping  ] %s %s\n", m.perms.c_str(), m.name.c_str());
    EXPECT_EQ(m.start, reinterpret_cast<uint64_t>(h));
    EXPECT_EQ(m.end - m.start, static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
    EXPECT_EQ(m.perms.substr(0, 2), "rw");

    // Every header field.
    EXPECT_EQ(std::memcmp(h->signature, "OTEL_CTX", 8), 0);
    EXPECT_EQ(h->version, 2u);
    EXPECT_GT(h->payload_size, 0u);
    EXPECT_LE(h->payload_size, kMaxPayload);
    ASSERT_NE(h->payload, 0u);
    // The clock: CLOCK_BOOTTIME, taken during publication.
    EXPECT_GE(h->monotonic_published_at_ns, before);
    EXPECT_LE(h->monotonic_published_at_ns, after);
    pb::ProcessContext ctx = decode(reinterpret_cast<const uint8_t*>(h->payload), h->payload_size);
    EXPECT_FALSE(ctx.has_resource());
    expect_threadlocal_attributes(ctx);

    // Write order: signature, version, payload_size and payload with the timestamp still 0, the
    // timestamp last; at that store every other field already holds its final value.
    ASSERT_GE(g_steps.size(), 5u);
    EXPECT_EQ(g_steps.back().field, "monotonic_published_at_ns");
    for (size_t i = 0; i + 1 < g_steps.size(); i++) {
        EXPECT_NE(g_steps[i].field, "monotonic_published_at_ns") << "step " << i;
        EXPECT_EQ(g_steps[i].header.monotonic_published_at_ns, 0u)
            << "the timestamp is set before " << g_steps[i].field;
    }
    const ProcessContextHeader& last_before = g_steps[g_steps.size() - 2].header;
    EXPECT_EQ(std::memcmp(last_before.signature, "OTEL_CTX", 8), 0);
    EXPECT_EQ(last_before.version, h->version);
    EXPECT_EQ(last_before.payload_size, h->payload_size);
    EXPECT_EQ(last_before.payload, h->payload);
    EXPECT_EQ(std::memcmp(&g_steps.back().header, h, sizeof(*h)), 0);

    // Not inherited by a child (MADV_DONTFORK).
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        MapsEntry c;
        _exit(find_context_mapping(&c) ? 1 : 0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child inherited the OTEL_CTX mapping";

    // Once per process: a second publication changes nothing.
    ASSERT_TRUE(publish_process_context(&error)) << error;
    EXPECT_EQ(published_process_context(), h);
}

TEST(ProcessContextPublication, ResourceUpdateFollowsTheUpdatingProtocol) {
    std::string error;
    ASSERT_TRUE(publish_process_context(&error)) << error;
    const ProcessContextHeader* h = published_process_context();
    ASSERT_NE(h, nullptr);
    for (int round = 0; round < 3; round++) {
        ProcessContextHeader old{};
        std::memcpy(&old, h, sizeof(old));
        std::vector<ContextAttribute> r = sample_resource();
        r[0].string_value = "checkout-" + std::to_string(round);
        g_steps.clear();
        set_publish_step_hook(record_step);
        size_t dropped = 99;
        ASSERT_TRUE(update_process_resource(r, &dropped, &error)) << error;
        set_publish_step_hook(nullptr);
        EXPECT_EQ(dropped, 0u);

        // Timestamp to 0 first, payload pointer and size with it 0, a new later timestamp last.
        ASSERT_EQ(g_steps.size(), 4u);
        EXPECT_EQ(g_steps.front().field, "monotonic_published_at_ns");
        EXPECT_EQ(g_steps.front().header.monotonic_published_at_ns, 0u);
        EXPECT_EQ(g_steps.front().header.payload, old.payload) << "the payload changed before the timestamp was 0";
        for (size_t i = 1; i + 1 < g_steps.size(); i++) {
            EXPECT_EQ(g_steps[i].header.monotonic_published_at_ns, 0u) << g_steps[i].field;
            EXPECT_NE(g_steps[i].field, "monotonic_published_at_ns");
        }
        EXPECT_EQ(g_steps.back().field, "monotonic_published_at_ns");
        EXPECT_GT(h->monotonic_published_at_ns, old.monotonic_published_at_ns);
        EXPECT_LE(h->monotonic_published_at_ns, boottime_ns());
        EXPECT_NE(h->payload, old.payload) << "a new payload buffer, not the one a reader may be copying";
        EXPECT_EQ(std::memcmp(h->signature, "OTEL_CTX", 8), 0);
        EXPECT_EQ(h->version, 2u);

        pb::ProcessContext ctx = decode(reinterpret_cast<const uint8_t*>(h->payload), h->payload_size);
        ASSERT_EQ(ctx.resource().attributes_size(), 3);
        EXPECT_EQ(ctx.resource().attributes(0).value().string_value(), "checkout-" + std::to_string(round));
        expect_threadlocal_attributes(ctx);
        // The payload just replaced stays readable until the next update.
        if (round > 0) {
            pb::ProcessContext prev = decode(reinterpret_cast<const uint8_t*>(old.payload), old.payload_size);
            EXPECT_EQ(prev.resource().attributes(0).value().string_value(), "checkout-" + std::to_string(round - 1));
        }
        MapsEntry m;
        ASSERT_TRUE(find_context_mapping(&m));
        EXPECT_EQ(m.start, reinterpret_cast<uint64_t>(h));
    }
}

// Once a resource came through the C ABI (update_process_resource, after the previous test), a
// handed-over one is older: it is not adopted and the process context stays as it is.
TEST(ProcessContextPublication, AHandedOverResourceYieldsToTheCAbis) {
    std::string error;
    ASSERT_TRUE(publish_process_context(&error)) << error;
    const ProcessContextHeader* h = published_process_context();
    ASSERT_NE(h, nullptr);
    std::vector<ContextAttribute> r = sample_resource();
    ASSERT_TRUE(update_process_resource(r, nullptr, &error)) << error;
    ProcessContextHeader before{};
    std::memcpy(&before, h, sizeof(before));
    std::vector<ContextAttribute> stale = sample_resource();
    stale[0].string_value = "stale";
    size_t dropped = 99;
    ASSERT_TRUE(adopt_process_resource(stale, &dropped, &error)) << error;
    EXPECT_EQ(dropped, 0u);
    EXPECT_EQ(std::memcmp(&before, h, sizeof(before)), 0) << "the header changed";
    pb::ProcessContext ctx = decode(reinterpret_cast<const uint8_t*>(h->payload), h->payload_size);
    ASSERT_EQ(ctx.resource().attributes_size(), 3);
    EXPECT_EQ(ctx.resource().attributes(0).value().string_value(), "checkout");
}

TEST(ThreadContextAttach, OnlyRecordsOfTheRegisteredRegion) {
    const uint64_t header = 4096, slot = 128, record_offset = 64, slots = 4;
    std::vector<uint8_t> region(header + slots * slot);
    uint64_t base = reinterpret_cast<uint64_t>(region.data());
    otel_thread_ctx_v1 = nullptr;
    EXPECT_FALSE(attach_thread_context(base + header + record_offset)) << "no region registered yet";
    set_thread_context_region(base, region.size());
    for (uint64_t bad : {base, base + header, base + header + record_offset + 8, base + header + slot,
                         base + header + slots * slot + record_offset, uint64_t{0}})
        EXPECT_FALSE(attach_thread_context(bad)) << std::hex << bad - base;
    EXPECT_EQ(otel_thread_ctx_v1, nullptr);
    uint64_t last = base + header + (slots - 1) * slot + record_offset;
    EXPECT_TRUE(attach_thread_context(last));
    EXPECT_EQ(reinterpret_cast<uint64_t>(otel_thread_ctx_v1), last);
    set_thread_context_region(0, 0);
    otel_thread_ctx_v1 = nullptr;
}
