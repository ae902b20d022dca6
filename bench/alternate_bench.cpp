// SPDX-License-Identifier: Apache-2.0
#include "alternate_bench.h"

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "bench_process.h"
#include "output/json_io.h"
#include "process_runner.h"
#include "profile_bench.h"
#include "report_writer.h"
#include "tracer.h"
#include "workload_output.h"

namespace vtscope::bench {

namespace {

constexpr double kConfidence = 0.95;

std::string log_stem(const Options& o, const std::string& name) { return (fs::path(o.out) / "logs" / name).string(); }

// The workload's JVM: `phases` loads, each after its own go file (GO.P).
std::vector<std::string> workload_argv(const Options& o, const std::string& workload, int phases, const std::string& go,
                                       const std::string& ready) {
    std::vector<std::string> argv = {o.java_home + "/bin/java", "-Xms" + o.heap, "-Xmx" + o.heap,
                                     // Frame pointers in every phase: --stacks walks Java frames with them.
                                     "-XX:+PreserveFramePointer"};
    if (workload == "demo") {
        for (const auto& a :
             {std::string("--enable-native-access=ALL-UNNAMED"), std::string("-cp"), o.workloads_classpath,
              std::string("io.vtscope.workloads.DemoService"), std::string("--requests"),
              std::to_string(o.demo_requests), std::string("--concurrency"), std::string("8"),
              std::string("--warm-up-requests"), std::to_string(o.demo_warmup), std::string("--ready-file"), ready,
              std::string("--go-file"), go, std::string("--batches"), std::to_string(phases)})
            argv.push_back(a);
        return argv;
    }
    // One virtual thread yielding, parallelism 1: no idle carrier spins for work on the other CPU.
    for (const auto& a : {std::string("-Djdk.virtualThreadScheduler.parallelism=1"), std::string("-cp"), o.jar,
                          std::string("io.vtscope.bench.CpuCost"), std::string("transition"),
                          std::to_string(o.alternate_rounds), std::string(o.quick ? "2" : "5"),
                          std::string("--go-file"), go, std::string("--phases"), std::to_string(phases)})
        argv.push_back(a);
    return argv;
}

// The command line for the report, without the build's paths.
std::string command_text(const Options& o, const std::string& workload) {
    if (workload == "demo")
        return "io.vtscope.workloads.DemoService --requests " + std::to_string(o.demo_requests) +
               " --concurrency 8 --warm-up-requests " + std::to_string(o.demo_warmup) + " --batches K";
    return "io.vtscope.bench.CpuCost transition " + std::to_string(o.alternate_rounds) + " " + (o.quick ? "2" : "5") +
           " --phases K (-Djdk.virtualThreadScheduler.parallelism=1)";
}

// A reference configuration, "sampler-N": bpftrace's `profile:hz:N` with an empty action, one
// software cpu-clock event per CPU at N Hz as vtscope profile opens them: what the sampling
// mechanism costs (timer interrupts, the program's dispatch) without anything of vtscope.
// "sampler-N-stacks": the same events, and for the target's samples only (as vtscope profile
// --stacks takes them) the user and kernel stack ids counted in a map, as any eBPF profiler that
// aggregates stacks in the kernel does (bpftrace's ustack and kstack are bpf_get_stackid in a stack
// map of 127 frames, like vtscope's); END clears the map, so nothing is symbolised at exit.
struct SamplerConfig {
    int hz;
    bool stacks;
};

std::optional<SamplerConfig> sampler_config(const std::string& config) {
    static const std::regex name(R"(sampler-(\d+)(-stacks)?)");
    std::smatch m;
    if (!std::regex_match(config, m, name)) return std::nullopt;
    return SamplerConfig{std::stoi(m[1]), m[2].matched};
}

std::string sampler_program(const SamplerConfig& sampler, const std::string& target) {
    std::string probe = "profile:hz:" + std::to_string(sampler.hz);
    if (!sampler.stacks) return probe + " { }";
    return probe + " /pid == " + target + "/ { @[ustack, kstack] = count(); } END { clear(@); }";
}

// The bpftrace program of a reference configuration (a sampler or the control), for target; none
// for vtscope's own configurations. The control's BEGIN probe is a uprobe on bpftrace itself that
// fires once at start: bpftrace then holds no event source and waits for SIGINT like the samplers.
std::optional<std::string> reference_program(const std::string& config, const std::string& target) {
    if (config == kControlConfig) return "BEGIN { }";
    if (auto sampler = sampler_config(config)) return sampler_program(*sampler, target);
    return std::nullopt;
}

Child start_reference(const std::string& program, const std::string& stem) {
    return Child::start({"/usr/bin/bpftrace", "-e", program}, stem + ".tracer.out", stem + ".tracer.err");
}

std::string consumer_text(const std::string& config) {
    if (is_before(config)) return consumer_text(without_before(config)) + " (the --vtscope-before build)";
    if (auto program = reference_program(config, "PID")) return "bpftrace " + *program;
    if (auto p = profile_config(config))
        return "vtscope profile --hz " + std::to_string(p->hz) + (p->stacks ? " --stacks" : "");
    return "vtscope block";
}

// The text of `out` once the line that starts with marker is whole (up to 5 s): the JVM's PrintStream
// may write one line in pieces, and the marker can be read before the figures after it.
std::string whole_line(const std::string& out, const std::string& marker, const Child& jvm) {
    auto deadline = Clock::now() + 5s;
    while (true) {
        std::string text = read_file(out);
        auto at = text.find(marker);
        if (at != std::string::npos && text.find('\n', at) != std::string::npos) return text;
        if (Clock::now() > deadline || !jvm.running()) return text;
        std::this_thread::sleep_for(10ms);
    }
}

// The marker of batch (demo) or phase (CpuCost) number `batch` in the workload's output.
std::string result_marker(const AlternateRun& run, int batch) {
    return (run.workload == "demo" ? "# demo batch=" : "# cpucost phase=") + std::to_string(batch) + " ";
}

// One phase: the consumer started unless the phase is off; with --alternate-settle a settle batch
// (its result discarded) while it starts; its readiness awaited; the go file, the phase's result
// line, the consumer stopped (its exit awaited). False when the JVM is gone.
bool run_phase(const Options& o, AlternateRun* run, Child& jvm, const std::string& stem, int index,
               AlternatePhase* phase) {
    std::string label = std::string(phase->warm_up ? "warm-up " : "") + "phase " + std::to_string(index) + " (" +
                        (phase->config == kPhaseOff ? "off" : run->configs[static_cast<size_t>(phase->config)]) + ")";
    std::string out = stem + ".out";
    // With settle batches the workload runs two batches per phase: 2i - 1 (settle) and 2i (measured).
    int batch = run->settle ? 2 * index : index;
    Child tracer;
    std::string tracer_stem = stem + "-p" + std::to_string(index);
    bool consumer_ok = true;
    std::optional<std::string> reference =
        phase->config != kPhaseOff
            ? reference_program(run->configs[static_cast<size_t>(phase->config)], std::to_string(jvm.pid()))
            : std::nullopt;
    std::string config = phase->config != kPhaseOff ? run->configs[static_cast<size_t>(phase->config)] : "";
    if (phase->config != kPhaseOff) {
        if (reference) {
            tracer = start_reference(*reference, tracer_stem);
        } else {
            Options build = o;
            if (is_before(config)) build.vtscope = o.vtscope_before;
            tracer = start_tracer(build, without_before(config), jvm.pid(), tracer_stem,
                                  run->consumer == "block" ? "block" : "trace");
        }
    }
    // bpftrace says "Attaching" before it attaches; its probe is up well within 500 ms of that.
    std::optional<Clock::time_point> attaching;
    auto saw_attaching = [&] {
        if (!attaching && read_file(tracer_stem + ".tracer.out").find("Attaching") != std::string::npos)
            attaching = Clock::now();
        return attaching.has_value();
    };
    if (run->settle) {
        // The settle batch: the workload busy while the consumer starts, its result discarded, so
        // the measured batch follows a running workload and no start-up of the consumer's.
        std::ofstream(stem + ".go." + std::to_string(batch - 1)).close();
        auto deadline = Clock::now() + 300s;
        std::string marker = result_marker(*run, batch - 1);
        while (read_file(out).find(marker) == std::string::npos) {
            if (reference) saw_attaching();
            if (Clock::now() > deadline || !jvm.running()) {
                run->errors.push_back(label + ": no result line of its settle batch from the " + run->workload +
                                      " JVM (see " + stem + ".err)");
                tracer.stop(0ms, 5s);
                return false;
            }
            std::this_thread::sleep_for(10ms);
        }
    }
    if (phase->config != kPhaseOff) {
        auto ready_by = Clock::now();
        bool ready;
        if (reference) {
            ready = saw_attaching() || wait_for_text(tracer_stem + ".tracer.out", "Attaching", 60s, {&tracer, &jvm});
            if (ready)
                std::this_thread::sleep_until(
                    std::max(Clock::now(), saw_attaching() ? *attaching + 500ms : Clock::now() + 500ms));
        } else {
            ready = wait_for_file(tracer_ready_file(tracer_stem), 60s, {&tracer, &jvm});
        }
        // A consumer not yet ready when its settle batch ended left the workload idle before the phase.
        if (run->settle && !phase->warm_up && Clock::now() - ready_by > 20ms) run->late++;
        if (!ready) {
            run->errors.push_back(label + ": " + consumer_text(config) + " never became ready (see " + tracer_stem +
                                  ".tracer.err)");
            tracer.stop(0ms, 5s);
            consumer_ok = false;  // the phase still runs, to keep the JVM's phases in step
        }
    }
    // Without settle batches, the same idle time before every phase, on or off (Options::alternate_gap_ms).
    if (!run->settle) {
        auto go_at = run->last_result + std::chrono::milliseconds(run->gap_ms);
        if (Clock::now() < go_at)
            std::this_thread::sleep_until(go_at);
        else if (run->gap_ms > 0 && phase->config != kPhaseOff && !phase->warm_up)
            run->late++;
    }
    double cpu0 = tracer.pid() > 0 ? process_cpu_seconds(tracer.pid()) : NAN;
    auto t0 = Clock::now();
    std::ofstream(stem + ".go." + std::to_string(batch)).close();
    std::string marker = result_marker(*run, batch);
    bool done = wait_for_text(out, marker, 300s, {&jvm});
    run->last_result = Clock::now();
    double wall = std::chrono::duration<double>(run->last_result - t0).count();
    double cpu1 = tracer.pid() > 0 ? process_cpu_seconds(tracer.pid()) : NAN;
    if (tracer.pid() > 0) {
        tracer.signal(SIGINT);
        TracerSummary ts;
        std::string error;
        if (reference)
            finish_process(tracer, tracer_stem, &ts);
        else
            error = finish_tracer(tracer, tracer_stem, &ts);
        if (ts.exit_status != 0)
            run->errors.push_back(label + ": " + run->consumer + " exited " + std::to_string(ts.exit_status) +
                                  " (see " + tracer_stem + ".tracer.err)");
        else if (!error.empty())
            run->errors.push_back(label + ": " + error);
        consumer_ok = consumer_ok && ts.exit_status == 0;
        if (ts.events > 0) phase->events = static_cast<double>(ts.events);
        phase->consumer_cpu_share = (cpu1 - cpu0) / wall;
    }
    if (!done) {
        run->errors.push_back(label + ": no result line from the " + run->workload + " JVM (see " + stem + ".err)");
        return false;
    }
    phase->seconds = wall;
    std::string text = whole_line(out, marker, jvm);
    if (run->workload == "demo") {
        double failed = 0;
        auto load = parse_demo_batch(text, batch, &failed);
        if (!load || failed > 0) {
            run->errors.push_back(label + ": " +
                                  (load ? std::to_string(static_cast<long>(failed)) + " requests failed"
                                        : std::string("unreadable result line")));
            return true;
        }
        if (consumer_ok) {
            phase->score = load->requests / (load->nanos / 1e9);
            phase->cpu_per_unit = load->cpu_ns / 1e3 / load->requests;
            phase->target_cpu_ns = load->cpu_ns;
        }
    } else {
        auto result = parse_cpu_cost_phase(text, batch);
        if (!result) {
            run->errors.push_back(label + ": unreadable result line");
            return true;
        }
        if (consumer_ok) {
            phase->score = result->wall_ns_per_unit;
            phase->cpu_per_unit = result->cpu_ns_per_unit;
            phase->target_cpu_ns = result->cpu_ns;
        }
    }
    return true;
}

std::string interval_text(const Summary& s) {
    if (s.n < 2) return "–";
    int dec = decimals_for(s.error);
    return fmt_signed(s.mean, dec) + " ± " + fmt(s.error, dec) + "%";
}

// The measured phases' values of one field, in sequence order.
std::vector<double> measured(const AlternateRun& run, double AlternatePhase::*field) {
    std::vector<double> v;
    for (const auto& p : run.phases)
        if (!p.warm_up) v.push_back(p.*field);
    return v;
}

// Mean ± 95% half-width of a field over the measured phases of one configuration (kPhaseOff: off).
Summary over_phases(const AlternateRun& run, int config, double AlternatePhase::*field, double scale = 1) {
    std::vector<double> v;
    for (const auto& p : run.phases)
        if (!p.warm_up && p.config == config && !std::isnan(p.*field)) v.push_back(p.*field * scale);
    return summarize(v, kConfidence);
}

std::string mean_cell(const Summary& s, int decimals, const std::string& unit = "") {
    if (s.n < 1) return "–";
    return fmt(s.mean, decimals) + (s.n > 1 ? " ± " + fmt(s.error, decimals) : "") + unit;
}

// What a configuration's consumer cost the target per event (profile: per sample of the target), ns.
Summary per_sample_cost(const AlternateRun& run, int config) {
    return cost_per_event(run.sequence, measured(run, &AlternatePhase::cpu_per_unit),
                          measured(run, &AlternatePhase::target_cpu_ns), measured(run, &AlternatePhase::events), config,
                          kConfidence);
}

// The cost per sample and the overhead it means at 99 and 999 Hz, per profile configuration.
void write_per_sample(std::ostream& md, const AlternateRun& run) {
    md << "\nCost per sample (`cost_per_event`): per pair, the change of the CPU per unit against the off "
          "phase (on / off - 1, as in the table above) times the on phase's total CPU, over the samples of the "
          "target that the session counted; mean ± 95% half-width over the pairs. With per-CPU `cpu-clock` "
          "events a running thread is sampled hz times per CPU-second, so a cost c per sample is c × hz / 1e9 "
          "of the target's CPU at any rate: the 9,999 Hz phases resolve c where the change at 99 or 999 Hz "
          "drowns in the phases' spread, and a lower rate's c tests that it does not grow as the rate falls. "
          "No verdict is drawn from these columns: on this VM the cost per sample came out larger at 999 Hz than "
          "at 9,999 Hz (bench/RESULTS.md). "
          "Rate: the session's samples of the target per CPU-second of it (under the nominal one where the "
          "kernel throttled the events).\n\n"
          "| config | pairs | rate (samples per target CPU-second) | cost per sample | at 99 Hz, were it constant | "
          "at 999 Hz, were it constant |\n| --- | --- | --- | --- | --- | --- |\n";
    for (size_t c = 0; c < run.configs.size(); c++) {
        int ci = static_cast<int>(c);
        Summary cost = per_sample_cost(run, ci);
        std::vector<double> rates;
        for (const auto& p : run.phases)
            if (!p.warm_up && p.config == ci && p.events > 0 && p.target_cpu_ns > 0)
                rates.push_back(p.events / (p.target_cpu_ns / 1e9));
        Summary rate = summarize(rates, kConfidence);
        auto at = [&](double hz) {
            Summary s = cost;
            s.mean *= hz * 1e-7;  // ns per sample times samples per second, as a percentage of 1e9 ns
            s.error *= hz * 1e-7;
            return s;
        };
        Summary at99 = at(99), at999 = at(999);
        bool known = cost.n >= 2;
        md << "| `" << run.configs[c] << "` | " << cost.n << " | " << mean_cell(rate, 0) << " | "
           << (known ? fmt_signed(cost.mean, 0) + " ± " + fmt(cost.error, 0) + " ns" : std::string("–")) << " | "
           << interval_text(at99) << " | " << interval_text(at999) << " |\n";
    }
}

// " (JVM 2 of 4)" and "-jvm2" where a part runs in more than one JVM, nothing otherwise.
std::string jvm_text(const AlternateRun& run) {
    return run.jvms > 1 ? " (JVM " + std::to_string(run.jvm) + " of " + std::to_string(run.jvms) + ")" : "";
}

std::string jvm_suffix(const AlternateRun& run) { return run.jvms > 1 ? "-jvm" + std::to_string(run.jvm) : ""; }

// The runs of one part (consumer, workload and configurations alike) in more than one JVM, in order.
std::vector<std::vector<const AlternateRun*>> jvm_groups(const std::vector<AlternateRun>& runs) {
    std::vector<std::vector<const AlternateRun*>> groups;
    for (const auto& run : runs) {
        auto same = [&](const std::vector<const AlternateRun*>& g) {
            return g[0]->consumer == run.consumer && g[0]->workload == run.workload && g[0]->configs == run.configs;
        };
        auto g = std::find_if(groups.begin(), groups.end(), same);
        if (g == groups.end())
            groups.push_back({&run});
        else
            g->push_back(&run);
    }
    std::erase_if(groups, [](const auto& g) { return g.size() < 2; });
    return groups;
}

AcrossJvms across(const std::vector<const AlternateRun*>& group, int config) {
    AcrossJvms a;
    a.first = group[0];
    a.config = config;
    std::vector<Summary> cpu, score;
    for (const AlternateRun* run : group) {
        a.per_jvm.push_back(alternate_result(*run, config));
        cpu.push_back(a.per_jvm.back().cpu_change);
        score.push_back(a.per_jvm.back().score_change);
    }
    a.cpu = across_jvms(cpu, kConfidence);
    a.score = across_jvms(score, kConfidence);
    if (a.score.n >= 2) a.slowdown = group[0]->higher_is_better ? -a.score.mean : a.score.mean;
    return a;
}

std::string per_jvm_text(const AcrossJvms& a, Summary AlternateResult::*field) {
    std::string text;
    for (const auto& r : a.per_jvm) {
        const Summary& s = r.*field;
        text += (text.empty() ? "" : ", ") + (s.n >= 2 ? fmt_signed(s.mean, 2) : std::string("–"));
    }
    return text;
}
}  // namespace

std::vector<AcrossJvms> across_all_jvms(const std::vector<AlternateRun>& runs) {
    std::vector<AcrossJvms> all;
    for (const auto& group : jvm_groups(runs))
        for (size_t c = 0; c < group[0]->configs.size(); c++) all.push_back(across(group, static_cast<int>(c)));
    return all;
}

void print_across_jvms(const std::vector<AlternateRun>& runs) {
    for (const AcrossJvms& a : across_all_jvms(runs))
        std::fprintf(stderr, "  %s on %s across %zu JVMs: CPU per unit %s (per JVM %s), %s %s (per JVM %s), 95%%\n",
                     a.first->configs[static_cast<size_t>(a.config)].c_str(), a.first->workload.c_str(), a.cpu.n,
                     interval_text(a.cpu).c_str(), per_jvm_text(a, &AlternateResult::cpu_change).c_str(),
                     a.first->higher_is_better ? "requests/s" : "wall per unit", interval_text(a.score).c_str(),
                     per_jvm_text(a, &AlternateResult::score_change).c_str());
}

AlternateRun run_alternate(const Options& o, const std::string& workload, const std::vector<std::string>& configs,
                           Clock::time_point started, int jvm_number) {
    AlternateRun run;
    run.jvm = jvm_number;
    run.jvms = o.alternate_jvms;
    run.workload = workload;
    run.configs = configs;
    run.consumer = !configs.empty() && configs[0] == "block" ? "block" : "profile";
    run.command = command_text(o, workload);
    run.higher_is_better = workload == "demo";
    auto t0 = Clock::now();
    int k = static_cast<int>(configs.size());
    std::vector<int> warm = alternate_warm_up(k, o.alternate_warm_up);
    run.sequence = alternate_sequence(k, o.alternate_cycles);
    for (int c : warm) run.phases.push_back({c, true});
    for (int c : run.sequence) run.phases.push_back({c, false});
    int phases = static_cast<int>(run.phases.size());
    std::string stem = log_stem(o, "alternate-" + run.consumer + "-" + workload + jvm_suffix(run));
    std::string ready = stem + ".service.ready";
    fs::remove(ready);
    run.settle = o.alternate_settle;
    int batches = run.settle ? 2 * phases : phases;  // a settle batch before each phase
    for (int b = 1; b <= batches; b++) fs::remove(stem + ".go." + std::to_string(b));
    std::fprintf(stderr, "vtscope-bench: alternating phases, %s on %s: %d phases in one JVM%s\n", run.consumer.c_str(),
                 workload.c_str(), phases, jvm_text(run).c_str());
    Child jvm = Child::start(workload_argv(o, workload, batches, stem + ".go", ready), stem + ".out", stem + ".err");
    bool up = workload == "demo" ? wait_for_file(ready, 120s, {&jvm})
                                 : wait_for_text(stem + ".out", "# cpucost ready", 120s, {&jvm});
    if (!up) {
        run.errors.push_back("the " + workload + " JVM did not get ready (see " + stem + ".err)");
        jvm.stop(0ms, 5s);
        return run;
    }
    run.gap_ms = o.alternate_gap_ms;
    run.last_result = Clock::now();
    bool completed = true;
    for (int p = 1; p <= phases; p++) {
        AlternatePhase& phase = run.phases[static_cast<size_t>(p - 1)];
        size_t errors = run.errors.size();
        bool alive = run_phase(o, &run, jvm, stem, p, &phase);
        std::fprintf(stderr, "  [%3.0fs] %s %s phase %d/%d %-20s: %s, CPU per unit %s%s\n",
                     std::chrono::duration<double>(Clock::now() - started).count(), run.consumer.c_str(),
                     workload.c_str(), p, phases,
                     (std::string(phase.warm_up ? "(warm-up) " : "") +
                      (phase.config == kPhaseOff ? "off" : configs[static_cast<size_t>(phase.config)]))
                         .c_str(),
                     fmt(phase.score, 1).c_str(), fmt(phase.cpu_per_unit, 2).c_str(),
                     run.errors.size() == errors ? "" : (" ERROR: " + run.errors.back()).c_str());
        if (!alive) {
            completed = false;
            break;
        }
    }
    // After its last phase the JVM exits by itself; one still waiting for a go file is interrupted.
    int status = jvm.stop(completed ? 30s : 0s, 5s);
    if (status != 0) run.errors.push_back("the " + workload + " JVM exited " + std::to_string(status));
    run.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (run.late > 0)
        std::fprintf(stderr, "  %d measured on phases started late: their consumer was not ready %s\n", run.late,
                     run.settle ? "when its settle batch ended"
                                : ("within " + std::to_string(run.gap_ms) + " ms of the last result").c_str());
    for (size_t c = 0; c < configs.size(); c++) {
        AlternateResult r = alternate_result(run, static_cast<int>(c));
        std::fprintf(stderr, "  %s on %s%s: CPU per unit %s, %s %s (95%%, %zu pairs)\n", configs[c].c_str(),
                     workload.c_str(), jvm_text(run).c_str(), interval_text(r.cpu_change).c_str(),
                     run.higher_is_better ? "requests/s" : "wall per unit", interval_text(r.score_change).c_str(),
                     r.cpu_change.n);
        Summary cost = run.consumer == "profile" ? per_sample_cost(run, static_cast<int>(c)) : Summary{};
        if (cost.n > 0) {  // not for the reference configurations, which count no samples
            std::fprintf(stderr, "  %s on %s: %s ± %s ns of the target's CPU per sample (95%%, %zu pairs)\n",
                         configs[c].c_str(), workload.c_str(), fmt(cost.mean, 0).c_str(), fmt(cost.error, 0).c_str(),
                         cost.n);
        }
    }
    return run;
}

AlternateResult alternate_result(const AlternateRun& run, int config) {
    AlternateResult r;
    r.score_change = alternate_change(run.sequence, measured(run, &AlternatePhase::score), config, kConfidence);
    r.cpu_change = alternate_change(run.sequence, measured(run, &AlternatePhase::cpu_per_unit), config, kConfidence);
    if (r.score_change.n >= 2) r.slowdown = run.higher_is_better ? -r.score_change.mean : r.score_change.mean;
    return r;
}

void write_alternate(std::ostream& md, const Options& o, const std::vector<AlternateRun>& runs) {
    if (runs.empty()) return;
    md << "\n### Alternating phases in one JVM (" << runs[0].consumer << ")\n\n"
       << "One JVM per workload runs every phase: " << o.alternate_warm_up
       << " warm-up phases (discarded; without and with each consumer in turn), then " << o.alternate_cycles
       << " cycles of ABBA blocks, one block per configuration (order rotated each cycle): off, on, on, off, the "
          "closing off opening the next block. The consumer is started before an on phase (its ready file awaited) "
          "and stopped after it (its exit awaited); nothing is attached in an off phase. When the phase starts is "
          "given per run below: at once, a fixed gap after the previous phase's result (--alternate-gap), or right "
          "after a discarded settle batch that ran while the consumer started (--alternate-settle). Each on phase is "
          "paired "
          "with the off phase next to it (before the first of a block, after the second), so a linear drift "
          "cancels over a block and no JVM-to-JVM spread (JIT, heap layout, placement) enters the pairs. "
          "Change: 100 (on / off - 1) per pair, mean ± 95% Student-t half-width over the pairs (`paired_change`). "
          "CPU per unit: the target's own CPU over the phase, read by the workload (DemoService: "
          "CLOCK_PROCESS_CPUTIME_ID per batch; CpuCost: its threads' schedstat run times over the phase's "
          "rounds, totals); the verdict is on that change, the throughput's beside it. Off-phase spread: the "
          "standard deviation of the off phases over their mean.\n";
    // What each configuration attaches, the reference samplers included (their names alone do not say).
    md << "\nConsumers:";
    for (size_t c = 0; c < runs[0].configs.size(); c++)
        md << (c ? ";" : "") << " `" << runs[0].configs[c] << "`: `" << consumer_text(runs[0].configs[c]) << "`";
    md << ".\n";
    for (const auto& run : runs) {
        bool demo = run.workload == "demo";
        md << "\n`" << run.command << "`" << jvm_text(run) << ", " << run.phases.size() << " phases in "
           << fmt(run.elapsed_s, 0) << " s, "
           << (run.settle ? "each after a settle batch of its own"
                          : "each phase's go " + std::to_string(run.gap_ms) + " ms after the previous phase's result")
           << " (" << run.late << " measured on phases late):\n\n| config | pairs | "
           << (demo ? "requests/s" : "wall ns per transition") << " | vs off | "
           << (demo ? "CPU us per request" : "CPU ns per transition")
           << " | vs off | target | verdict (CPU) | verdict (throughput) | consumer events per phase | consumer "
              "CPU (share of one CPU) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
        Summary off_score = over_phases(run, kPhaseOff, &AlternatePhase::score);
        Summary off_cpu = over_phases(run, kPhaseOff, &AlternatePhase::cpu_per_unit);
        int score_dec = demo ? 0 : 1, cpu_dec = 1;
        md << "| off | " << off_score.n << " phases | " << mean_cell(off_score, score_dec) << " (spread "
           << fmt(100 * off_score.stddev / off_score.mean, 1) << "%) | – | " << mean_cell(off_cpu, cpu_dec)
           << " (spread " << fmt(100 * off_cpu.stddev / off_cpu.mean, 1) << "%) | – | – | – | – | – | – |\n";
        for (size_t c = 0; c < run.configs.size(); c++) {
            int ci = static_cast<int>(c);
            AlternateResult r = alternate_result(run, ci);
            double target = run.consumer == "block" ? 3.0 : profile_target_pct(run.configs[c]);
            md << "| `" << run.configs[c] << "` | " << r.cpu_change.n << " | "
               << mean_cell(over_phases(run, ci, &AlternatePhase::score), score_dec) << " | "
               << interval_text(r.score_change) << " | "
               << mean_cell(over_phases(run, ci, &AlternatePhase::cpu_per_unit), cpu_dec) << " | "
               << interval_text(r.cpu_change) << " | < " << fmt(target, 0) << "% | "
               << verdict_text(r.cpu_change.n >= 2 ? r.cpu_change.mean : NAN, r.cpu_change.error, target) << " | "
               << verdict_text(r.slowdown, r.score_change.error, target) << " | "
               << mean_cell(over_phases(run, ci, &AlternatePhase::events), 0) << " | "
               << mean_cell(over_phases(run, ci, &AlternatePhase::consumer_cpu_share, 100), 2, "%") << " |\n";
        }
        if (run.consumer == "profile") write_per_sample(md, run);
        for (const auto& e : run.errors) md << "\n- error: " << e;
        if (!run.errors.empty()) md << "\n";
    }
    const AlternateRun* part = nullptr;
    for (const AcrossJvms& a : across_all_jvms(runs)) {
        const AlternateRun& first = *a.first;
        if (part != a.first) {
            part = a.first;
            md << "\nAcross the " << a.per_jvm.size() << " JVMs of `" << first.command
               << "`: per configuration, each JVM's mean change (the tables above), and their mean ± 95% Student-t "
                  "half-width over the JVMs (`across_jvms`). What one JVM's pairs share (its JIT decisions, code "
                  "and heap placement) is in this interval and not in a single JVM's, so the verdicts here are the "
                  "ones to quote.\n\n| config | JVMs | CPU per unit, per JVM | across the JVMs | target | verdict "
                  "(CPU) | "
               << (first.higher_is_better ? "requests/s" : "wall per unit")
               << ", per JVM | across the JVMs | verdict (throughput) |\n| --- | --- | --- | --- | --- | --- | --- | "
                  "--- | --- |\n";
        }
        const std::string& config = first.configs[static_cast<size_t>(a.config)];
        double target = first.consumer == "block" ? 3.0 : profile_target_pct(config);
        md << "| `" << config << "` | " << a.cpu.n << " | " << per_jvm_text(a, &AlternateResult::cpu_change) << " | "
           << interval_text(a.cpu) << " | < " << fmt(target, 0) << "% | "
           << verdict_text(a.cpu.n >= 2 ? a.cpu.mean : NAN, a.cpu.error, target) << " | "
           << per_jvm_text(a, &AlternateResult::score_change) << " | " << interval_text(a.score) << " | "
           << verdict_text(a.slowdown, a.score.error, target) << " |\n";
    }
}

OrderedJson alternate_json(const std::vector<AlternateRun>& runs) {
    OrderedJson out = OrderedJson::array();
    for (const AlternateRun& run : runs) {
        OrderedJson configs = OrderedJson::array();
        for (size_t c = 0; c < run.configs.size(); c++) {
            AlternateResult r = alternate_result(run, static_cast<int>(c));
            configs.push_back({{"config", run.configs[c]},
                               {"score_change_pct", json_summary(r.score_change, 3)},
                               {"cpu_change_pct", json_summary(r.cpu_change, 3)},
                               {"cost_per_event_ns", json_summary(per_sample_cost(run, static_cast<int>(c)), 3)}});
        }
        OrderedJson phases = OrderedJson::array();
        for (const AlternatePhase& ph : run.phases)
            phases.push_back(
                {{"config",
                  ph.config == kPhaseOff ? OrderedJson() : OrderedJson(run.configs[static_cast<size_t>(ph.config)])},
                 {"warm_up", ph.warm_up},
                 {"score", json_fixed(ph.score, 3)},
                 {"cpu_per_unit", json_fixed(ph.cpu_per_unit, 3)},
                 {"seconds", json_fixed(ph.seconds, 3)},
                 {"consumer_events", json_fixed(ph.events, 0)},
                 {"target_cpu_ns", json_fixed(ph.target_cpu_ns, 0)},
                 {"consumer_cpu_share", json_fixed(ph.consumer_cpu_share, 4)}});
        out.push_back({{"workload", run.workload},
                       {"jvm", run.jvm},
                       {"jvms", run.jvms},
                       {"consumer", run.consumer},
                       {"command", run.command},
                       {"confidence", kConfidence},
                       {"configs", configs},
                       {"phases", phases},
                       {"errors", run.errors},
                       {"elapsed_s", json_fixed(run.elapsed_s, 1)}});
    }
    return out;
}

std::vector<std::string> alternate_errors(const std::vector<AlternateRun>& runs) {
    std::vector<std::string> errors;
    for (const auto& run : runs)
        for (const auto& e : run.errors) errors.push_back(run.consumer + " alternating " + run.workload + ": " + e);
    return errors;
}

}  // namespace vtscope::bench
