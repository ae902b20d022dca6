// SPDX-License-Identifier: Apache-2.0
#include "record_table.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "../../common/vtscope_record.h"

namespace vtscope::native {

namespace {
// Slot words shared with other threads (and the Java writer) are accessed atomically through
// std::atomic_ref; the record bytes are written only by the owner (or the releaser after the
// owner ended) and published with release fences, as the OTEP 4947 protocol prescribes.
std::atomic_ref<int64_t> owner_word(uint64_t slot) {
    return std::atomic_ref<int64_t>(*reinterpret_cast<int64_t*>(slot));
}

vtscope_slot* slot_ptr(uint64_t slot) { return reinterpret_cast<vtscope_slot*>(slot); }

void clear_record(vtscope_record* r) {
    std::atomic_ref<uint8_t>(r->valid).store(0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    std::memset(r->trace_id, 0, sizeof(r->trace_id));
    std::memset(r->span_id, 0, sizeof(r->span_id));
    r->trace_flags = 0;
}

void add_counter(uint64_t base, size_t offset) {
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(base + offset)).fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

bool validate_region_header(uint64_t base, uint64_t size, int pid, std::string* error) {
    const auto* h = reinterpret_cast<const vtscope_region_header*>(base);
    vtscope_region_check check =
        base == 0 ? VTSCOPE_REGION_TOO_SMALL : vtscope_check_region_header(h, size, static_cast<uint32_t>(pid));
    if (check == VTSCOPE_REGION_VALID) return true;
    char message[160];
    *error = vtscope_describe_region_check(check, h, message, sizeof(message));
    return false;
}

bool RecordTable::adopt(uint64_t base, uint64_t size, std::string* error) {
    if (!validate_region_header(base, size, getpid(), error)) return false;
    base_ = base;
    size_ = size;
    mask_ = reinterpret_cast<const vtscope_region_header*>(base)->capacity - 1;
    return true;
}

bool RecordTable::create(uint32_t capacity, std::string* error) {
    if (capacity < VTSCOPE_MIN_CAPACITY || (capacity & (capacity - 1)) != 0) {
        *error = "record region capacity must be a power of two of at least " + std::to_string(VTSCOPE_MIN_CAPACITY);
        return false;
    }
    uint64_t size = VTSCOPE_REGION_HEADER_SIZE + uint64_t{capacity} * VTSCOPE_SLOT_SIZE;
    int fd = memfd_create(VTSCOPE_REGION_NAME, MFD_CLOEXEC);
    if (fd < 0) {
        *error = std::string("memfd_create failed: ") + std::strerror(errno);
        return false;
    }
    void* map = MAP_FAILED;
    if (ftruncate(fd, static_cast<off_t>(size)) == 0)
        map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    int saved = errno;
    close(fd);  // the mapping keeps the memfd alive
    if (map == MAP_FAILED) {
        *error = std::string("mapping the record region failed: ") + std::strerror(saved);
        return false;
    }
    auto* h = static_cast<vtscope_region_header*>(map);
    h->version = VTSCOPE_REGION_VERSION;
    h->header_size = VTSCOPE_REGION_HEADER_SIZE;
    h->slot_size = VTSCOPE_SLOT_SIZE;
    h->capacity = capacity;
    h->max_probe = VTSCOPE_MAX_PROBE;
    h->writer_pid = static_cast<uint32_t>(getpid());
    h->record_offset = VTSCOPE_RECORD_OFFSET;
    // Readers check the magic first: written last, after a release fence.
    std::atomic_ref<__u64>(h->magic).store(VTSCOPE_REGION_MAGIC, std::memory_order_release);
    base_ = reinterpret_cast<uint64_t>(map);
    size_ = size;
    mask_ = capacity - 1;
    return true;
}

uint64_t RecordTable::find(int64_t tid) const {
    if (!base_ || tid <= 0) return 0;
    for (uint32_t i = 0; i < VTSCOPE_MAX_PROBE; i++) {
        uint64_t slot = vtscope_slot_address(base_, mask_, tid, i);
        int64_t owner = owner_word(slot).load(std::memory_order_acquire);
        if (owner == tid) return slot + VTSCOPE_RECORD_OFFSET;
        if (owner == VTSCOPE_OWNER_FREE) return 0;
    }
    return 0;
}

uint64_t RecordTable::claim(int64_t tid, bool is_virtual, bool at_start, bool* newly_claimed) {
    if (newly_claimed) *newly_claimed = false;
    if (!base_ || tid <= 0) return 0;
    if (uint64_t existing = find(tid)) return existing;
    for (uint32_t i = 0; i < VTSCOPE_MAX_PROBE; i++) {
        uint64_t slot = vtscope_slot_address(base_, mask_, tid, i);
        int64_t owner = owner_word(slot).load(std::memory_order_acquire);
        // Only free or released slots: whether the Java owner of another slot has ended is
        // known only to the Java writer, which takes such slots over itself.
        if (owner != VTSCOPE_OWNER_FREE && owner != VTSCOPE_OWNER_RELEASED) continue;
        if (!owner_word(slot).compare_exchange_strong(owner, VTSCOPE_OWNER_BUSY, std::memory_order_acq_rel)) continue;
        clear_record(&slot_ptr(slot)->record);
        slot_ptr(slot)->head.kind = is_virtual ? VTSCOPE_KIND_VIRTUAL : VTSCOPE_KIND_PLATFORM;
        slot_ptr(slot)->head.claimed_at_start = at_start ? 1 : 0;
        owner_word(slot).store(tid, std::memory_order_release);
        add_counter(base_, offsetof(vtscope_region_header, records_claimed));
        if (newly_claimed) *newly_claimed = true;
        return slot + VTSCOPE_RECORD_OFFSET;
    }
    add_counter(base_, offsetof(vtscope_region_header, records_unavailable));
    return 0;
}

bool RecordTable::release(int64_t tid, bool keep_record) {
    uint64_t record = find(tid);
    if (!record) return false;
    uint64_t slot = record - VTSCOPE_RECORD_OFFSET;
    int64_t expected = tid;
    if (!owner_word(slot).compare_exchange_strong(expected, VTSCOPE_OWNER_BUSY, std::memory_order_acq_rel))
        return false;
    if (!keep_record) clear_record(&slot_ptr(slot)->record);
    bool claimed_at_start = slot_ptr(slot)->head.claimed_at_start != 0;
    slot_ptr(slot)->head.kind = 0;
    slot_ptr(slot)->head.claimed_at_start = 0;
    owner_word(slot).store(VTSCOPE_OWNER_RELEASED, std::memory_order_release);
    add_counter(base_, offsetof(vtscope_region_header, records_released));
    return claimed_at_start;
}

}  // namespace vtscope::native
