#include "otel_ctx.h"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

extern "C" {
__attribute__((visibility("default"))) __thread void* otel_thread_ctx_v1 = nullptr;
}

namespace vtscope::native {

namespace {

// Minimal protobuf writer: just the wire types the Resource message needs.
void put_varint(std::vector<uint8_t>& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<uint8_t>(v) | 0x80);
        v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
}

void put_bytes(std::vector<uint8_t>& out, uint32_t field, const std::vector<uint8_t>& bytes) {
    put_varint(out, (uint64_t{field} << 3) | 2);  // wire type 2: length-delimited
    put_varint(out, bytes.size());
    out.insert(out.end(), bytes.begin(), bytes.end());
}

std::vector<uint8_t> text(const char* s) { return std::vector<uint8_t>(s, s + std::strlen(s)); }

// opentelemetry.proto.common.v1.KeyValue { string key = 1; AnyValue value = 2; }
std::vector<uint8_t> key_value(const char* key, const std::vector<uint8_t>& any_value) {
    std::vector<uint8_t> kv;
    put_bytes(kv, 1, text(key));
    put_bytes(kv, 2, any_value);
    return kv;
}

// OTEP 4719 header.
struct ProcessContextHeader {
    char signature[8];          // "OTEL_CTX", written last
    uint32_t version;           // 2
    uint32_t payload_size;
    uint64_t published_at_ns;   // wall clock; non-zero once published
    const uint8_t* payload;
};
static_assert(sizeof(ProcessContextHeader) == 32, "OTEP 4719 header layout");

}  // namespace

std::vector<uint8_t> encode_process_context_payload() {
    // AnyValue { string string_value = 1; ArrayValue array_value = 5; }, ArrayValue { repeated AnyValue values = 1; }
    std::vector<uint8_t> schema_value;
    put_bytes(schema_value, 1, text("tlsdesc_v1_dev"));
    std::vector<uint8_t> empty_array_value;
    put_bytes(empty_array_value, 5, {});
    std::vector<uint8_t> resource;  // Resource { repeated KeyValue attributes = 1; }
    put_bytes(resource, 1, key_value("threadlocal.schema_version", schema_value));
    put_bytes(resource, 1, key_value("threadlocal.attribute_key_map", empty_array_value));
    return resource;
}

bool publish_process_context(std::string* error) {
    std::vector<uint8_t> payload = encode_process_context_payload();
    size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (sizeof(ProcessContextHeader) + payload.size() > size) {
        *error = "process context payload too large";
        return false;
    }
    int fd = memfd_create("OTEL_CTX", MFD_CLOEXEC);
    void* map = MAP_FAILED;
    if (fd >= 0) {
        if (ftruncate(fd, static_cast<off_t>(size)) == 0)
            map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    } else {
        map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    if (map == MAP_FAILED) {
        *error = std::string("mapping the process context failed: ") + std::strerror(errno);
        return false;
    }
    madvise(map, size, MADV_DONTFORK);  // children must not inherit this process's context
    auto* header = static_cast<ProcessContextHeader*>(map);
    auto* body = reinterpret_cast<uint8_t*>(header + 1);
    std::memcpy(body, payload.data(), payload.size());
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    header->version = 2;
    header->payload_size = static_cast<uint32_t>(payload.size());
    header->published_at_ns = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
    header->payload = body;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::memcpy(header->signature, "OTEL_CTX", 8);
    // Named mapping for kernels with CONFIG_ANON_VMA_NAME; failure is expected elsewhere.
    prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, reinterpret_cast<unsigned long>(map), size,
          reinterpret_cast<unsigned long>("OTEL_CTX"));
    return true;
}

}  // namespace vtscope::native
