// SPDX-License-Identifier: Apache-2.0
#include "write_storm.h"

#include <bpf/bpf.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <thread>

#include "bench_process.h"
#include "process_runner.h"
#include "report_writer.h"

namespace vtscope::bench {

namespace {

StormRun run_storm(const Options& o, const std::string& mode, int threads) {
    StormRun r;
    r.mode = mode;
    r.threads = threads;
    fs::path logs = fs::path(o.out) / "logs";
    std::string stem = (logs / ("storm-" + mode + "-t" + std::to_string(threads))).string();
    int intervals = o.storm_seconds * 2;
    std::vector<std::string> argv = {o.java_home + "/bin/java",
                                     "-Xms" + o.heap,
                                     "-Xmx" + o.heap,
                                     "--enable-native-access=ALL-UNNAMED",
                                     "-cp",
                                     o.jar,
                                     "io.vtscope.bench.WriteStorm",
                                     std::to_string(threads),
                                     std::to_string(o.storm_warmup_ms),
                                     "500",
                                     std::to_string(intervals)};
    // One writer: the JVM on CPU 0 and the tracer on CPU 1, so the writer's figures hold the
    // program's cost, not the consumer's competition for the writer's CPU.
    r.pinned = threads == 1 && std::thread::hardware_concurrency() >= 2;
    std::optional<int> jvm_cpu, tracer_cpu;
    if (r.pinned) {
        jvm_cpu = 0;
        tracer_cpu = 1;
    }
    // Run-time statistics of the tracer's program (both tracing modes, so their constant
    // overhead, two clock reads per run, cancels in the difference).
    int stats_fd = mode == "none" ? -1 : bpf_enable_stats(BPF_STATS_RUN_TIME);
    if (mode != "none" && stats_fd < 0) r.error = "bpf_enable_stats failed";
    Child jvm = Child::start(argv, stem + ".out", stem + ".err", jvm_cpu);
    if (!wait_for_text(stem + ".out", "# writestorm started", 30s, {&jvm})) {
        if (stats_fd >= 0) close(stats_fd);
        r.error = "the write storm did not start";
        return r;  // jvm's destructor kills it
    }
    Child tracer;     // vtscope or bpftrace, by mode
    Child collector;  // vtscope-otlp: the Collector it exports to, on the tracer's CPU
    std::vector<std::string> otlp;
    if (mode == "vtscope-otlp") {
        if (!fs::exists(o.collector)) {
            r.error = "no Collector at " + o.collector + " (scripts/build-collector.sh builds it)";
            if (stats_fd >= 0) close(stats_fd);
            return r;
        }
        int port = testing::free_loopback_port();
        // consumer/tests/collector/config.yaml: OTLP/HTTP on 127.0.0.1:$VTSCOPE_OTLP_PORT, every
        // record to the file exporter at $VTSCOPE_COLLECTOR_OUT (here /dev/null: the receiving and
        // decoding is the Collector's work that counts, not our disk).
        setenv("VTSCOPE_OTLP_PORT", std::to_string(port).c_str(), 1);
        setenv("VTSCOPE_COLLECTOR_OUT", "/dev/null", 1);
        collector = Child::start({o.collector, "--config", o.collector_config}, stem + ".collector.out",
                                 stem + ".collector.err", tracer_cpu);
        auto deadline = Clock::now() + 30s;
        while (!testing::loopback_port_open(port) && collector.running() && Clock::now() < deadline)
            std::this_thread::sleep_for(50ms);
        if (!testing::loopback_port_open(port)) r.error = "the Collector did not listen";
        otlp = {"--otlp", "http://127.0.0.1:" + std::to_string(port)};
    }
    if (mode == "vtscope" || mode == "vtscope-stat" || mode == "vtscope-otlp") {
        tracer = start_tracer(o, "writer+trace", jvm.pid(), stem, mode == "vtscope-stat" ? "stat" : "trace", tracer_cpu,
                              otlp);
        if (!wait_for_file(tracer_ready_file(stem), 30s, {&tracer, &jvm})) r.error = "no ready file";
    } else if (mode == "empty-bpf") {
        // The same tracepoint with a program that only filters on the pid: bpftrace, no new BPF code.
        std::string program = "tracepoint:syscalls:sys_enter_write /pid == " + std::to_string(jvm.pid()) + "/ { }";
        tracer =
            Child::start({"/usr/bin/bpftrace", "-e", program}, stem + ".tracer.out", stem + ".tracer.err", tracer_cpu);
        if (!wait_for_text(stem + ".tracer.out", "Attaching", 30s, {&tracer})) r.error = "bpftrace did not attach";
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    // CPU of the consumer over the measured intervals only (not its attach).
    double cpu0 = NAN;
    Clock::time_point t0;
    std::map<uint32_t, ProgramStats> programs0;
    if (wait_for_text(stem + ".out", "# writestorm interval 1:", 30s, {&jvm}) && tracer.pid() > 0) {
        cpu0 = process_cpu_seconds(tracer.pid());
        t0 = Clock::now();
        programs0 = bpf_program_stats();
    }
    std::string last = "# writestorm interval " + std::to_string(intervals) + ":";
    double cpu1 = NAN;
    Clock::time_point t1;
    if (wait_for_text(stem + ".out", last, 60s, {&jvm}) && tracer.pid() > 0) {
        cpu1 = process_cpu_seconds(tracer.pid());
        t1 = Clock::now();
        // The tracepoint program is the one that ran most often in between.
        ProgramDelta busiest = busiest_program(programs0, bpf_program_stats());
        r.program = busiest.name;
        r.program_runs = busiest.runs;
        r.program_ns_per_run = busiest.run_time_ns / busiest.runs;
    }
    if (stats_fd >= 0) close(stats_fd);
    int jvm_status = jvm.wait();
    if (tracer.pid() > 0) {
        if (mode == "empty-bpf") {
            tracer.signal(SIGINT);  // bpftrace runs until interrupted
            finish_process(tracer, stem, &r.tracer);
        } else if (std::string summary_error = finish_tracer(tracer, stem, &r.tracer);
                   !summary_error.empty() && r.error.empty()) {
            r.error = summary_error;
        }
    }
    if (collector.pid() > 0) {
        collector.stop(5s, 10s);
        r.collector_cpu_seconds = collector.cpu_seconds();
    }
    if (jvm_status != 0) r.error = "java exited " + std::to_string(jvm_status);
    static const std::regex line(R"(# writestorm interval (\d+): writes=(\d+) nanos=(\d+))");
    std::string text = read_file(stem + ".out");
    std::vector<double> per_write;
    double writes_total = 0, nanos_total = 0, writes_window = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it) {
        double w = std::stod((*it)[2]), n = std::stod((*it)[3]);
        int index = std::stoi((*it)[1]);
        if (w > 0) per_write.push_back(n * threads / w);
        writes_total += w;
        nanos_total += n;
        if (index >= 2) writes_window += w;  // intervals 2..N: between the two CPU samples
    }
    r.ns_per_write = summarize(per_write);
    r.writes_per_second = nanos_total > 0 ? writes_total / (nanos_total / 1e9) : 0;
    if (!std::isnan(cpu0) && !std::isnan(cpu1) && writes_window > 0) {
        r.consumer_cpu_ns_per_event = (cpu1 - cpu0) * 1e9 / writes_window;
        r.consumer_cpu_share = (cpu1 - cpu0) / std::chrono::duration<double>(t1 - t0).count();
    }
    return r;
}

}  // namespace

std::vector<std::vector<StormRun>> run_write_storm(std::span<const Options* const> jdks) {
    std::vector<std::vector<StormRun>> storms(jdks.size());
    std::fprintf(stderr, "vtscope-bench: write storm (per-event consumer cost)\n");
    const std::vector<std::string>& modes = jdks.front()->storm_modes;
    for (auto [mode, threads] : std::vector<std::pair<std::string, int>>{{"none", 1},
                                                                         {"empty-bpf", 1},
                                                                         {"vtscope", 1},
                                                                         {"vtscope-otlp", 1},
                                                                         {"vtscope-stat", 1},
                                                                         {"none", 2},
                                                                         {"vtscope", 2}}) {
        if (!modes.empty() && std::find(modes.begin(), modes.end(), mode) == modes.end()) continue;
        // Each mode on every JDK before the next mode: the JDKs' runs of a mode are neighbours.
        for (size_t k = 0; k < jdks.size(); k++) {
            storms[k].push_back(run_storm(*jdks[k], mode, threads));
            const StormRun& r = storms[k].back();
            std::fprintf(stderr, "  %-12s threads=%d%s: %s ns/write, %.0f writes/s%s\n", mode.c_str(), threads,
                         jdks.size() > 1 ? (" " + jdks[k]->java_home).c_str() : "", fmt(r.ns_per_write.mean).c_str(),
                         r.writes_per_second, r.error.empty() ? "" : (" ERROR: " + r.error).c_str());
        }
    }
    return storms;
}

}  // namespace vtscope::bench
