// SPDX-License-Identifier: Apache-2.0
#include "block_bench.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "process_runner.h"
#include "profile_bench.h"
#include "report_writer.h"
#include "tracer.h"
#include "workload_output.h"

namespace vtscope::bench {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::Child;
using testing::ProcessGroup;
using testing::read_file;
using testing::wait_for_file;
using testing::wait_for_text;

namespace {

constexpr const char* kProgram = "on_sched_switch";  // block.bpf.c's program (bpf_prog_info.name)
constexpr int kSwitchIntervals = 10;                 // of 1 s each, after 1 s of settling

// The context switches of every thread of pid so far: each is one sched_switch with that thread
// as prev (__schedule counts it in nvcsw or nivcsw, kernel/sched/core.c).
double context_switches(pid_t pid) {
    double total = 0;
    std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR* d = opendir(dir.c_str());
    if (!d) return NAN;
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        std::ifstream status(dir + "/" + e->d_name + "/status");
        std::string line;
        while (std::getline(status, line))
            if (line.rfind("voluntary_ctxt_switches:", 0) == 0 || line.rfind("nonvoluntary_ctxt_switches:", 0) == 0)
                total += std::stod(line.substr(line.find(':') + 1));
    }
    closedir(d);
    return total;
}

// The programs of `all` among ids and, unless name is empty, of that name: on this shared machine
// other users load programs of the same name (another vtscope block, another bpftrace).
std::map<uint32_t, ProgramStats> only(const std::map<uint32_t, ProgramStats>& all, const std::vector<uint32_t>& ids,
                                      const std::string& name = "") {
    std::map<uint32_t, ProgramStats> out;
    for (uint32_t id : ids)
        if (auto it = all.find(id); it != all.end() && (name.empty() || it->second.name == name)) out[id] = it->second;
    return out;
}

/*
 * One scenario. The JVM runs on CPU 0 and the tracer (and in idle mode the other processes'
 * ping-pong) on CPU 1. The program runs on every sched_switch of the machine: per interval, runs N
 * in time T, of which S are switches of the target (its threads' context switches). In idle mode S
 * is nearly 0 and T / N is the cost of another process's switch, c_other (the early tgid filter).
 * With the ping-pong on CPU 0 a target switch is one from one ping-pong thread to the other (one
 * sched_switch: the switch-out side on prev and the switch-in side on next), so the cost per target
 * switch is (T - (N - S) c_other) / S. Where a target switch meets another task instead (S counts it
 * once, but its switch-out and its later switch-in are two sched_switch events), that estimate is
 * high by at most c_other.
 */
SwitchCostRun run_switch_scenario(const Options& o, const std::string& mode, double other_ns) {
    SwitchCostRun r;
    r.mode = mode;
    std::string stem = (fs::path(o.out) / "logs" / ("block-switch-" + mode)).string();
    std::vector<std::string> argv = {o.java_home + "/bin/java",
                                     "-Xms" + o.heap,
                                     "-Xmx" + o.heap,
                                     "--enable-native-access=ALL-UNNAMED",
                                     "-Djdk.virtualThreadScheduler.parallelism=2",
                                     "-cp",
                                     o.jar,
                                     "io.vtscope.bench.SwitchStorm",
                                     mode,
                                     "1000",
                                     "1000",
                                     "600"};
    int stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
    if (stats_fd < 0) {
        r.error = "bpf_enable_stats failed";
        return r;
    }
    Child jvm = Child::start(argv, stem + ".out", stem + ".err", 0);
    Child tracer, other;
    if (!wait_for_text(stem + ".out", "# switchstorm started", 30s, {&jvm})) {
        r.error = "SwitchStorm did not start (see " + stem + ".err)";
    } else {
        tracer = start_tracer(o, "block", jvm.pid(), stem, "block", 1);
        if (!wait_for_file(tracer_ready_file(stem), 30s, {&tracer, &jvm})) r.error = "vtscope block never became ready";
    }
    // Only this tracer's program: other users of the machine may run vtscope block too.
    std::vector<uint32_t> ids = tracer.pid() > 0 ? programs_of(tracer.pid()) : std::vector<uint32_t>{};
    // The floor of the run-time statistics (two sched_clock reads around every run): an empty
    // program on the same tracepoint, measured alongside.
    Child empty = Child::start({"/usr/bin/bpftrace", "-e", "tracepoint:sched:sched_switch { }"}, stem + ".empty.out",
                               stem + ".empty.err", 1);
    if (r.error.empty() && !wait_for_text(stem + ".empty.out", "Attaching", 30s, {&empty}))
        r.error = "bpftrace did not attach";
    std::this_thread::sleep_for(300ms);
    std::vector<uint32_t> empty_ids = programs_of(empty.pid());
    if (r.error.empty() && mode == "idle")
        other = Child::start({"perf", "bench", "sched", "pipe", "-l", "2000000000"}, stem + ".perf.out",
                             stem + ".perf.err", 1, ProcessGroup::Own);  // perf forks the pipe's other end
    std::this_thread::sleep_for(1s);
    auto programs = bpf_program_stats();
    double switches = context_switches(jvm.pid());
    auto t = std::chrono::steady_clock::now();
    double runs = 0, seconds = 0, target = 0;
    for (int i = 0; i < kSwitchIntervals && r.error.empty(); i++) {
        std::this_thread::sleep_for(1s);
        auto programs1 = bpf_program_stats();
        double switches1 = context_switches(jvm.pid());
        auto t1 = std::chrono::steady_clock::now();
        ProgramDelta p = busiest_program(programs, only(programs1, ids, kProgram));
        ProgramDelta e = busiest_program(programs, only(programs1, empty_ids));
        double s = switches1 - switches;
        if (std::isnan(p.runs) || std::isnan(e.runs) || std::isnan(s)) {
            r.error = "the program did not run, or the target went away";
            break;
        }
        double n = p.runs, time = p.run_time_ns;
        r.ns_per_run.push_back(time / n);
        r.empty_ns_per_run.push_back(e.run_time_ns / e.runs);
        if (mode != "idle" && s > 0) r.ns_per_target_switch.push_back((time - (n - s) * other_ns) / s);
        runs += n;
        target += s;
        seconds += std::chrono::duration<double>(t1 - t).count();
        programs = std::move(programs1);
        switches = switches1;
        t = t1;
    }
    close(stats_fd);
    if (other.pid() > 0) other.stop(0ms, 2s);
    empty.stop(0ms, 5s);
    if (tracer.pid() > 0) {
        tracer.signal(SIGINT);
        if (std::string e = finish_tracer(tracer, stem, &r.tracer); !e.empty() && r.error.empty()) r.error = e;
    }
    jvm.stop(0ms, 2s);
    r.per_run = summarize(r.ns_per_run);
    r.empty_per_run = summarize(r.empty_ns_per_run);
    r.per_target_switch = summarize(r.ns_per_target_switch);
    if (seconds > 0) {
        r.runs_per_s = runs / seconds;
        r.target_switches_per_s = target / seconds;
    }
    return r;
}

// One demo-service run, with or without block attached: requests per second and the service's CPU
// per request (NaN when the run failed).
std::pair<double, double> run_demo(const Options& o, bool with_block, int round, DemoRounds* d) {
    const std::pair<double, double> kFailed{NAN, NAN};
    std::string name = std::string("block-demo-") + (with_block ? "block" : "none") + "-r" + std::to_string(round);
    std::string stem = (fs::path(o.out) / "logs" / name).string();
    fs::remove(stem + ".go");
    std::vector<std::string> argv = {o.java_home + "/bin/java",
                                     "--enable-native-access=ALL-UNNAMED",
                                     "-cp",
                                     o.workloads_classpath,
                                     "io.vtscope.workloads.DemoService",
                                     "--requests",
                                     std::to_string(d->requests),
                                     "--concurrency",
                                     std::to_string(d->concurrency),
                                     "--warm-up-requests",
                                     std::to_string(d->warmup),
                                     "--ready-file",
                                     stem + ".service.ready",
                                     "--go-file",
                                     stem + ".go"};
    fs::remove(stem + ".service.ready");
    Child jvm = Child::start(argv, stem + ".out", stem + ".err");
    if (!wait_for_file(stem + ".service.ready", 60s, {&jvm})) {
        d->errors.push_back(name + ": the demo service did not become ready");
        return kFailed;
    }
    Child tracer;
    if (with_block) {
        tracer = start_tracer(o, "block", jvm.pid(), stem, "block");
        if (!wait_for_file(tracer_ready_file(stem), 30s, {&tracer, &jvm})) {
            d->errors.push_back(name + ": vtscope block never became ready");
            return kFailed;
        }
    }
    std::ofstream(stem + ".go").close();
    int status = jvm.wait();
    if (tracer.pid() > 0) {
        TracerSummary ts;
        std::string e = finish_tracer(tracer, stem, &ts);
        if (!e.empty()) d->errors.push_back(name + ": " + e);
        if (ts.exit_status != 0) d->errors.push_back(name + ": vtscope block exited " + std::to_string(ts.exit_status));
        d->tracers.push_back(ts);
    }
    std::string text = read_file(stem + ".out");
    double rps = demo_requests_per_s(text);
    if (status != 0 || std::isnan(rps)) {
        d->errors.push_back(name + ": the demo service exited " + std::to_string(status) + " (see " + stem + ".err)");
        return kFailed;
    }
    return {rps, demo_cpu_us_per_request(text)};
}

}  // namespace

