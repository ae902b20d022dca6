// SPDX-License-Identifier: Apache-2.0
// The record region's header (common/vtscope_record.h), written by the target's libvtscope in a
// memfd it maps: validate_region against the mapping, then read_writer_stats and the writer
// names. Input: the writer pid, the mapping's start and end, then the target's address space
// (FuzzMemory's regions).
#include <cstdint>

#include "fuzz_input.h"
#include "channels/record_region.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    vtscope::fuzz::FuzzInput input(data, size);
    auto pid = input.take<uint32_t>();
    vtscope::Mapping mapping;
    mapping.start = input.take<uint64_t>();
    mapping.end = input.take<uint64_t>();
    mapping.perms = "rw-s";
    mapping.path = "/memfd:vtscope-records (deleted)";
    vtscope::fuzz::FuzzMemory memory(input);

    auto region = vtscope::validate_region(memory, mapping, static_cast<pid_t>(pid));
    if (!region) return 0;
    if (region->base != mapping.start || region->capacity == 0) __builtin_trap();
    if (auto stats = vtscope::read_writer_stats(memory, *region))
        (void)vtscope::describe_context_writers(stats->context_writers);
    return 0;
}
