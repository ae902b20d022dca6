// SPDX-License-Identifier: Apache-2.0
#include "sources/syscall_source.h"

#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <cstring>
#include <map>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include "output/event_format.h"
#include "output/namespace_fields.h"
#include "otlp/otlp_exporter.h"
#include "output/report.h"
#include "output/sinks.h"
#include "syscalls.skel.h"
#include "core/tracefs.h"

namespace vtscope {
namespace {

struct SkeletonDeleter {
    void operator()(syscalls_bpf* skel) const { syscalls_bpf__destroy(skel); }
};

struct Syscall {
    std::string name;
    int nargs;  // arguments its tracepoint record carries
};

class SyscallSource final : public EventSource {
public:
    SyscallSource(const TraceOptions& options, SyscallSink sink, std::vector<Syscall> syscalls, OutputFile& output,
                  std::unique_ptr<OtlpSession> otlp, SourceObserver* observer)
        : options_(options),
          sink_(sink),
          syscalls_(std::move(syscalls)),
          output_(output),
          otlp_(std::move(otlp)),
          observer_(observer) {}

    Status open(const AttributionCore& core) {
        namespace_fields_.emplace(core.target().pid, core.target().ns_pid);
        skel_.reset(syscalls_bpf__open());
        if (!skel_) return make_error(std::string("cannot open the BPF object: ") + std::strerror(errno));
        core.configure(skel_->obj, &skel_->rodata->attribution_config);
        report_.keep_traces = kept_entries(options_.top);
        // Size for the sink: the ring buffer for JSON lines, the count tables for counts; the
        // other one is left at its minimum.
        bool counts = sink_ == SyscallSink::kCounts;
        if (counts)
            bpf_map__set_max_entries(skel_->maps.events, static_cast<uint32_t>(sysconf(_SC_PAGESIZE)));
        else
            for (bpf_map* table : {skel_->maps.stats0, skel_->maps.stats1}) bpf_map__set_max_entries(table, 1);
        for (int n = 0; n <= 3; n++) bpf_program__set_autoload(program(n, !counts), false);
        if (int err = syscalls_bpf__load(skel_.get())) return load_error(err, command());
        if (counts) {
            tables_.emplace(
                skel_->maps.stats0, skel_->maps.stats1, &skel_->bss->stats_generation,
                [this](std::span<const uint8_t> key, std::span<const uint8_t> value) { count(key, value); });
            return ok_status();
        }
        auto ring = RingBufferReader::open(skel_->maps.events, [this](std::span<const uint8_t> r) { write_event(r); });
        if (!ring) return ring.error();
        ring_ = std::move(*ring);
        return ok_status();
    }

    bpf_object* object() override { return skel_->obj; }

    Status attach(Links& links) override {
        if (sink_ == SyscallSink::kJsonLines)
            if (auto status = attach_flush_timers(links); !status) return status;
        for (size_t i = 0; i < syscalls_.size(); i++) {
            LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = i);
            std::string name = "sys_enter_" + syscalls_[i].name;
            bpf_program* prog = program(syscalls_[i].nargs, sink_ == SyscallSink::kCounts);
            bpf_link* link = bpf_program__attach_tracepoint_opts(prog, "syscalls", name.c_str(), &opts);
            if (!link) return attach_error("tracepoint syscalls:" + name);
            links.emplace_back(link);
        }
        return ok_status();
    }

    Status poll(std::chrono::milliseconds timeout) override {
        if (ring_) return ring_->poll(timeout);
        std::this_thread::sleep_for(timeout);
        return ok_status();
    }

    void sync() override {
        if (tables_) tables_->rotate();
        if (tables_ && otlp_ && ++sync_rounds_ % 4 == 0) publish_totals();  // every second
    }

    void finish() override {
        if (ring_) {
            ring_->drain();
            drain_staging();
        }
        if (tables_) {
            tables_->drain_all();  // after the detach: nothing writes them any more
            output_.write(render_report(report_, options_.top));
        }
        if (otlp_) {
            if (tables_) publish_totals();
            otlp_->shutdown();  // sends what is queued, for at most --otlp-timeout
        }
        output_.flush();
    }

    int output_error() const override { return output_.error(); }

    void summarise(Summary& summary) const override {
        for (unsigned s = 0; s < VTSCOPE_STATUS_COUNT; s++) summary.delivered[s] = delivered_[s];
        for (unsigned r = 0; r < VTSCOPE_REASON_COUNT; r++) summary.reasons[r] = reasons_[r];
        summary.lost_cause = sink_ == SyscallSink::kCounts ? "the stat table was full (65536 distinct thread/trace/"
                                                             "syscall keys between two drains, 250 ms apart)"
                                                           : "the ring buffer was full";
        if (otlp_) otlp_->summarise(summary);
    }

private:
    const char* command() const { return sink_ == SyscallSink::kCounts ? "stat" : "trace"; }

