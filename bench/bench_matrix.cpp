// vtscope-bench: the benchmark matrix of vtscope (issue 5), measured the way the paper measures
// its cost decomposition (Section 7.3, Tables 7/8, Figure 2). For every workload x configuration
// it runs N child JVMs ("forks"), each a JMH run in-process (-f 0) with the configuration's JVM
// options, so that a consumer (vtscope trace) can attach to the very JVM that is measured. It
// merges the iterations of all forks (score = mean, error = 99.9% Student-t half-width), forms
// the differences between adjacent configurations with the quadrature error ("n.s." when the
// interval contains zero), normalises them (per transition, per virtual thread, per context
// change, per probe event), measures the consumer's per-event cost with a write storm, and writes
// results.json, results.md, figure.svg and figure.png.
#include <signal.h>
#include <bpf/bpf.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "json.h"
#include "process_runner.h"
#include "stats.h"
#include "svg_plot.h"

namespace fs = std::filesystem;
using namespace vtscope::bench;
using vtscope::Json;
using vtscope::json_quote;
using vtscope::parse_json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace testing = vtscope::testing;
using testing::Child;
using testing::read_file;
using testing::wait_for_file;
using testing::wait_for_text;

namespace {

// ---------------------------------------------------------------- options

struct Options {
    std::string out = "build/bench";
    // On this project's 2-core machines the spread between forks (carrier placement) dominates
    // the spread within one, so the budget goes to forks rather than iterations.
    int forks = 4;
    int warmup_iterations = 3;
    std::string warmup_time = "1s";
    int iterations = 5;
    std::string iteration_time = "1s";
    bool quick = false;
    std::vector<std::string> configs;    // empty: all
    std::vector<std::string> workloads;  // empty: all
    bool storm = true;
    bool memory = true;
    int storm_seconds = 4;
    int storm_warmup_ms = 4000;
    std::string java_home = VTSCOPE_DEFAULT_JAVA_HOME;
    std::string jar = VTSCOPE_BENCH_JAR;
    std::string workloads_classpath = VTSCOPE_JAVA_DIR "/*:" VTSCOPE_JAVA_DIR "/lib/*";
    std::string vtscope = VTSCOPE_BIN;
    std::string native_lib = VTSCOPE_NATIVE_LIB;
    std::string control_agent = VTSCOPE_BENCH_AGENT;
    std::string heap = "1g";
};

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, sep))
        if (!item.empty()) parts.push_back(item);
    return parts;
}

void usage() {
    std::printf(
        "usage: vtscope-bench [--quick] [--out DIR] [--forks N] [--wi N] [--w TIME] [--i N] [--r TIME]\n"
        "                     [--configs a,b,...] [--workloads a,b,...] [--no-storm] [--no-memory]\n"
        "                     [--storm-seconds N] [--java-home DIR] [--jar FILE]\n"
        "Runs the benchmark matrix (workload x configuration) as root (the consumer configurations attach\n"
        "build/bin/vtscope). Defaults: 4 forks, 3 x 1s warm-up, 5 x 1s measurement. --quick: 1 fork,\n"
        "2 x 0.4s warm-up, 3 x 0.4s measurement, shorter storm, one memory run.\n"
        "configurations: baseline writer writer+trace jvmti lib vtt probes probes+consumer otep\n"
        "workloads: transition parkunpark churn ctx-platform ctx-distinct ctx-virtual vtt-nanotime vtt-pair vtt-transition\n"
        "           vtt-parkunpark\n");
}

bool parse_options(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "vtscope-bench: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            usage();
            std::exit(0);
        } else if (a == "--quick") {
            o->quick = true;
            o->forks = 1;
            o->warmup_iterations = 2;
            o->warmup_time = "400ms";
            o->iterations = 3;
            o->iteration_time = "400ms";
            o->storm_seconds = 2;
            o->storm_warmup_ms = 2000;
        } else if (a == "--out") o->out = next();
        else if (a == "--forks") o->forks = std::atoi(next().c_str());
        else if (a == "--wi") o->warmup_iterations = std::atoi(next().c_str());
        else if (a == "--w") o->warmup_time = next();
        else if (a == "--i") o->iterations = std::atoi(next().c_str());
        else if (a == "--r") o->iteration_time = next();
        else if (a == "--configs") o->configs = split(next(), ',');
        else if (a == "--workloads") o->workloads = split(next(), ',');
        else if (a == "--no-storm") o->storm = false;
        else if (a == "--no-memory") o->memory = false;
        else if (a == "--storm-seconds") o->storm_seconds = std::atoi(next().c_str());
        else if (a == "--java-home") o->java_home = next();
        else if (a == "--jar") o->jar = next();
        else {
            std::fprintf(stderr, "vtscope-bench: unknown option %s (see --help)\n", a.c_str());
            return false;
        }
    }
    if (o->forks < 1 || o->iterations < 2 || o->warmup_iterations < 1) {
        std::fprintf(stderr, "vtscope-bench: need --forks >= 1, --i >= 2, --wi >= 1\n");
        return false;
    }
    return true;
}

// ---------------------------------------------------------------- the matrix

const std::vector<std::string> kConfigs = {"baseline", "writer", "writer+trace", "jvmti", "lib",
                                           "vtt", "probes", "probes+consumer", "otep"};

