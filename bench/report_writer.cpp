// SPDX-License-Identifier: Apache-2.0
// results.md, results.json and the figure of vtscope-bench, from the cells of the matrix, the
// write storm and the native memory runs.
#include "report_writer.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "stats.h"
#include "svg_plot.h"

namespace vtscope::bench {

namespace fs = std::filesystem;

std::string fmt(double v, int decimals) {
    if (std::isnan(v)) return "–";
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    return buf;
}

OrderedJson json_fixed(double v, int decimals) {
    if (std::isnan(v)) return nullptr;
    return std::strtod(fmt(v, decimals).c_str(), nullptr);
}

OrderedJson json_fixed_list(const std::vector<double>& v, int decimals) {
    OrderedJson list = OrderedJson::array();
    for (double x : v) list.push_back(json_fixed(x, decimals));
    return list;
}

OrderedJson json_summary(const Summary& s, int decimals) {
    return {{"n", s.n},
            {"mean", s.n ? json_fixed(s.mean, decimals) : OrderedJson()},
            {"error", s.n > 1 ? json_fixed(s.error, decimals) : OrderedJson()}};
}

std::string fmt_signed(double v, int decimals) {
    if (std::isnan(v)) return "–";
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%+.*f", decimals, v);
    return buf;
}

int decimals_for(double error) {
    if (std::isnan(error) || error <= 0) return 1;
    int d = 1 - static_cast<int>(std::floor(std::log10(error)));
    return std::clamp(d, 0, 3);
}

std::string diff_text(const Difference& d) {
    int dec = decimals_for(d.error);
    return fmt_signed(d.value, dec) + " ± " + fmt(d.error, dec) + (d.significant ? "" : " (n.s.)");
}

namespace {

struct Report {
    const std::map<std::string, Cell>* cells;
    const Cell* find(const std::string& key) const {
        auto it = cells->find(key);
        return it == cells->end() || it->second.samples.size() < 2 ? nullptr : &it->second;
    }
    std::optional<Difference> diff(const std::string& a, const std::string& b) const {
        const Cell *x = find(a), *y = find(b);
        if (!x || !y) return std::nullopt;
        return difference(x->summary.mean, x->summary.error, y->summary.mean, y->summary.error);
    }
    // Transitions per operation of a transition workload: measured by the registered variant.
    double transitions(const std::string& workload) const {
        std::string counter =
            workload == "transition" || workload == "vtt-transition" ? "vtt-transition/vtt" : "vtt-parkunpark/vtt";
        auto it = cells->find(counter);
        if (it != cells->end() && !std::isnan(it->second.transitions_per_op)) return it->second.transitions_per_op;
        return workload.find("transition") != std::string::npos ? 20000.0 : NAN;  // 10,000 x (unmount + mount)
    }
    // A difference in the workload's unit, normalised: ns per transition / us per thread / ns per pair.
    std::string normalised(const Workload& w, const Difference& d) const {
        switch (w.norm) {
            case Norm::PerTransition: {
                double n = transitions(w.id);
                double k = 1000.0 / n;  // us/op -> ns per transition
                int dec = decimals_for(d.error * k);
                return fmt_signed(d.value * k, dec) + " ± " + fmt(d.error * k, dec) + " ns/transition";
            }
            case Norm::PerThread: {
                int dec = decimals_for(d.error / 1000);
                return fmt_signed(d.value / 1000, dec) + " ± " + fmt(d.error / 1000, dec) + " µs/thread";
            }
            case Norm::PerPair: {
                int dec = decimals_for(d.error);
                return fmt_signed(d.value, dec) + " ± " + fmt(d.error, dec) + " ns/pair";
            }
            case Norm::None: return "";
        }
        return "";
    }
};

std::string now_utc() {
    std::time_t t = std::time(nullptr);
    char buf[64];
    std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
    return buf;
}

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

std::string machine_description() {
    struct utsname uts {};
    uname(&uts);
    return std::to_string(std::thread::hardware_concurrency()) + " CPUs (" + cpu_model() + "), kernel " + uts.release;
}

// The write-storm runs the text and the targets compare.
struct StormRefs {
    const StormRun *none1 = nullptr, *empty1 = nullptr, *vt1 = nullptr, *vt2 = nullptr, *stat1 = nullptr,
                   *otlp1 = nullptr;
};

StormRefs find_storm_refs(const std::vector<StormRun>& storm) {
    StormRefs refs;
    for (const auto& r : storm) {
        if (r.threads == 1 && r.mode == "vtscope-stat") refs.stat1 = &r;
        if (r.threads == 1 && r.mode == "none") refs.none1 = &r;
        if (r.threads == 1 && r.mode == "empty-bpf") refs.empty1 = &r;
        if (r.threads == 1 && r.mode == "vtscope") refs.vt1 = &r;
        if (r.threads == 2 && r.mode == "vtscope") refs.vt2 = &r;
        if (r.threads == 1 && r.mode == "vtscope-otlp") refs.otlp1 = &r;
    }
    return refs;
}

// The title lines and the table of configurations.
void write_header(std::ostream& md, const Options& o, const std::string& machine, const std::string& jdk,
                  double elapsed) {
    std::string settings_line = "forks " + std::to_string(o.forks) + " (child JVMs, JMH -f 0 in each), warm-up " +
                                std::to_string(o.warmup_iterations) + " x " + o.warmup_time + ", measurement " +
                                std::to_string(o.iterations) + " x " + o.iteration_time + ", heap " + o.heap;
    md << "# vtscope benchmark matrix\n\n";
    md << "- date: " << now_utc() << "\n- machine: " << machine << "\n- JDK: " << jdk
       << "\n- settings: " << settings_line
       << "\n- error: 99.9% confidence half-width (Student t, n-1 d.f.) over all measurement "
          "iterations of all forks; differences carry the quadrature error sqrt(e1²+e2²), n.s. when the interval "
          "contains zero\n- run time: "
       << fmt(elapsed, 0) << " s\n\n";
    md << "## Configurations\n\n| config | meaning | reference |\n| --- | --- | --- |\n";
    for (const auto& c : kConfigs) {
        auto it = kReference.find(c);
        md << "| `" << c << "` | " << kConfigMeaning.at(c) << " | " << (it == kReference.end() ? "–" : it->second)
           << " |\n";
    }
}

// One row per cell, with its differences to the reference and to baseline.
void write_cells(std::ostream& md, const Report& rep, const Matrix& matrix) {
    const auto& cells = matrix.cells;
    const auto& order = matrix.order;
    md << "\n## Results\n\n| workload | config | score | vs reference | rel. | normalised | vs baseline |\n"
          "| --- | --- | --- | --- | --- | --- | --- |\n";
    for (const auto& key : order) {
        const Cell& c = cells.at(key);
        const Workload& w = *c.workload;
        md << "| " << w.title << " | `" << c.config << "` | ";
        if (c.samples.size() < 2) {
            md << "failed: " << (c.errors.empty() ? "no samples" : c.errors.back()) << " | | | | |\n";
            continue;
        }
        int dec = decimals_for(c.summary.error);
        md << fmt(c.summary.mean, dec) << " ± " << fmt(c.summary.error, dec) << " " << c.unit << " | ";
        std::string ref_key;
        if (!w.reference.empty())
            ref_key = w.reference;
        else if (auto it = kReference.find(c.config); it != kReference.end())
            ref_key = w.id + "/" + it->second;
        if (auto d = ref_key.empty() ? std::nullopt : rep.diff(key, ref_key)) {
            md << diff_text(*d) << " vs `" << ref_key.substr(ref_key.find('/') + 1)
               << (w.reference.empty() ? "" : "` (" + ref_key.substr(0, ref_key.find('/')) + ")")
               << (w.reference.empty() ? "`" : "") << " | " << fmt_signed(d->relative * 100, 1) << "% | "
               << rep.normalised(w, *d);
            if (c.config == "probes+consumer" && w.norm != Norm::None) {
                double events = w.norm == Norm::PerThread ? 4000 : rep.transitions(w.id);
                double k = 1000.0 / events;
                int dk = decimals_for(d->error * k);
                md << "; " << fmt_signed(d->value * k, dk) << " ± " << fmt(d->error * k, dk) << " ns/probe event";
            }
            md << " | ";
        } else {
            md << "– | – | – | ";
        }
        std::string base_key = w.id + "/baseline";
        if (c.config != "baseline" && w.reference.empty()) {
            if (auto d = rep.diff(key, base_key))
                md << diff_text(*d) << " (" << fmt_signed(d->relative * 100, 1) << "%; " << rep.normalised(w, *d)
                   << ")";
        }
        md << " |\n";
    }
    md << "\nTransitions per operation (mount + unmount events of the registered variants, per op): Transition "
       << fmt(rep.transitions("transition"), 0) << ", Park/Unpark " << fmt(rep.transitions("parkunpark"), 0)
       << ". Probe events per op: the same for Transition and Park/Unpark; 4,000 for Churn (start, mount, unmount, "
          "end per thread).\n";
}

void write_consumers(std::ostream& md, const Matrix& matrix) {
    const auto& cells = matrix.cells;
    const auto& order = matrix.order;
    md << "\n## Consumers attached\n\n| cell | fork | attach (ms after JVM start) | late | events | ok | lost | "
          "lifecycle inserted/deleted | consumer CPU s |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for (const auto& key : order) {
        const Cell& c = cells.at(key);
        for (size_t i = 0; i < c.tracers.size(); i++) {
            const TracerSummary& t = c.tracers[i];
            md << "| " << key << " | " << i + 1 << " | " << fmt(t.attach_ms, 0) << " | " << (t.late ? "yes" : "no")
               << " | " << t.events << " | " << t.ok << " | " << t.lost << " | " << t.inserted << "/" << t.deleted
               << " | " << fmt(t.cpu_seconds, 2) << " |\n";
        }
    }
}

void write_storm(std::ostream& md, const Options& o, const std::vector<StormRun>& storm, const StormRefs& refs) {
    if (storm.empty()) return;
    auto [none1, empty1, vt1, vt2, stat1, otlp1] = refs;
    md << "\n## Per-event consumer cost (write storm)\n\n"
          "`io.vtscope.bench.WriteStorm`: N virtual threads, each with a context published, write 1 byte to "
          "/dev/null in a loop; "
       << o.storm_seconds * 2 << " intervals of 500 ms after a " << o.storm_warmup_ms / 1000
       << " s warm-up (the consumer attaches during it). ns/write is per thread "
          "(interval time x threads / writes). `empty-bpf`: bpftrace on the same tracepoint "
          "(`tracepoint:syscalls:sys_enter_write /pid == PID/ { }`). Consumer CPU: utime+stime from "
          "/proc/PID/stat over the measured intervals, divided by the writes in them (all attributed events); "
          "`vtscope trace --output /dev/null` still formats every event.\n\n"
          "With one writer the JVM runs on CPU 0 and the tracer on CPU 1 (`pinned`). BPF program ns/run: the "
          "kernel's run-time statistics (`bpf_enable_stats(BPF_STATS_RUN_TIME)`, run_time_ns / run_cnt of the "
          "program on sys_enter_write over the measured intervals), the program's own cost per syscall.\n\n"
          "| mode | threads | pinned | ns/write | writes/s | BPF program ns/run | consumer events | ok | lost | "
          "consumer CPU ns/event | consumer CPU share |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
          "--- |\n";
    for (const auto& r : storm) {
        bool vtscope_mode = r.mode == "vtscope" || r.mode == "vtscope-stat" || r.mode == "vtscope-otlp";
        int dec = decimals_for(r.ns_per_write.error);
        md << "| " << r.mode << " | " << r.threads << " | " << (r.pinned ? "yes" : "no") << " | "
           << fmt(r.ns_per_write.mean, dec) << " ± " << fmt(r.ns_per_write.error, dec) << " | "
           << fmt(r.writes_per_second, 0) << " | " << fmt(r.program_ns_per_run, 1) << " | "
           << (r.tracer.present && vtscope_mode ? std::to_string(r.tracer.events) : "–") << " | "
           << (vtscope_mode ? std::to_string(r.tracer.ok) : "–") << " | "
           << (vtscope_mode ? std::to_string(r.tracer.lost) : "–") << " | "
           << fmt(vtscope_mode ? r.consumer_cpu_ns_per_event : NAN, 0) << " | "
           << fmt(vtscope_mode ? r.consumer_cpu_share * 100 : NAN, 0) << (vtscope_mode ? "%" : "")
           << (r.error.empty() ? "" : " ERROR " + r.error) << " |\n";
    }
    if (none1 && empty1 && vt1) {
        Difference kernel = difference(vt1->ns_per_write.mean, vt1->ns_per_write.error, none1->ns_per_write.mean,
                                       none1->ns_per_write.error);
        Difference over_empty = difference(vt1->ns_per_write.mean, vt1->ns_per_write.error, empty1->ns_per_write.mean,
                                           empty1->ns_per_write.error);
        Difference empty = difference(empty1->ns_per_write.mean, empty1->ns_per_write.error, none1->ns_per_write.mean,
                                      none1->ns_per_write.error);
        md << "\nIn the writing thread, per event (1 thread): vtscope's program " << diff_text(kernel)
           << " ns over no tracing; the empty program " << diff_text(empty) << " ns; vtscope over the empty program "
           << diff_text(over_empty) << " ns per attributed syscall.\n";
        if (!std::isnan(vt1->program_ns_per_run) && !std::isnan(empty1->program_ns_per_run))
            md << "\nProgram run time per syscall (bpf_stats): vtscope's " << fmt(vt1->program_ns_per_run, 1)
               << " ns, the empty program's " << fmt(empty1->program_ns_per_run, 1) << " ns: vtscope's program costs "
               << fmt(vt1->program_ns_per_run - empty1->program_ns_per_run, 1) << " ns more per attributed syscall.\n";
        if (stat1) {
            Difference stat_over_empty = difference(stat1->ns_per_write.mean, stat1->ns_per_write.error,
                                                    empty1->ns_per_write.mean, empty1->ns_per_write.error);
            md << "\n`vtscope stat` (counts in the kernel, no event stream): " << diff_text(stat_over_empty)
               << " ns per attributed syscall over the empty program in the writing thread";
            if (!std::isnan(stat1->program_ns_per_run) && !std::isnan(empty1->program_ns_per_run))
                md << "; program run time " << fmt(stat1->program_ns_per_run, 1) << " ns, "
                   << fmt(stat1->program_ns_per_run - empty1->program_ns_per_run, 1)
                   << " ns more than the empty program's";
            md << ".\n";
        }
    }
    if (vt1 && otlp1 && otlp1->error.empty()) {
        // Side by side in this run: the writer's cost and rate, and the consumer's CPU, with the
        // export and without it.
        double ratio = otlp1->ns_per_write.mean / vt1->ns_per_write.mean;
        double ratio_error = ratio * std::sqrt(std::pow(otlp1->ns_per_write.error / otlp1->ns_per_write.mean, 2) +
                                               std::pow(vt1->ns_per_write.error / vt1->ns_per_write.mean, 2));
        const TracerSummary& t = otlp1->tracer;
        md << "\n`vtscope trace --otlp` (1 writer; the Collector of scripts/build-collector.sh, file exporter to "
              "/dev/null, on the tracer's CPU): ns/write "
           << fmt(ratio, 3) << " ± " << fmt(ratio_error, 3) << " times that without --otlp, "
           << fmt(otlp1->writes_per_second, 0) << " against " << fmt(vt1->writes_per_second, 0)
           << " writes/s; consumer CPU " << fmt(otlp1->consumer_cpu_ns_per_event, 0) << " ns per event against "
           << fmt(vt1->consumer_cpu_ns_per_event, 0) << " ns (" << fmt(otlp1->consumer_cpu_share * 100, 0)
           << "% against " << fmt(vt1->consumer_cpu_share * 100, 0) << "% of a CPU). Of " << t.otlp_records
           << " log records handed to the exporter, " << t.otlp_delivered << " were delivered and " << t.otlp_dropped
           << " dropped (" << t.otlp_queue_full
           << " at a full queue): the export's ceiling on this machine is what the Collector and the encoder "
              "sustain on the CPU they share";
        if (t.otlp_delivered > 0)
            md << "; consumer CPU per delivered record "
               << fmt(t.cpu_seconds * 1e9 / static_cast<double>(t.otlp_delivered), 0)
               << " ns (its CPU over the whole session, " << fmt(t.cpu_seconds, 2) << " s, over the records delivered)";
        if (!std::isnan(otlp1->collector_cpu_seconds))
            md << "; the Collector used " << fmt(otlp1->collector_cpu_seconds, 1) << " s of CPU over its run";
        md << ".\n";
    }
    if (vt2)
        md << "\nSustained with 2 writing threads: " << fmt(vt2->writes_per_second, 0) << " traced writes/s; of "
           << vt2->tracer.events << " events the consumer received " << vt2->tracer.events - vt2->tracer.lost << " ("
           << vt2->tracer.ok << " ok) and lost " << vt2->tracer.lost << " ("
           << fmt(vt2->tracer.events
                      ? 100.0 * static_cast<double>(vt2->tracer.lost) / static_cast<double>(vt2->tracer.events)
                      : NAN,
                  1)
           << "%); consumer CPU " << fmt(vt2->consumer_cpu_ns_per_event, 0) << " ns per traced write ("
           << fmt(vt2->consumer_cpu_share * 100, 0) << "% of a CPU).\n";
}

void write_memory(std::ostream& md, const std::vector<MemoryRun>& memory) {
    if (memory.empty()) return;
    md << "\n## Native memory per live virtual thread (NMT, `io.vtscope.workloads.NativeMemoryCost`, 10,000 "
          "parked threads)\n\n| config | bytes per live virtual thread (runs) |\n| --- | --- |\n";
    for (const auto& m : memory) {
        md << "| " << m.config << " | ";
        for (size_t i = 0; i < m.bytes_per_thread.size(); i++) md << (i ? ", " : "") << fmt(m.bytes_per_thread[i], 0);
        md << " |\n";
    }
}

// --block: the section of issue 11, with its targets.
void write_block(std::ostream& md, const Options& o, const Report& rep, const BlockBench& b) {
    if (!b.ran) return;
    md << "\n## vtscope block (issue 11)\n";
    if (!b.switches.empty()) {
        md << "\n**Per switch** (`io.vtscope.bench.SwitchStorm`, `vtscope block` attached; the kernel's run-time "
              "statistics, `bpf_enable_stats(BPF_STATS_RUN_TIME)`, of its `sched_switch` program over 10 x 1 s): the "
              "program runs on every context switch of the machine, so in `idle` (the JVM sleeps while `perf bench "
              "sched pipe` ping-pongs on CPU 1) its run time per run is the cost of another process's switch, "
              "c_other. In `platform` (two platform threads) and `pinned` (two virtual threads, each blocking its "
              "carrier in an FFM downcall: every switch-out opens an interval, every switch-in closes and counts "
              "it) two threads of the JVM hand a byte back and forth over pipes on CPU 0; with N runs in time T of "
              "which S are the target's context switches (/proc nvcsw + nivcsw), the cost per target switch is "
              "(T - (N - S) c_other) / S (high by at most c_other where a target switch meets another task).\n\n"
              "The run-time statistics add their own two `sched_clock` reads to every run: an empty program on the "
              "same tracepoint (bpftrace, `tracepoint:sched:sched_switch { }`), measured alongside, gives that floor, "
              "and the targets are judged on the program's cost over it (\"net\").\n\n"
              "| mode | program ns/run | empty program ns/run | ns per target switch | net per target switch | runs/s "
              "| "
              "target switches/s | consumer lost |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n";
        for (const auto& r : b.switches) {
            bool idle = r.mode == "idle";
            md << "| " << r.mode << " | " << fmt(r.per_run.mean, 1) << " ± " << fmt(r.per_run.error, 1) << " | "
               << fmt(r.empty_per_run.mean, 1) << " ± " << fmt(r.empty_per_run.error, 1) << " | "
               << (idle ? "–" : fmt(r.per_target_switch.mean, 1) + " ± " + fmt(r.per_target_switch.error, 1)) << " | "
               << (idle ? "–" : fmt(r.per_target_switch.mean - r.empty_per_run.mean, 1)) << " | "
               << fmt(r.runs_per_s, 0) << " | " << fmt(r.target_switches_per_s, 0) << " | " << r.tracer.lost
               << (r.error.empty() ? "" : " ERROR " + r.error) << " |\n";
        }
    }
    const DemoRounds& d = b.demo;
    bool demo_ran = !d.none_rps.empty();
    if (demo_ran) {
        md << "\n**Demo service** (`io.vtscope.workloads.DemoService`, " << d.requests << " requests at concurrency "
           << d.concurrency << " from its own load generator, after " << d.warmup
           << " warm-up requests), without and with `vtscope block` attached, one of each per round, alternating "
              "which goes first; requests/s of each run, and the service's CPU time per request over its load "
              "(CLOCK_PROCESS_CPUTIME_ID, every thread, read by the service itself): the CPU the target spends "
              "because block is attached is what the 3% target is about, and unlike requests/s it does not count "
              "the time the service waits for a CPU on a shared machine. It holds the part of block's program "
              "that the kernel charges to the target: `__schedule` updates the run-queue clock once, charges prev "
              "up to it, and starts the next task's run there (`update_stats_curr_start` in `set_next_entity`, "
              "kernel/sched/fair.c), so the `sched_switch` tracepoint's time counts to the task switched in; a "
              "target thread's switch-out to another process (or to idle) is charged there, not here.\n\n"
              "| round | none | block | block / none | CPU us per request, none | block | block / none |\n"
              "| --- | --- | --- | --- | --- | --- | --- |\n";
        for (size_t i = 0; i < d.none_rps.size() && i < d.block_rps.size(); i++)
            md << "| " << i + 1 << " | " << fmt(d.none_rps[i], 0) << " | " << fmt(d.block_rps[i], 0) << " | "
               << fmt(d.block_rps[i] / d.none_rps[i], 3) << " | " << fmt(d.none_cpu[i], 1) << " | "
               << fmt(d.block_cpu[i], 1) << " | " << fmt(d.block_cpu[i] / d.none_cpu[i], 3) << " |\n";
        Summary none_cpu = summarize(valid_values(d.none_cpu)), block_cpu = summarize(valid_values(d.block_cpu));
        md << "| mean | " << fmt(d.none.mean, 0) << " ± " << fmt(d.none.error, 0) << " | " << fmt(d.block.mean, 0)
           << " ± " << fmt(d.block.error, 0) << " | " << fmt(d.ratio.mean, 3) << " ± " << fmt(d.ratio.error, 3) << " | "
           << fmt(none_cpu.mean, 1) << " ± " << fmt(none_cpu.error, 1) << " | " << fmt(block_cpu.mean, 1) << " ± "
           << fmt(block_cpu.error, 1) << " | " << fmt_signed(d.cpu_change.mean, 2) << " ± "
           << fmt(d.cpu_change.error, 2) << "% |\n";
        for (const auto& e : d.errors) md << "\n- error: " << e;
        if (!d.errors.empty()) md << "\n";
    }
    write_alternate(md, o, b.alternate);
    md << "\n| target | measured | verdict |\n| --- | --- | --- |\n";
    auto verdict = [](std::optional<bool> met) { return !met ? "not measured" : (*met ? "met" : "**missed**"); };
    for (const auto& r : b.switches) {
        bool idle = r.mode == "idle";
        const Summary& s = idle ? r.per_run : r.per_target_switch;
        Difference net = difference(s.mean, s.error, r.empty_per_run.mean, r.empty_per_run.error);
        std::optional<bool> met;
        if (s.n > 0 && r.empty_per_run.n > 0 && r.error.empty()) met = net.value < (idle ? 30 : 150);
        md << "| "
           << (idle ? "per switch of another process's thread: < 30 ns"
                    : "per switch of a target thread (" + r.mode + "): < 150 ns")
           << " | " << diff_text(net) << " ns over the empty program (" << fmt(s.mean, 1) << " ± " << fmt(s.error, 1)
           << " ns in all) | " << verdict(met) << " |\n";
    }
    // Met when even the upper end of the cost's interval is under 3%, missed when even its lower end
    // is over; in between the run cannot tell.
    double cost_pct = (1 - d.ratio.mean) * 100, error_pct = d.ratio.error * 100;
    std::string demo_verdict = d.ratio.n < 2              ? "not measured"
                               : cost_pct + error_pct < 3 ? "met"
                               : cost_pct - error_pct > 3 ? "**missed**"
                                                          : "not resolved (the interval spans 3%)";
    if (demo_ran) {
        md << "| demo service throughput with block attached: < 3% lower | " << fmt_signed(-cost_pct, 1) << " ± "
           << fmt(error_pct, 1) << "% | " << demo_verdict << " |\n";
        md << "| demo service CPU per request with block attached: < 3% more | " << fmt_signed(d.cpu_change.mean, 2)
           << " ± " << fmt(d.cpu_change.error, 2) << "% (" << d.cpu_change.n << " rounds) | "
           << verdict_text(d.cpu_change.n >= 2 ? d.cpu_change.mean : NAN, d.cpu_change.error, 3) << " |\n";
    }
    for (const auto& run : b.alternate) {
        AlternateResult r = alternate_result(run, 0);
        std::string jvm =
            run.jvms > 1 ? " (JVM " + std::to_string(run.jvm) + " of " + std::to_string(run.jvms) + ")" : "";
        md << "| demo service CPU per request with block attached, alternating phases in one JVM" << jvm
           << ": < 3% more | " << fmt_signed(r.cpu_change.mean, 2) << " ± " << fmt(r.cpu_change.error, 2) << "% (95%, "
           << r.cpu_change.n << " pairs) | "
           << verdict_text(r.cpu_change.n >= 2 ? r.cpu_change.mean : NAN, r.cpu_change.error, 3)
           << " |\n| demo service throughput with block attached, alternating phases in one JVM" << jvm
           << ": < 3% lower | " << fmt_signed(-r.slowdown, 2) << " ± " << fmt(r.score_change.error, 2) << "% (95%, "
           << r.score_change.n << " pairs) | " << verdict_text(r.slowdown, r.score_change.error, 3) << " |\n";
    }
    for (const AcrossJvms& a : across_all_jvms(b.alternate)) {
        if (a.config != 0) continue;  // "block"; a --vtscope-before build's row is in the section above
        md << "| demo service CPU per request with block attached, across " << a.cpu.n << " JVMs: < 3% more | "
           << fmt_signed(a.cpu.mean, 2) << " ± " << fmt(a.cpu.error, 2) << "% (95%, over the JVMs) | "
           << verdict_text(a.cpu.n >= 2 ? a.cpu.mean : NAN, a.cpu.error, 3) << " |\n"
           << "| demo service throughput with block attached, across " << a.score.n << " JVMs: < 3% lower | "
           << fmt_signed(-a.slowdown, 2) << " ± " << fmt(a.score.error, 2) << "% (95%, over the JVMs) | "
           << verdict_text(a.slowdown, a.score.error, 3) << " |\n";
    }
    if (auto p = rep.diff("parkunpark/block", "parkunpark/baseline"))
        md << "| Park/Unpark with block attached (informative) | " << diff_text(*p) << " "
           << rep.find("parkunpark/block")->unit << " (" << fmt_signed(p->relative * 100, 1) << "%) | – |\n";
}

// The targets of issue 5, each met, missed or not measured.
void write_targets(std::ostream& md, const Report& rep, const StormRefs& refs, const std::vector<MemoryRun>& memory) {
    auto [none1, empty1, vt1, vt2, stat1, otlp1] = refs;
    (void)vt2;
    md << "\n## Targets (issue 5)\n\n| target | measured | verdict |\n| --- | --- | --- |\n";
    auto target = [&](const std::string& what, const std::string& measured, std::optional<bool> met) {
        md << "| " << what << " | " << measured << " | " << (!met ? "not measured" : (*met ? "met" : "**missed**"))
           << " |\n";
    };
    auto rel_target = [&](const std::string& what, const std::string& a, const std::string& b, double limit_pct,
                          bool need_ns) {
        auto d = rep.diff(a, b);
        if (!d) return target(what, "–", std::nullopt);
        bool met = d->relative * 100 <= limit_pct && (!need_ns || !d->significant);
        target(what, diff_text(*d) + " (" + fmt_signed(d->relative * 100, 2) + "%)", met);
    };
    rel_target("writer dormant, Transition: n.s. and <= +1%", "transition/writer", "transition/baseline", 1, true);
    rel_target("writer dormant, Park/Unpark: n.s. and <= +1%", "parkunpark/writer", "parkunpark/baseline", 1, true);
    rel_target("writer dormant, Churn: <= +2%", "churn/writer", "churn/baseline", 2, false);
    rel_target("vmstructs consumer attached, Transition: <= +2% (over writer)", "transition/writer+trace",
               "transition/writer", 2, false);
    if (none1 && empty1 && vt1) {
        Difference d = difference(vt1->ns_per_write.mean, vt1->ns_per_write.error, empty1->ns_per_write.mean,
                                  empty1->ns_per_write.error);
        std::string program = std::isnan(vt1->program_ns_per_run) || std::isnan(empty1->program_ns_per_run)
                                  ? ""
                                  : "; program run time " +
                                        fmt_signed(vt1->program_ns_per_run - empty1->program_ns_per_run, 1) +
                                        " ns (bpf_stats)";
        target(
            "attributed syscall (`vtscope trace`, one event each): <= 150 ns over the same tracepoint with an "
            "empty program",
            diff_text(d) + " ns in the writing thread" + program, d.value <= 150);
        if (stat1) {
            Difference ds = difference(stat1->ns_per_write.mean, stat1->ns_per_write.error, empty1->ns_per_write.mean,
                                       empty1->ns_per_write.error);
            std::string stat_program = std::isnan(stat1->program_ns_per_run) || std::isnan(empty1->program_ns_per_run)
                                           ? ""
                                           : "; program run time " +
                                                 fmt_signed(stat1->program_ns_per_run - empty1->program_ns_per_run, 1) +
                                                 " ns (bpf_stats)";
            target("attributed syscall (`vtscope stat`, counted in the kernel): <= 150 ns over the empty program",
                   diff_text(ds) + " ns in the writing thread" + stat_program, ds.value <= 150);
        }
    } else {
        target("attributed syscall: <= 150 ns over an empty program", "–", std::nullopt);
    }
    for (const char* ctx : {"ctx-platform", "ctx-distinct", "ctx-virtual"}) {
        auto d = rep.diff(std::string(ctx) + "/writer", std::string(ctx) + "/baseline");
        target(std::string("context publication (") + ctx + "): <= +25 ns per make-current + close",
               d ? diff_text(*d) + " ns" : "–", d ? std::optional<bool>(d->value <= 25) : std::nullopt);
    }
    auto cycle_target = [&](const std::string& what, const std::string& workload, const std::string& a,
                            const std::string& b, double limit) {
        auto d = rep.diff(workload + "/" + a, workload + "/" + b);
        if (!d) return target(what, "–", std::nullopt);
        double k = 2000.0 / rep.transitions(workload);  // us/op -> ns per mount/unmount cycle
        int dec = decimals_for(d->error * k);
        target(what, fmt_signed(d->value * k, dec) + " ± " + fmt(d->error * k, dec) + " ns/cycle",
               d->value * k <= limit);
    };
    for (const char* feature : {"vtt", "probes"}) {
        for (const char* wl : {"transition", "parkunpark"}) {
            cycle_target(std::string(feature) + " dormant, " + wl + ": <= 60 ns per mount/unmount cycle over `jvmti`",
                         wl, feature, "jvmti", 60);
            cycle_target(std::string(feature) + " dormant, " + wl + ": <= 120 ns per cycle over baseline", wl, feature,
                         "baseline", 120);
        }
        auto d = rep.diff(std::string("churn/") + feature, "churn/baseline");
        target(std::string(feature) + " dormant, Churn: <= 0.5 µs per virtual thread",
               d ? fmt_signed(d->value / 1000, 3) + " ± " + fmt(d->error / 1000, 3) + " µs/thread" : "–",
               d ? std::optional<bool>(d->value / 1000 <= 0.5) : std::nullopt);
    }
    {
        // Informative: with a thread registered the mount/unmount events are on (the dormant
        // targets above do not cover this state).
        for (const char* wl : {"transition", "parkunpark"}) {
            std::string registered = std::string("vtt-") + wl;
            auto cycle_of = [&](const std::string& reference) {
                auto d = rep.diff(registered + "/vtt", std::string(wl) + "/" + reference);
                if (!d) return std::string("–");
                double k = 2000.0 / rep.transitions(wl);
                int dec = decimals_for(d->error * k);
                return fmt_signed(d->value * k, dec) + " ± " + fmt(d->error * k, dec) + " ns/cycle";
            };
            auto over_jvmti = rep.diff(registered + "/vtt", std::string(wl) + "/jvmti");
            double k = 2000.0 / rep.transitions(wl);
            target(std::string("vtt tracking active (threads registered), ") + wl +
                       ": per cycle over `jvmti` (<= 60?) and over baseline (informative)",
                   cycle_of("jvmti") + " over `jvmti`; " + cycle_of("baseline") + " over baseline",
                   over_jvmti ? std::optional<bool>(over_jvmti->value * k <= 60) : std::nullopt);
        }
        const Cell* pair = rep.find("vtt-pair/vtt");
        target("mountedTimeNanos() pair: <= 40 ns",
               pair ? fmt(pair->summary.mean, 1) + " ± " + fmt(pair->summary.error, 1) + " ns" : "–",
               pair ? std::optional<bool>(pair->summary.mean <= 40) : std::nullopt);
    }
    for (const auto& m : memory) {
        if (m.config == "baseline" || m.bytes_per_thread.empty()) continue;
        double worst = *std::max_element(m.bytes_per_thread.begin(), m.bytes_per_thread.end());
        target("native memory per live virtual thread (" + m.config + "): <= 128 bytes", "max " + fmt(worst, 0) + " B",
               worst <= 128);
    }
}

// The errors of every cell and the others given; true if there was one.
bool write_errors(std::ostream& md, const Matrix& matrix, const std::vector<std::string>& others) {
    std::vector<std::string> errors;
    for (const auto& key : matrix.order)
        for (const auto& e : matrix.cells.at(key).errors) errors.push_back(key + ": " + e);
    errors.insert(errors.end(), others.begin(), others.end());
    if (!errors.empty()) md << "\n## Errors\n\n";
    for (const auto& e : errors) md << "- " << e << "\n";
    return !errors.empty();
}

// Figure 2, runtime relative to baseline per workload and configuration, as figure.svg and (with
// rsvg-convert) figure.png; true if the PNG was made.
bool write_figure(std::ostream& md, const Options& o, const Report& rep) {
    BarChart chart;
    chart.title = "vtscope: runtime relative to baseline (99.9% CI; n.s. = interval contains zero)";
    chart.y_label = "runtime relative to baseline (x)";
    chart.reference = 1;
    chart.reference_label = "baseline";
    for (const char* wl : {"transition", "parkunpark", "churn"}) {
        const Cell* base = rep.find(std::string(wl) + "/baseline");
        if (!base) continue;
        BarGroup g;
        g.name = base->workload->title;
        for (const auto& c : kConfigs) {
            if (c == "baseline") continue;
            auto d = rep.diff(std::string(wl) + "/" + c, std::string(wl) + "/baseline");
            if (!d) continue;
            Bar b;
            b.series = c;
            b.value = 1 + d->relative;
            b.error = d->error / base->summary.mean;
            b.label = fmt(b.value, 2) + "x " + fmt_signed(d->relative * 100, 1) + "%" + (d->significant ? "" : " n.s.");
            g.bars.push_back(b);
        }
        chart.groups.push_back(g);
    }
    fs::path svg = fs::path(o.out) / "figure.svg", png = fs::path(o.out) / "figure.png";
    std::ofstream(svg) << render_svg(chart);
    std::string convert = "rsvg-convert -f png -o '" + png.string() + "' '" + svg.string() + "' 2>&1";
    std::string convert_out = command_output("command -v rsvg-convert >/dev/null && " + convert + " && echo ok");
    md << "\n## Figure\n\n`" << svg.string() << "`"
       << (convert_out == "ok" ? ", `" + png.string() + "`" : " (no PNG: rsvg-convert missing)") << "\n";
    return convert_out == "ok";
}

OrderedJson cell_json(const Cell& c) {
    OrderedJson j = {{"workload", c.workload->id},
                     {"benchmark", c.workload->benchmark},
                     {"config", c.config},
                     {"unit", c.unit},
                     {"n", c.summary.n},
                     {"score", c.summary.n ? json_fixed(c.summary.mean, 4) : OrderedJson()},
                     {"error", c.summary.n > 1 ? json_fixed(c.summary.error, 4) : OrderedJson()},
                     {"samples", json_fixed_list(c.samples, 4)}};
    if (!std::isnan(c.transitions_per_op)) j["transitions_per_op"] = json_fixed(c.transitions_per_op, 2);
    if (!c.tracers.empty()) {
        OrderedJson consumers = OrderedJson::array();
        for (const auto& t : c.tracers)
            consumers.push_back({{"attach_ms", json_fixed(t.attach_ms, 0)},
                                 {"late", t.late},
                                 {"exit", t.exit_status},
                                 {"events", t.events},
                                 {"ok", t.ok},
                                 {"lost", t.lost},
                                 {"inserted", t.inserted},
                                 {"deleted", t.deleted},
                                 {"cpu_s", json_fixed(t.cpu_seconds, 3)},
                                 {"summary", t.summary}});
        j["consumers"] = consumers;
    }
    j["errors"] = c.errors;
    return j;
}

OrderedJson storm_json(const StormRun& r) {
    return {{"mode", r.mode},
            {"threads", r.threads},
            {"ns_per_write", json_fixed(r.ns_per_write.mean, 2)},
            {"error", json_fixed(r.ns_per_write.error, 2)},
            {"writes_per_s", json_fixed(r.writes_per_second, 0)},
            {"consumer_events", r.tracer.events},
            {"consumer_ok", r.tracer.ok},
            {"consumer_lost", r.tracer.lost},
            {"consumer_cpu_ns_per_event", json_fixed(r.consumer_cpu_ns_per_event, 1)},
            {"pinned", r.pinned},
            {"program", r.program},
            {"program_ns_per_run", json_fixed(r.program_ns_per_run, 1)},
            {"otlp_records", r.tracer.otlp_records},
            {"otlp_delivered", r.tracer.otlp_delivered},
            {"otlp_dropped", r.tracer.otlp_dropped},
            {"collector_cpu_s", json_fixed(r.collector_cpu_seconds, 2)},
            {"error_text", r.error}};
}

OrderedJson block_json(const BlockBench& block) {
    OrderedJson switches = OrderedJson::array();
    for (const SwitchCostRun& r : block.switches)
        switches.push_back({{"mode", r.mode},
                            {"ns_per_run", json_summary(r.per_run, 2)},
                            {"empty_ns_per_run", json_summary(r.empty_per_run, 2)},
                            {"ns_per_target_switch", json_summary(r.per_target_switch, 2)},
                            {"runs_per_s", json_fixed(r.runs_per_s, 0)},
                            {"target_switches_per_s", json_fixed(r.target_switches_per_s, 0)},
                            {"error_text", r.error}});
    const DemoRounds& d = block.demo;
    OrderedJson demo = {{"requests", d.requests},
                        {"concurrency", d.concurrency},
                        {"none_rps", json_fixed_list(d.none_rps, 1)},
                        {"block_rps", json_fixed_list(d.block_rps, 1)},
                        {"ratio", json_summary(d.ratio, 2)},
                        {"none_cpu_us_per_request", json_fixed_list(d.none_cpu, 1)},
                        {"block_cpu_us_per_request", json_fixed_list(d.block_cpu, 1)},
                        {"cpu_change_pct", json_summary(d.cpu_change, 2)},
                        {"errors", d.errors}};
    return {{"switches", switches}, {"demo", demo}, {"alternate", alternate_json(block.alternate)}};
}

std::string results_json(const Options& o, const Results& results, const std::string& machine) {
    OrderedJson settings = {
        {"forks", o.forks},           {"warmup_iterations", o.warmup_iterations}, {"warmup_time", o.warmup_time},
        {"iterations", o.iterations}, {"iteration_time", o.iteration_time},       {"heap", o.heap},
        {"confidence", 0.999}};
    OrderedJson j = {{"date", now_utc()},
                     {"machine", machine},
                     {"jdk", results.jdk},
                     {"settings", settings},
                     {"elapsed_s", json_fixed(results.elapsed_s, 1)}};
    j["cells"] = OrderedJson::array();
    for (const auto& key : results.matrix.order) j["cells"].push_back(cell_json(results.matrix.cells.at(key)));
    j["storm"] = OrderedJson::array();
    for (const StormRun& r : results.storm) j["storm"].push_back(storm_json(r));
    j["memory"] = OrderedJson::array();
    for (const MemoryRun& m : results.memory)
        j["memory"].push_back({{"config", m.config}, {"bytes_per_thread", json_fixed_list(m.bytes_per_thread, 1)}});
    if (results.block.ran) j["block"] = block_json(results.block);
    j["profile"] = results.profile ? profile_json(*results.profile) : OrderedJson();
    // Indented: a file people read and diff; strings from runs' stderr may be any bytes.
    return j.dump(1, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

}  // namespace

bool write_results(const Options& o, const Results& results) {
    Report rep{&results.matrix.cells};
    std::string machine = machine_description();
    StormRefs refs = find_storm_refs(results.storm);
    std::ostringstream md;
    write_header(md, o, machine, results.jdk, results.elapsed_s);
    if (o.matrix) {  // --no-matrix: no cell was measured, so no table, target or figure of them
        write_cells(md, rep, results.matrix);
        write_consumers(md, results.matrix);
    }
    write_storm(md, o, results.storm, refs);
    write_memory(md, results.memory);
    if (o.matrix) write_targets(md, rep, refs, results.memory);
    write_block(md, o, rep, results.block);
    if (results.profile) write_profile_section(md, o, *results.profile);
    bool any_error = write_errors(md, results.matrix,
                                  results.profile ? profile_errors(*results.profile) : std::vector<std::string>{});
    bool png = o.matrix && write_figure(md, o, rep);
    std::ofstream(fs::path(o.out) / "results.md") << md.str();
    std::ofstream(fs::path(o.out) / "results.json") << results_json(o, results, machine);

    std::fprintf(stderr, "vtscope-bench: %.0f s; wrote %s/results.md, results.json%s%s\n", results.elapsed_s,
                 o.out.c_str(), o.matrix ? ", figure.svg" : "", png ? ", figure.png" : "");
    std::fwrite(md.str().data(), 1, md.str().size(), stdout);
    return !any_error;
}

}  // namespace vtscope::bench