    // The program that reads `nargs` arguments (at most 3) for the sink.
    bpf_program* program(int nargs, bool counts) const {
        bpf_program* trace[] = {skel_->progs.on_sys_enter_0, skel_->progs.on_sys_enter_1, skel_->progs.on_sys_enter_2,
                                skel_->progs.on_sys_enter_3};
        bpf_program* stat[] = {skel_->progs.on_sys_enter_stat_0, skel_->progs.on_sys_enter_stat_1,
                               skel_->progs.on_sys_enter_stat_2, skel_->progs.on_sys_enter_stat_3};
        int n = nargs < 0 ? 0 : nargs > 3 ? 3 : nargs;
        return counts ? stat[n] : trace[n];
    }

    // The name behind an attach cookie (an index into --syscalls).
    const std::string& syscall_name(uint32_t index) const {
        static const std::string unknown = "?";
        return index < syscalls_.size() ? syscalls_[index].name : unknown;
    }

    static unsigned clamp_status(unsigned status) {
        return status < VTSCOPE_STATUS_COUNT ? status : unsigned{VTSCOPE_STATUS_INVALID};
    }

    // A record holds one to VTSCOPE_SYSCALL_BATCH events (syscalls.bpf.c stages them per CPU).
    void write_event(std::span<const uint8_t> record) {
        for (size_t at = 0; at + sizeof(vtscope_syscall_event) <= record.size(); at += sizeof(vtscope_syscall_event)) {
            vtscope_syscall_event event;
            std::memcpy(&event, record.data() + at, sizeof(event));
            delivered_[clamp_status(event.attribution.status)]++;
            if (event.attribution.reason < VTSCOPE_REASON_COUNT) reasons_[event.attribution.reason]++;
            line_.clear();  // one buffer for every line: no allocation per event
            ns_fields_.clear();
            namespace_fields_->append(ns_fields_, event.tid);
            append_syscall_event(line_, event, syscall_name(event.syscall_index), ns_fields_);
            line_.push_back('\n');
            output_.write(line_);
            if (otlp_) otlp_->logs()->offer(event);  // queued or counted dropped, never waits
        }
    }

