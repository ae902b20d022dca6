// SPDX-License-Identifier: Apache-2.0
// The C ABI of the OTEP 4719 process context and of OTEP 4947 for platform threads
// (vtscope_native.h). The Java side passes the application's OpenTelemetry resource, and the
// library republishes the process context with it by OTEP 4719's updating protocol (once per SDK
// start: it allocates and locks); and a platform thread points its otel_thread_ctx_v1 at its
// record (once per thread: no allocation, no lock).
#include <string>
#include <vector>

#include "otel_ctx.h"
#include "vtscope_native.h"

extern "C" __attribute__((visibility("default"))) int32_t vtscope_process_context_set_resource(const uint8_t* entries,
                                                                                               uint64_t size) {
    using namespace vtscope::native;
    if (!entries && size) return VTSCOPE_ERR_REGION;
    std::vector<ContextAttribute> resource;
    if (!decode_resource_entries(entries, static_cast<size_t>(size), &resource)) return VTSCOPE_ERR_REGION;
    size_t dropped = 0;
    std::string error;
    if (!update_process_resource(resource, &dropped, &error)) return VTSCOPE_ERR_REGION;
    return static_cast<int32_t>(resource.size() - dropped);
}

extern "C" __attribute__((visibility("default"))) int32_t vtscope_thread_context_attach(uint64_t record) {
    return vtscope::native::attach_thread_context(record) ? VTSCOPE_OK : VTSCOPE_ERR_REGION;
}
