// SPDX-License-Identifier: Apache-2.0
#include "channels/process_context.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>

#include "output/safe_text.h"

namespace vtscope {
namespace {

// The protobuf wire format (protobuf.dev/programming-guides/encoding): a tag is a varint
// (field number << 3 | wire type); VARINT 0, I64 1, LEN 2, SGROUP 3, EGROUP 4, I32 5.
enum WireType : uint32_t { kVarint = 0, kI64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kI32 = 5 };

template <typename T>
Status discard(const Expected<T>& value) {
    return value ? ok_status() : Status(value.error());
}

class Reader {
public:
    explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
    bool done() const { return at_ >= bytes_.size(); }

    Expected<uint64_t> varint() {
        uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at_ >= bytes_.size()) return make_error("truncated varint");
            uint8_t b = bytes_[at_++];
            value |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80)) return value;
        }
        return make_error("varint longer than 10 bytes");
    }

    Expected<std::span<const uint8_t>> fixed(size_t n) {
        if (bytes_.size() - at_ < n) return make_error("truncated fixed-size field");
        auto out = bytes_.subspan(at_, n);
        at_ += n;
        return out;
    }

    Expected<std::span<const uint8_t>> length_delimited() {
        auto n = varint();
        if (!n) return n.error();
        if (*n > bytes_.size() - at_) return make_error("length " + std::to_string(*n) + " past the end");
        return fixed(static_cast<size_t>(*n));
    }

    struct Tag {
        uint32_t field;
        uint32_t wire;
    };
    Expected<Tag> tag() {
        auto t = varint();
        if (!t) return t.error();
        if (*t >> 3 == 0 || *t >> 3 > 0x1fffffff) return make_error("invalid field number");
        return Tag{static_cast<uint32_t>(*t >> 3), static_cast<uint32_t>(*t & 7)};
    }

    // Skips the value of a field of this wire type; groups (deprecated, never in these messages)
    // and the unassigned wire types 6 and 7 are errors.
    Status skip(uint32_t wire) {
        switch (wire) {
            case kVarint: return discard(varint());
            case kI64: return discard(fixed(8));
            case kLen: return discard(length_delimited());
            case kI32: return discard(fixed(4));
            case kStartGroup:
            case kEndGroup: return make_error("group fields are not supported");
            default: return make_error("unknown wire type " + std::to_string(wire));
        }
    }

private:
    std::span<const uint8_t> bytes_;
    size_t at_ = 0;
};

// A string of the payload, cut to max bytes and made well-formed UTF-8: it goes into OTLP
// exports, whose protobuf string fields a receiver (the Collector's Go decoder) refuses whole
// when they are not UTF-8.
std::string as_string(std::span<const uint8_t> bytes, size_t max = kMaxProcessContextValueBytes) {
    std::string_view view(reinterpret_cast<const char*>(bytes.data()), std::min(bytes.size(), max));
    return valid_utf8(view);
}

// AnyValue; nullopt for the kinds a resource attribute of vtscope's exports does not take.
Expected<std::optional<OtlpAttribute>> decode_any_value(std::span<const uint8_t> bytes, const std::string& key) {
    Reader r(bytes);
    std::optional<OtlpAttribute> value;  // the last of the oneof wins, as in protobuf
    while (!r.done()) {
        auto tag = r.tag();
        if (!tag) return tag.error();
        if (tag->field == 1 && tag->wire == kLen) {
            auto s = r.length_delimited();
            if (!s) return s.error();
            value = OtlpAttribute::string(key, as_string(*s));
        } else if (tag->field == 2 && tag->wire == kVarint) {
            auto v = r.varint();
            if (!v) return v.error();
            value = OtlpAttribute::boolean(key, *v != 0);
        } else if (tag->field == 3 && tag->wire == kVarint) {
            auto v = r.varint();
            if (!v) return v.error();
            value = OtlpAttribute::integer(key, static_cast<int64_t>(*v));  // int64: two's complement
        } else if (tag->field == 4 && tag->wire == kI64) {
            auto v = r.fixed(8);
            if (!v) return v.error();
            double d = 0;
            std::memcpy(&d, v->data(), sizeof(d));  // little-endian on x86_64, as the wire
            char buf[32];
            std::snprintf(buf, sizeof(buf), "%.17g", d);
            value = OtlpAttribute::string(key, buf);
        } else {
            if (auto s = r.skip(tag->wire); !s) return s.error();
            if (tag->field >= 5 && tag->field <= 8) value.reset();  // array, kvlist, bytes, strindex
        }
    }
    return value;
}

Expected<std::optional<OtlpAttribute>> decode_key_value(std::span<const uint8_t> bytes) {
    Reader r(bytes);
    std::string key;
    std::span<const uint8_t> any;
    bool have_value = false;
    while (!r.done()) {
        auto tag = r.tag();
        if (!tag) return tag.error();
        if ((tag->field == 1 || tag->field == 2) && tag->wire == kLen) {
            auto s = r.length_delimited();
            if (!s) return s.error();
            if (tag->field == 1) {
                key = as_string(*s, kMaxProcessContextKeyBytes + 1);
            } else {
                any = *s;
                have_value = true;
            }
        } else if (auto s = r.skip(tag->wire); !s) {
            return s.error();
        }
    }
    // A key longer than any resource attribute's (service.instance.id is 19 bytes) is not kept.
    if (key.empty() || key.size() > kMaxProcessContextKeyBytes || !have_value) return std::optional<OtlpAttribute>();
    return decode_any_value(any, key);
}

// Calls each(bytes) for every LEN field `field` of message bytes, skipping the others.
template <typename Each>
Status for_each_field(std::span<const uint8_t> bytes, uint32_t field, Each each) {
    Reader r(bytes);
    while (!r.done()) {
        auto tag = r.tag();
        if (!tag) return tag.error();
        if (tag->field == field && tag->wire == kLen) {
            auto s = r.length_delimited();
            if (!s) return s.error();
            if (auto status = each(*s); !status) return status;
        } else if (auto s = r.skip(tag->wire); !s) {
            return s;
        }
    }
    return ok_status();
}

}  // namespace

Expected<std::vector<OtlpAttribute>> decode_process_context_resource(std::span<const uint8_t> payload) {
    std::vector<OtlpAttribute> attributes;
    // Each key's place in attributes: a repeated key is found in constant time, so a payload of
    // distinct keys costs linear work (a scan per key cost 9.6 s of CPU on 1 MiB of them).
    std::unordered_map<std::string, size_t> index;
    // ProcessContext.resource (1) -> Resource.attributes (1, repeated KeyValue). A repeated
    // message field may also come in several pieces: they concatenate.
    Status status = for_each_field(payload, 1, [&](std::span<const uint8_t> resource) {
        return for_each_field(resource, 1, [&](std::span<const uint8_t> kv) -> Status {
            auto attribute = decode_key_value(kv);
            if (!attribute) return attribute.error();
            if (!*attribute) return ok_status();
            if (auto it = index.find((*attribute)->key); it != index.end()) {
                attributes[it->second] = std::move(**attribute);  // a repeated key: the last one, as SDKs merge
                return ok_status();
            }
            if (attributes.size() == kMaxProcessContextAttributes) return ok_status();  // the first ones are kept
            index.emplace((*attribute)->key, attributes.size());
            attributes.push_back(std::move(**attribute));
            return ok_status();
        });
    });
    if (!status) return make_error("malformed process context payload: " + status.error().message);
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