    // One software clock per CPU that flushes that CPU's partial batch every 50 ms, so an event
    // never waits longer than that for a full batch.
    Status attach_flush_timers(Links& links) {
        int ncpu = libbpf_num_possible_cpus();
        if (ncpu <= 0) return make_error("cannot count the CPUs: " + std::string(std::strerror(-ncpu)));
        for (int cpu = 0; cpu < ncpu; cpu++) {
            perf_event_attr attr{};
            attr.size = sizeof(attr);
            attr.type = PERF_TYPE_SOFTWARE;
            attr.config = PERF_COUNT_SW_CPU_CLOCK;
            attr.sample_period = 50'000'000;  // ns of this CPU's clock
            int fd = static_cast<int>(syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
            if (fd < 0) {
                if (errno == ENODEV) continue;  // a possible CPU that is not online
                return attach_error("the flush timer (perf event cpu-clock) on CPU " + std::to_string(cpu));
            }
            bpf_link* link = bpf_program__attach_perf_event(skel_->progs.on_flush_timer, fd);
            if (!link) {
                close(fd);
                return attach_error("the flush timer on CPU " + std::to_string(cpu));
            }
            links.emplace_back(link);  // destroying the link closes the perf event
        }
        return ok_status();
    }

    // After the detach: the events still staged on each CPU (no program writes them any more).
    void drain_staging() {
        int ncpu = libbpf_num_possible_cpus();
        if (ncpu <= 0) return;
        size_t value_size = (bpf_map__value_size(skel_->maps.staging) + 7) / 8 * 8;
        std::vector<uint8_t> values(value_size * static_cast<size_t>(ncpu));
        uint32_t zero = 0;
        if (bpf_map_lookup_elem(bpf_map__fd(skel_->maps.staging), &zero, values.data()) != 0) return;
        for (int cpu = 0; cpu < ncpu; cpu++) {
            const uint8_t* value = values.data() + value_size * static_cast<size_t>(cpu);
            uint32_t count = 0;
            std::memcpy(&count, value, sizeof(count));
            count = std::min<uint32_t>(count, VTSCOPE_SYSCALL_BATCH);
            write_event({value + 8, count * sizeof(vtscope_syscall_event)});
        }
    }

    // stat --otlp: the cumulative sums so far to the exporter, with the trace contexts that made
    // the most calls of each point since the last export as its exemplars.
    void publish_totals() {
        std::vector<SyscallTotals> points;
        for (auto& [key, t] : totals_) {
            const std::string& syscall = syscall_name(key.first);
            points.push_back({syscall, status_name(key.second), t.calls,
                              syscall_has_count(syscall) ? std::optional<uint64_t>(t.bytes) : std::nullopt,
                              t.exemplars.take(kExemplarsPerPoint)});
        }
        otlp_->metrics()->publish(syscall_metrics(points));
    }

    // Moves one count into the report (the form `vtscope report` reads from a trace file, so
    // both print the same report).
    void count(std::span<const uint8_t> key_bytes, std::span<const uint8_t> value_bytes) {
        vtscope_stat_key key;
        vtscope_stat_value total;
        if (key_bytes.size() != sizeof(key) || value_bytes.size() != sizeof(total)) return;
        std::memcpy(&key, key_bytes.data(), sizeof(key));
        std::memcpy(&total, value_bytes.data(), sizeof(total));
        if (total.calls == 0) return;
        unsigned status = clamp_status(key.status);
        delivered_[status] += total.calls;
        const std::string& syscall = syscall_name(key.syscall_index);
        // vtscope top reads the counts through its observer and never writes stat's report, whose
        // upkeep was its largest CPU cost (14% of top's own at 10,000 syscalls a second).
        if (observer_) {
            observer_->on_syscalls(key, total.calls, syscall_has_count(syscall) ? total.arg2_sum : 0);
            return;
        }
        bool ok = status == VTSCOPE_STATUS_OK;
        if (otlp_) {
            Totals& t = totals_[{key.syscall_index, status}];
            t.calls += total.calls;
            t.bytes += total.arg2_sum;
            if (ok) {
                TraceId trace;
                std::memcpy(trace.data(), key.trace_id, trace.size());
                t.exemplars.add(trace, std::nullopt, static_cast<double>(total.calls), unix_now_ns());
            }
        }
        add_to_report(report_, status_name(status), ok ? hex_string(key.trace_id, sizeof(key.trace_id)) : "", syscall,
                      total.calls,
                      ok && syscall_has_count(syscall) ? std::optional<uint64_t>(total.arg2_sum) : std::nullopt,
                      ok && key.mounted_virtual ? std::optional<int64_t>(key.java_id) : std::nullopt);
    }

    const TraceOptions& options_;
    const SyscallSink sink_;
    const std::vector<Syscall> syscalls_;
    OutputFile& output_;
    std::unique_ptr<syscalls_bpf, SkeletonDeleter> skel_;
    std::unique_ptr<RingBufferReader> ring_;  // JSON lines
    std::optional<CountTables> tables_;       // counts
    ReportData report_;                       // counts: drained so far
    uint64_t delivered_[VTSCOPE_STATUS_COUNT] = {};
    uint64_t reasons_[VTSCOPE_REASON_COUNT] = {};  // trace only: stat's keys carry no reason
    std::string line_;                             // JSON lines: the line being formatted
    std::string ns_fields_;                        // and its ns_pid and ns_tid, for a target in a container
    std::optional<NamespaceFields> namespace_fields_;
    std::unique_ptr<OtlpSession> otlp_;  // --otlp
    SourceObserver* observer_;           // vtscope top
    struct Totals {
        uint64_t calls = 0;
        uint64_t bytes = 0;
        ExemplarReservoir exemplars;  // since the last export
    };
    std::map<std::pair<uint32_t, unsigned>, Totals> totals_;  // stat --otlp: by syscall and status since start
    unsigned sync_rounds_ = 0;
};

}  // namespace

Expected<std::unique_ptr<EventSource>> open_syscall_source(const TraceOptions& options, SyscallSink sink,
                                                           const AttributionCore& core, OutputFile& output,
                                                           SourceObserver* observer) {
    auto tracefs = find_tracefs();
    if (!tracefs) return tracefs.error();
    std::vector<Syscall> syscalls;
    for (const std::string& name : options.syscalls) {
        if (!syscall_tracepoint_exists(*tracefs, name))
            return make_error("unknown syscall '" + name + "' (no tracepoint syscalls:sys_enter_" + name + ")");
        auto nargs = syscall_argument_count(*tracefs, name);
        if (!nargs) return make_error("cannot read the format of tracepoint syscalls:sys_enter_" + name);
        syscalls.push_back({name, *nargs});
    }
    std::vector<std::string> names;
    for (const Syscall& s : syscalls) names.push_back(s.name);
    OtlpSession::Signals signals;
    signals.logs = sink == SyscallSink::kJsonLines;
    signals.metrics = sink == SyscallSink::kCounts;
    auto otlp = OtlpSession::start(options.otlp, options.pid, signals, names);
    if (!otlp) return otlp.error();
    auto source =
        std::make_unique<SyscallSource>(options, sink, std::move(syscalls), output, std::move(*otlp), observer);
    if (auto status = source->open(core); !status) return status.error();
    return std::unique_ptr<EventSource>(std::move(source));
}

}  // namespace vtscope
