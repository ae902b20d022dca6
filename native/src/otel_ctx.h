// OTEP 4947 thread context for third-party readers, and the OTEP 4719 process context that
// announces its schema.
#pragma once

#include <cstdint>
#include <string>
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

// The protobuf Resource payload of the process context: the attributes
// threadlocal.schema_version = "tlsdesc_v1_dev" and threadlocal.attribute_key_map = [] (vtscope
// publishes no custom attributes).
std::vector<uint8_t> encode_process_context_payload();

// Publishes the process context (memfd "OTEL_CTX", header then payload; signature written last).
bool publish_process_context(std::string* error);

}  // namespace vtscope::native
