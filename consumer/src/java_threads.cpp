#include "java_threads.h"

#include <algorithm>
#include <cstring>

namespace vtscope {

namespace {
constexpr uint32_t kMaxThreads = 1u << 20;
constexpr uint32_t kNotTerminated = 0xDEAD - 3;  // JavaThread::_not_terminated (javaThread.hpp)

// Thread::_osthread and, where the layout has it, JavaThread::_terminated (left as is otherwise):
// in one read of the span between them when they are close, as they are in JDK 25 (1016 and
// 1344), since each read of the target is a system call and the walk runs every round.
bool read_thread_fields(const MemoryReader& memory, const HotSpotLayout& layout, uint64_t jt, uint64_t& osthread,
                        uint32_t& terminated) {
    if (!layout.java_thread_terminated) return memory.read_value(jt + layout.thread_osthread, osthread);
    uint64_t a = layout.thread_osthread, b = *layout.java_thread_terminated;
    uint64_t first = std::min(a, b), end = std::max(a + sizeof(osthread), b + sizeof(terminated));
    unsigned char span[1024];
    if (end - first > sizeof(span)) return memory.read_value(jt + a, osthread) && memory.read_value(jt + b, terminated);
    if (!memory.read(jt + first, span, end - first)) return false;
    std::memcpy(&osthread, span + (a - first), sizeof(osthread));
    std::memcpy(&terminated, span + (b - first), sizeof(terminated));
    return true;
}

bool read_oop(const MemoryReader& memory, uint64_t handle_field, uint64_t& oop) {
    uint64_t slot = 0;  // OopHandle is one pointer to an OopStorage slot holding the oop
    return memory.read_value(handle_field, slot) && slot != 0 && memory.read_value(slot, oop);
}
}  // namespace

Expected<std::vector<JavaThreadInfo>> walk_java_threads(const MemoryReader& memory, const HotSpotLayout& layout) {
    for (int attempt = 0; attempt < 20; attempt++) {
        uint64_t list = 0;
        if (!memory.read_value(layout.java_thread_list_address, list) || list == 0)
            return make_error("cannot read ThreadsSMRSupport::_java_thread_list");
        uint32_t length = 0;
        uint64_t threads = 0;
        if (!memory.read_value(list + layout.threads_list_length, length) ||
            !memory.read_value(list + layout.threads_list_threads, threads))
            continue;
        if (length > kMaxThreads || (length > 0 && threads == 0)) continue;
        std::vector<uint64_t> pointers(length);
        if (length > 0 && !memory.read(threads, pointers.data(), length * sizeof(uint64_t))) continue;

        std::vector<JavaThreadInfo> result;
        result.reserve(length);
        for (uint64_t jt : pointers) {
            if (jt == 0 || jt % 8 != 0) continue;
            uint32_t terminated = kNotTerminated;
            uint64_t osthread = 0;
            uint32_t tid = 0;
            if (!read_thread_fields(memory, layout, jt, osthread, terminated) || terminated != kNotTerminated ||
                osthread == 0 || !memory.read_value(osthread + layout.osthread_thread_id, tid) || tid == 0)
                continue;
            result.push_back({tid, jt});
        }
        uint64_t list_after = 0;
        if (memory.read_value(layout.java_thread_list_address, list_after) && list_after == list) return result;
    }
    return make_error("the JVM's thread list kept changing; could not read a consistent snapshot");
}

namespace {
int64_t sample_once(const MemoryReader& memory, const HotSpotLayout& layout, uint64_t jt) {
    int64_t before = 0, after = 0;
    uint64_t vthread = 0, thread_obj = 0, entry_before = 0, entry_after = 0;
    if (!memory.read_value(jt + layout.java_thread_monitor_owner_id, before) || before <= 0) return 0;
    if (layout.java_thread_cont_entry && !memory.read_value(jt + *layout.java_thread_cont_entry, entry_before))
        return 0;
    if (!read_oop(memory, jt + layout.java_thread_vthread, vthread) ||
        !read_oop(memory, jt + layout.java_thread_thread_obj, thread_obj))
        return 0;
    if (layout.java_thread_cont_entry && !memory.read_value(jt + *layout.java_thread_cont_entry, entry_after)) return 0;
    if (!memory.read_value(jt + layout.java_thread_monitor_owner_id, after)) return 0;
    if (before != after || vthread == 0 || vthread != thread_obj || entry_before != 0 || entry_after != 0) return 0;
    return before;
}
}  // namespace

int64_t sample_own_id(const MemoryReader& memory, const HotSpotLayout& layout, uint64_t jt) {
    int64_t first = sample_once(memory, layout, jt);
    return first != 0 && sample_once(memory, layout, jt) == first ? first : 0;
}

}  // namespace vtscope
