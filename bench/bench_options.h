// SPDX-License-Identifier: Apache-2.0
// The options of vtscope-bench and two small helpers shared by its parts.
#pragma once

#include <string>
#include <vector>

namespace vtscope::bench {

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
    bool profile = true;     // the vtscope profile part (issue 12)
    int profile_rounds = 5;  // JVMs per configuration of its demo-service and CpuBudgets runs
    // --profile-parts: jmh (Transition under JMH), cpu (Transition's CPU per transition, CpuCost),
    // demo (the demo service), compare (CpuBudgets beside async-profiler and JFR), alternate (the demo
    // service and Transition in one JVM each, vtscope profile attached in alternating phases); empty: all.
    std::vector<std::string> profile_parts;
    std::vector<std::string> profile_configs;  // --profile-configs: some of kProfileConfigs; empty: all
    // --vtscope-before: a vtscope build whose --stacks configurations run beside this one's in the
    // demo service's rounds and in profile's alternating part ("CONFIG-before"), for the cost of a
    // change to it.
    std::string vtscope_before;
    int demo_requests = 2000;
    // Requests before the ready signal (DemoService --warm-up-requests): the JIT compilation they
    // take is the part of the service's CPU that varies most from one JVM to the next.
    int demo_warmup = 2000;
    int compare_hz = 499;                  // the sampling rate of every tool on CpuBudgets
    bool block = false;                    // --block: the costs of vtscope block (block_bench.h)
    int block_demo_rounds = 5;             // --block-rounds: demo-service rounds, each without and with block
    std::vector<std::string> block_parts;  // --block-parts: switches, demo, alternate; empty: all
    // The alternating parts (alternate_bench.h): phases discarded first, ABBA cycles (one block per
    // configuration each), CpuCost rounds per Transition phase; a demo phase is --demo-requests requests.
    int alternate_warm_up = 4;
    int alternate_cycles = 6;
    int alternate_rounds = 10;
    // --alternate-gap MS: every measured phase's go comes this long after the previous phase's result,
    // off phases included, the consumer's stop and start (readiness) inside it: the workload then sits
    // idle for the same time before every phase, on or off. By default (0) an on phase follows an
    // idle wait of the consumer's start-up (0.4-0.8 s) and an off phase none. Neither protocol, nor
    // --alternate-settle, gave an idle consumer a change of zero at 1 s phases (bench/RESULTS.md,
    // 2026-12-06 evening), so the default stays that of every earlier run.
    int alternate_gap_ms = 0;
    // --alternate-settle: before each phase, on or off, the workload runs one batch (phase) whose result
    // is discarded, the consumer being stopped and started meanwhile; the measured phase follows it at
    // once. The workload never idles before a measured phase, and no consumer's start-up falls into
    // one. --alternate-gap does not apply then.
    bool alternate_settle = false;
    // --alternate-jvms: how many JVMs run the whole alternation, one after the other (across_jvms).
    int alternate_jvms = 1;
    // --alternate-workloads: which workloads profile's alternating part runs (transition, demo); empty: both.
    std::vector<std::string> alternate_workloads;
    int storm_seconds = 4;
    int storm_warmup_ms = 4000;
    std::string java_home = VTSCOPE_DEFAULT_JAVA_HOME;
    // --also-java-home: a second JDK (make bench-jdk21: build/jdk21) whose matrix cells and
    // write-storm runs are interleaved with java_home's in the same run, fork by fork and mode by
    // mode, and written to OUT/jdk-N/. The other parts run on java_home only.
    std::string also_java_home;
    std::string jar = VTSCOPE_BENCH_JAR;
    std::string workloads_classpath = VTSCOPE_JAVA_DIR "/*:" VTSCOPE_JAVA_DIR "/lib/*";
    std::string vtscope = VTSCOPE_BIN;
    std::string native_lib = VTSCOPE_NATIVE_LIB;
    std::string control_agent = VTSCOPE_BENCH_AGENT;
    std::string async_profiler = VTSCOPE_ASYNC_PROFILER;  // libasyncProfiler.so (make async-profiler)
    std::string heap = "1g";
    // The write storm's vtscope-otlp mode exports into this Collector (scripts/build-collector.sh
    // builds it), configured by collector_config.
    std::string collector = VTSCOPE_COLLECTOR_BIN;
    std::string collector_config = VTSCOPE_COLLECTOR_CONFIG;
    bool matrix = true;                    // --no-matrix: the write storm, memory and profile runs only
    std::vector<std::string> storm_modes;  // empty: all
};

// Parses the command line (exits for --help and for an option without its value); false on an
// unknown option or invalid settings, after a message on stderr.
bool parse_options(int argc, char** argv, Options* o);

// The profile part's configurations (issue 12's four) and the names of the parts of --profile
// and --block.
extern const std::vector<std::string> kProfileConfigs, kProfileParts, kBlockParts;
// Sampling at 9,999 Hz, with and without --stacks: only in the alternating part (by default there),
// where they measure the cost per sample that 99 and 999 Hz cannot resolve (cost_per_event).
extern const std::vector<std::string> kProfileSlopeConfigs;
// kProfileConfigs, then kProfileSlopeConfigs.
std::vector<std::string> all_profile_configs();
// The alternating part's reference configurations, only when listed: bpftrace `profile:hz:N { }`
// (sampler-99, sampler-999, sampler-9999), the sampling mechanism without vtscope, and the same
// counting the target's stack ids (sampler-99-stacks, ...; alternate_bench.cpp).
extern const std::vector<std::string> kSamplerConfigs;
// The alternating part's control, only when listed: bpftrace with nothing but `BEGIN { }`, started,
// awaited and stopped as the samplers are, so its change against the off phases is what starting and
// stopping a consumer process and holding it idle cost the target, and any bias of the method.
extern const std::string kControlConfig;
// Every --profile-configs value: all_profile_configs(), kSamplerConfigs, then kControlConfig.
std::vector<std::string> known_profile_configs();

// "CONFIG-before": CONFIG run by the --vtscope-before build, side by side with this one's.
std::string before_config(const std::string& config);
bool is_before(const std::string& config);
// CONFIG of "CONFIG-before"; any other name unchanged.
std::string without_before(const std::string& config);

// Whether a part (or configuration) is selected: listed, or nothing listed.
bool selected(const std::vector<std::string>& chosen, const std::string& name);

// The non-empty pieces of text between separators.
std::vector<std::string> split(const std::string& text, char sep);

// A shell command's stdout, without the trailing newline.
std::string command_output(const std::string& command);

}  // namespace vtscope::bench
