// SPDX-License-Identifier: Apache-2.0
// Replies on the attach socket (/tmp/.java_pidPID, served by the target): parse_attach_reply.
#include <cstdint>
#include <string_view>

#include "jvm/jvm_attach.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view reply(reinterpret_cast<const char*>(data), size);
    auto output = vtscope::parse_attach_reply(reply, "Compiler.perfmap");
    // An output is what followed the result line; it can only be shorter than the reply.
    if (output && output->size() >= size && size > 0) __builtin_trap();
    return 0;
}