// The configuration each one adds a component to (the paper's adjacent contrasts).
const std::map<std::string, std::string> kReference = {
    {"writer", "baseline"}, {"writer+trace", "writer"}, {"jvmti", "baseline"}, {"lib", "baseline"},
    {"vtt", "lib"},         {"probes", "lib"},          {"probes+consumer", "probes"}, {"otep", "lib"}};

const std::map<std::string, std::string> kConfigMeaning = {
    {"baseline", "nothing of vtscope in the JVM"},
    {"writer", "vtscope-otel storage installed (service loader), dormant; in Transition and Park/Unpark the "
               "virtual threads have a span current"},
    {"writer+trace", "writer + `vtscope trace --syscalls write` (vmstructs) attached"},
    {"jvmti", "control: a JVMTI agent with can_support_virtual_threads and empty VirtualThreadStart/End "
              "callbacks (bench/jvmti_control_agent.cpp; the paper's \"Agent\")"},
    {"lib", "libvtscope.so loaded at run time (dlopen), not initialised: no JVMTI environment, no events"},
    {"vtt", "VirtualThreadTime.initialize() at run time, nothing registered: a JVMTI environment with "
            "can_support_virtual_threads, no event enabled (the first registration enables them)"},
    {"probes", "-agentpath:libvtscope.so=probes, no consumer: events off until a tracer holds the probe semaphores"},
    {"probes+consumer", "probes + `vtscope trace --identity lifecycle --syscalls write` attached"},
    {"otep", "-agentpath:libvtscope.so=otep (otel_thread_ctx_v1 follows every mount)"}};

enum class Norm { PerTransition, PerThread, PerPair, None };

struct Workload {
    std::string id;
    std::string title;
    std::string benchmark;  // JMH benchmark (class.method)
    std::vector<std::string> configs;
    Norm norm;
    std::string reference;  // "workload/config" for single-config workloads; empty: kReference
};

std::vector<Workload> all_workloads() {
    return {
        {"transition", "Transition", "io.vtscope.bench.Transition.yield10k", kConfigs, Norm::PerTransition, ""},
        {"parkunpark", "Park/Unpark", "io.vtscope.bench.ParkUnpark.handoff10k", kConfigs, Norm::PerTransition, ""},
        {"churn", "Churn", "io.vtscope.bench.Churn.startJoin1000", kConfigs, Norm::PerThread, ""},
        {"ctx-platform", "Context publication, platform thread", "io.vtscope.bench.ContextPublication.platformThread",
         {"baseline", "writer"}, Norm::PerPair, ""},
        {"ctx-distinct", "Context publication, platform thread, distinct spans",
         "io.vtscope.bench.ContextPublication.platformThreadDistinctSpans", {"baseline", "writer"}, Norm::PerPair, ""},
        {"ctx-virtual", "Context publication, virtual thread", "io.vtscope.bench.ContextPublication.virtualThread",
         {"baseline", "writer"}, Norm::PerPair, ""},
        {"vtt-nanotime", "System.nanoTime() pair (control)", "io.vtscope.bench.VirtualThreadTimeBench.nanoTimePair",
         {"vtt"}, Norm::None, ""},
        {"vtt-pair", "mountedTimeNanos() pair", "io.vtscope.bench.VirtualThreadTimeBench.mountedTimePair", {"vtt"},
         Norm::PerPair, "vtt-nanotime/vtt"},
        {"vtt-transition", "Transition, thread registered", "io.vtscope.bench.VirtualThreadTimeBench.yield10kRegistered",
         {"vtt"}, Norm::PerTransition, "transition/vtt"},
        {"vtt-parkunpark", "Park/Unpark, threads registered",
         "io.vtscope.bench.VirtualThreadTimeBench.handoff10kRegistered", {"vtt"}, Norm::PerTransition, "parkunpark/vtt"},
    };
}

bool has_consumer(const std::string& config) { return config == "writer+trace" || config == "probes+consumer"; }

// ---------------------------------------------------------------- processes

// utime + stime of a live process, in seconds (/proc/PID/stat fields 14 and 15).
double process_cpu_seconds(pid_t pid) {
    std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos) return NAN;
    std::vector<std::string> fields = split(stat.substr(close + 2), ' ');
    if (fields.size() < 13) return NAN;
    double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    return (std::stod(fields[11]) + std::stod(fields[12])) / ticks;  // fields 14, 15 of the whole line
}

