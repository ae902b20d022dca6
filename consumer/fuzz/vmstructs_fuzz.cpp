// SPDX-License-Identifier: Apache-2.0
// HotSpot's VMStructs table and the thread list, read from a target's memory: the input is the
// VMStructsSymbols (the addresses libjvm.so's exports resolve to: 8 words) and then the target's
// address space (FuzzMemory's regions). VMStructs::read, resolve_layout, walk_java_threads and
// sample_own_id on the threads found, as `vtscope` does on attach and every round.
#include <cstdint>

#include "fuzz_input.h"
#include "jvm/java_threads.h"
#include "jvm/vmstructs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    vtscope::fuzz::FuzzInput input(data, size);
    vtscope::VMStructsSymbols symbols;
    for (uint64_t* field :
         {&symbols.entries_pointer, &symbols.type_name_offset, &symbols.field_name_offset, &symbols.type_string_offset,
          &symbols.is_static_offset, &symbols.offset_offset, &symbols.address_offset, &symbols.array_stride})
        *field = input.take<uint64_t>();
    vtscope::fuzz::FuzzMemory memory(input);

    auto structs = vtscope::VMStructs::read(memory, symbols);
    if (!structs) return 0;
    auto layout = vtscope::resolve_layout(*structs, memory);
    if (!layout) return 0;
    auto threads = vtscope::walk_java_threads(memory, *layout);
    if (!threads) return 0;
    // The first few are enough: each sample reads the same fields of another thread.
    constexpr size_t kSampled = 8;
    for (size_t i = 0; i < threads->size() && i < kSampled; i++)
        (void)vtscope::sample_own_id(memory, *layout, (*threads)[i].java_thread);
    return 0;
}
