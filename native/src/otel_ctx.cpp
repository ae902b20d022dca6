// SPDX-License-Identifier: Apache-2.0
#include "otel_ctx.h"

#include "../../common/vtscope_record.h"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

extern "C" {
__attribute__((visibility("default"))) __thread void* otel_thread_ctx_v1 = nullptr;
}

namespace vtscope::native {

namespace {

// Minimal protobuf writer: just the wire types ProcessContext needs (varint and
// length-delimited; every field number here is below 16, so each tag is one byte).
void put_varint(std::vector<uint8_t>& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<uint8_t>(v) | 0x80);
        v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
}

void put_bytes(std::vector<uint8_t>& out, uint32_t field, const uint8_t* bytes, size_t size) {
    put_varint(out, (uint64_t{field} << 3) | 2);  // wire type 2: length-delimited
    put_varint(out, size);
    out.insert(out.end(), bytes, bytes + size);
}

void put_bytes(std::vector<uint8_t>& out, uint32_t field, const std::vector<uint8_t>& bytes) {
    put_bytes(out, field, bytes.data(), bytes.size());
}

void put_string(std::vector<uint8_t>& out, uint32_t field, const std::string& s) {
    put_bytes(out, field, reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// opentelemetry.proto.common.v1: AnyValue { string string_value = 1; int64 int_value = 3;
// ArrayValue array_value = 5; }, ArrayValue { repeated AnyValue values = 1; },
// KeyValue { string key = 1; AnyValue value = 2; }.
std::vector<uint8_t> any_string(const std::string& s) {
    std::vector<uint8_t> v;
    put_string(v, 1, s);
    return v;
}

std::vector<uint8_t> any_int(int64_t i) {
    std::vector<uint8_t> v;
    put_varint(v, 3 << 3);  // wire type 0: varint
    put_varint(v, static_cast<uint64_t>(i));
    return v;
}

std::vector<uint8_t> any_empty_array() {
    std::vector<uint8_t> v;
    put_bytes(v, 5, {});
    return v;
}

std::vector<uint8_t> key_value(const std::string& key, const std::vector<uint8_t>& any_value) {
    std::vector<uint8_t> kv;
    put_string(kv, 1, key);
    put_bytes(kv, 2, any_value);
    return kv;
}

// The publisher's state: one process context per process (OTEP 4719: a singleton).
struct Publisher {
    std::mutex mutex;
    ProcessContextHeader* header = nullptr;  // the OTEL_CTX page, null until published
    size_t page_size = 0;
    std::vector<ContextAttribute> resource;  // the last resource given
    bool resource_given = false;             // update_process_resource ran (adopt_process_resource yields)
    // Payload buffers: the current one and the one before it (a reader may still be copying it;
    // it re-checks the timestamp afterwards). An in-page payload (right after the header) has
    // no mapping of its own (size 0 here).
    void* current = nullptr;
    size_t current_size = 0;
    void* previous = nullptr;
    size_t previous_size = 0;
};

Publisher g_publisher;
std::atomic<PublishStepHook> g_step_hook{nullptr};

void step(const ProcessContextHeader* header, const char* field) {
    if (PublishStepHook hook = g_step_hook.load(std::memory_order_acquire)) hook(header, field);
}

// Aligned stores the compiler may neither drop nor merge; the fences order them.
template <typename T>
void store(T* field, T value) {
    __atomic_store_n(field, value, __ATOMIC_RELAXED);
}

uint64_t boottime_ns() {
    timespec now{};
    clock_gettime(CLOCK_BOOTTIME, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

// A timestamp that is non-zero and later than `before` (OTEP 4719: every update a different,
// later value).
uint64_t next_timestamp(uint64_t before) {
    uint64_t now = boottime_ns();
    return now > before ? now : before + 1;
}

bool name_mapping(void* map, size_t size) {
    return prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, reinterpret_cast<unsigned long>(map), size,
                 reinterpret_cast<unsigned long>("OTEL_CTX")) == 0;
}

// A payload buffer outside the header page: private, anonymous, not inherited by children.
void* map_payload(size_t size, size_t* mapped, std::string* error) {
    size_t page = g_publisher.page_size;
    *mapped = (size + page - 1) / page * page;
    void* p = mmap(nullptr, *mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        *error = std::string("mapping a process context payload failed: ") + std::strerror(errno);
        return nullptr;
    }
    madvise(p, *mapped, MADV_DONTFORK);
    return p;
}

bool publish_locked(std::string* error) {
    Publisher& pub = g_publisher;
    std::vector<uint8_t> payload = encode_process_context_payload(pub.resource);
    pub.page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t size = pub.page_size;

    // Steps 2-4: memfd (without MFD_NOEXEC_SEAL on kernels that lack it), mapped MAP_PRIVATE and
    // closed; an anonymous mapping if memfd is refused.
    int fd = memfd_create("OTEL_CTX", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
    if (fd < 0 && errno == EINVAL) fd = memfd_create("OTEL_CTX", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    bool memfd = fd >= 0;
    void* map = MAP_FAILED;
    if (memfd) {
        if (ftruncate(fd, static_cast<off_t>(size)) == 0)
            map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        close(fd);
    }
    if (map == MAP_FAILED) {
        memfd = false;
        map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    if (map == MAP_FAILED) {
        *error = std::string("mapping the process context failed: ") + std::strerror(errno);
        return false;
    }
    // Step 5: children must not inherit this process's context.
    if (madvise(map, size, MADV_DONTFORK) != 0) {
        *error = std::string("madvise(MADV_DONTFORK) on the process context failed: ") + std::strerror(errno);
        munmap(map, size);
        return false;
    }
    // Step 6: the payload right after the header when it fits, else in a buffer of its own.
    auto* header = static_cast<ProcessContextHeader*>(map);
    uint8_t* body = reinterpret_cast<uint8_t*>(header + 1);
    if (payload.size() > size - sizeof(ProcessContextHeader)) {
        size_t mapped = 0;
        void* own = map_payload(payload.size(), &mapped, error);
        if (!own) {
            munmap(map, size);
            return false;
        }
        body = static_cast<uint8_t*>(own);
        pub.current = own;
        pub.current_size = mapped;
    }
    std::memcpy(body, payload.data(), payload.size());
    // Step 7: every header field but the timestamp (still 0: the page is fresh).
    std::memcpy(header->signature, "OTEL_CTX", 8);
    step(header, "signature");
    store(&header->version, kProcessContextVersion);
    step(header, "version");
    store(&header->payload_size, static_cast<uint32_t>(payload.size()));
    step(header, "payload_size");
    store(&header->payload, reinterpret_cast<uint64_t>(body));
    step(header, "payload");
    // Steps 8-9: a full fence, then the timestamp, last: it marks the context complete.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    __atomic_store_n(&header->monotonic_published_at_ns, next_timestamp(0), __ATOMIC_RELEASE);
    step(header, "monotonic_published_at_ns");
    // Step 10: the name, unconditionally. Without memfd an unnamed mapping is unfindable, so the
    // context is not available (OTEP 4719).
    if (!name_mapping(map, size) && !memfd) {
        *error = "neither memfd_create nor naming the OTEL_CTX mapping is available";
        munmap(map, size);
        if (pub.current) munmap(pub.current, pub.current_size);
        pub.current = nullptr;
        return false;
    }
    pub.header = header;
    return true;
}

}  // namespace

namespace {
std::atomic<uint64_t> g_region_base{0};
std::atomic<uint64_t> g_region_size{0};
}  // namespace

void set_thread_context_region(uint64_t base, uint64_t size) {
    g_region_size.store(size, std::memory_order_relaxed);
    g_region_base.store(base, std::memory_order_release);
}

bool attach_thread_context(uint64_t record) {
    uint64_t base = g_region_base.load(std::memory_order_acquire);
    uint64_t size = g_region_size.load(std::memory_order_relaxed);
    if (base == 0 || record < base + VTSCOPE_REGION_HEADER_SIZE || record - base > size - VTSCOPE_RECORD_SIZE ||
        (record - base - VTSCOPE_REGION_HEADER_SIZE) % VTSCOPE_SLOT_SIZE != VTSCOPE_RECORD_OFFSET)
        return false;
    // OTEP 4947: a compiler fence so the record's contents are not reordered after the pointer
    // (the thread itself is the only writer; readers interrupt it, signal-handler style).
    std::atomic_signal_fence(std::memory_order_seq_cst);
    set_thread_context(record);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return true;
}

std::vector<uint8_t> encode_process_context_payload(const std::vector<ContextAttribute>& resource, size_t* dropped) {
    size_t left_out = 0;
    // ProcessContext.attributes (field 2): the OTEP 4947 thread-local reference data.
    std::vector<uint8_t> extra;
    put_bytes(extra, 2, key_value("threadlocal.schema_version", any_string(kThreadLocalSchemaVersion)));
    put_bytes(extra, 2, key_value("threadlocal.attribute_key_map", any_empty_array()));
    // Resource { repeated KeyValue attributes = 1; }: nothing else (the reference reader accepts
    // only attributes inside a Resource).
    std::vector<uint8_t> attributes;
    for (const ContextAttribute& a : resource) {
        bool is_string = a.kind == ContextAttribute::Kind::String;
        if (a.key.empty() || a.key.size() > kMaxAttributeString ||
            (is_string && a.string_value.size() > kMaxAttributeString)) {
            left_out++;
            continue;
        }
        std::vector<uint8_t> kv = key_value(a.key, is_string ? any_string(a.string_value) : any_int(a.int_value));
        // Field 1 of ProcessContext (tag, length up to 3 bytes) around the attributes.
        if (attributes.size() + kv.size() + 4 + 4 + extra.size() > kMaxPayload) {
            left_out++;
            continue;
        }
        put_bytes(attributes, 1, kv);
    }
    std::vector<uint8_t> out;
    if (!attributes.empty()) put_bytes(out, 1, attributes);  // ProcessContext.resource
    out.insert(out.end(), extra.begin(), extra.end());
    if (dropped) *dropped = left_out;
    return out;
}

bool publish_process_context(std::string* error) {
    std::lock_guard<std::mutex> lock(g_publisher.mutex);
    if (g_publisher.header) return true;
    return publish_locked(error);
}

namespace {

// update_process_resource and adopt_process_resource, with the publisher's mutex held.
bool replace_resource_locked(const std::vector<ContextAttribute>& resource, size_t* dropped, std::string* error) {
    Publisher& pub = g_publisher;
    pub.resource = resource;
    std::vector<uint8_t> payload = encode_process_context_payload(pub.resource, dropped);
    ProcessContextHeader* header = pub.header;
    if (!header) return true;  // the first publication will carry it
    // Step 1: the new payload, in a buffer no reader is looking at.
    size_t mapped = 0;
    void* fresh = map_payload(payload.size(), &mapped, error);
    if (!fresh) return false;
    std::memcpy(fresh, payload.data(), payload.size());
    // Steps 2-3: timestamp 0 (update in progress), full fence.
    uint64_t before = __atomic_load_n(&header->monotonic_published_at_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&header->monotonic_published_at_ns, uint64_t{0}, __ATOMIC_RELAXED);
    step(header, "monotonic_published_at_ns");
    std::atomic_thread_fence(std::memory_order_seq_cst);
    // Step 4: payload pointer and size.
    store(&header->payload, reinterpret_cast<uint64_t>(fresh));
    step(header, "payload");
    store(&header->payload_size, static_cast<uint32_t>(payload.size()));
    step(header, "payload_size");
    // Steps 5-6: full fence, a new timestamp later than the one before.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    __atomic_store_n(&header->monotonic_published_at_ns, next_timestamp(before), __ATOMIC_RELEASE);
    step(header, "monotonic_published_at_ns");
    // Step 7: rename, unconditionally.
    name_mapping(header, pub.page_size);
    // The buffer before the one just replaced is now two generations old.
    if (pub.previous) munmap(pub.previous, pub.previous_size);
    pub.previous = pub.current;
    pub.previous_size = pub.current_size;
    pub.current = fresh;
    pub.current_size = mapped;
    return true;
}

}  // namespace

bool update_process_resource(const std::vector<ContextAttribute>& resource, size_t* dropped, std::string* error) {
    std::lock_guard<std::mutex> lock(g_publisher.mutex);
    g_publisher.resource_given = true;
    return replace_resource_locked(resource, dropped, error);
}

bool adopt_process_resource(const std::vector<ContextAttribute>& resource, size_t* dropped, std::string* error) {
    std::lock_guard<std::mutex> lock(g_publisher.mutex);
    if (g_publisher.resource_given) {
        if (dropped) *dropped = 0;
        return true;
    }
    return replace_resource_locked(resource, dropped, error);
}

void seed_process_resource(const std::vector<ContextAttribute>& resource) {
    std::lock_guard<std::mutex> lock(g_publisher.mutex);
    if (!g_publisher.resource_given && g_publisher.resource.empty() && !g_publisher.header)
        g_publisher.resource = resource;
}

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// %XX escapes decoded (W3C Baggage octets, as the SDK's resource attribute parser does); a
// malformed escape stays as it is.
std::string percent_decoded(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); i++) {
        int high = i + 2 < text.size() && text[i] == '%' ? hex_digit(text[i + 1]) : -1;
        int low = high >= 0 ? hex_digit(text[i + 2]) : -1;
        if (low >= 0) {
            out.push_back(static_cast<char>(high << 4 | low));
            i += 2;
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

}  // namespace

std::string configured_service_name(const char* property_service_name, const char* env_service_name,
                                    const char* property_resource_attributes, const char* env_resource_attributes) {
    for (const char* name : {property_service_name, env_service_name})
        if (name && !trimmed(name).empty()) return std::string(trimmed(name));
    const char* attributes = property_resource_attributes ? property_resource_attributes : env_resource_attributes;
    std::string_view rest = attributes ? attributes : "";
    std::string found;
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string_view pair = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        size_t eq = pair.find('=');
        if (eq == std::string_view::npos) continue;
        if (trimmed(pair.substr(0, eq)) == "service.name") found = percent_decoded(trimmed(pair.substr(eq + 1)));
    }
    return found;
}

bool decode_resource_property(std::string_view hex, std::vector<ContextAttribute>* out) {
    if (hex.size() % 2 != 0) return false;
    std::vector<uint8_t> entries(hex.size() / 2);
    for (size_t i = 0; i < entries.size(); i++) {
        int high = hex_digit(hex[2 * i]), low = hex_digit(hex[2 * i + 1]);
        if (high < 0 || low < 0) return false;
        entries[i] = static_cast<uint8_t>(high << 4 | low);
    }
    return decode_resource_entries(entries.data(), entries.size(), out);
}

bool decode_resource_entries(const uint8_t* data, size_t size, std::vector<ContextAttribute>* out) {
    out->clear();
    size_t pos = 0;
    auto take = [&](size_t n) -> const uint8_t* {
        if (size - pos < n) return nullptr;
        const uint8_t* p = data + pos;
        pos += n;
        return p;
    };
    auto le = [](const uint8_t* p, int bytes) {
        uint64_t v = 0;
        for (int i = bytes - 1; i >= 0; i--) v = (v << 8) | p[i];
        return v;
    };
    while (pos < size) {
        const uint8_t* kind = take(1);
        const uint8_t* key_len = take(2);
        if (!kind || !key_len || *kind > 1) return false;
        size_t klen = le(key_len, 2);
        const uint8_t* key = take(klen);
        if (!key) return false;
        ContextAttribute a;
        a.key.assign(reinterpret_cast<const char*>(key), klen);
        if (*kind == 0) {
            const uint8_t* len = take(4);
            if (!len) return false;
            size_t vlen = le(len, 4);
            const uint8_t* value = take(vlen);
            if (!value) return false;
            a.kind = ContextAttribute::Kind::String;
            a.string_value.assign(reinterpret_cast<const char*>(value), vlen);
        } else {
            const uint8_t* value = take(8);
            if (!value) return false;
            a.kind = ContextAttribute::Kind::Int;
            a.int_value = static_cast<int64_t>(le(value, 8));
        }
        out->push_back(std::move(a));
    }
    return true;
}

void set_publish_step_hook(PublishStepHook hook) { g_step_hook.store(hook, std::memory_order_release); }

const ProcessContextHeader* published_process_context() {
    std::lock_guard<std::mutex> lock(g_publisher.mutex);
    return g_publisher.header;
}

}  // namespace vtscope::native
