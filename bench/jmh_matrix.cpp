// SPDX-License-Identifier: Apache-2.0
// The JMH part of the benchmark matrix: one child JVM per cell and fork, a consumer attached in
// the consumer configurations, the JMH JSON result merged into the cell.
#include "jmh_matrix.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>

#include "bench_process.h"
#include "output/json_io.h"

namespace vtscope::bench {

const std::vector<std::string> kConfigs = {"baseline", "writer",       "writer+trace", "jvmti",
                                           "lib",      "vtt",          "probes",       "probes+consumer",
                                           "otep",     "otep-patched", "otep-jvmti",   "block"};

const std::map<std::string, std::string> kReference = {
    {"writer", "baseline"},  {"writer+trace", "writer"}, {"jvmti", "baseline"},         {"lib", "baseline"},
    {"vtt", "lib"},          {"probes", "lib"},          {"probes+consumer", "probes"}, {"otep", "lib"},
    {"otep-patched", "lib"}, {"otep-jvmti", "lib"},      {"block", "baseline"}};

const std::map<std::string, std::string> kConfigMeaning = {
    {"baseline", "nothing of vtscope in the JVM"},
    {"writer",
     "vtscope-otel storage installed (service loader), dormant; in Transition and Park/Unpark the "
     "virtual threads have a span current"},
    {"writer+trace", "writer + `vtscope trace --syscalls write` (vmstructs) attached"},
    {"jvmti",
     "control: a JVMTI agent with can_support_virtual_threads and empty VirtualThreadStart/End "
     "callbacks (bench/jvmti_control_agent.cpp; the paper's \"Agent\")"},
    {"lib", "libvtscope.so loaded at run time (dlopen), not initialised: no JVMTI environment, no events"},
    {"vtt",
     "VirtualThreadTime.initialize() at run time, nothing registered: a JVMTI environment with "
     "can_support_virtual_threads, no event enabled (the first registration enables them)"},
    {"probes", "-agentpath:libvtscope.so=probes, no consumer: events off until a tracer holds the probe semaphores"},
    {"probes+consumer", "probes + `vtscope trace --identity lifecycle --syscalls write` attached"},
    {"otep",
     "-agentpath:libvtscope.so=otep (otel_thread_ctx_v1 follows every mount, through the VirtualThread mount "
     "hook)"},
    {"otep-patched",
     "--patch-module java.base=DIR -agentpath:libvtscope.so=otep: the same calls in a java.base the library "
     "patched (write-patch=DIR, written once per run into the output directory), no JVMTI environment"},
    {"otep-jvmti",
     "-agentpath:libvtscope.so=otep-jvmti (the same through the JVMTI mount/unmount events, the fallback)"},
    {"block", "nothing of vtscope in the JVM; `vtscope block` (sched_switch, vmstructs) attached"}};

namespace {

std::string java_base_patch_dir(const Options& o) { return (fs::path(o.out) / "java.base-patch").string(); }

const std::vector<Workload>& all_workloads() {
    static const std::vector<Workload> workloads = {
        {"transition", "Transition", "io.vtscope.bench.Transition.yield10k", kConfigs, Norm::PerTransition, ""},
        {"parkunpark", "Park/Unpark", "io.vtscope.bench.ParkUnpark.handoff10k", kConfigs, Norm::PerTransition, ""},
        {"churn", "Churn", "io.vtscope.bench.Churn.startJoin1000", kConfigs, Norm::PerThread, ""},
        {"ctx-platform",
         "Context publication, platform thread",
         "io.vtscope.bench.ContextPublication.platformThread",
         {"baseline", "writer"},
         Norm::PerPair,
         ""},
        {"ctx-distinct",
         "Context publication, platform thread, distinct spans",
         "io.vtscope.bench.ContextPublication.platformThreadDistinctSpans",
         {"baseline", "writer"},
         Norm::PerPair,
         ""},
        {"ctx-virtual",
         "Context publication, virtual thread",
         "io.vtscope.bench.ContextPublication.virtualThread",
         {"baseline", "writer"},
         Norm::PerPair,
         ""},
        {"vtt-nanotime",
         "System.nanoTime() pair (control)",
         "io.vtscope.bench.VirtualThreadTimeBench.nanoTimePair",
         {"vtt"},
         Norm::None,
         ""},
        {"vtt-pair",
         "mountedTimeNanos() pair",
         "io.vtscope.bench.VirtualThreadTimeBench.mountedTimePair",
         {"vtt"},
         Norm::PerPair,
         "vtt-nanotime/vtt"},
        {"vtt-transition",
         "Transition, thread registered",
         "io.vtscope.bench.VirtualThreadTimeBench.yield10kRegistered",
         {"vtt"},
         Norm::PerTransition,
         "transition/vtt"},
        {"vtt-parkunpark",
         "Park/Unpark, threads registered",
         "io.vtscope.bench.VirtualThreadTimeBench.handoff10kRegistered",
         {"vtt"},
         Norm::PerTransition,
         "parkunpark/vtt"},
    };
    return workloads;
}

bool has_consumer(const std::string& config) {
    return config == "writer+trace" || config == "probes+consumer" || config == "block" || profile_config(config);
}

// The configuration as the JVM sees it: a profile configuration is a baseline JVM with `vtscope
// profile` attached from outside (io.vtscope.bench.Matrix checks the baseline's claim).
std::string in_jvm_config(const std::string& config) { return profile_config(config) ? "baseline" : config; }

std::vector<std::string> jvm_options(const Options& o, const std::string& config) {
    // jmh.ignoreLock: JMH refuses to start while another JMH holds /tmp/jmh.lock, and this machine
    // is shared (the noise is dealt with by interleaving the forks, not by a lock).
    std::vector<std::string> opts = {"-Xms" + o.heap, "-Xmx" + o.heap, "--enable-native-access=ALL-UNNAMED",
                                     "-Dvtscope.bench.config=" + in_jvm_config(config), "-Djmh.ignoreLock=true"};
    if (config == "jvmti") opts.push_back("-agentpath:" + o.control_agent);
    if (config == "lib" || config == "vtt") opts.push_back("-Dvtscope.library.path=" + o.native_lib);
    if (config == "probes" || config == "probes+consumer") opts.push_back("-agentpath:" + o.native_lib + "=probes");
    if (config == "otep" || config == "otep-jvmti") opts.push_back("-agentpath:" + o.native_lib + "=" + config);
    if (config == "otep-patched") {
        opts.push_back("--patch-module=java.base=" + java_base_patch_dir(o));
        opts.push_back("-agentpath:" + o.native_lib + "=otep");
    }
    return opts;
}

// otep-patched: writes the library's patched java.base into java_base_patch_dir(o) with the JDK of
// the run; false with *error when it cannot.
bool write_java_base_patch(const Options& o, std::string* error) {
    std::string err;
    int rc = testing::run_command({o.java_home + "/bin/java",
                                   "-agentpath:" + o.native_lib + "=write-patch=" + java_base_patch_dir(o), "-version"},
                                  &err, 120s);
    if (rc == 0 && err.find("vtscope: wrote a patched java.base") != std::string::npos) return true;
    *error = "write-patch failed (exit " + std::to_string(rc) + "): " + err.substr(0, 400);
    return false;
}

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
    for (auto& opt : cell->workload->jvm_options) argv.push_back(opt);
    std::vector<std::string> jmh = {"-jar",
                                    o.jar,
                                    "-f",
                                    "0",
                                    "-wi",
                                    std::to_string(o.warmup_iterations),
                                    "-w",
                                    o.warmup_time,
                                    "-i",
                                    std::to_string(o.iterations),
                                    "-r",
                                    o.iteration_time,
                                    "-rf",
                                    "json",
                                    "-rff",
                                    json,
                                    "-foe",
                                    "true",
                                    "-p",
                                    "config=" + in_jvm_config(cell->config),
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
    std::optional<ProgramCost> cost;  // the sampler's run time, for the profile configurations
    if (profile_config(cell->config)) cost.emplace();
    if (has_consumer(cell->config)) {
        ts.present = true;
        // Attach once the benchmark's setup is done (JMH prints the first warm-up iteration), so
        // the JVM is fully up; the warm-up iterations absorb the attach.
        if (wait_for_text(out, "# Warmup Iteration", 60s, {&jvm})) {
            tracer = start_tracer(o, cell->config, jvm.pid(), stem, cell->config == "block" ? "block" : "trace");
            if (wait_for_file(tracer_ready_file(stem), 60s, {&tracer, &jvm})) {
                ts.attach_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
                // A measurement line "Iteration   1:" (not "# Warmup Iteration") means it was late.
                ts.late = read_file(out).find("\nIteration   1:") != std::string::npos;
            } else {
                cell->errors.push_back(fork_name + ": the consumer never became ready");
            }
        } else {
            cell->errors.push_back(fork_name + ": JMH never started its warm-up");
        }
    }
    // The consumer's CPU over the measured interval: from the first measurement iteration (JMH
    // prints "Iteration   1:" as it begins) to the JVM's exit, while the consumer still runs.
    double cpu0 = NAN;
    Clock::time_point t0;
    if (tracer.pid() > 0 && wait_for_text(out, "\nIteration   1:", 600s, {&jvm})) {
        cpu0 = process_cpu_seconds(tracer.pid());
        t0 = Clock::now();
        if (cost) cost->start(tracer.pid(), process_cpu_seconds(jvm.pid()));
    }
    int jvm_status = jvm.wait();
    if (cost && tracer.pid() > 0) cost->stop(jvm.cpu_seconds(), &ts);
    if (tracer.pid() > 0) {
        if (!std::isnan(cpu0))
            ts.cpu_share =
                (process_cpu_seconds(tracer.pid()) - cpu0) / std::chrono::duration<double>(Clock::now() - t0).count();
        std::string summary_error = finish_tracer(tracer, stem, &ts);
        if (ts.exit_status != 0)
            cell->errors.push_back(fork_name + ": the consumer exited " + std::to_string(ts.exit_status));
        else if (!summary_error.empty())
            cell->errors.push_back(fork_name + ": " + summary_error);
        if (ts.late) cell->errors.push_back(fork_name + ": consumer ready after measurement began");
        cell->tracers.push_back(ts);
    }
    if (jvm_status != 0) {
        cell->errors.push_back(fork_name + ": java exited " + std::to_string(jvm_status) + " (see " + err + ", " + out +
                               ")");
        return;
    }
    // JMH may write a bare NaN (an undefined error), which is no JSON: read as null.
    static const std::regex nan(R"(([:\[,]\s*)NaN\b)");
    Json root = parse_json(std::regex_replace(read_file(json), nan, "$1null"));
    if (!root.is_array() || root.empty()) {
        cell->errors.push_back(fork_name + ": no JMH result in " + json);
        return;
    }
    const Json& metric = json_at(json_array(root)[0], "primaryMetric");
    cell->unit = json_string(json_at(metric, "scoreUnit"));
    for (const Json& forkData : json_array(json_at(metric, "rawData")))
        for (const Json& v : json_array(forkData))
            if (v.is_number()) cell->samples.push_back(json_number(v));
    // Registered variants report their transition counts.
    static const std::regex counts(
        R"(# vtscope-bench transitions: benchmark=\S+ ops=(\d+) mounts=(\d+) unmounts=(\d+))");
    std::string text = read_file(out);
    std::smatch m;
    if (std::regex_search(text, m, counts)) {
        double ops = std::stod(m[1]), per = (std::stod(m[2]) + std::stod(m[3])) / std::max(ops, 1.0);
        cell->transitions_per_op = std::isnan(cell->transitions_per_op) ? per : (cell->transitions_per_op + per) / 2;
    }
}

}  // namespace

Matrix make_matrix(const Options& o) {
    Matrix m;
    auto wanted = [](const std::vector<std::string>& filter, const std::string& name) {
        return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
    };
    for (const auto& w : all_workloads()) {
        if (!wanted(o.workloads, w.id)) continue;
        for (const auto& c : w.configs) {
            if (!wanted(o.configs, c)) continue;
            Cell cell;
            cell.workload = &w;
            cell.config = c;
            m.order.push_back(cell.key());
            m.cells.emplace(cell.key(), std::move(cell));
        }
    }
    return m;
}

namespace {

// The otep-patched cells need the library's patched java.base, written with the run's own JDK.
void prepare_patch(MatrixRun* run) {
    const auto& order = run->matrix->order;
    bool wanted = std::any_of(order.begin(), order.end(), [&](const std::string& key) {
        return run->matrix->cells.at(key).config == "otep-patched";
    });
    run->patched = !wanted || write_java_base_patch(*run->options, &run->patch_error);
}

void run_cells(MatrixRun* run, int fork, const std::string& label, Clock::time_point started) {
    for (const auto& key : run->matrix->order) {
        Cell& cell = run->matrix->cells.at(key);
        if (cell.config == "otep-patched" && !run->patched) {
            if (fork == 1) cell.errors.push_back(run->patch_error);
            continue;
        }
        run_fork(*run->options, &cell, fork);
        std::fprintf(stderr, "  [%3.0fs] %-32s %sfork %d: %zu samples%s\n",
                     std::chrono::duration<double>(Clock::now() - started).count(), key.c_str(), label.c_str(), fork,
                     cell.samples.size(), cell.errors.empty() ? "" : (" ERROR: " + cell.errors.back()).c_str());
    }
}

}  // namespace

void run_matrix(std::span<MatrixRun> runs, Clock::time_point started) {
    for (MatrixRun& run : runs) {
        const Options& o = *run.options;
        std::fprintf(stderr, "vtscope-bench: %zu cells x %d forks (-wi %d -w %s -i %d -r %s), JDK %s\n",
                     run.matrix->order.size(), o.forks, o.warmup_iterations, o.warmup_time.c_str(), o.iterations,
                     o.iteration_time.c_str(), run.jdk.c_str());
        prepare_patch(&run);
    }
    // Fork k of every cell (of every JDK), then fork k+1: drift over the run spreads over all
    // cells alike, and two JDKs are compared on the same machine state.
    for (int f = 1; f <= runs.front().options->forks; f++)
        for (MatrixRun& run : runs) run_cells(&run, f, runs.size() > 1 ? run.label + " " : "", started);
    for (MatrixRun& run : runs)
        for (auto& [key, cell] : run.matrix->cells) cell.summary = summarize(cell.samples);
}

void run_matrix(const Options& o, const std::string& jdk, Clock::time_point started, Matrix* matrix) {
    MatrixRun run;
    run.options = &o;
    run.jdk = jdk;
    run.matrix = matrix;
    run_matrix(std::span<MatrixRun>(&run, 1), started);
}

}  // namespace vtscope::bench
