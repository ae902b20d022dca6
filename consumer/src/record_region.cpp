#include "record_region.h"

#include "../../common/vtscope_record.h"

namespace vtscope {

std::vector<const Mapping*> find_region_mappings(const std::vector<Mapping>& maps) {
    static const std::string kPrefix = std::string("/memfd:") + VTSCOPE_REGION_NAME;
    std::vector<const Mapping*> result;
    for (const Mapping& m : maps) {
        // "/memfd:vtscope-records (deleted)": the name must be followed by the end or a space.
        if (m.offset == 0 && m.path.compare(0, kPrefix.size(), kPrefix) == 0 &&
            (m.path.size() == kPrefix.size() || m.path[kPrefix.size()] == ' '))
            result.push_back(&m);
    }
    return result;
}

Expected<RecordRegion> validate_region(const MemoryReader& memory, const Mapping& mapping, pid_t pid) {
    vtscope_region_header h{};
    if (!memory.read_value(mapping.start, h)) return make_error("record region header unreadable");
    if (h.magic != VTSCOPE_REGION_MAGIC) return make_error("record region has a bad magic (not yet initialised?)");
    if (h.version != VTSCOPE_REGION_VERSION)
        return make_error("record region version " + std::to_string(h.version) + " is not supported (expected " +
                          std::to_string(VTSCOPE_REGION_VERSION) + ")");
    if (h.header_size != VTSCOPE_REGION_HEADER_SIZE || h.slot_size != VTSCOPE_SLOT_SIZE ||
        h.record_offset != VTSCOPE_RECORD_OFFSET || h.max_probe != VTSCOPE_MAX_PROBE)
        return make_error("record region layout differs from this vtscope's");
    if (h.capacity == 0 || (h.capacity & (h.capacity - 1)) != 0)
        return make_error("record region capacity " + std::to_string(h.capacity) + " is not a power of two");
    uint64_t needed = uint64_t{h.header_size} + uint64_t{h.capacity} * h.slot_size;
    if (mapping.end - mapping.start < needed) return make_error("record region is smaller than its header claims");
    if (h.writer_pid != static_cast<uint32_t>(pid))
        return make_error("record region belongs to pid " + std::to_string(h.writer_pid));
    return RecordRegion{mapping.start, h.capacity};
}

std::optional<WriterStats> read_writer_stats(const MemoryReader& memory, const RecordRegion& region) {
    vtscope_region_header h{};
    if (!memory.read_value(region.base, h) || h.magic != VTSCOPE_REGION_MAGIC) return std::nullopt;
    return WriterStats{h.records_claimed, h.records_released, h.records_unavailable};
}

}  // namespace vtscope
