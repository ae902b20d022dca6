// SPDX-License-Identifier: Apache-2.0
// The OTEP 4719 payload alone (a protobuf ProcessContext the target encodes): the input is the
// payload, decoded by decode_process_context_resource.
#include <cstdint>
#include <span>

#include "channels/process_context.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    (void)vtscope::decode_process_context_resource(std::span<const uint8_t>(data, size));
    return 0;
}
