// SPDX-License-Identifier: Apache-2.0
// The native side of the record region (common/vtscope_record.h): creating it when the library
// is loaded before any Java code (-agentpath), and claiming, finding and releasing the slots of
// virtual threads from the lifecycle callbacks. It follows the same slot protocol as the Java
// writer (io.vtscope.internal.RecordRegion), so both see one record per thread.
#pragma once

#include <cstdint>
#include <string>

namespace vtscope::native {

class RecordTable {
public:
    // Adopts a region mapped by the Java writer; false if the header does not validate.
    bool adopt(uint64_t base, uint64_t size, std::string* error);
    // Creates and maps a new region (memfd "vtscope-records") with capacity slots (power of two).
    bool create(uint32_t capacity, std::string* error);

    uint64_t base() const { return base_; }
    uint64_t size() const { return size_; }

    // Address of the record owned by tid, or 0. Lock-free; no allocation.
    uint64_t find(int64_t tid) const;
    // Claims a free or released slot of tid's chain (or returns the slot tid already owns) and
    // returns its record address; 0 when every slot of the chain is held. at_start marks a slot
    // newly claimed here as claimed at VirtualThreadStart (*newly_claimed says whether it was).
    uint64_t claim(int64_t tid, bool is_virtual, bool at_start = false, bool* newly_claimed = nullptr);
    // Releases tid's slot, if it has one, clearing its record first unless keep_record (the
    // paper-release ablation). Returns true if the released slot had been claimed at start.
    bool release(int64_t tid, bool keep_record = false);

private:
    uint64_t base_ = 0;
    uint64_t size_ = 0;
    uint64_t mask_ = 0;
};

// Validates a region header at base against the mapping size and this process's pid.
bool validate_region_header(uint64_t base, uint64_t size, int pid, std::string* error);

}  // namespace vtscope::native
