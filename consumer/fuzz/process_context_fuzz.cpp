// SPDX-License-Identifier: Apache-2.0
// The target's OTEP 4719 process context: read_process_context from its memory (the header at
// the OTEL_CTX mapping, then the payload it points to). Input: the header's address, then the
// target's address space (FuzzMemory's regions).
#include <cstdint>

#include "fuzz_input.h"
#include "channels/process_context.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    vtscope::fuzz::FuzzInput input(data, size);
    auto header_address = input.take<uint64_t>();
    vtscope::fuzz::FuzzMemory memory(input);
    (void)vtscope::read_process_context(memory, header_address);
    return 0;
}
