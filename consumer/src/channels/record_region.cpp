// SPDX-License-Identifier: Apache-2.0
#include "channels/record_region.h"

#include "../../../common/vtscope_record.h"

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
    vtscope_region_check check =
        vtscope_check_region_header(&h, mapping.end - mapping.start, static_cast<uint32_t>(pid));
    if (check != VTSCOPE_REGION_VALID) {
        char message[160];
        return make_error(vtscope_describe_region_check(check, &h, message, sizeof(message)));
    }
    return RecordRegion{mapping.start, h.capacity};
}

std::optional<WriterStats> read_writer_stats(const MemoryReader& memory, const RecordRegion& region) {
    vtscope_region_header h{};
    if (!memory.read_value(region.base, h) || h.magic != VTSCOPE_REGION_MAGIC) return std::nullopt;
    return WriterStats{h.records_claimed, h.records_released, h.records_unavailable, h.context_writers};
}

std::string describe_context_writers(uint32_t writers) {
    static const struct {
        uint32_t bit;
        const char* name;
    } kWriters[] = {{VTSCOPE_WRITER_OTEL_STORAGE, "otel-storage"}, {VTSCOPE_WRITER_API, "api"}};
    std::string names;
    for (const auto& w : kWriters) {
        if (!(writers & w.bit)) continue;
        if (!names.empty()) names += ",";
        names += w.name;
        writers &= ~w.bit;
    }
    if (writers) names += (names.empty() ? "unknown(" : ",unknown(") + std::to_string(writers) + ")";
    return names.empty() ? "none" : names;
}

}  // namespace vtscope
