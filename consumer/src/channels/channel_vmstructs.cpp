// SPDX-License-Identifier: Apache-2.0
// Identity channel "vmstructs", user side: the uprobes on JavaThread::run and Threads::remove,
// and the threads that existed before them, from a walk of HotSpot's thread list
// (consumer/bpf/channel_vmstructs.bpf.h).
#include <bpf/bpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <set>

#include "channels/identity_channel.h"
#include "jvm/java_threads.h"
#include "jvm/oop_identity.h"
#include "process/thread_ids.h"

namespace vtscope {
namespace {

constexpr const char* kUprobePrograms[] = {"on_java_thread_run", "on_threads_remove"};

class VmStructsChannel final : public ChannelUnit {
public:
    explicit VmStructsChannel(const Target& target) : target_(target), tids_(target.pid, target.own_pid_namespace()) {}
    ~VmStructsChannel() override {
        if (generation_) munmap(generation_, generation_bytes_);
    }
    VmStructsChannel(const VmStructsChannel&) = delete;
    VmStructsChannel& operator=(const VmStructsChannel&) = delete;

    void prepare(bpf_object* object) override {
        for (const char* name : kUprobePrograms)
            if (auto program = find_program(object, name)) prefer_uprobe_multi(*program);
    }

    Status attach(bpf_object* object, Links& links, MapsSnapshot&) override {
        auto threads = find_map(object, "threads");
        if (!threads) return threads.error();
        threads_fd_ = bpf_map__fd(*threads);
        // The programs keep per-CPU copies of "threads" entries, valid while this generation stays
        // (channel_vmstructs.bpf.h): every change made here bumps it too, atomically (the map is
        // BPF_F_MMAPABLE; a locked add here and the programs' atomic adds cannot lose one another).
        auto generation = find_map(object, "threads_generation");
        if (!generation) return generation.error();
        generation_bytes_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        void* mapped =
            mmap(nullptr, generation_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(*generation), 0);
        if (mapped == MAP_FAILED)
            return make_error(std::string("cannot map the threads_generation map: ") + std::strerror(errno));
        generation_ = static_cast<uint64_t*>(mapped);
        // Thread start and exit first, then the walk (in sync): a thread that starts after this
        // point is caught by the uprobe, one that started before is in the list.
        const struct {
            const char* program;
            uint64_t offset;
            const char* what;
        } uprobes[] = {{kUprobePrograms[0], target_.jvm.java_thread_run_offset, "uprobe on JavaThread::run"},
                       {kUprobePrograms[1], target_.jvm.threads_remove_offset, "uprobe on Threads::remove"}};
        for (const auto& u : uprobes) {
            auto program = find_program(object, u.program);
            if (!program) return program.error();
            auto link = attach_uprobe(*program, target_.pid, target_.jvm.libjvm_attach_path, u.offset, u.what);
            if (!link) return link.error();
            links.push_back(std::move(*link));
        }
        return attach_task_exit(object, links);
    }

    // Inserts the threads that the uprobe has not seen (those that existed at attach, and
    // JNI-attached ones) and learns own ids of carriers that were busy at the last round.
    void sync(MapsSnapshot&, bool at_attach) override {
        auto threads = walk_java_threads(target_.memory, target_.jvm.layout);
        if (!threads) return;  // the target may be exiting; the next round retries
        to_host_tids(*threads);
        std::set<uint32_t> inserted;
        bool written = false;
        for (const JavaThreadInfo& t : *threads) {
            vtscope_thread_info current{};
            bool present = bpf_map_lookup_elem(threads_fd_, &t.tid, &current) == 0;
            if (present && (current.java_thread != t.java_thread || current.own_id != 0)) continue;
            // Sampled only here, for threads the map does not have or has without an own id (six
            // batched reads of the target per thread); it ran every round for every thread before
            // (6,400 process_vm_readv calls a second on the demo service, the bulk of the
            // consumer's syscalls; bench/RESULTS.md).
            int64_t own_id = this->own_id(t.java_thread);
            if (present && own_id == 0) continue;  // nothing new to write
            vtscope_thread_info info{t.java_thread, own_id};
            // BPF_NOEXIST for new entries: never overwrite what the JavaThread::run uprobe wrote.
            if (bpf_map_update_elem(threads_fd_, &t.tid, &info, present ? BPF_EXIST : BPF_NOEXIST) == 0) {
                threads_changed();
                written = true;
                if (!present) inserted.insert(t.tid);
                if (!present && at_attach) threads_at_attach_++;
            }
        }
        // A thread may have exited between the walk and the insert; its exit hooks then ran
        // before the insert and left a stale entry. Drop entries whose JavaThread left the list,
        // and if the list cannot be read again, drop what this round inserted rather than keep
        // an unverified one. Only what this round wrote can be stale so: an entry the uprobe wrote
        // goes with its thread's exit hooks, and an earlier round's was checked by that round.
        if (!written) return;
        auto after = walk_java_threads(target_.memory, target_.jvm.layout);
        if (after) to_host_tids(*after);
        std::set<std::pair<uint32_t, uint64_t>> live;
        if (after)
            for (const auto& t : *after) live.emplace(t.tid, t.java_thread);
        for (const auto& t : *threads) {
            vtscope_thread_info current{};
            bool stale = after ? !live.count({t.tid, t.java_thread}) : inserted.count(t.tid) > 0;
            if (stale && bpf_map_lookup_elem(threads_fd_, &t.tid, &current) == 0 &&
                current.java_thread == t.java_thread && bpf_map_delete_elem(threads_fd_, &t.tid) == 0)
                threads_changed();
        }
    }

    void summarise(const std::vector<uint64_t>& counters, Summary& summary) const override {
        summary.threads = ThreadCounts{threads_at_attach_, counters[VTSCOPE_COUNTER_THREADS_STARTED],
                                       counters[VTSCOPE_COUNTER_THREADS_REMOVED]};
    }

private:
    // OSThread::_thread_id is the tid as the JVM's gettid() gave it: in a pid namespace of its own
    // (a container) not the host tid the programs key "threads" by. A thread no longer listed
    // under /proc/PID/task has exited and is dropped.
    void to_host_tids(std::vector<JavaThreadInfo>& threads) {
        if (!tids_.own_namespace()) return;
        std::erase_if(threads, [&](JavaThreadInfo& t) {
            auto host = tids_.host_tid(static_cast<pid_t>(t.tid));
            if (host) t.tid = static_cast<uint32_t>(*host);
            return !host;
        });
    }

    // JDK 24+: _monitor_owner_id sampled while nothing is mounted. JDK 21-23: the tid of the
    // thread's own object (_threadObj), read under the collector's rule; it never changes.
    int64_t own_id(uint64_t java_thread) const {
        if (!target_.jvm.oop_identity) return sample_own_id(target_.memory, target_.jvm.layout, java_thread);
        const OopIdentity& oop = *target_.jvm.oop_identity;
        int64_t id = 0;
        return read_thread_tid(target_.memory, oop, java_thread, oop.thread_obj, id) == OopReadResult::kOk ? id : 0;
    }

    // After a change of "threads": the programs' cached copies are stale.
    void threads_changed() { std::atomic_ref<uint64_t>(*generation_).fetch_add(1); }

    const Target& target_;
    ThreadIds tids_;
    int threads_fd_ = -1;
    uint64_t* generation_ = nullptr;
    size_t generation_bytes_ = 0;
    uint64_t threads_at_attach_ = 0;
};

}  // namespace

std::unique_ptr<ChannelUnit> make_vmstructs_channel(const Target& target) {
    return std::make_unique<VmStructsChannel>(target);
}

}  // namespace vtscope
