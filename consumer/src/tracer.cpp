#include "tracer.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "event_format.h"
#include "java_threads.h"
#include "jvm_target.h"
#include "privilege.h"
#include "proc_maps.h"
#include "record_region.h"
#include "report.h"
#include "probe_modules.h"
#include "thread_context_tls.h"
#include "tracefs.h"
#include "vtscope_trace.skel.h"

namespace vtscope {

namespace {

std::atomic<bool> g_stop{false};

uint32_t identity_mode(IdentityChannel channel) {
    switch (channel) {
        case IdentityChannel::kVmStructs: return VTSCOPE_IDENTITY_VMSTRUCTS;
        case IdentityChannel::kOtepTls: return VTSCOPE_IDENTITY_OTEP_TLS;
        case IdentityChannel::kLifecycle: return VTSCOPE_IDENTITY_LIFECYCLE;
        case IdentityChannel::kTwoProbe: return VTSCOPE_IDENTITY_TWO_PROBE;
        case IdentityChannel::kHotspotProbes: return VTSCOPE_IDENTITY_HOTSPOT;
    }
    return VTSCOPE_IDENTITY_VMSTRUCTS;
}
void on_signal(int) { g_stop.store(true); }

void error_line(const std::string& message) { std::fprintf(stderr, "vtscope: error: %s\n", message.c_str()); }

int libbpf_quiet(enum libbpf_print_level level, const char* format, va_list args) {
    if (level == LIBBPF_WARN && std::getenv("VTSCOPE_DEBUG")) return std::vfprintf(stderr, format, args);
    return 0;
}

struct SkeletonDeleter {
    void operator()(vtscope_trace_bpf* skel) const { vtscope_trace_bpf__destroy(skel); }
};
struct LinkDeleter {
    void operator()(bpf_link* link) const { bpf_link__destroy(link); }
};
struct RingBufferDeleter {
    void operator()(ring_buffer* rb) const { ring_buffer__free(rb); }
};
using LinkPtr = std::unique_ptr<bpf_link, LinkDeleter>;

struct Counts {
    uint64_t delivered[VTSCOPE_STATUS_COUNT] = {};
};

class Session {
public:
    Session(const TraceOptions& options, JvmTarget target, ProcessMemory memory, FILE* out)
        : options_(options), target_(std::move(target)), memory_(memory), out_(out) {}

    Status load_and_attach();
    void sync_threads(bool at_attach);
    void sync_region();
    void sync_thread_context_tls();
    int run();

private:
    static int on_event(void* ctx, void* data, size_t size);
    Status attach_syscalls();
    void detach() { links_.clear(); }
    bool otep_tls() const { return options_.identity == IdentityChannel::kOtepTls; }
    bool vmstructs() const { return options_.identity == IdentityChannel::kVmStructs; }
    bool probe_channel() const { return !vmstructs() && !otep_tls(); }
    Status attach_probe_channel();
    void check_probe_events();
    void print_summary();
    void drain_stats(bpf_map* table);
    // The name behind an attach cookie (an index into --syscalls).
    const std::string& syscall_name(uint32_t index) const {
        static const std::string unknown = "?";
        return index < options_.syscalls.size() ? options_.syscalls[index] : unknown;
    }
    void rotate_stats();

