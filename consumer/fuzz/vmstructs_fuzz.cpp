// SPDX-License-Identifier: Apache-2.0
// HotSpot's VMStructs table and the thread list, read from a target's memory: the input is the
// VMStructsSymbols (the addresses libjvm.so's exports resolve to: 8 words) and then the target's
// address space (FuzzMemory's regions). VMStructs::read, resolve_layout, walk_java_threads and
// sample_own_id on the threads found, as `vtscope` does on attach and every round; then JDK 21's
// read of a thread's id from its thread object (read_thread_tid) under a collector rule and its
// addresses, masks and shifts taken from the input, as resolve_oop_identity would have found them.
#include <algorithm>
#include <cstdint>
#include <iterator>

#include "fuzz_input.h"
#include "jvm/java_threads.h"
#include "jvm/oop_identity.h"
#include "jvm/vmstructs.h"

namespace {

// The collector rule, addresses, masks and shifts of JDK 21's read, as resolve_oop_identity finds
// them, taken from the fuzzed address space at a fixed address (absent: all zero, the STW rule),
// so that the seeds' layout (symbols, then the address space) stays as it was.
constexpr uint64_t kOopIdentityAt = 0x0000700000000000;

struct OopIdentityBytes {
    uint8_t rule;
    uint8_t remapped_shift;
    uint16_t vthread, thread_obj;
    uint32_t tid_offset;
    uint64_t active_address, count_address, good_mask_address, seq_address, metadata_mask;
    uint8_t load_shift[VTSCOPE_ZGEN_SHIFT_TABLE];
};

vtscope::OopIdentity oop_identity_from(const vtscope::MemoryReader& memory) {
    OopIdentityBytes b{};
    b.rule = VTSCOPE_OOP_STW;
    (void)memory.read(kOopIdentityAt, &b, sizeof(b));
    vtscope::OopIdentity id;
    id.rule = static_cast<vtscope_oop_rule>(b.rule % 5);  // none, STW, ZGC, generational ZGC, Epsilon
    id.tid_offset = b.tid_offset;
    id.vthread = b.vthread;
    id.thread_obj = b.thread_obj;
    id.active_address = b.active_address;
    id.count_address = b.count_address;
    id.good_mask_address = b.good_mask_address;
    id.seq_address = b.seq_address;
    id.metadata_mask = b.metadata_mask;
    id.remapped_shift = b.remapped_shift;
    std::copy(std::begin(b.load_shift), std::end(b.load_shift), std::begin(id.load_shift));
    return id;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    vtscope::fuzz::FuzzInput input(data, size);
    vtscope::VMStructsSymbols symbols;
    for (uint64_t* field :
         {&symbols.entries_pointer, &symbols.type_name_offset, &symbols.field_name_offset, &symbols.type_string_offset,
          &symbols.is_static_offset, &symbols.offset_offset, &symbols.address_offset, &symbols.array_stride})
        *field = input.take<uint64_t>();
    vtscope::fuzz::FuzzMemory memory(input);

    vtscope::OopIdentity oop = oop_identity_from(memory);

    auto structs = vtscope::VMStructs::read(memory, symbols);
    if (!structs) return 0;
    auto layout = vtscope::resolve_layout(*structs, memory);
    if (!layout) return 0;
    auto threads = vtscope::walk_java_threads(memory, *layout);
    if (!threads) return 0;
    // The first few are enough: each sample reads the same fields of another thread.
    constexpr size_t kSampled = 8;
    for (size_t i = 0; i < threads->size() && i < kSampled; i++) {
        (void)vtscope::sample_own_id(memory, *layout, (*threads)[i].java_thread);
        int64_t tid = 0;
        (void)vtscope::read_thread_tid(memory, oop, (*threads)[i].java_thread, oop.vthread, tid);
    }
    return 0;
}
