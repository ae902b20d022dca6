// SPDX-License-Identifier: Apache-2.0
// The command line of vtscope-bench.
#include "bench_options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>

namespace vtscope::bench {

const std::vector<std::string> kProfileConfigs = {"profile-99", "profile-99-stacks", "profile-999",
                                                  "profile-999-stacks"};
const std::vector<std::string> kProfileSlopeConfigs = {"profile-9999", "profile-9999-stacks"};
const std::vector<std::string> kSamplerConfigs = {"sampler-99",         "sampler-99-stacks", "sampler-999",
                                                  "sampler-999-stacks", "sampler-9999",      "sampler-9999-stacks"};
const std::string kControlConfig = "control-bpftrace";
const std::vector<std::string> kProfileParts = {"jmh", "cpu", "demo", "compare", "alternate"};
const std::vector<std::string> kBlockParts = {"switches", "demo", "alternate"};
const std::vector<std::string> kAlternateWorkloads = {"transition", "demo"};

std::vector<std::string> all_profile_configs() {
    std::vector<std::string> all = kProfileConfigs;
    all.insert(all.end(), kProfileSlopeConfigs.begin(), kProfileSlopeConfigs.end());
    return all;
}

std::vector<std::string> known_profile_configs() {
    std::vector<std::string> all = all_profile_configs();
    all.insert(all.end(), kSamplerConfigs.begin(), kSamplerConfigs.end());
    all.push_back(kControlConfig);
    return all;
}

namespace {
constexpr std::string_view kBeforeSuffix = "-before";
}

std::string before_config(const std::string& config) { return config + std::string(kBeforeSuffix); }

bool is_before(const std::string& config) { return config.ends_with(kBeforeSuffix); }

std::string without_before(const std::string& config) {
    return is_before(config) ? config.substr(0, config.size() - kBeforeSuffix.size()) : config;
}

bool selected(const std::vector<std::string>& chosen, const std::string& name) {
    return chosen.empty() || std::find(chosen.begin(), chosen.end(), name) != chosen.end();
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, sep))
        if (!item.empty()) parts.push_back(item);
    return parts;
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

