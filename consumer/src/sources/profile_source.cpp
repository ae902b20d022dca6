// SPDX-License-Identifier: Apache-2.0
#include "sources/profile_source.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <tuple>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "../../bpf/profile.h"
#include "output/event_format.h"
#include "output/flamegraph.h"
#include "otlp/otlp_exporter.h"
#include "profile.skel.h"
#include "process/proc_stat.h"
#include "core/profile_model.h"
#include "output/folded_stacks.h"
#include "output/profile_json.h"
#include "output/profile_text.h"
#include "output/sinks.h"
#include "symbols/jvm_stacks.h"
#include "output/diagnostics.h"

namespace vtscope {
namespace {

struct SkeletonDeleter {
    void operator()(profile_bpf* skel) const { profile_bpf__destroy(skel); }
};

constexpr uint32_t kStackEntries = 16384;
constexpr uint32_t kStackNotKept = UINT32_MAX;  // a new stack past kMaxProfileStacks

int perf_event_open(perf_event_attr* attr, pid_t pid, int cpu) {
    return static_cast<int>(syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

perf_event_attr sample_attr(uint32_t type, uint64_t config, int hz) {
    perf_event_attr attr{};
    attr.size = sizeof(attr);
    attr.type = type;
    attr.config = config;
    attr.freq = 1;
    attr.sample_freq = static_cast<uint64_t>(hz);
    return attr;
}

// A number in a /proc/sys file, or nullopt.
std::optional<uint64_t> read_sysctl_number(const char* path) {
    std::ifstream f(path);
    uint64_t value = 0;
    if (!(f >> value)) return std::nullopt;
    return value;
}

// --per-thread holds a perf event and its BPF link per thread of the target: the soft limit of
// open files (often 1,024) goes up to the hard one, as far as this process may take it.
void raise_open_files_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
}

std::string read_comm(pid_t pid, uint32_t tid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
    std::string name;
    std::getline(f, name);
    return name;
}

class ProfileSource final : public EventSource {
public:
    ProfileSource(const ProfileOptions& options, const Target& target, ProfileOutputs outputs,
                  std::unique_ptr<OtlpSession> otlp, SourceObserver* observer)
        : options_(options),
          target_(target),
          output_(outputs.report),
          folded_(std::move(outputs.folded)),
          flamegraph_(std::move(outputs.flamegraph)),
          stacks_(target),
          otlp_(std::move(otlp)),
          observer_(observer) {}

    Status open(const AttributionCore& core) {
        skel_.reset(profile_bpf__open());
        if (!skel_) return make_error(std::string("cannot open the BPF object: ") + std::strerror(errno));
        core.configure(skel_->obj, &skel_->rodata->attribution_config);
        skel_->rodata->collect_stacks = options_.stacks ? 1 : 0;
        for (bpf_map* map : {skel_->maps.stacks0, skel_->maps.stacks1})
            bpf_map__set_max_entries(map, options_.stacks ? kStackEntries : 1);
        if (int err = profile_bpf__load(skel_.get())) return load_error(err, "profile");
        tables_.emplace(skel_->maps.samples0, skel_->maps.samples1, &skel_->bss->samples_generation,
                        [this](std::span<const uint8_t> key, std::span<const uint8_t> value) { count(key, value); });
        return ok_status();
    }

    bpf_object* object() override { return skel_->obj; }

    Status attach(Links& links) override {
        read_thread_names();
        if (options_.stacks) stacks_.prepare();
        int cpus = libbpf_num_possible_cpus();
        if (cpus <= 0) return make_error("cannot count the CPUs");
        // perf_event_open refuses a sample_freq above this sysctl with EINVAL (perf_event_open in
        // kernel/events/core.c), and the kernel lowers it by itself when samples take too long
        // (perf_sample_event_took): name it rather than an "Invalid argument".
        if (auto max_rate = read_sysctl_number("/proc/sys/kernel/perf_event_max_sample_rate");
            max_rate && static_cast<uint64_t>(options_.hz) > *max_rate)
            return make_error("--hz " + std::to_string(options_.hz) + " is above kernel.perf_event_max_sample_rate (" +
                              std::to_string(*max_rate) + ")");
        if (options_.per_thread) raise_open_files_limit();
        // Hardware cycles where there is a PMU; this VM has none, so the software cpu-clock.
        uint32_t type = PERF_TYPE_HARDWARE;
        uint64_t config = PERF_COUNT_HW_CPU_CYCLES;
        event_ = "cycles";
        {
            perf_event_attr probe = sample_attr(type, config, options_.hz);
            int fd = perf_event_open(&probe, -1, 0);
            if (fd < 0) {
                type = PERF_TYPE_SOFTWARE;
                config = PERF_COUNT_SW_CPU_CLOCK;
                event_ = "cpu-clock";
            } else {
                close(fd);
            }
        }
        int opened = 0;
        auto attach_event = [&](pid_t pid, int cpu, const std::string& what) -> Status {
            perf_event_attr attr = sample_attr(type, config, options_.hz);
            attr.inherit = pid != -1;  // threads the thread creates get the event (and program) too
            int fd = perf_event_open(&attr, pid, cpu);
            if (fd < 0) {
                if (errno == ENODEV || errno == ESRCH) return ok_status();  // an offline CPU, an exited thread
                std::string why = std::strerror(errno);
                if (errno == EMFILE && options_.per_thread)
                    why += " (--per-thread holds two descriptors per thread of the target: raise ulimit -n)";
                return make_error("cannot open the " + event_ + " perf event on " + what + ": " + why);
            }
            bpf_link* link = bpf_program__attach_perf_event(skel_->progs.on_cpu_sample, fd);
            if (!link) {
                int err = errno;
                close(fd);
                errno = err;
                return attach_error("the " + event_ + " perf event on " + what);
            }
            links.emplace_back(link);  // the link closes the perf event's fd when destroyed
            opened++;
            return ok_status();
        };
        if (!options_.per_thread) {
            // One event per CPU (the default): nothing is added to the target's own context
            // switches, and the program drops other processes' samples at its first compare.
            for (int cpu = 0; cpu < cpus; cpu++)
                if (auto status = attach_event(-1, cpu, "CPU " + std::to_string(cpu)); !status) return status;
        } else {
            // --per-thread: one event per thread of the target, counting that thread's own CPU
            // time, so its samples fall every 1/hz of that time however often it is preempted.
            // Threads started later inherit the event of their creator. A task-bound sampling
            // event is switched out and in with its task (perf_event_task_sched_out/in,
            // kernel/events/core.c), and a software cpu-clock one then cancels and restarts its
            // hrtimer (cpu_clock_event_del/add), which reprograms the timer hardware: on a
            // switch-heavy service that costs the target several percent of CPU (bench/RESULTS.md).
            for (uint32_t tid : list_tasks())
                if (auto status = attach_event(static_cast<pid_t>(tid), -1, "thread " + std::to_string(tid)); !status)
                    return status;
        }
        if (opened == 0)
            return make_error(options_.per_thread ? "no thread of the target to sample" : "no online CPU to sample");
        started_ = std::chrono::steady_clock::now();
        cpu_at_start_ = read_proc_stat();
        return ok_status();
    }

    Status poll(std::chrono::milliseconds timeout) override {
        std::this_thread::sleep_for(timeout);
        return ok_status();
    }

    void sync() override {
        // The drained table's stack map is emptied before the table is written again.
        tables_->rotate([this] {
            uint32_t generation = __atomic_load_n(&skel_->bss->samples_generation, __ATOMIC_RELAXED);
            if (options_.stacks) clear_stack_map((generation & 1) ? 0 : 1);
        });
        round_++;
        if (otlp_ && round_ % 4 == 0) publish_cpu_time();  // every second
        if (options_.stacks) stacks_.sync_round();
    }

    void finish() override {
        stopped_ = std::chrono::steady_clock::now();
        cpu_at_stop_ = read_proc_stat();
        tables_->drain_all();  // after the detach: nothing writes them any more
        if (options_.stacks) stacks_.finish();
        if (otlp_) publish_cpu_time();
        build_rows();
        if (otlp_) {
            if (otlp_->profiles()) publish_profile();
            otlp_->shutdown();  // sends what is queued, for at most --otlp-timeout
        }
        output_.write(render_profile_text(rows_, info()));
        output_.flush();
        if (folded_ || flamegraph_) {
            std::vector<FoldedStack> folded = fold_stacks(rows_, info());
            if (folded_) write_to(*folded_, options_.folded, render_folded(folded));
            if (flamegraph_)
                write_to(*flamegraph_, options_.flamegraph,
                         render_flamegraph_svg(folded, "vtscope profile: CPU of pid " + std::to_string(target_.pid) +
                                                           " per " + options_.by + " (" + event_ + ", " +
                                                           std::to_string(options_.hz) + " Hz)"));
        }
    }

    int output_error() const override { return output_.error() ? output_.error() : file_error_; }

    void summarise(Summary& summary) const override {
        for (unsigned s = 0; s < VTSCOPE_STATUS_COUNT; s++) summary.delivered[s] = delivered_[s];
        summary.lost_cause =
            "the sample table was full (65536 distinct thread/trace/span/stack keys between two drains, "
            "250 ms apart)";
        summary.section_name = "profile";
        summary.section_json = render_profile_json(rows_, info());
        if (otlp_) otlp_->summarise(summary);
    }

private:
    // What the samples are summed under in user space: the attribution and the interned stacks.
    struct SampleKey {
        uint32_t tid = 0;
        int64_t java_id = 0;
        uint8_t status = 0, reason = 0;
        bool mounted_virtual = false, user_stack_lost = false, kernel_stack_lost = false;
        std::array<uint8_t, 16> trace_id{};
        std::array<uint8_t, 8> span_id{};
        uint32_t user_stack = 0, kernel_stack = 0;
        auto tie() const {
            return std::tie(tid, java_id, status, reason, mounted_virtual, user_stack_lost, kernel_stack_lost, trace_id,
                            span_id, user_stack, kernel_stack);
        }
        bool operator<(const SampleKey& other) const { return tie() < other.tie(); }
    };

    // profile --otlp-profiles: every row (attribution and symbolised stack) as one sample.
    void publish_profile() {
        const uint64_t period_ns = static_cast<uint64_t>(1e9 / options_.hz);
        std::string id = random_uuid();
        id.erase(std::remove(id.begin(), id.end(), '-'), id.end());  // 16 random bytes as hex
        otlp_->profiles()->publish([rows = rows_, period_ns, id](const std::vector<OtlpAttribute>& resource,
                                                                 uint64_t start_ns, uint64_t now_ns) {
            using Request = opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest;
            return std::make_unique<Request>(encode_profiles_request(resource, rows, period_ns, start_ns, now_ns, id));
        });
    }

    // The CPU time of samples: cpu-clock counts nanoseconds, so the periods are the CPU time;
    // cycles are not, so there each sample stands for 1/hz of it.
    uint64_t cpu_ns(uint64_t samples, uint64_t period_sum) const {
        return event_ == "cpu-clock" ? period_sum : samples * static_cast<uint64_t>(1e9 / options_.hz);
    }

    // profile --otlp: the CPU time so far by attribution status (the service is the resource),
    // and the trace contexts that used most of it since the last export as exemplars.
    void publish_cpu_time() {
        OtlpMetric metric{"vtscope.cpu.time", "s",
                          "CPU time of the target's threads (samples x period), by attribution status",
                          OtlpMetric::Kind::kDoubleSum};
        for (unsigned status = 0; status < VTSCOPE_STATUS_COUNT; status++) {
            if (cpu_by_status_[status].samples == 0) continue;
            OtlpDataPoint p;
            p.attributes.push_back(OtlpAttribute::string("vtscope.status", status_name(status)));
            p.as_double =
                static_cast<double>(cpu_ns(cpu_by_status_[status].samples, cpu_by_status_[status].period_sum)) / 1e9;
            p.exemplars = cpu_exemplars_[status].take(kExemplarsPerPoint);
            metric.points.push_back(std::move(p));
        }
        otlp_->metrics()->publish({std::move(metric)});
    }

    std::vector<uint32_t> list_tasks() const {
        std::vector<uint32_t> tids;
        std::string dir = "/proc/" + std::to_string(target_.pid) + "/task";
        if (DIR* d = opendir(dir.c_str())) {
            while (dirent* e = readdir(d))
                if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
                    tids.push_back(static_cast<uint32_t>(std::strtoul(e->d_name, nullptr, 10)));
            closedir(d);
        }
        return tids;
    }

    void read_thread_names() {
        for (uint32_t tid : list_tasks()) names_[tid] = read_comm(target_.pid, tid);
    }

    // One drained count: added to the totals of its attribution and stacks. The stacks are read
    // now, from the stack map of the count's generation, which is emptied right after. A count
    // that needs a row or a stack over the bounds (core/profile_model.h) is counted as not kept.
    void count(std::span<const uint8_t> key_bytes, std::span<const uint8_t> value_bytes) {
        vtscope_profile_key key;
        vtscope_profile_value value;
        if (key_bytes.size() != sizeof(key) || value_bytes.size() != sizeof(value)) return;
        std::memcpy(&key, key_bytes.data(), sizeof(key));
        std::memcpy(&value, value_bytes.data(), sizeof(value));
        if (value.samples == 0) return;
        unsigned status = key.status < VTSCOPE_STATUS_COUNT ? key.status : unsigned{VTSCOPE_STATUS_INVALID};
        delivered_[status] += value.samples;
        if (observer_) observer_->on_samples(key, value.samples, cpu_ns(value.samples, value.period_sum));
        if (!names_.count(key.tid) && names_.size() < kMaxProfileThreadNames)
            names_[key.tid] = read_comm(target_.pid, key.tid);
        if (otlp_) count_for_otlp(key, value, status);
        SampleKey k = attribution_key(key, status);
        vtscope_profile_value* total = intern_stacks(key, k) ? bounded_slot(totals_, k, kMaxProfileRows) : nullptr;
        if (!total) {
            samples_not_kept_ += value.samples;
            return;
        }
        total->samples += value.samples;
        total->period_sum += value.period_sum;
    }

    SampleKey attribution_key(const vtscope_profile_key& key, unsigned status) const {
        SampleKey k;
        k.tid = key.tid;
        k.java_id = key.java_id;
        k.status = static_cast<uint8_t>(status);
        k.reason = key.reason < VTSCOPE_REASON_COUNT ? key.reason : 0;
        k.mounted_virtual = key.mounted_virtual != 0;
        std::memcpy(k.trace_id.data(), key.trace_id, sizeof(key.trace_id));
        std::memcpy(k.span_id.data(), key.span_id, sizeof(key.span_id));
        // -EFAULT: no such stack (a kernel stack of a sample taken in user mode, say:
        // __bpf_get_stackid, kernel/bpf/stackmap.c); anything else negative: taken, not stored.
        auto lost = [&](int32_t id) { return options_.stacks && id < 0 && id != -EFAULT; };
        k.user_stack_lost = lost(key.user_stack_id);
        k.kernel_stack_lost = lost(key.kernel_stack_id);
        return k;
    }

    // Fills k's interned stacks; false when one of them is new and the stack table full.
    bool intern_stacks(const vtscope_profile_key& key, SampleKey& k) {
        size_t interned = interned_.size();
        k.user_stack = read_stack(key.generation, key.user_stack_id);
        if (k.user_stack == kStackNotKept) return false;
        // A new stack's JIT frames may need a fresher perf map; its names are read at the end.
        if (interned_.size() > interned) stacks_.note_user_stack(interned_[k.user_stack]);
        k.kernel_stack = read_stack(key.generation, key.kernel_stack_id);
        return k.kernel_stack != kStackNotKept;
    }

    void count_for_otlp(const vtscope_profile_key& key, const vtscope_profile_value& value, unsigned status) {
        cpu_by_status_[status].samples += value.samples;
        cpu_by_status_[status].period_sum += value.period_sum;
        if (status != VTSCOPE_STATUS_OK) return;
        TraceId trace;
        SpanId span;
        std::memcpy(trace.data(), key.trace_id, trace.size());
        std::memcpy(span.data(), key.span_id, span.size());
        cpu_exemplars_[status].add(trace, span, static_cast<double>(cpu_ns(value.samples, value.period_sum)) / 1e9,
                                   unix_now_ns());
    }

    // The interned stack (index into interned_, 0: none) of a stack id of the given map;
    // kStackNotKept for a new stack when kMaxProfileStacks are interned.
    uint32_t read_stack(unsigned generation, int32_t id) {
        if (id < 0 || !options_.stacks) return 0;
        bpf_map* map = generation ? skel_->maps.stacks1 : skel_->maps.stacks0;
        std::vector<uint64_t> ips(VTSCOPE_PROFILE_STACK_DEPTH, 0);
        if (bpf_map_lookup_elem(bpf_map__fd(map), &id, ips.data()) != 0) return 0;
        while (!ips.empty() && ips.back() == 0) ips.pop_back();
        if (ips.empty()) return 0;
        if (auto it = stack_index_.find(ips); it != stack_index_.end()) return it->second;
        if (interned_.size() > kMaxProfileStacks) return kStackNotKept;  // index 0 is "no stack"
        uint32_t index = static_cast<uint32_t>(interned_.size());
        stack_index_.emplace(ips, index);
        interned_.push_back(std::move(ips));
        return index;
    }

    void clear_stack_map(unsigned generation) {
        int fd = bpf_map__fd(generation ? skel_->maps.stacks1 : skel_->maps.stacks0);
        std::vector<uint32_t> ids;
        uint32_t id = 0;
        for (int err = bpf_map_get_next_key(fd, nullptr, &id); err == 0; err = bpf_map_get_next_key(fd, &id, &id))
            ids.push_back(id);
        for (uint32_t i : ids) bpf_map_delete_elem(fd, &i);
    }

    void build_rows() {
        rows_.clear();
        stack_errors_ = 0;
        std::unordered_map<uint64_t, std::string> user_names, kernel_names;
        for (const auto& [key, total] : totals_) {
            ProfileRow row;
            row.tid = key.tid;
            row.java_id = key.java_id;
            row.mounted_virtual = key.mounted_virtual;
            row.status = key.status;
            row.reason = key.reason;
            if (row.status == VTSCOPE_STATUS_OK) {
                row.trace_id = hex_string(key.trace_id.data(), key.trace_id.size());
                row.span_id = hex_string(key.span_id.data(), key.span_id.size());
            }
            row.samples = total.samples;
            row.cpu_ns = cpu_ns(total.samples, total.period_sum);
            if (options_.stacks) {
                row.stack_lost = key.user_stack_lost || key.kernel_stack_lost;
                if (row.stack_lost) stack_errors_ += total.samples;
                if (key.user_stack)
                    for (auto ip = interned_[key.user_stack].rbegin(); ip != interned_[key.user_stack].rend(); ++ip) {
                        auto [name, fresh] = user_names.try_emplace(*ip);
                        if (fresh) name->second = stacks_.symbolizer().user_frame(*ip);
                        row.frames.push_back(name->second);
                    }
                bool complete = false;
                for (const std::string& f : row.frames) complete = complete || is_entry_frame(f);
                row.truncated = row.mounted_virtual && !row.frames.empty() && !complete;
                // A part the kernel did not store is named where it would be, never left out unsaid.
                if (key.user_stack_lost) row.frames.insert(row.frames.begin(), "[user stack lost]");
                if (key.kernel_stack)
                    for (auto ip = interned_[key.kernel_stack].rbegin(); ip != interned_[key.kernel_stack].rend();
                         ++ip) {
                        auto [name, fresh] = kernel_names.try_emplace(*ip);
                        if (fresh) name->second = stacks_.kernel_frame(*ip);
                        row.frames.push_back(name->second);
                    }
                if (key.kernel_stack_lost) row.frames.push_back("[kernel stack lost]");
            }
            rows_.push_back(std::move(row));
        }
    }

    ProfileInfo info() const {
        ProfileInfo i;
        i.event = event_;
        i.sampling = options_.per_thread ? "per-thread" : "per-cpu";
        i.hz = options_.hz;
        i.seconds = std::chrono::duration<double>(stopped_ - started_).count();
        i.by = options_.by;
        i.top = options_.top;
        i.groups = options_.groups;
        i.merged = options_.merged;
        i.stacks = options_.stacks;
        i.thread_names = names_;
        i.warnings = stacks_.warnings();
        i.stack_errors = stack_errors_;
        i.samples_not_kept = samples_not_kept_;
        if (event_ == "cpu-clock" && cpu_at_start_ && cpu_at_stop_)
            i.steal_share = steal_share(*cpu_at_start_, *cpu_at_stop_);
        return i;
    }

    void write_to(OutputFile& file, const std::string& path, const std::string& text) {
        file.write(text);
        file.flush();
        if (!file.error()) return;
        if (!file_error_) file_error_ = file.error();
        diagnostics::error("cannot write " + path + ": " + std::strerror(file.error()));
    }

    const ProfileOptions& options_;
    const Target& target_;
    OutputFile& output_;
    std::unique_ptr<OutputFile> folded_, flamegraph_;  // --folded, --flamegraph
    JvmStacks stacks_;
    std::unique_ptr<profile_bpf, SkeletonDeleter> skel_;
    std::optional<CountTables> tables_;
    std::map<SampleKey, vtscope_profile_value> totals_;
    std::unique_ptr<OtlpSession> otlp_;                               // --otlp
    SourceObserver* observer_;                                        // vtscope top
    vtscope_profile_value cpu_by_status_[VTSCOPE_STATUS_COUNT] = {};  // --otlp: since the start
    ExemplarReservoir cpu_exemplars_[VTSCOPE_STATUS_COUNT];           // --otlp: since the last export
    std::vector<std::vector<uint64_t>> interned_ = {{}};              // index 0 is "no stack"
    std::map<std::vector<uint64_t>, uint32_t> stack_index_;
    std::map<uint32_t, std::string> names_;
    std::vector<ProfileRow> rows_;
    std::string event_ = "cpu-clock";
    std::chrono::steady_clock::time_point started_{}, stopped_{};
    std::optional<CpuTimes> cpu_at_start_, cpu_at_stop_;  // /proc/stat: the steal during the session
    uint64_t delivered_[VTSCOPE_STATUS_COUNT] = {};
    uint64_t stack_errors_ = 0;
    uint64_t samples_not_kept_ = 0;  // over kMaxProfileRows or kMaxProfileStacks
    int round_ = 0;
    int file_error_ = 0;
};

}  // namespace

Expected<std::unique_ptr<EventSource>> open_profile_source(const ProfileOptions& options, const Target& target,
                                                           const AttributionCore& core, ProfileOutputs outputs,
                                                           SourceObserver* observer) {
    OtlpSession::Signals signals;
    signals.metrics = true;
    signals.profiles = options.otlp_profiles;
    auto otlp = OtlpSession::start(options.otlp, target.pid, signals);
    if (!otlp) return otlp.error();
    if (options.otlp_profiles && !*otlp)
        return make_error("--otlp-profiles: no OTLP endpoint (--otlp URL or OTEL_EXPORTER_OTLP_ENDPOINT)");
    auto source = std::make_unique<ProfileSource>(options, target, std::move(outputs), std::move(*otlp), observer);
    if (auto status = source->open(core); !status) return status.error();
    return std::unique_ptr<EventSource>(std::move(source));
}

}  // namespace vtscope
