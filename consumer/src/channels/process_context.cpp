// SPDX-License-Identifier: Apache-2.0
#include "channels/process_context.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/stubs/logging.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>

#include "opentelemetry/proto/processcontext/v1development/process_context.pb.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

namespace common_pb = opentelemetry::proto::common::v1;

// A string of the payload, cut to max bytes and made well-formed UTF-8: it goes into OTLP
// exports, whose protobuf string fields a receiver (the Collector's Go decoder) refuses whole
// when they are not UTF-8. (The generated parser already refuses a payload whose strings are
// not UTF-8, but a cut may split a character.)
std::string as_string(const std::string& bytes, size_t max = kMaxProcessContextValueBytes) {
    return valid_utf8(std::string_view(bytes).substr(0, max));
}

// An AnyValue as a resource attribute of vtscope's exports; nullopt for the kinds one does not
// take (arrays, maps, bytes, string table references) and for an unset value.
std::optional<OtlpAttribute> attribute_of(const std::string& key, const common_pb::AnyValue& value) {
    switch (value.value_case()) {
        case common_pb::AnyValue::kStringValue: return OtlpAttribute::string(key, as_string(value.string_value()));
        case common_pb::AnyValue::kBoolValue: return OtlpAttribute::boolean(key, value.bool_value());
        case common_pb::AnyValue::kIntValue: return OtlpAttribute::integer(key, value.int_value());
        case common_pb::AnyValue::kDoubleValue: {
            char buf[32];
            std::snprintf(buf, sizeof(buf), "%.17g", value.double_value());
            return OtlpAttribute::string(key, buf);
        }
        default: return std::nullopt;
    }
}

}  // namespace

Expected<std::vector<OtlpAttribute>> decode_process_context_resource(std::span<const uint8_t> payload) {
    // The generated message of opentelemetry-proto's processcontext/v1development (the payload's
    // own schema), parsed by libprotobuf: a malformed payload (truncated, a length past the end,
    // an invalid wire type, strings that are not UTF-8, nesting past protobuf's recursion limit
    // of 100) fails the parse. On an arena: a hostile 1 MiB of tiny messages costs one release.
    // The silencer keeps libprotobuf's own log lines (its UTF-8 complaint) off vtscope's stderr:
    // the error below says it once.
    google::protobuf::Arena arena;
    auto* context =
        google::protobuf::Arena::CreateMessage<opentelemetry::proto::processcontext::v1development::ProcessContext>(
            &arena);
    bool parsed = false;
    {
        google::protobuf::LogSilencer silence;
        parsed = payload.size() <= static_cast<size_t>(INT32_MAX) &&
                 context->ParseFromArray(payload.data(), static_cast<int>(payload.size()));
    }
    if (!parsed)
        return make_error(
            "malformed process context payload: not a protobuf ProcessContext (opentelemetry-proto "
            "processcontext/v1development)");
    std::vector<OtlpAttribute> attributes;
    // Each key's place in attributes: a repeated key is found in constant time, so a payload of
    // distinct keys costs linear work (a scan per key cost 9.6 s of CPU on 1 MiB of them).
    std::unordered_map<std::string, size_t> index;
    for (const common_pb::KeyValue& kv : context->resource().attributes()) {
        // A key longer than any resource attribute's (service.instance.id is 19 bytes) is not kept.
        if (kv.key().empty() || kv.key().size() > kMaxProcessContextKeyBytes || !kv.has_value()) continue;
        std::optional<OtlpAttribute> attribute =
            attribute_of(as_string(kv.key(), kMaxProcessContextKeyBytes), kv.value());
        if (!attribute) continue;
        if (auto it = index.find(attribute->key); it != index.end()) {
            attributes[it->second] = std::move(*attribute);  // a repeated key: the last one, as SDKs merge
            continue;
        }
        if (attributes.size() == kMaxProcessContextAttributes) continue;  // the first ones are kept
        index.emplace(attribute->key, attributes.size());
        attributes.push_back(std::move(*attribute));
    }
    return attributes;
}

std::optional<uint64_t> find_process_context(const std::vector<Mapping>& maps) {
    for (const Mapping& m : maps) {
        std::string_view path = m.path;
        if (path == "[anon:OTEL_CTX]" || path == "[anon_shmem:OTEL_CTX]" || path.starts_with("/memfd:OTEL_CTX"))
            return m.start;
    }
    return std::nullopt;
}

Expected<std::vector<OtlpAttribute>> read_process_context(const MemoryReader& memory, uint64_t header_address) {
    struct Header {
        char signature[8];
        uint32_t version;
        uint32_t payload_size;
        uint64_t monotonic_published_at_ns;
        uint64_t payload;
    };
    static_assert(sizeof(Header) == 32, "OTEP 4719 header");
    constexpr uint32_t kMaxPayload = 1 << 20;
    std::string last_error;
    for (int attempt = 0; attempt < 3; attempt++) {
        Header h{};
        if (!memory.read_value(header_address, h)) return make_error("cannot read the OTEL_CTX header");
        if (std::memcmp(h.signature, "OTEL_CTX", 8) != 0) return make_error("OTEL_CTX mapping without its signature");
        if (h.version != 2) return make_error("OTEL_CTX version " + std::to_string(h.version) + " (expected 2)");
        if (h.monotonic_published_at_ns == 0) {  // being written or updated right now
            last_error = "the process context was being updated";
            continue;
        }
        if (h.payload_size > kMaxPayload)
            return make_error("OTEL_CTX payload of " + std::to_string(h.payload_size) + " bytes (at most 1 MiB)");
        std::vector<uint8_t> payload(h.payload_size);
        if (h.payload_size > 0 && !memory.read(h.payload, payload.data(), payload.size()))
            return make_error("cannot read the OTEL_CTX payload");
        uint64_t after = 0;
        if (!memory.read_value(header_address + offsetof(Header, monotonic_published_at_ns), after))
            return make_error("cannot read the OTEL_CTX header");
        if (after != h.monotonic_published_at_ns) {  // updated while we read: the payload may be torn
            last_error = "the process context changed while it was read";
            continue;
        }
        return decode_process_context_resource(payload);
    }
    return make_error(last_error + " (three attempts)");
}

Expected<std::optional<std::vector<OtlpAttribute>>> target_process_context(pid_t pid) {
    auto maps = read_maps(pid);
    if (!maps) return maps.error();
    auto address = find_process_context(*maps);
    if (!address) return std::optional<std::vector<OtlpAttribute>>();
    ProcessMemory memory(pid);
    auto resource = read_process_context(memory, *address);
    if (!resource) return resource.error();
    return std::optional<std::vector<OtlpAttribute>>(std::move(*resource));
}

}  // namespace vtscope
