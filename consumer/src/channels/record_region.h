// SPDX-License-Identifier: Apache-2.0
// Finding and validating the writer's record region (common/vtscope_record.h) in the target.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "process/proc_maps.h"
#include "process/process_memory.h"

namespace vtscope {

struct RecordRegion {
    uint64_t base = 0;
    uint32_t capacity = 0;
};

struct WriterStats {
    uint64_t claimed = 0;
    uint64_t released = 0;
    uint64_t unavailable = 0;
    uint32_t context_writers = 0;  // VTSCOPE_WRITER_* bits declared so far
};

// Mappings named /memfd:vtscope-records (one per JVM when vtscope-java is loaded once), or of a
// file named vtscope-records-<pid>-<random> (the JDK 21 writer), each file once.
std::vector<const Mapping*> find_region_mappings(const std::vector<Mapping>& maps);

// Checks the header against the mapping: magic, version, sizes, power-of-two capacity, the
// slots fitting inside the mapping, and the writer pid: `pid` as the target sees itself (its pid in
// its own pid namespace, Target::ns_pid), which is what the writer's getpid() stored. An error
// names the first mismatch.
Expected<RecordRegion> validate_region(const MemoryReader& memory, const Mapping& mapping, pid_t pid);

std::optional<WriterStats> read_writer_stats(const MemoryReader& memory, const RecordRegion& region);

// The names of the VTSCOPE_WRITER_* bits in `writers`, comma-separated ("otel-storage,api"); "none".
std::string describe_context_writers(uint32_t writers);

}  // namespace vtscope
