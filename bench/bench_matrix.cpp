// SPDX-License-Identifier: Apache-2.0
// vtscope-bench: the benchmark matrix of vtscope (issue 5), measured the way the paper measures
// its cost decomposition (Section 7.3, Tables 7/8, Figure 2). For every workload x configuration
// it runs N child JVMs ("forks"), each a JMH run in-process (-f 0) with the configuration's JVM
// options, so that a consumer (vtscope trace) can attach to the very JVM that is measured. It
// merges the iterations of all forks (score = mean, error = 99.9% Student-t half-width), forms
// the differences between adjacent configurations with the quadrature error ("n.s." when the
// interval contains zero), normalises them (per transition, per virtual thread, per context
// change, per probe event), measures the consumer's per-event cost with a write storm, and writes
// results.json, results.md, figure.svg and figure.png.
//
// The parts: bench_options (command line), jmh_matrix (the cells and their forks), tracer (the
// consumer attached to a measured JVM), write_storm, native_memory, profile_bench (vtscope profile's
// overhead, and vtscope beside async-profiler and JFR), block_bench (--block: vtscope block's
// costs), alternate_bench (either consumer started and stopped between the phases of one JVM),
// report_writer (the outputs).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <vector>

#include "bench_options.h"
#include "block_bench.h"
#include "jmh_matrix.h"
#include "native_memory.h"
#include "profile_bench.h"
#include "report_writer.h"
#include "write_storm.h"

namespace fs = std::filesystem;
using namespace vtscope::bench;
using Clock = std::chrono::steady_clock;

namespace {

// Root, and the binaries and jars the runs need.
bool check_prerequisites(const Options& o) {
    if (geteuid() != 0) {
        std::fprintf(stderr, "vtscope-bench: needs root (the consumer configurations attach vtscope trace)\n");
        return false;
    }
    for (const auto& path : {o.jar, o.vtscope, o.native_lib, o.control_agent, o.java_home + "/bin/java"}) {
        if (!fs::exists(path)) {
            std::fprintf(stderr, "vtscope-bench: missing %s (run make all)\n", path.c_str());
            return false;
        }
    }
    return true;
}

std::string java_version(const Options& o) {
    return command_output(o.java_home + "/bin/java -version 2>&1 | head -2 | tail -1");
}

// The JDK's feature version ("21"), from the release file every JDK image has.
std::string java_feature(const Options& o) {
    std::ifstream release(fs::path(o.java_home) / "release");
    static const std::regex version(R"re(^JAVA_VERSION="(\d+))re");
    std::smatch m;
    for (std::string line; std::getline(release, line);)
        if (std::regex_search(line, m, version)) return m[1];
    return "unknown";
}

// The JDKs of the run: --java-home's, then --also-java-home's (its results in OUT/jdk-N).
std::vector<Options> jdk_options(const Options& o) {
    std::vector<Options> jdks = {o};
    if (o.also_java_home.empty()) return jdks;
    Options second = o;
    second.java_home = o.also_java_home;
    second.out = (fs::path(o.out) / ("jdk-" + java_feature(second))).string();
    second.memory = second.profile = second.block = false;  // those parts: on --java-home only
    fs::create_directories(fs::path(second.out) / "logs");
    jdks.push_back(second);
    return jdks;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse_options(argc, argv, &o)) return 2;
    if (!check_prerequisites(o)) return 1;
    fs::create_directories(fs::path(o.out) / "logs");
    auto started = Clock::now();

    std::vector<Options> jdks = jdk_options(o);
    std::vector<Matrix> matrices;
    std::vector<MatrixRun> runs;
    for (const Options& j : jdks) matrices.push_back(j.matrix ? make_matrix(j) : Matrix{});
    for (size_t k = 0; k < jdks.size(); k++) {
        MatrixRun run;
        run.options = &jdks[k];
        run.jdk = java_version(jdks[k]);
        run.label = "jdk" + java_feature(jdks[k]);
        run.matrix = &matrices[k];
        runs.push_back(run);
    }
    if (o.matrix) run_matrix(runs, started);
    std::vector<const Options*> storm_jdks;
    for (const Options& j : jdks) storm_jdks.push_back(&j);
    std::vector<std::vector<StormRun>> storms(jdks.size());
    if (o.storm) storms = run_write_storm(storm_jdks);
    std::vector<MemoryRun> memory;
    if (o.memory) memory = run_native_memory(o);
    std::optional<ProfileBench> profile;
    if (o.profile) profile = run_profile_bench(o, runs.front().jdk, started);
    BlockBench block;
    if (o.block) block = run_block_bench(o);
    double elapsed = std::chrono::duration<double>(Clock::now() - started).count();

    bool ok = true;
    for (size_t k = jdks.size(); k-- > 0;) {  // --java-home's last: its results.md ends stdout
        const std::vector<MemoryRun> none;
        bool first = k == 0;
        ok &=
            write_results(jdks[k], Results{matrices[k], storms[k], first ? memory : none, first ? block : BlockBench{},
                                           first && profile ? &*profile : nullptr, runs[k].jdk, elapsed});
    }
    return ok ? 0 : 1;
}