    const TraceOptions& options_;
    JvmTarget target_;
    ProcessMemory memory_;
    FILE* out_;
    std::unique_ptr<vtscope_trace_bpf, SkeletonDeleter> skel_;
    std::unique_ptr<ring_buffer, RingBufferDeleter> ring_;
    std::vector<LinkPtr> links_;
    Counts counts_;
    int write_errno_ = 0;  // first output error, 0 while writes succeed
    bool region_found_ = false;
    RecordRegion region_{};
    std::optional<WriterStats> writer_stats_;  // last read, kept for after the target exits
    std::optional<ThreadContextTls> thread_context_tls_;
    std::string thread_context_tls_error_;
    std::set<std::string> modules_without_tls_;  // parsed once: they do not define otel_thread_ctx_v1
    std::set<uint64_t> warned_regions_;
    size_t threads_at_attach_ = 0;
    size_t own_ids_learned_ = 0;
    std::string stop_reason_ = "stopped";
    std::optional<ProbeEventsLocation> probe_events_at_;  // libvtscope's event state (lifecycle channels)
    uint32_t expected_epoch_ = 0;
    uint64_t mapping_resets_ = 0;
    ReportData stats_report_;  // vtscope stat: the counts drained so far
};

Status Session::load_and_attach() {
    skel_.reset(vtscope_trace_bpf__open());
    if (!skel_) return make_error(std::string("cannot open the BPF object: ") + std::strerror(errno));
    skel_->rodata->target_tgid = static_cast<__u32>(target_.pid);
    skel_->rodata->off_monitor_owner_id = target_.layout.java_thread_monitor_owner_id;
    skel_->rodata->identity_mode = identity_mode(options_.identity);
    // Size for the mode: trace streams events through the ring buffer, stat counts in the
    // stats table; the other one is left at its minimum.
    if (options_.aggregate) {
        bpf_map__set_max_entries(skel_->maps.events, static_cast<uint32_t>(sysconf(_SC_PAGESIZE)));
        bpf_program__set_autoload(skel_->progs.on_sys_enter, false);
    } else {
        bpf_map__set_max_entries(skel_->maps.stats0, 1);
        bpf_map__set_max_entries(skel_->maps.stats1, 1);
        bpf_program__set_autoload(skel_->progs.on_sys_enter_stat, false);
    }
    if (int err = vtscope_trace_bpf__load(skel_.get())) {
        if (err == -EPERM || err == -EACCES)
            return make_error("no BPF privilege: loading the BPF programs was refused (run as root)");
        return make_error(std::string("cannot load the BPF programs: ") + std::strerror(-err));
    }

    ring_.reset(ring_buffer__new(bpf_map__fd(skel_->maps.events), &Session::on_event, this, nullptr));
    if (!ring_) return make_error(std::string("cannot create the ring buffer reader: ") + std::strerror(errno));
    // otep-tls reads only what a third-party reader reads: no thread map, no uprobes. The probe
    // channels keep their own map from lifecycle probes, attached before the syscalls.
    if (otep_tls()) return attach_syscalls();
    if (probe_channel()) {
        if (auto status = attach_probe_channel(); !status) return status;
        return attach_syscalls();
    }

    // Thread start and exit first, then the walk (in sync_threads): a thread that starts after
    // this point is caught by the uprobe, one that started before is in the list.
    LIBBPF_OPTS(bpf_uprobe_opts, uprobe_opts);
    struct {
        bpf_program* program;
        uint64_t offset;
        const char* what;
    } uprobes[] = {{skel_->progs.on_java_thread_run, target_.java_thread_run_offset, "JavaThread::run"},
                   {skel_->progs.on_threads_remove, target_.threads_remove_offset, "Threads::remove"}};
    for (auto& u : uprobes) {
        bpf_link* link = bpf_program__attach_uprobe_opts(u.program, target_.pid, target_.libjvm_host_path.c_str(),
                                                         u.offset, &uprobe_opts);
        if (!link) return make_error(std::string("cannot attach uprobe on ") + u.what + ": " + std::strerror(errno));
        links_.emplace_back(link);
    }
    bpf_link* exit_link = bpf_program__attach(skel_->progs.on_task_exit);
    if (!exit_link) return make_error(std::string("cannot attach sched_process_exit: ") + std::strerror(errno));
    links_.emplace_back(exit_link);
    return attach_syscalls();
}

Status Session::attach_probe_channel() {
    auto maps = read_maps(target_.pid);
    if (!maps) return maps.error();
    bool hotspot = options_.identity == IdentityChannel::kHotspotProbes;
    auto module = hotspot ? find_hotspot_probe_module(target_.pid, *maps) : find_vtscope_library(target_.pid, *maps);
    if (!module) return module.error();
    struct Probe {
        bpf_program* program;
        const char* provider;
        const char* name;
    };
    std::vector<Probe> probes;
    if (hotspot) {
        probes = {{skel_->progs.on_hs_start, "hotspot", "vthread__start"},
                  {skel_->progs.on_hs_end, "hotspot", "vthread__end"},
                  {skel_->progs.on_hs_freeze, "hotspot", "vthread__freeze"},
                  {skel_->progs.on_hs_thaw, "hotspot", "vthread__thaw"}};
    } else {
        probes = {{skel_->progs.on_vt_start, "vtscope", "vthread__start"},
                  {skel_->progs.on_vt_end, "vtscope", "vthread__end"},
                  {skel_->progs.on_vt_mount, "vtscope", "vthread__mount"},
                  {skel_->progs.on_vt_unmount, "vtscope", "vthread__unmount"}};
    }
    std::string binary = "/proc/" + std::to_string(target_.pid) + "/root" + *module;
    // libvtscope's event state before our probes exist: see check_probe_events.
    std::optional<ProbeEventsState> before;
    if (!hotspot) {
        probe_events_at_ = find_probe_events_state(target_.pid, *maps, *module);
        if (probe_events_at_) before = read_probe_events_state(memory_, *probe_events_at_);
    }
    for (const Probe& p : probes) {
        bpf_link* link = bpf_program__attach_usdt(p.program, target_.pid, binary.c_str(), p.provider, p.name, nullptr);
        if (!link)
            return make_error(std::string("cannot attach USDT probe ") + p.provider + ":" + p.name + " in " + *module +
                              ": " + std::strerror(errno));
        links_.emplace_back(link);
    }
    bpf_link* exit_link = bpf_program__attach(skel_->progs.on_task_exit);
    if (!exit_link) return make_error(std::string("cannot attach sched_process_exit: ") + std::strerror(errno));
    links_.emplace_back(exit_link);
    // libvtscope switches its events on when it sees our semaphores (within 50 ms); until then
    // no thread is mapped, so "ready" waits for it.
    if (probe_events_at_ && !wait_for_probe_events(memory_, *probe_events_at_, std::chrono::seconds(2)))
        std::fprintf(stderr, "vtscope: warning: libvtscope.so did not report its lifecycle events enabled within "
                             "2 s; events before that are unmapped\n");
    if (probe_events_at_) {
        // Events that were on when we attached stay on for us (the library switches off only
        // after two polls without a tracer). If they went off and on anyway, a thread switch in
        // between was missed: mappings learned before may be stale, so they are dropped.
        if (before) {
            expected_epoch_ = before->active ? before->epoch : before->epoch + 1;
        } else if (auto now = read_probe_events_state(memory_, *probe_events_at_)) {
            expected_epoch_ = now->epoch;  // nothing known from before: take what is on now
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(150));  // a switch in progress ends
        check_probe_events();
    }
    return ok_status();
}

// The lifecycle mappings are only as good as the stream of mount and unmount probes behind them.
// If libvtscope's events were off for a while (its epoch moved), drop every mapping: a carrier is
// then unmapped until its next mount, never mapped to a thread that left it.
void Session::check_probe_events() {
    if (!probe_events_at_) return;
    auto state = read_probe_events_state(memory_, *probe_events_at_);
    if (!state) return;  // the target is exiting
    if (state->active == 1 && state->epoch == expected_epoch_) return;
    if (state->active == 0 && state->epoch == expected_epoch_ - 1) return;  // never came on for us
    for (bpf_map* map : {skel_->maps.carriers, skel_->maps.just_started, skel_->maps.pending_unmount}) {
        int fd = bpf_map__fd(map);
        uint32_t key = 0;
        while (bpf_map_get_next_key(fd, nullptr, &key) == 0) bpf_map_delete_elem(fd, &key);
    }
    mapping_resets_++;
    if (state->active == 1) expected_epoch_ = state->epoch;
}

Status Session::attach_syscalls() {
    for (size_t i = 0; i < options_.syscalls.size(); i++) {
        LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = i);
        std::string name = "sys_enter_" + options_.syscalls[i];
        bpf_program* program = options_.aggregate ? skel_->progs.on_sys_enter_stat : skel_->progs.on_sys_enter;
        bpf_link* link = bpf_program__attach_tracepoint_opts(program, "syscalls", name.c_str(), &opts);
        if (!link) return make_error("cannot attach tracepoint syscalls:" + name + ": " + std::strerror(errno));
        links_.emplace_back(link);
    }
    return ok_status();
}

void Session::sync_thread_context_tls() {
    if (!otep_tls() || thread_context_tls_) return;
    auto maps = read_maps(target_.pid);
    if (!maps) return;
    auto tls = find_thread_context_tls(target_.pid, *maps, memory_, &modules_without_tls_);
    if (!tls) {
        thread_context_tls_error_ = tls.error().message;
        return;
    }
    vtscope_tls_info info{tls->tp_offset, 1};
    uint32_t zero = 0;
    if (bpf_map_update_elem(bpf_map__fd(skel_->maps.thread_context_tls), &zero, &info, BPF_ANY) == 0)
        thread_context_tls_ = *tls;
}

void Session::sync_threads(bool at_attach) {
    if (!vmstructs()) return;
    auto threads = walk_java_threads(memory_, target_.layout);
    if (!threads) return;  // the target may be exiting; the next round retries
    int map_fd = bpf_map__fd(skel_->maps.threads);
    std::set<uint32_t> inserted;
    for (const JavaThreadInfo& t : *threads) {
        vtscope_thread_info current{};
        bool present = bpf_map_lookup_elem(map_fd, &t.tid, &current) == 0;
        if (present && (current.java_thread != t.java_thread || current.own_id != 0)) continue;
        vtscope_thread_info info{t.java_thread, t.own_id};
        // BPF_NOEXIST for new entries: never overwrite what the JavaThread::run uprobe wrote.
        if (bpf_map_update_elem(map_fd, &t.tid, &info, present ? BPF_EXIST : BPF_NOEXIST) == 0) {
            if (!present) inserted.insert(t.tid);
            if (!present && at_attach) threads_at_attach_++;
            if (t.own_id) own_ids_learned_++;
        }
    }
    // A thread may have exited between the walk and the insert; its exit hooks then ran before
    // the insert and left a stale entry. Drop entries whose JavaThread left the list, and if the
    // list cannot be read again, drop what this round inserted rather than keep an unverified one.
    auto after = walk_java_threads(memory_, target_.layout);
    std::set<std::pair<uint32_t, uint64_t>> live;
    if (after)
        for (const auto& t : *after) live.emplace(t.tid, t.java_thread);
    for (const auto& t : *threads) {
        vtscope_thread_info current{};
        bool stale = after ? !live.count({t.tid, t.java_thread}) : inserted.count(t.tid) > 0;
        if (stale && bpf_map_lookup_elem(map_fd, &t.tid, &current) == 0 && current.java_thread == t.java_thread)
            bpf_map_delete_elem(map_fd, &t.tid);
    }
}

void Session::sync_region() {
    if (region_found_) return;
    auto maps = read_maps(target_.pid);
    if (!maps) return;
    auto candidates = find_region_mappings(*maps);
    for (const Mapping* m : candidates) {
        auto region = validate_region(memory_, *m, target_.pid);
        if (!region) {
            if (warned_regions_.insert(m->start).second && region.error().message.find("magic") == std::string::npos)
                std::fprintf(stderr, "vtscope: warning: ignoring record region at %#llx: %s\n",
                             static_cast<unsigned long long>(m->start), region.error().message.c_str());
            continue;
        }
        if (candidates.size() > 1 && warned_regions_.insert(0).second)
            std::fprintf(stderr,
                         "vtscope: warning: %zu record regions in the target (vtscope-java loaded by several class "
                         "loaders?); using the first valid one\n",
                         candidates.size());
        vtscope_region_info info{region->base, uint64_t{region->capacity} - 1};
        uint32_t zero = 0;
        if (bpf_map_update_elem(bpf_map__fd(skel_->maps.region), &zero, &info, BPF_ANY) == 0) {
            region_ = *region;
            region_found_ = true;
        }
        return;
    }
}

int Session::on_event(void* ctx, void* data, size_t size) {
    auto* self = static_cast<Session*>(ctx);
    if (size < sizeof(vtscope_event)) return 0;
    vtscope_event event;
    std::memcpy(&event, data, sizeof(event));
    const std::string& name = self->syscall_name(event.syscall_index);
    self->counts_.delivered[event.status < VTSCOPE_STATUS_COUNT ? event.status : unsigned{VTSCOPE_STATUS_INVALID}]++;
    std::string line = format_event(event, name);
    line.push_back('\n');
    if (std::fwrite(line.data(), 1, line.size(), self->out_) != line.size() && !self->write_errno_)
        self->write_errno_ = errno ? errno : EIO;
    return 0;
}

int Session::run() {
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    auto next_sync = start;
    while (!g_stop.load()) {
        // The BPF side wakes us only when data piles up (BPF_RB_NO_WAKEUP otherwise), so a poll
        // that times out is followed by an explicit drain.
        int n = ring_buffer__poll(ring_.get(), 50);
        if (n >= 0) n = ring_buffer__consume(ring_.get());
        if (n < 0 && n != -EINTR) {
            error_line(std::string("reading the ring buffer failed: ") + std::strerror(-n));
            break;
        }
        auto now = Clock::now();
        if (options_.duration_seconds &&
            std::chrono::duration<double>(now - start).count() >= *options_.duration_seconds) {
            stop_reason_ = "duration reached";
            break;
        }
        if (!process_alive(target_.pid)) {
            stop_reason_ = "target exited";
            break;
        }
        if (now >= next_sync) {
            // Catches JNI-attached threads and learns own ids of carriers that were busy.
            sync_threads(false);
            sync_region();
            sync_thread_context_tls();
            check_probe_events();
            rotate_stats();
            if (region_found_)
                if (auto stats = read_writer_stats(memory_, region_)) writer_stats_ = stats;
            next_sync = now + std::chrono::milliseconds(250);
        }
        if (write_errno_) break;
    }
    if (g_stop.load()) stop_reason_ = "signal";
    // Detach first so no event arrives after the drain; then nothing collected is lost. A
    // handler already running on another CPU may still submit after the detach: drain, wait a
    // moment, drain again.
    detach();
    while (ring_buffer__consume(ring_.get()) > 0) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    while (ring_buffer__consume(ring_.get()) > 0) {
    }
    if (options_.aggregate) {
        drain_stats(skel_->maps.stats0);  // after the detach: nothing writes them any more
        drain_stats(skel_->maps.stats1);
        std::string report = render_report(stats_report_, options_.top);
        if (std::fwrite(report.data(), 1, report.size(), out_) != report.size() && !write_errno_)
            write_errno_ = errno ? errno : EIO;
    }
    if (std::fflush(out_) != 0 && !write_errno_) write_errno_ = errno ? errno : EIO;
    print_summary();
    if (write_errno_) {
        error_line(std::string("writing the output failed: ") + std::strerror(write_errno_));
        return 1;
    }
    return 0;
}

// vtscope stat: moves a table's counts into the report (the form `vtscope report` reads from a
// trace file, so both print the same report) and empties it.
void Session::drain_stats(bpf_map* table) {
    int fd = bpf_map__fd(table);
    vtscope_stat_key key{};
    std::vector<vtscope_stat_key> drained;
    while (bpf_map_get_next_key(fd, drained.empty() ? nullptr : &key, &key) == 0) {
        vtscope_stat_value total{};
        if (bpf_map_lookup_elem(fd, &key, &total) != 0) continue;
        drained.push_back(key);
        if (total.calls == 0) continue;
        unsigned status = key.status < VTSCOPE_STATUS_COUNT ? key.status : unsigned{VTSCOPE_STATUS_INVALID};
        counts_.delivered[status] += total.calls;
        const std::string& syscall = syscall_name(key.syscall_index);
        bool ok = status == VTSCOPE_STATUS_OK;
        add_to_report(stats_report_, status_name(status), ok ? hex_string(key.trace_id, sizeof(key.trace_id)) : "",
                      syscall, total.calls,
                      ok && syscall_has_count(syscall) ? std::optional<uint64_t>(total.arg2_sum) : std::nullopt,
                      ok && key.mounted_virtual ? std::optional<int64_t>(key.java_id) : std::nullopt);
    }
    for (const auto& k : drained) bpf_map_delete_elem(fd, &k);
}

// Every sync: drain the table retired at the previous sync (at least 250 ms ago, so no program
// still writes it), then make it the active one and retire the other.
void Session::rotate_stats() {
    if (!options_.aggregate) return;
    uint32_t generation = __atomic_load_n(&skel_->bss->stats_generation, __ATOMIC_RELAXED);
    drain_stats(generation & 1 ? skel_->maps.stats0 : skel_->maps.stats1);
    __atomic_store_n(&skel_->bss->stats_generation, generation + 1, __ATOMIC_RELEASE);
}

void Session::print_summary() {
    uint64_t totals[VTSCOPE_COUNTER_COUNT] = {};
    int ncpu = libbpf_num_possible_cpus();
    std::vector<uint64_t> per_cpu(ncpu > 0 ? ncpu : 1);
    for (uint32_t key = 0; key < VTSCOPE_COUNTER_COUNT; key++) {
        if (bpf_map_lookup_elem(bpf_map__fd(skel_->maps.counters), &key, per_cpu.data()) != 0) continue;
        for (uint64_t v : per_cpu) totals[key] += v;
    }
    std::fprintf(stderr,
                 "vtscope: %s; events %llu: ok %llu, no_context %llu, invalid %llu, unmapped %llu, lost %llu\n",
                 stop_reason_.c_str(), static_cast<unsigned long long>(totals[VTSCOPE_COUNTER_EVENTS]),
                 static_cast<unsigned long long>(counts_.delivered[VTSCOPE_STATUS_OK]),
                 static_cast<unsigned long long>(counts_.delivered[VTSCOPE_STATUS_NO_CONTEXT]),
                 static_cast<unsigned long long>(counts_.delivered[VTSCOPE_STATUS_INVALID]),
                 static_cast<unsigned long long>(counts_.delivered[VTSCOPE_STATUS_UNMAPPED]),
                 static_cast<unsigned long long>(totals[VTSCOPE_COUNTER_LOST]));
    if (totals[VTSCOPE_COUNTER_LOST] > 0)
        std::fprintf(stderr, "vtscope: warning: %llu events were not counted: %s\n",
                     static_cast<unsigned long long>(totals[VTSCOPE_COUNTER_LOST]),
                     options_.aggregate ? "the stat table was full (65536 distinct thread/trace/syscall keys "
                                          "between two drains, 250 ms apart)"
                                        : "the ring buffer was full");
    if (vmstructs()) {
        std::fprintf(stderr, "vtscope: threads: %zu at attach, %llu started, %llu exited during the trace\n",
                     threads_at_attach_, static_cast<unsigned long long>(totals[VTSCOPE_COUNTER_THREADS_STARTED]),
                     static_cast<unsigned long long>(totals[VTSCOPE_COUNTER_THREADS_REMOVED]));
    } else if (probe_channel()) {
        std::fprintf(stderr,
                     "vtscope: %s mappings: %llu inserted, %llu deleted; %llu unmounts and %llu ends found no mapping\n",
                     identity_name(options_.identity), static_cast<unsigned long long>(totals[VTSCOPE_COUNTER_INSERTS]),
                     static_cast<unsigned long long>(totals[VTSCOPE_COUNTER_DELETES]),
                     static_cast<unsigned long long>(totals[VTSCOPE_COUNTER_UNMOUNT_UNMAPPED]),
                     static_cast<unsigned long long>(totals[VTSCOPE_COUNTER_END_UNMAPPED]));
    }
    if (mapping_resets_ > 0)
        std::fprintf(stderr,
                     "vtscope: warning: libvtscope.so switched its lifecycle events off during the trace %llu "
                     "time(s); every carrier mapping was dropped each time and rebuilt from later mounts\n",
                     static_cast<unsigned long long>(mapping_resets_));
    if (otep_tls() && !thread_context_tls_)
        std::fprintf(stderr, "vtscope: otel_thread_ctx_v1 never found: %s\n", thread_context_tls_error_.c_str());
    if (!region_found_) {
        std::fprintf(stderr, "vtscope: no record region found: the target publishes no trace context "
                             "(put vtscope-java.jar on its class path)\n");
    } else if (auto stats = read_writer_stats(memory_, region_); stats || writer_stats_) {
        if (!stats) stats = writer_stats_;
        std::fprintf(stderr, "vtscope: writer records: %llu claimed, %llu released, %llu unavailable%s\n",
                     static_cast<unsigned long long>(stats->claimed), static_cast<unsigned long long>(stats->released),
                     static_cast<unsigned long long>(stats->unavailable),
                     stats->unavailable ? " (record table full: raise -Dvtscope.records.capacity)" : "");
    }
}

Status write_ready_file(const std::string& path) {
    std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp);
        if (!f || !(f << getpid() << '\n')) return make_error("cannot write ready file " + path);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        return make_error("cannot write ready file " + path + ": " + std::strerror(errno));
    return ok_status();
}

}  // namespace

