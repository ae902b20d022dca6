// SPDX-License-Identifier: Apache-2.0
#include "jvm/java_threads.h"

#include <algorithm>
#include <cstring>
#include <span>

namespace vtscope {

namespace {
constexpr uint32_t kMaxThreads = 1u << 20;
constexpr uint32_t kNotTerminated = 0xDEAD - 3;  // JavaThread::_not_terminated (javaThread.hpp)
// Threads read per batch: bounds the buffers (a few hundred bytes per thread) on a JVM with very
// many platform threads, while a typical service's whole list is one batch.
constexpr size_t kThreadsPerBatch = 256;

// Where a thread's Thread::_osthread and JavaThread::_terminated (where the layout has it) are
// read from: one span covering both when they are close, as they are in JDK 25 (1016 and 1344),
// else each on its own.
struct FieldSpan {
    uint64_t first = 0;  // offset of the span in the JavaThread
    size_t length = 0;   // 0: no span, separate reads
};

// resolve_layout bounds both offsets (64 KiB); the span is still computed so that no offset can
// wrap it (a layout made by hand, or a bound raised later): an offset too close to 2^64 for its
// field to end before it gets separate reads, whose addresses then merely fail to read.
FieldSpan field_span(const HotSpotLayout& layout) {
    if (!layout.java_thread_terminated) return {};
    uint64_t a = layout.thread_osthread, b = *layout.java_thread_terminated;
    constexpr uint64_t kLimit = UINT64_MAX - sizeof(uint64_t);
    if (a > kLimit || b > kLimit) return {};
    uint64_t first = std::min(a, b), end = std::max(a + sizeof(uint64_t), b + sizeof(uint32_t));
    return end - first <= 1024 ? FieldSpan{first, static_cast<size_t>(end - first)} : FieldSpan{};
}

// The live threads among pointers, appended to result. Each read of the target is a system call
// and the walk runs every round of a session, so the whole batch's fields are read in one
// read_batch and their OSThreads' tids in a second (one process_vm_readv each for ProcessMemory).
void read_threads(const MemoryReader& memory, const HotSpotLayout& layout, std::span<const uint64_t> pointers,
                  std::vector<JavaThreadInfo>& result) {
    const FieldSpan span = field_span(layout);
    struct Fields {
        uint64_t java_thread = 0;
        uint64_t osthread = 0;
        uint32_t terminated = kNotTerminated;
        uint32_t tid = 0;
    };
    std::vector<Fields> threads;
    for (uint64_t jt : pointers)
        if (jt != 0 && jt % 8 == 0) threads.push_back({jt});
    std::vector<unsigned char> spans(threads.size() * span.length);
    const size_t per_thread = span.length || !layout.java_thread_terminated ? 1 : 2;
    std::vector<ReadRequest> requests;
    for (size_t i = 0; i < threads.size(); i++) {
        uint64_t jt = threads[i].java_thread;
        if (span.length) {
            requests.push_back({jt + span.first, spans.data() + i * span.length, span.length});
        } else {
            requests.push_back({jt + layout.thread_osthread, &threads[i].osthread, sizeof(uint64_t)});
            if (layout.java_thread_terminated)
                requests.push_back({jt + *layout.java_thread_terminated, &threads[i].terminated, sizeof(uint32_t)});
        }
    }
    memory.read_batch(requests);
    std::vector<ReadRequest> tids;
    std::vector<size_t> tid_owner;
    for (size_t i = 0; i < threads.size(); i++) {
        bool read = true;
        for (size_t k = 0; k < per_thread; k++) read = read && requests[i * per_thread + k].ok;
        if (!read) continue;
        Fields& t = threads[i];
        if (span.length) {
            const unsigned char* bytes = spans.data() + i * span.length;
            std::memcpy(&t.osthread, bytes + (layout.thread_osthread - span.first), sizeof(t.osthread));
            std::memcpy(&t.terminated, bytes + (*layout.java_thread_terminated - span.first), sizeof(t.terminated));
        }
        if (t.terminated != kNotTerminated || t.osthread == 0) continue;
        tids.push_back({t.osthread + layout.osthread_thread_id, &t.tid, sizeof(t.tid)});
        tid_owner.push_back(i);
    }
    memory.read_batch(tids);
    for (size_t k = 0; k < tids.size(); k++) {
        const Fields& t = threads[tid_owner[k]];
        if (tids[k].ok && t.tid != 0) result.push_back({t.tid, t.java_thread});
    }
}
}  // namespace

Expected<std::vector<JavaThreadInfo>> walk_java_threads(const MemoryReader& memory, const HotSpotLayout& layout) {
    for (int attempt = 0; attempt < 20; attempt++) {
        uint64_t list = 0;
        if (!memory.read_value(layout.java_thread_list_address, list) || list == 0)
            return make_error("cannot read ThreadsSMRSupport::_java_thread_list");
        uint32_t length = 0;
        uint64_t threads = 0;
        ReadRequest header[] = {{list + layout.threads_list_length, &length, sizeof(length)},
                                {list + layout.threads_list_threads, &threads, sizeof(threads)}};
        memory.read_batch(header);
        if (!header[0].ok || !header[1].ok) continue;
        if (length > kMaxThreads || (length > 0 && threads == 0)) continue;
        std::vector<uint64_t> pointers(length);
        if (length > 0 && !memory.read(threads, pointers.data(), length * sizeof(uint64_t))) continue;

        std::vector<JavaThreadInfo> result;
        result.reserve(length);
        for (size_t at = 0; at < pointers.size(); at += kThreadsPerBatch)
            read_threads(
                memory, layout,
                std::span<const uint64_t>(pointers).subspan(at, std::min(kThreadsPerBatch, pointers.size() - at)),
                result);
        uint64_t list_after = 0;
        if (memory.read_value(layout.java_thread_list_address, list_after) && list_after == list) return result;
    }
    return make_error("the JVM's thread list kept changing; could not read a consistent snapshot");
}

namespace {
bool all_read(std::span<const ReadRequest> requests) {
    return std::all_of(requests.begin(), requests.end(), [](const ReadRequest& r) { return r.ok; });
}

// Three batches, each read in order (read_batch keeps the order: process_vm_readv copies its
// iovecs one after the other): the id and _cont_entry, with the two handles' slots; the oops in
// those slots; _cont_entry and the id again.
int64_t sample_once(const MemoryReader& memory, const HotSpotLayout& layout, uint64_t jt) {
    int64_t before = 0, after = 0;
    uint64_t entry_before = 0, entry_after = 0, vthread_slot = 0, thread_obj_slot = 0, vthread = 0, thread_obj = 0;
    std::vector<ReadRequest> first = {{jt + layout.java_thread_monitor_owner_id, &before, sizeof(before)}};
    if (layout.java_thread_cont_entry)
        first.push_back({jt + *layout.java_thread_cont_entry, &entry_before, sizeof(entry_before)});
    first.push_back({jt + layout.java_thread_vthread, &vthread_slot, sizeof(vthread_slot)});
    first.push_back({jt + layout.java_thread_thread_obj, &thread_obj_slot, sizeof(thread_obj_slot)});
    memory.read_batch(first);
    // An OopHandle is one pointer to an OopStorage slot holding the oop.
    if (!all_read(first) || before <= 0 || vthread_slot == 0 || thread_obj_slot == 0) return 0;
    ReadRequest oops[] = {{vthread_slot, &vthread, sizeof(vthread)},
                          {thread_obj_slot, &thread_obj, sizeof(thread_obj)}};
    memory.read_batch(oops);
    if (!all_read(oops)) return 0;
    std::vector<ReadRequest> last;
    if (layout.java_thread_cont_entry)
        last.push_back({jt + *layout.java_thread_cont_entry, &entry_after, sizeof(entry_after)});
    last.push_back({jt + layout.java_thread_monitor_owner_id, &after, sizeof(after)});
    memory.read_batch(last);
    if (!all_read(last)) return 0;
    if (before != after || vthread == 0 || vthread != thread_obj || entry_before != 0 || entry_after != 0) return 0;
    return before;
}
}  // namespace

int64_t sample_own_id(const MemoryReader& memory, const HotSpotLayout& layout, uint64_t jt) {
    int64_t first = sample_once(memory, layout, jt);
    return first != 0 && sample_once(memory, layout, jt) == first ? first : 0;
}

}  // namespace vtscope
