// SPDX-License-Identifier: Apache-2.0
#include "channels/record_region.h"

#include "../../../common/vtscope_record.h"

namespace vtscope {

namespace {

// "/memfd:vtscope-records", followed by the end or " (deleted)": the JDK 22+ writer and libvtscope.
bool is_memfd_region(const std::string& path) {
    static const std::string kPrefix = std::string("/memfd:") + VTSCOPE_REGION_NAME;
    return path.compare(0, kPrefix.size(), kPrefix) == 0 &&
           (path.size() == kPrefix.size() || path[kPrefix.size()] == ' ');
}

// A file whose name starts with "vtscope-records-" (deleted or not): the JDK 21 writer, which has
// no memfd_create without FFM and maps vtscope-records-<pid>-<random> under /dev/shm instead.
bool is_file_region(const std::string& path) {
    static const std::string kPrefix = std::string(VTSCOPE_REGION_NAME) + "-";
    size_t slash = path.rfind('/');
    return !path.empty() && path[0] == '/' && path.compare(slash + 1, kPrefix.size(), kPrefix) == 0;
}

}  // namespace

std::vector<const Mapping*> find_region_mappings(const std::vector<Mapping>& maps) {
    std::vector<const Mapping*> result;
    for (const Mapping& m : maps) {
        if (m.offset != 0) continue;
        if (is_memfd_region(m.path)) {
            result.push_back(&m);
        } else if (is_file_region(m.path)) {
            // The file's name is random, so a second mapping of the same path is the same file,
            // mapped again by the writer's classes in another class loader: one region, not two.
            bool seen = false;
            for (const Mapping* r : result) seen = seen || r->path == m.path;
            if (!seen) result.push_back(&m);
        }
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