int run_trace(const TraceOptions& options) {
    FILE* out = stdout;
    std::unique_ptr<FILE, int (*)(FILE*)> file(nullptr, &std::fclose);
    if (options.output != "-") {
        file.reset(std::fopen(options.output.c_str(), "w"));
        if (!file) {
            error_line("cannot write output " + options.output + ": " + std::strerror(errno));
            return 1;
        }
        out = file.get();
    }
    if (kill(options.pid, 0) != 0 && errno == ESRCH) {
        error_line("no process with pid " + std::to_string(options.pid));
        return 1;
    }
    if (!have_bpf_privilege()) {
        error_line("no BPF privilege: vtscope trace needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)");
        return 1;
    }
    ProcessMemory memory(options.pid);
    // The paper's probe ABI is all the hotspot-probes channel needs (its tests drive it from a
    // small program that is not a JVM); every other channel reads a HotSpot JVM.
    Expected<JvmTarget> target = JvmTarget{};
    if (options.identity == IdentityChannel::kHotspotProbes) {
        target->pid = options.pid;
    } else {
        target = inspect_jvm(options.pid, memory);
        if (!target) {
            error_line(target.error().message);
            return 1;
        }
    }
    auto tracefs = find_tracefs();
    if (!tracefs) {
        error_line(tracefs.error().message);
        return 1;
    }
    for (const std::string& name : options.syscalls) {
        if (!syscall_tracepoint_exists(*tracefs, name)) {
            error_line("unknown syscall '" + name + "' (no tracepoint syscalls:sys_enter_" + name + ")");
            return 1;
        }
    }

    libbpf_set_print(libbpf_quiet);
    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    // A closed output pipe must end in an error line and the summary, not a silent SIGPIPE death.
    signal(SIGPIPE, SIG_IGN);

    Session session(options, std::move(*target), memory, out);
    if (auto status = session.load_and_attach(); !status) {
        error_line(status.error().message);
        return 1;
    }
    session.sync_threads(true);
    session.sync_region();
    session.sync_thread_context_tls();
    if (!options.ready_file.empty()) {
        if (auto status = write_ready_file(options.ready_file); !status) {
            error_line(status.error().message);
            return 1;
        }
    }
    return session.run();
}

}  // namespace vtscope