BlockBench run_block_bench(const Options& o) {
    BlockBench b;
    b.ran = true;
    std::fprintf(stderr, "vtscope-bench: block (sched_switch program cost, demo service throughput)\n");
    double other_ns = NAN;
    for (const char* mode : {"idle", "platform", "pinned"}) {
        if (!selected(o.block_parts, "switches")) break;
        b.switches.push_back(run_switch_scenario(o, mode, other_ns));
        const SwitchCostRun& r = b.switches.back();
        if (std::string(mode) == "idle") other_ns = r.per_run.mean;
        std::fprintf(stderr,
                     "  switches %-8s: %s ns/run (an empty program %s), %s ns per target switch, %.0f runs/s, %.0f "
                     "target switches/s%s\n",
                     mode, fmt(r.per_run.mean).c_str(), fmt(r.empty_per_run.mean).c_str(),
                     fmt(r.per_target_switch.mean).c_str(), r.runs_per_s, r.target_switches_per_s,
                     r.error.empty() ? "" : (" ERROR: " + r.error).c_str());
    }
    DemoRounds& d = b.demo;
    d.requests = o.quick ? 1000 : 3000;
    d.concurrency = 8;
    d.warmup = o.demo_warmup;
    for (int round = 1; round <= o.block_demo_rounds && selected(o.block_parts, "demo"); round++) {
        // Alternating order: a drift of the machine over the round falls on both alike.
        for (bool with_block : round % 2 ? std::vector<bool>{false, true} : std::vector<bool>{true, false}) {
            auto [rps, cpu] = run_demo(o, with_block, round, &d);
            (with_block ? d.block_rps : d.none_rps).push_back(rps);
            (with_block ? d.block_cpu : d.none_cpu).push_back(cpu);
            std::fprintf(stderr, "  demo round %d %-5s: %.0f requests/s, %.1f us of CPU per request\n", round,
                         with_block ? "block" : "none", rps, cpu);
        }
        double none = d.none_rps.back(), with = d.block_rps.back();
        if (!std::isnan(none) && !std::isnan(with)) d.ratios.push_back(with / none);
    }
    d.none = summarize(valid_values(d.none_rps));
    d.block = summarize(valid_values(d.block_rps));
    d.ratio = summarize(d.ratios);
    d.cpu_change = paired_change(d.block_cpu, d.none_cpu);
    if (selected(o.block_parts, "alternate")) {
        std::vector<std::string> configs = {"block"};
        if (!o.vtscope_before.empty()) configs.push_back(before_config("block"));  // side by side in the same JVM
        auto started = std::chrono::steady_clock::now();
        for (int jvm = 1; jvm <= o.alternate_jvms; jvm++)
            b.alternate.push_back(run_alternate(o, "demo", configs, started, jvm));
        print_across_jvms(b.alternate);
    }
    return b;
}

}  // namespace vtscope::bench