namespace {

void usage() {
    std::printf(
        "usage: vtscope-bench [--quick] [--out DIR] [--forks N] [--wi N] [--w TIME] [--i N] [--r TIME]\n"
        "                     [--configs a,b,...] [--workloads a,b,...] [--no-storm] [--no-memory]\n"
        "                     [--storm-seconds N] [--storm-modes a,b,...] [--no-matrix] [--collector FILE]\n"
        "                     [--java-home DIR] [--also-java-home DIR] [--jar FILE] [--no-profile] [--profile-rounds "
        "N]\n"
        "                     [--demo-requests N] [--demo-warm-up N] [--compare-hz N] [--async-profiler FILE]\n"
        "                     [--profile-parts a,b,...] [--profile-configs a,b,...] [--vtscope-before FILE]\n"
        "                     [--block] [--block-rounds N] [--block-parts a,b,...]\n"
        "                     [--alternate-warm-up N] [--alternate-cycles N] [--alternate-rounds N]\n"
        "                     [--alternate-gap MS] [--alternate-settle]\n"
        "                     [--alternate-workloads a,b] [--alternate-jvms N]\n"
        "Runs the benchmark matrix (workload x configuration) as root (the consumer configurations attach\n"
        "build/bin/vtscope). Defaults: 4 forks, 3 x 1s warm-up, 5 x 1s measurement. --quick: 1 fork,\n"
        "2 x 0.4s warm-up, 3 x 0.4s measurement, shorter storm, one memory run, 2 profile rounds.\n"
        "--no-matrix skips the matrix; --no-profile the vtscope profile part (Transition under vtscope profile\n"
        "at 99 and 999 Hz with and without --stacks, the demo service in --profile-rounds rounds of\n"
        "--demo-requests requests after --demo-warm-up (2000), and vtscope, async-profiler and JFR on\n"
        "CpuBudgets at --compare-hz). Its parts (--profile-parts): jmh (Transition's score under JMH), cpu\n"
        "(Transition's CPU per transition, CpuCost), demo, compare, alternate; --profile-configs: some of profile-99\n"
        "profile-99-stacks profile-999 profile-999-stacks, and for the alternating part (where they run by\n"
        "default) profile-9999 profile-9999-stacks: the cost per sample, which high rates resolve, and the\n"
        "overhead it means at 99 and 999 Hz; and, only when listed, sampler-99 sampler-999 sampler-9999:\n"
        "bpftrace's profile:hz:N with an empty action, the sampling mechanism without vtscope, and\n"
        "sampler-99-stacks sampler-999-stacks sampler-9999-stacks: the same counting the target's user\n"
        "and kernel stack ids in a map; and control-bpftrace: bpftrace -e 'BEGIN { }', a process started,\n"
        "awaited and stopped as the samplers are, with no event source: what an idle consumer process\n"
        "costs the target, and any bias of the method.\n"
        "--vtscope-before FILE: the demo rounds and profile's alternating part also run the --stacks\n"
        "configurations with that vtscope (\"CONFIG-before\"), and block's alternating part runs \"block-before\"\n"
        "beside \"block\", in the same JVM, for the cost of a change.\n"
        "--block: also the costs of vtscope block: its sched_switch program per switch (of the target's\n"
        "threads and of other processes', bpf_stats) and the demo service's throughput without and with it\n"
        "attached, N rounds (default 5); its Park/Unpark cost is the \"block\" configuration;\n"
        "--block-parts: switches, demo, alternate (default all).\n"
        "alternate (of --profile-parts and --block-parts): one JVM of the workload (the demo service, --demo-requests\n"
        "requests per phase; for profile also Transition, CpuCost, --alternate-rounds rounds of 400,000 transitions\n"
        "per phase, default 10) runs --alternate-warm-up phases (default 4, discarded), then --alternate-cycles\n"
        "cycles (default 6) of ABBA blocks per configuration (off, on, on, off): the consumer started before an on\n"
        "phase and stopped after it; its change of throughput and of the target's CPU per unit against the\n"
        "adjacent off phases, mean and 95%% interval over the pairs. --alternate-workloads: which of transition,\n"
        "demo profile's alternating part runs (default both). --alternate-jvms N: N JVMs, one after the other, each\n"
        "running all of it; the change is then also given across them (mean and 95%% interval over the JVMs'\n"
        "own means), which includes what one JVM's pairs share and its own interval cannot show.\n"
        "--alternate-gap MS (default 0): each phase's go comes MS after the previous phase's result, off phases\n"
        "too, the consumer's stop and start inside it, so the workload idles as long before every phase (0: at once;\n"
        "a consumer not ready by then starts its phase late, and the run says how many did). --alternate-settle:\n"
        "instead, before each phase one more batch (CpuCost phase) runs, discarded, while the consumer starts, and\n"
        "the phase follows it at once: the workload never idles before a measured phase (twice the batches).\n"
        "configurations: baseline writer writer+trace jvmti lib vtt probes probes+consumer otep otep-patched "
        "otep-jvmti block\n"
        "workloads: transition parkunpark churn ctx-platform ctx-distinct ctx-virtual vtt-nanotime vtt-pair "
        "vtt-transition\n"
        "           vtt-parkunpark\n"
        "--also-java-home DIR: a second JDK (e.g. build/jdk21): the matrix and the write storm also run on it,\n"
        "interleaved with --java-home's (fork by fork, mode by mode) so both see the same machine; its results in\n"
        "OUT/jdk-N/ (N its feature version); the other parts run on --java-home only.\n"
        "storm modes: none empty-bpf vtscope vtscope-otlp vtscope-stat (vtscope-otlp: vtscope trace --otlp into\n"
        "             the Collector of --collector, default the build's; without it that mode says why)\n");
}

}  // namespace

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
            o->profile_rounds = 2;
            o->demo_requests = 500;
            o->demo_warmup = 200;
            o->alternate_warm_up = 2;
            o->alternate_cycles = 2;
            o->alternate_rounds = 3;
        } else if (a == "--out")
            o->out = next();
        else if (a == "--forks")
            o->forks = std::atoi(next().c_str());
        else if (a == "--wi")
            o->warmup_iterations = std::atoi(next().c_str());
        else if (a == "--w")
            o->warmup_time = next();
        else if (a == "--i")
            o->iterations = std::atoi(next().c_str());
        else if (a == "--r")
            o->iteration_time = next();
        else if (a == "--configs")
            o->configs = split(next(), ',');
        else if (a == "--workloads")
            o->workloads = split(next(), ',');
        else if (a == "--no-storm")
            o->storm = false;
        else if (a == "--no-memory")
            o->memory = false;
        else if (a == "--block")
            o->block = true;
        else if (a == "--block-rounds")
            o->block_demo_rounds = std::atoi(next().c_str());
        else if (a == "--storm-modes")
            o->storm_modes = split(next(), ',');
        else if (a == "--no-matrix")
            o->matrix = false;
        else if (a == "--collector")
            o->collector = next();
        else if (a == "--no-profile")
            o->profile = false;
        else if (a == "--profile-rounds")
            o->profile_rounds = std::atoi(next().c_str());
        else if (a == "--demo-requests")
            o->demo_requests = std::atoi(next().c_str());
        else if (a == "--demo-warm-up")
            o->demo_warmup = std::atoi(next().c_str());
        else if (a == "--profile-parts")
            o->profile_parts = split(next(), ',');
        else if (a == "--profile-configs")
            o->profile_configs = split(next(), ',');
        else if (a == "--vtscope-before")
            o->vtscope_before = next();
        else if (a == "--block-parts")
            o->block_parts = split(next(), ',');
        else if (a == "--alternate-warm-up")
            o->alternate_warm_up = std::atoi(next().c_str());
        else if (a == "--alternate-cycles")
            o->alternate_cycles = std::atoi(next().c_str());
        else if (a == "--alternate-rounds")
            o->alternate_rounds = std::atoi(next().c_str());
        else if (a == "--alternate-gap")
            o->alternate_gap_ms = std::atoi(next().c_str());
        else if (a == "--alternate-settle")
            o->alternate_settle = true;
        else if (a == "--alternate-workloads")
            o->alternate_workloads = split(next(), ',');
        else if (a == "--alternate-jvms")
            o->alternate_jvms = std::atoi(next().c_str());
        else if (a == "--compare-hz")
            o->compare_hz = std::atoi(next().c_str());
        else if (a == "--async-profiler")
            o->async_profiler = next();
        else if (a == "--storm-seconds")
            o->storm_seconds = std::atoi(next().c_str());
        else if (a == "--java-home")
            o->java_home = next();
        else if (a == "--also-java-home")
            o->also_java_home = next();
        else if (a == "--jar")
            o->jar = next();
        else {
            std::fprintf(stderr, "vtscope-bench: unknown option %s (see --help)\n", a.c_str());
            return false;
        }
    }
    if (o->forks < 1 || o->iterations < 2 || o->warmup_iterations < 1 || o->profile_rounds < 2 ||
        o->demo_requests < 1 || o->demo_warmup < 1 || o->demo_warmup > 100000 || o->compare_hz < 1 ||
        o->block_demo_rounds < 2 || o->alternate_warm_up < 0 || o->alternate_cycles < 1 || o->alternate_rounds < 1 ||
        o->alternate_jvms < 1 || o->alternate_gap_ms < 0 || o->alternate_gap_ms > 60000) {
        std::fprintf(
            stderr,
            "vtscope-bench: need --forks >= 1, --i >= 2, --wi >= 1, --profile-rounds >= 2, "
            "--demo-requests >= 1, --demo-warm-up 1 to 100000, --compare-hz >= 1, --block-rounds >= 2, "
            "--alternate-warm-up >= 0, --alternate-cycles >= 1, --alternate-rounds >= 1, --alternate-jvms >= 1, "
            "--alternate-gap 0 to 60000\n");
        return false;
    }
    auto check = [](const char* option, const std::vector<std::string>& chosen, const std::vector<std::string>& known) {
        for (const auto& c : chosen)
            if (std::find(known.begin(), known.end(), c) == known.end()) {
                std::fprintf(stderr, "vtscope-bench: unknown %s value %s (see --help)\n", option, c.c_str());
                return false;
            }
        return true;
    };
    return check("--profile-parts", o->profile_parts, kProfileParts) &&
           check("--profile-configs", o->profile_configs, known_profile_configs()) &&
           check("--block-parts", o->block_parts, kBlockParts) &&
           check("--alternate-workloads", o->alternate_workloads, kAlternateWorkloads);
}

}  // namespace vtscope::bench
