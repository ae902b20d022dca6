// SPDX-License-Identifier: Apache-2.0
// OTEP 4947 thread context for third-party readers, and the OTEP 4719 process context that
// announces its schema (and, once the application's OpenTelemetry resource is known, the
// resource).
//
// Process context (OTEP 4719 as merged in opentelemetry-specification 34f27fd, payload message
// opentelemetry.proto.processcontext.v1development.ProcessContext of opentelemetry-proto 7f6408c):
// a one-page mapping "OTEL_CTX" (memfd, else anonymous; named with PR_SET_VMA_ANON_NAME) whose
// first 32 bytes are the header below. The payload is a protobuf ProcessContext: the resource in
// field 1, the OTEP 4947 threadlocal.* keys among its own attributes in field 2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" {
// The OTEP 4947 thread-local: a pointer to the current thread's 64-byte context record, or null.
// Exported in .dynsym; the library is compiled with -mtls-dialect=gnu2 (TLSDESC), the dialect
// the OTEP recommends. vtscope points it at the mounted virtual thread's record on every mount
// and clears it on unmount, so it follows virtual threads across carriers.
extern __thread void* otel_thread_ctx_v1;
}

namespace vtscope::native {

inline void set_thread_context(uint64_t record) { otel_thread_ctx_v1 = reinterpret_cast<void*>(record); }

// Platform threads (OTEP 4947's fixed-record model): the record region whose records a platform
// thread may point its otel_thread_ctx_v1 at, registered when the OTEP feature initialises (base
// 0: none). attach_thread_context points the calling thread's thread-local at `record` if it is
// a record of that region (slot start + VTSCOPE_RECORD_OFFSET), else changes nothing and returns
// false. The Java writer calls it once per platform thread, when the thread claims its slot; it
// then rewrites that record in place (valid 0, ids, valid 1) for every context change.
void set_thread_context_region(uint64_t base, uint64_t size);
bool attach_thread_context(uint64_t record);

// OTEP 4719 header, at offset 0 of the OTEL_CTX mapping. Host byte order.
struct ProcessContextHeader {
    char signature[8];                   // "OTEL_CTX", not NUL-terminated
    uint32_t version;                    // 2
    uint32_t payload_size;               // bytes of the encoded ProcessContext
    uint64_t monotonic_published_at_ns;  // CLOCK_BOOTTIME; 0 while being written or updated; written last
    uint64_t payload;                    // address of the payload in this process
};
static_assert(sizeof(ProcessContextHeader) == 32, "OTEP 4719 header layout");
static_assert(offsetof(ProcessContextHeader, monotonic_published_at_ns) == 16, "OTEP 4719 header layout");

constexpr uint32_t kProcessContextVersion = 2;
constexpr const char* kThreadLocalSchemaVersion = "tlsdesc_v1_dev";

// One resource attribute. Only the AnyValue kinds every current reader decodes: string_value
// and int_value (the OTEP's reference reader rejects a payload with bool or double values, so
// the Java side passes those as strings).
struct ContextAttribute {
    enum class Kind : uint8_t { String, Int };
    std::string key;
    Kind kind = Kind::String;
    std::string string_value;
    int64_t int_value = 0;
};

// Limits that keep the payload decodable by every current reader: the OTEP's reference reader
// takes strings up to 4096 bytes and lengths up to 16383 (two-byte varints); the eBPF profiler
// takes payloads up to 65536 bytes. Attributes beyond them are left out (counted).
constexpr size_t kMaxAttributeString = 4096;
constexpr size_t kMaxPayload = 16000;

// The protobuf ProcessContext payload: resource { attributes } (absent when `resource` is empty)
// and attributes threadlocal.schema_version = "tlsdesc_v1_dev", threadlocal.attribute_key_map =
// [] (vtscope publishes no custom attributes). *dropped (optional) counts resource attributes
// left out by the limits above.
std::vector<uint8_t> encode_process_context_payload(const std::vector<ContextAttribute>& resource,
                                                    size_t* dropped = nullptr);

// Publishes the process context once per process (later calls return true and change nothing):
// OTEP 4719's publication protocol, with the resource last given to update_process_resource
// (none before).
bool publish_process_context(std::string* error);

// Replaces the resource in the process context by OTEP 4719's updating protocol (timestamp to 0,
// fence, payload pointer and size, fence, a new larger timestamp, rename). Before the first
// publication it only records the resource for it. *dropped as above.
bool update_process_resource(const std::vector<ContextAttribute>& resource, size_t* dropped, std::string* error);

// The hand-over of a resource set before this library was loaded. The Java side
// (io.vtscope.internal.ProcessResource) keeps its last resource, as the C ABI's entries in
// lowercase hex, in the system property kResourceProperty; the library reads it where JNI first
// works for it (agent.cpp) and adopts it, unless a resource already came through
// update_process_resource, which is then the newer one (the Java side sets the property before
// it calls the library). *dropped as above.
constexpr const char* kResourceProperty = "vtscope.process.resource";

// The system property the library sets (to "1") once it keeps otel_thread_ctx_v1 in a JVM it was
// loaded into while Java code already ran (Agent_OnAttach, or the Java side's own load): the Java
// writer, which may have looked for the library before, points a thread's thread-local at the
// record it claims from then on (io.vtscope.internal.RecordRegion, ThreadContextTls).
constexpr const char* kThreadContextProperty = "vtscope.otep.thread_context";
bool adopt_process_resource(const std::vector<ContextAttribute>& resource, size_t* dropped, std::string* error);
// The service.name the application's OpenTelemetry SDK will take from its configuration, as
// its autoconfiguration reads it (opentelemetry-java sdk-extensions/autoconfigure,
// ResourceConfiguration; a system property wins over the environment variable of the same key):
// otel.service.name, else OTEL_SERVICE_NAME, else service.name in otel.resource.attributes (or,
// only if that property is unset, OTEL_RESOURCE_ATTRIBUTES: comma-separated key=value pairs,
// values percent-decoded). Null arguments are unset; empty when none names a service.
std::string configured_service_name(const char* property_service_name, const char* env_service_name,
                                    const char* property_resource_attributes, const char* env_resource_attributes);
// Before the first publication and only if no resource came yet: the resource the process context
// starts with, so that a reader that reads it once, early, still learns the service (the eBPF
// profiler read it about a second after the JVM started, before the SDK had given its resource).
// The application's own resource replaces it as soon as it comes.
void seed_process_resource(const std::vector<ContextAttribute>& resource);
// Decodes the property's value: hex digits (either case) of the entries below; false if
// malformed.
bool decode_resource_property(std::string_view hex, std::vector<ContextAttribute>* out);

// Decodes the resource a Java caller passes through the C ABI: a sequence of entries
// u8 kind (0 string, 1 int64), u16 key length, key bytes, then for a string u32 length and
// bytes, for an int64 8 bytes, all little-endian. False on malformed input.
bool decode_resource_entries(const uint8_t* data, size_t size, std::vector<ContextAttribute>* out);

// Test hooks (not exported). The step hook, when set, runs after every store to the header, with
// the name of the field just written ("signature", "version", "payload_size", "payload",
// "monotonic_published_at_ns"), so a test can snapshot the mapping between stores.
using PublishStepHook = void (*)(const ProcessContextHeader* header, const char* field);
void set_publish_step_hook(PublishStepHook hook);
// The published header, or null before publication.
const ProcessContextHeader* published_process_context();

}  // namespace vtscope::native