std::string command_output(const std::string& command) {
    std::string out;
    if (FILE* p = popen(command.c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof(buf), p)) out += buf;
        pclose(p);
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

// ---------------------------------------------------------------- the consumer

struct TracerSummary {
    bool present = false;
    int exit_status = -1;
    double attach_ms = NAN;      // child start -> ready file
    bool late = false;           // ready only after the measurement had started
    double cpu_seconds = 0;
    unsigned long long events = 0, ok = 0, lost = 0, inserted = 0, deleted = 0;
    std::string summary;         // its stderr lines
};

std::string tracer_ready_file(const std::string& stem) { return stem + ".ready"; }
std::string summary_json_file(const std::string& stem) { return stem + ".tracer.summary.json"; }

std::vector<std::string> tracer_argv(const Options& o, const std::string& config, pid_t pid, const std::string& stem,
                                     const std::string& command) {
    std::vector<std::string> argv = {o.vtscope, command, "--pid", std::to_string(pid), "--syscalls", "write",
                                     "--output", "/dev/null", "--ready-file", tracer_ready_file(stem),
                                     "--summary-json", summary_json_file(stem)};
    if (config == "probes+consumer") {
        argv.push_back("--identity");
        argv.push_back("lifecycle");
    }
    return argv;
}

unsigned long long count(const Json& value) {
    return value.is_number() && value.number > 0 ? static_cast<unsigned long long>(value.number) : 0;
}

// The counters of a tracer's --summary-json (fields: render_summary_json in consumer/src/summary.cpp).
std::string read_summary_json(const std::string& path, TracerSummary* t) {
    if (!fs::exists(path)) return "no summary " + path;
    Json root;
    std::string error;
    if (!parse_json(testing::read_file(path), &root, &error) || root.type != Json::Type::Object)
        return "unreadable summary " + path + ": " + error;
    t->events = count(root["events"]);
    t->ok = count(root["delivered"]["ok"]);
    t->lost = count(root["lost"]);
    t->inserted = count(root["mappings"]["inserted"]);  // mappings is null without a lifecycle channel
    t->deleted = count(root["mappings"]["deleted"]);
    return "";
}


// Starts `vtscope COMMAND --pid PID --syscalls write` for the configuration (command: "trace",
// or "stat", the same attribution counted in the kernel), after removing its old ready and
// summary files; cpu pins it.
testing::Child start_tracer(const Options& o, const std::string& config, pid_t pid, const std::string& stem,
                            const std::string& command = "trace", std::optional<int> cpu = std::nullopt) {
    fs::remove(tracer_ready_file(stem));
    fs::remove(summary_json_file(stem));
    return testing::Child::start(tracer_argv(o, config, pid, stem, command), stem + ".tracer.out",
                                 stem + ".tracer.err", cpu);
}

// Stops any other tracing process (bpftrace), keeping its exit, CPU time and stderr.
void finish_process(testing::Child& process, const std::string& stem, TracerSummary* t) {
    t->present = true;
    t->exit_status = process.stop(5s, 10s);
    t->cpu_seconds = process.cpu_seconds();
    t->summary = testing::read_file(stem + ".tracer.err");
}

// Stops a tracer whose target has exited (it stops by itself) or not, and fills *t with its exit,
// CPU time, stderr text and the counters of its summary JSON; an error if that summary is missing.
std::string finish_tracer(testing::Child& tracer, const std::string& stem, TracerSummary* t) {
    finish_process(tracer, stem, t);
    return read_summary_json(summary_json_file(stem), t);
}


// ---------------------------------------------------------------- JMH forks

std::vector<std::string> jvm_options(const Options& o, const std::string& config) {
    std::vector<std::string> opts = {"-Xms" + o.heap, "-Xmx" + o.heap, "--enable-native-access=ALL-UNNAMED",
                                     "-Dvtscope.bench.config=" + config};
    if (config == "jvmti") opts.push_back("-agentpath:" + o.control_agent);
    if (config == "lib" || config == "vtt") opts.push_back("-Dvtscope.library.path=" + o.native_lib);
    if (config == "probes" || config == "probes+consumer") opts.push_back("-agentpath:" + o.native_lib + "=probes");
    if (config == "otep") opts.push_back("-agentpath:" + o.native_lib + "=otep");
    return opts;
}

struct Cell {
    const Workload* workload = nullptr;
    std::string config;
    std::string key() const { return workload->id + "/" + config; }
    std::vector<double> samples;  // every measurement iteration of every fork
    std::string unit;
    std::vector<TracerSummary> tracers;
    double transitions_per_op = NAN;  // from the registered variants' count lines
    std::vector<std::string> errors;
    Summary summary;
};

std::string file_stem(const Cell& c, int fork) {
    std::string name = c.key() + "-f" + std::to_string(fork);
    for (char& ch : name)
        if (ch == '/' || ch == '+') ch = '_';
    return name;
}

void run_fork(const Options& o, Cell* cell, int fork) {
    fs::path logs = fs::path(o.out) / "logs";
    std::string stem = (logs / file_stem(*cell, fork)).string();
    std::string json = stem + ".json", out = stem + ".out", err = stem + ".err";
    std::vector<std::string> argv = {o.java_home + "/bin/java"};
    for (auto& opt : jvm_options(o, cell->config)) argv.push_back(opt);
    std::vector<std::string> jmh = {"-jar", o.jar, "-f", "0", "-wi", std::to_string(o.warmup_iterations), "-w",
                                    o.warmup_time, "-i", std::to_string(o.iterations), "-r", o.iteration_time,
                                    "-rf", "json", "-rff", json, "-foe", "true", "-p", "config=" + cell->config,
                                    "^" + cell->workload->benchmark + "$"};
    argv.insert(argv.end(), jmh.begin(), jmh.end());
    fs::remove(json);
    const std::string fork_name = "fork " + std::to_string(fork);
    auto start = Clock::now();
    Child jvm = Child::start(argv, out, err);
    if (jvm.pid() < 0) {
        cell->errors.push_back("cannot start java");
        return;
    }
    Child tracer;  // started (pid > 0) only once JMH has begun its warm-up
    TracerSummary ts;
    if (has_consumer(cell->config)) {
        ts.present = true;
        // Attach once the benchmark's setup is done (JMH prints the first warm-up iteration), so
        // the JVM is fully up; the warm-up iterations absorb the attach.
        if (wait_for_text(out, "# Warmup Iteration", 60s, {&jvm})) {
            tracer = start_tracer(o, cell->config, jvm.pid(), stem);
            if (wait_for_file(tracer_ready_file(stem), 60s, {&tracer, &jvm})) {
                ts.attach_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
                // A measurement line "Iteration   1:" (not "# Warmup Iteration") means it was late.
                ts.late = read_file(out).find("\nIteration   1:") != std::string::npos;
            } else {
                cell->errors.push_back(fork_name + ": vtscope trace never became ready");
            }
        } else {
            cell->errors.push_back(fork_name + ": JMH never started its warm-up");
        }
    }
    int jvm_status = jvm.wait();
    if (tracer.pid() > 0) {
        std::string summary_error = finish_tracer(tracer, stem, &ts);
        if (ts.exit_status != 0)
            cell->errors.push_back(fork_name + ": vtscope trace exited " + std::to_string(ts.exit_status));
        else if (!summary_error.empty())
            cell->errors.push_back(fork_name + ": " + summary_error);
        if (ts.late) cell->errors.push_back(fork_name + ": consumer ready after measurement began");
        cell->tracers.push_back(ts);
    }
    if (jvm_status != 0) {
        cell->errors.push_back(fork_name + ": java exited " + std::to_string(jvm_status) +
                               " (see " + err + ", " + out + ")");
        return;
    }
    Json root;
    std::string error;
    if (!parse_json(read_file(json), &root, &error) || root.type != Json::Type::Array || root.array.empty()) {
        cell->errors.push_back(fork_name + ": no JMH result in " + json + " " + error);
        return;
    }
    const Json& metric = root.array[0]["primaryMetric"];
    cell->unit = metric["scoreUnit"].string;
    for (const Json& forkData : metric["rawData"].array)
        for (const Json& v : forkData.array)
            if (v.is_number()) cell->samples.push_back(v.number);
    // Registered variants report their transition counts.
    static const std::regex counts(R"(# vtscope-bench transitions: benchmark=\S+ ops=(\d+) mounts=(\d+) unmounts=(\d+))");
    std::string text = read_file(out);
    std::smatch m;
    if (std::regex_search(text, m, counts)) {
        double ops = std::stod(m[1]), per = (std::stod(m[2]) + std::stod(m[3])) / std::max(ops, 1.0);
        cell->transitions_per_op = std::isnan(cell->transitions_per_op) ? per : (cell->transitions_per_op + per) / 2;
    }
}


// ---------------------------------------------------------------- the write storm

struct StormRun {
    std::string mode;  // none, empty-bpf, vtscope
    int threads = 1;
    Summary ns_per_write;  // per thread: interval nanos * threads / writes
    double writes_per_second = 0;
    double consumer_cpu_ns_per_event = NAN;
    double consumer_cpu_share = NAN;  // consumer CPU seconds per wall second during the intervals
    TracerSummary tracer;
    bool pinned = false;            // JVM on CPU 0, tracer on CPU 1
    std::string program;            // the BPF program on sys_enter_write (bpf_stats)
    double program_runs = NAN;      // its runs over the measured intervals
    double program_ns_per_run = NAN;
    std::string error;
};

// Run count and run time of every loaded BPF program, by id; the kernel keeps them while
// bpf_enable_stats(BPF_STATS_RUN_TIME) is held.
struct ProgramStats {
    std::string name;
    uint64_t runs = 0;
    uint64_t run_time_ns = 0;
};

std::map<uint32_t, ProgramStats> bpf_program_stats() {
    std::map<uint32_t, ProgramStats> out;
    uint32_t id = 0;
    while (bpf_prog_get_next_id(id, &id) == 0) {
        int fd = bpf_prog_get_fd_by_id(id);
        if (fd < 0) continue;
        bpf_prog_info info{};
        uint32_t length = sizeof(info);
        if (bpf_obj_get_info_by_fd(fd, &info, &length) == 0) out[id] = {info.name, info.run_cnt, info.run_time_ns};
        close(fd);
    }
    return out;
}

StormRun run_storm(const Options& o, const std::string& mode, int threads) {
    StormRun r;
    r.mode = mode;
    r.threads = threads;
    fs::path logs = fs::path(o.out) / "logs";
    std::string stem = (logs / ("storm-" + mode + "-t" + std::to_string(threads))).string();
    int intervals = o.storm_seconds * 2;
    std::vector<std::string> argv = {o.java_home + "/bin/java", "-Xms" + o.heap, "-Xmx" + o.heap,
                                     "--enable-native-access=ALL-UNNAMED", "-cp", o.jar, "io.vtscope.bench.WriteStorm",
                                     std::to_string(threads), std::to_string(o.storm_warmup_ms), "500", std::to_string(intervals)};
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
    Child tracer;  // vtscope or bpftrace, by mode
    if (mode == "vtscope" || mode == "vtscope-stat") {
        tracer = start_tracer(o, "writer+trace", jvm.pid(), stem, mode == "vtscope-stat" ? "stat" : "trace", tracer_cpu);
        if (!wait_for_file(tracer_ready_file(stem), 30s, {&tracer, &jvm})) r.error = "no ready file";
    } else if (mode == "empty-bpf") {
        // The same tracepoint with a program that only filters on the pid: bpftrace, no new BPF code.
        std::string program = "tracepoint:syscalls:sys_enter_write /pid == " + std::to_string(jvm.pid()) + "/ { }";
        tracer = Child::start({"/usr/bin/bpftrace", "-e", program}, stem + ".tracer.out", stem + ".tracer.err", tracer_cpu);
        if (!wait_for_text(stem + ".tracer.out", "Attaching", 30s, {&tracer}))
            r.error = "bpftrace did not attach";
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
        for (const auto& [id, after] : bpf_program_stats()) {
            auto before = programs0.find(id);
            if (before == programs0.end() || after.runs <= before->second.runs) continue;
            double runs = static_cast<double>(after.runs - before->second.runs);
            if (std::isnan(r.program_runs) || runs > r.program_runs) {
                r.program = after.name;
                r.program_runs = runs;
                r.program_ns_per_run = static_cast<double>(after.run_time_ns - before->second.run_time_ns) / runs;
            }
        }
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


// ---------------------------------------------------------------- native memory

struct MemoryRun {
    std::string config;
    std::vector<double> bytes_per_thread;
};

MemoryRun run_memory(const Options& o, const std::string& config, int runs) {
    MemoryRun m;
    m.config = config;
    for (int i = 0; i < runs; i++) {
        std::vector<std::string> argv = {o.java_home + "/bin/java", "-XX:NativeMemoryTracking=summary", "-Xms512m",
                                         "-Xmx512m"};
        if (config == "probes") argv.push_back("-agentpath:" + o.native_lib + "=probes");
        argv.insert(argv.end(), {"--enable-native-access=ALL-UNNAMED", "-Dvtscope.library.path=" + o.native_lib, "-cp",
                                 o.workloads_classpath, "io.vtscope.workloads.NativeMemoryCost", "--threads", "10000"});
        if (config == "vtt") argv.push_back("--initialize");            // dormant: nothing registered
        if (config == "vtt-registered") argv.push_back("--register");   // every thread tracked
        std::string stem = (fs::path(o.out) / "logs" / ("memory-" + config + "-" + std::to_string(i))).string();
        int status = testing::Child::start(argv, stem + ".out", stem + ".err").wait();
        std::smatch match;
        std::string text = testing::read_file(stem + ".out");
        static const std::regex bytes(R"("bytes_per_live_thread":(-?[0-9.]+))");
        if (status == 0 && std::regex_search(text, match, bytes)) m.bytes_per_thread.push_back(std::stod(match[1]));
    }
    return m;
}


// ---------------------------------------------------------------- report

std::string fmt(double v, int decimals = 1) {
    if (std::isnan(v)) return "–";
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    return buf;
}

std::string fmt_signed(double v, int decimals = 1) {
    if (std::isnan(v)) return "–";
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%+.*f", decimals, v);
    return buf;
}

// Decimals so that the error shows about two significant digits.
int decimals_for(double error) {
    if (std::isnan(error) || error <= 0) return 1;
    int d = 1 - static_cast<int>(std::floor(std::log10(error)));
    return std::clamp(d, 0, 3);
}

std::string diff_text(const Difference& d) {
    int dec = decimals_for(d.error);
    return fmt_signed(d.value, dec) + " ± " + fmt(d.error, dec) + (d.significant ? "" : " (n.s.)");
}

struct Report {
    std::map<std::string, Cell>* cells;
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
        std::string counter = workload == "transition" || workload == "vtt-transition" ? "vtt-transition/vtt"
                                                                                      : "vtt-parkunpark/vtt";
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

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse_options(argc, argv, &o)) return 2;
    if (geteuid() != 0) {
        std::fprintf(stderr, "vtscope-bench: needs root (the consumer configurations attach vtscope trace)\n");
        return 1;
    }
    for (const auto& path : {o.jar, o.vtscope, o.native_lib, o.control_agent, o.java_home + "/bin/java"}) {
        if (!fs::exists(path)) {
            std::fprintf(stderr, "vtscope-bench: missing %s (run make all)\n", path.c_str());
            return 1;
        }
    }
    fs::create_directories(fs::path(o.out) / "logs");
    auto started = Clock::now();

    // The cells, in the order of the workload list.
    std::vector<Workload> workloads = all_workloads();
    std::map<std::string, Cell> cells;
    std::vector<std::string> order;
    auto wanted = [](const std::vector<std::string>& filter, const std::string& name) {
        return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
    };
    for (const auto& w : workloads) {
        if (!wanted(o.workloads, w.id)) continue;
        for (const auto& c : w.configs) {
            if (!wanted(o.configs, c)) continue;
            Cell cell;
            cell.workload = &w;
            cell.config = c;
            order.push_back(cell.key());
            cells.emplace(cell.key(), std::move(cell));
        }
    }
    std::string jdk = command_output(o.java_home + "/bin/java -version 2>&1 | head -2 | tail -1");
    std::fprintf(stderr, "vtscope-bench: %zu cells x %d forks (-wi %d -w %s -i %d -r %s), JDK %s\n", order.size(),
                 o.forks, o.warmup_iterations, o.warmup_time.c_str(), o.iterations, o.iteration_time.c_str(),
                 jdk.c_str());
    // Fork k of every cell, then fork k+1: drift over the run spreads over all cells alike.
    for (int f = 1; f <= o.forks; f++) {
        for (const auto& key : order) {
            Cell& cell = cells.at(key);
            run_fork(o, &cell, f);
            std::fprintf(stderr, "  [%3.0fs] %-32s fork %d: %zu samples%s\n",
                         std::chrono::duration<double>(Clock::now() - started).count(), key.c_str(), f,
                         cell.samples.size(), cell.errors.empty() ? "" : (" ERROR: " + cell.errors.back()).c_str());
        }
    }
    for (auto& [key, cell] : cells) cell.summary = summarize(cell.samples);

    std::vector<StormRun> storm;
    if (o.storm) {
        std::fprintf(stderr, "vtscope-bench: write storm (per-event consumer cost)\n");
        for (auto [mode, threads] : std::vector<std::pair<std::string, int>>{
                 {"none", 1}, {"empty-bpf", 1}, {"vtscope", 1}, {"vtscope-stat", 1}, {"none", 2}, {"vtscope", 2}}) {
            storm.push_back(run_storm(o, mode, threads));
            const StormRun& r = storm.back();
            std::fprintf(stderr, "  %-12s threads=%d: %s ns/write, %.0f writes/s%s\n", mode.c_str(), threads,
                         fmt(r.ns_per_write.mean).c_str(), r.writes_per_second,
                         r.error.empty() ? "" : (" ERROR: " + r.error).c_str());
        }
    }
    std::vector<MemoryRun> memory;
    if (o.memory) {
        std::fprintf(stderr, "vtscope-bench: native memory per live virtual thread (NMT)\n");
        for (const char* c : {"baseline", "vtt", "vtt-registered", "probes"}) memory.push_back(run_memory(o, c, o.quick ? 1 : 3));
    }
    double elapsed = std::chrono::duration<double>(Clock::now() - started).count();

    // ------------------------------------------------------------ outputs
    Report rep{&cells};
    struct utsname uts {};
    uname(&uts);
    std::string settings_line = "forks " + std::to_string(o.forks) + " (child JVMs, JMH -f 0 in each), warm-up " +
                                std::to_string(o.warmup_iterations) + " x " + o.warmup_time + ", measurement " +
                                std::to_string(o.iterations) + " x " + o.iteration_time + ", heap " + o.heap;
    std::string machine = std::to_string(std::thread::hardware_concurrency()) + " CPUs (" + cpu_model() + "), kernel " +
                          uts.release;

    std::ostringstream md;
    md << "# vtscope benchmark matrix\n\n";
    md << "- date: " << now_utc() << "\n- machine: " << machine << "\n- JDK: " << jdk << "\n- settings: "
       << settings_line << "\n- error: 99.9% confidence half-width (Student t, n-1 d.f.) over all measurement "
          "iterations of all forks; differences carry the quadrature error sqrt(e1²+e2²), n.s. when the interval "
          "contains zero\n- run time: "
       << fmt(elapsed, 0) << " s\n\n";
    md << "## Configurations\n\n| config | meaning | reference |\n| --- | --- | --- |\n";
    for (const auto& c : kConfigs) {
        auto it = kReference.find(c);
        md << "| `" << c << "` | " << kConfigMeaning.at(c) << " | " << (it == kReference.end() ? "–" : it->second)
           << " |\n";
    }
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
        if (!w.reference.empty()) ref_key = w.reference;
        else if (auto it = kReference.find(c.config); it != kReference.end()) ref_key = w.id + "/" + it->second;
        if (auto d = ref_key.empty() ? std::nullopt : rep.diff(key, ref_key)) {
            md << diff_text(*d) << " vs `" << ref_key.substr(ref_key.find('/') + 1)
               << (w.reference.empty() ? "" : "` (" + ref_key.substr(0, ref_key.find('/')) + ")") << (w.reference.empty() ? "`" : "")
               << " | " << fmt_signed(d->relative * 100, 1) << "% | " << rep.normalised(w, *d);
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
                md << diff_text(*d) << " (" << fmt_signed(d->relative * 100, 1) << "%; " << rep.normalised(w, *d) << ")";
        }
        md << " |\n";
    }
    md << "\nTransitions per operation (mount + unmount events of the registered variants, per op): Transition "
       << fmt(rep.transitions("transition"), 0) << ", Park/Unpark " << fmt(rep.transitions("parkunpark"), 0)
       << ". Probe events per op: the same for Transition and Park/Unpark; 4,000 for Churn (start, mount, unmount, "
          "end per thread).\n";

    // Consumers.
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
    // Write storm.
    const StormRun *none1 = nullptr, *empty1 = nullptr, *vt1 = nullptr, *vt2 = nullptr, *stat1 = nullptr;
    for (const auto& r : storm) {
        if (r.threads == 1 && r.mode == "vtscope-stat") stat1 = &r;
        if (r.threads == 1 && r.mode == "none") none1 = &r;
        if (r.threads == 1 && r.mode == "empty-bpf") empty1 = &r;
        if (r.threads == 1 && r.mode == "vtscope") vt1 = &r;
        if (r.threads == 2 && r.mode == "vtscope") vt2 = &r;
    }
    if (!storm.empty()) {
        md << "\n## Per-event consumer cost (write storm)\n\n"
              "`io.vtscope.bench.WriteStorm`: N virtual threads, each with a context published, write 1 byte to "
              "/dev/null in a loop; "
           << o.storm_seconds * 2
           << " intervals of 500 ms after a " << o.storm_warmup_ms / 1000 << " s warm-up (the consumer attaches during it). ns/write is per thread "
              "(interval time x threads / writes). `empty-bpf`: bpftrace on the same tracepoint "
              "(`tracepoint:syscalls:sys_enter_write /pid == PID/ { }`). Consumer CPU: utime+stime from "
              "/proc/PID/stat over the measured intervals, divided by the writes in them (all attributed events); "
              "`vtscope trace --output /dev/null` still formats every event.\n\n"
              "With one writer the JVM runs on CPU 0 and the tracer on CPU 1 (`pinned`). BPF program ns/run: the "
              "kernel's run-time statistics (`bpf_enable_stats(BPF_STATS_RUN_TIME)`, run_time_ns / run_cnt of the "
              "program on sys_enter_write over the measured intervals), the program's own cost per syscall.\n\n"
              "| mode | threads | pinned | ns/write | writes/s | BPF program ns/run | consumer events | ok | lost | "
              "consumer CPU ns/event | consumer CPU share |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
        for (const auto& r : storm) {
            bool vtscope_mode = r.mode == "vtscope" || r.mode == "vtscope-stat";
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
            Difference over_empty = difference(vt1->ns_per_write.mean, vt1->ns_per_write.error,
                                               empty1->ns_per_write.mean, empty1->ns_per_write.error);
            Difference empty = difference(empty1->ns_per_write.mean, empty1->ns_per_write.error,
                                          none1->ns_per_write.mean, none1->ns_per_write.error);
            md << "\nIn the writing thread, per event (1 thread): vtscope's program "
               << diff_text(kernel) << " ns over no tracing; the empty program " << diff_text(empty)
               << " ns; vtscope over the empty program " << diff_text(over_empty) << " ns per attributed syscall.\n";
            if (!std::isnan(vt1->program_ns_per_run) && !std::isnan(empty1->program_ns_per_run))
                md << "\nProgram run time per syscall (bpf_stats): vtscope's " << fmt(vt1->program_ns_per_run, 1)
                   << " ns, the empty program's " << fmt(empty1->program_ns_per_run, 1) << " ns: vtscope's program costs "
                   << fmt(vt1->program_ns_per_run - empty1->program_ns_per_run, 1)
                   << " ns more per attributed syscall.\n";
            if (stat1) {
                Difference stat_over_empty = difference(stat1->ns_per_write.mean, stat1->ns_per_write.error,
                                                        empty1->ns_per_write.mean, empty1->ns_per_write.error);
                md << "\n`vtscope stat` (counts in the kernel, no event stream): " << diff_text(stat_over_empty)
                   << " ns per attributed syscall over the empty program in the writing thread";
                if (!std::isnan(stat1->program_ns_per_run) && !std::isnan(empty1->program_ns_per_run))
                    md << "; program run time " << fmt(stat1->program_ns_per_run, 1) << " ns, "
                       << fmt(stat1->program_ns_per_run - empty1->program_ns_per_run, 1) << " ns more than the empty program's";
                md << ".\n";
            }
        }
        if (vt2)
            md << "\nSustained with 2 writing threads: " << fmt(vt2->writes_per_second, 0) << " traced writes/s; of "
               << vt2->tracer.events << " events the consumer received " << vt2->tracer.events - vt2->tracer.lost
               << " (" << vt2->tracer.ok << " ok) and lost " << vt2->tracer.lost << " ("
               << fmt(vt2->tracer.events ? 100.0 * static_cast<double>(vt2->tracer.lost) / static_cast<double>(vt2->tracer.events) : NAN, 1)
               << "%); consumer CPU " << fmt(vt2->consumer_cpu_ns_per_event, 0) << " ns per traced write ("
               << fmt(vt2->consumer_cpu_share * 100, 0) << "% of a CPU).\n";
    }
    if (!memory.empty()) {
        md << "\n## Native memory per live virtual thread (NMT, `io.vtscope.workloads.NativeMemoryCost`, 10,000 "
              "parked threads)\n\n| config | bytes per live virtual thread (runs) |\n| --- | --- |\n";
        for (const auto& m : memory) {
            md << "| " << m.config << " | ";
            for (size_t i = 0; i < m.bytes_per_thread.size(); i++) md << (i ? ", " : "") << fmt(m.bytes_per_thread[i], 0);
            md << " |\n";
        }
    }

    // Targets of issue 5.
    md << "\n## Targets (issue 5)\n\n| target | measured | verdict |\n| --- | --- | --- |\n";
    auto target = [&](const std::string& what, const std::string& measured, std::optional<bool> met) {
        md << "| " << what << " | " << measured << " | "
           << (!met ? "not measured" : (*met ? "met" : "**missed**")) << " |\n";
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
        target("attributed syscall (`vtscope trace`, one event each): <= 150 ns over the same tracepoint with an "
               "empty program",
               diff_text(d) + " ns in the writing thread" + program, d.value <= 150);
        if (stat1) {
            Difference ds = difference(stat1->ns_per_write.mean, stat1->ns_per_write.error, empty1->ns_per_write.mean,
                                       empty1->ns_per_write.error);
            std::string stat_program =
                std::isnan(stat1->program_ns_per_run) || std::isnan(empty1->program_ns_per_run)
                    ? ""
                    : "; program run time " + fmt_signed(stat1->program_ns_per_run - empty1->program_ns_per_run, 1) +
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
        target(what, fmt_signed(d->value * k, dec) + " ± " + fmt(d->error * k, dec) + " ns/cycle", d->value * k <= limit);
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
    // Errors.
    bool any_error = false;
    for (const auto& key : order)
        for (const auto& e : cells.at(key).errors) {
            if (!any_error) md << "\n## Errors\n\n";
            any_error = true;
            md << "- " << key << ": " << e << "\n";
        }

    // Figure 2: runtime relative to baseline, per workload and configuration.
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
    md << "\n## Figure\n\n`" << svg.string() << "`" << (convert_out == "ok" ? ", `" + png.string() + "`" : " (no PNG: rsvg-convert missing)")
       << "\n";
    std::ofstream(fs::path(o.out) / "results.md") << md.str();

    // results.json
    std::ostringstream js;
    js << "{\"date\":" << json_quote(now_utc()) << ",\"machine\":" << json_quote(machine) << ",\"jdk\":" << json_quote(jdk)
       << ",\"settings\":{\"forks\":" << o.forks << ",\"warmup_iterations\":" << o.warmup_iterations
       << ",\"warmup_time\":" << json_quote(o.warmup_time) << ",\"iterations\":" << o.iterations
       << ",\"iteration_time\":" << json_quote(o.iteration_time) << ",\"heap\":" << json_quote(o.heap)
       << ",\"confidence\":0.999},\"elapsed_s\":" << fmt(elapsed, 1) << ",\"cells\":[";
    bool first = true;
    for (const auto& key : order) {
        const Cell& c = cells.at(key);
        js << (first ? "" : ",") << "\n{\"workload\":" << json_quote(c.workload->id) << ",\"benchmark\":"
           << json_quote(c.workload->benchmark) << ",\"config\":" << json_quote(c.config) << ",\"unit\":"
           << json_quote(c.unit) << ",\"n\":" << c.summary.n << ",\"score\":" << (c.summary.n ? fmt(c.summary.mean, 4) : "null")
           << ",\"error\":" << (c.summary.n > 1 ? fmt(c.summary.error, 4) : "null") << ",\"samples\":[";
        for (size_t i = 0; i < c.samples.size(); i++) js << (i ? "," : "") << fmt(c.samples[i], 4);
        js << "]";
        if (!std::isnan(c.transitions_per_op)) js << ",\"transitions_per_op\":" << fmt(c.transitions_per_op, 2);
        if (!c.tracers.empty()) {
            js << ",\"consumers\":[";
            for (size_t i = 0; i < c.tracers.size(); i++) {
                const auto& t = c.tracers[i];
                js << (i ? "," : "") << "{\"attach_ms\":" << (std::isnan(t.attach_ms) ? "null" : fmt(t.attach_ms, 0))
                   << ",\"late\":" << (t.late ? "true" : "false") << ",\"exit\":" << t.exit_status << ",\"events\":"
                   << t.events << ",\"ok\":" << t.ok << ",\"lost\":" << t.lost << ",\"inserted\":" << t.inserted
                   << ",\"deleted\":" << t.deleted << ",\"cpu_s\":" << fmt(t.cpu_seconds, 3) << ",\"summary\":"
                   << json_quote(t.summary) << "}";
            }
            js << "]";
        }
        js << ",\"errors\":[";
        for (size_t i = 0; i < c.errors.size(); i++) js << (i ? "," : "") << json_quote(c.errors[i]);
        js << "]}";
        first = false;
    }
    js << "],\n\"storm\":[";
    for (size_t i = 0; i < storm.size(); i++) {
        const auto& r = storm[i];
        js << (i ? "," : "") << "\n{\"mode\":" << json_quote(r.mode) << ",\"threads\":" << r.threads
           << ",\"ns_per_write\":" << fmt(r.ns_per_write.mean, 2) << ",\"error\":" << fmt(r.ns_per_write.error, 2)
           << ",\"writes_per_s\":" << fmt(r.writes_per_second, 0) << ",\"consumer_events\":" << r.tracer.events
           << ",\"consumer_ok\":" << r.tracer.ok << ",\"consumer_lost\":" << r.tracer.lost
           << ",\"consumer_cpu_ns_per_event\":"
           << (std::isnan(r.consumer_cpu_ns_per_event) ? "null" : fmt(r.consumer_cpu_ns_per_event, 1))
           << ",\"pinned\":" << (r.pinned ? "true" : "false") << ",\"program\":" << json_quote(r.program)
           << ",\"program_ns_per_run\":" << (std::isnan(r.program_ns_per_run) ? "null" : fmt(r.program_ns_per_run, 1))
           << ",\"error_text\":" << json_quote(r.error) << "}";
    }
    js << "],\n\"memory\":[";
    for (size_t i = 0; i < memory.size(); i++) {
        js << (i ? "," : "") << "{\"config\":" << json_quote(memory[i].config) << ",\"bytes_per_thread\":[";
        for (size_t k = 0; k < memory[i].bytes_per_thread.size(); k++) js << (k ? "," : "") << fmt(memory[i].bytes_per_thread[k], 1);
        js << "]}";
    }
    js << "]}\n";
    std::ofstream(fs::path(o.out) / "results.json") << js.str();

    std::fprintf(stderr, "vtscope-bench: %.0f s; wrote %s/results.md, results.json, figure.svg%s\n", elapsed,
                 o.out.c_str(), convert_out == "ok" ? ", figure.png" : "");
    std::fwrite(md.str().data(), 1, md.str().size(), stdout);
    return any_error ? 1 : 0;
}
