// SPDX-License-Identifier: Apache-2.0
// The benchmark matrix: workloads x configurations, each cell measured by N child JVMs ("forks"),
// each a JMH run in-process (-f 0) with the configuration's JVM options, so that a consumer can
// attach to the very JVM that is measured.
#pragma once

#include <chrono>
#include <cmath>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "bench_options.h"
#include "stats.h"
#include "tracer.h"

namespace vtscope::bench {

extern const std::vector<std::string> kConfigs;
// The configuration each one adds a component to (the paper's adjacent contrasts).
extern const std::map<std::string, std::string> kReference;
extern const std::map<std::string, std::string> kConfigMeaning;

enum class Norm { PerTransition, PerThread, PerPair, None };

struct Workload {
    std::string id;
    std::string title;
    std::string benchmark;  // JMH benchmark (class.method)
    std::vector<std::string> configs;
    Norm norm;
    std::string reference;                      // "workload/config" for single-config workloads; empty: kReference
    std::vector<std::string> jvm_options = {};  // added to every configuration's
};

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

struct Matrix {
    std::map<std::string, Cell> cells;
    std::vector<std::string> order;  // the cell keys in the order of the workload list
};

// The cells selected by --workloads and --configs.
Matrix make_matrix(const Options& o);

// One JDK's matrix in a run (--also-java-home: two, interleaved).
struct MatrixRun {
    const Options* options = nullptr;  // java_home and out of this JDK
    std::string jdk;                   // its java -version line
    std::string label;                 // "jdk21", for the progress lines
    Matrix* matrix = nullptr;
    bool patched = false;  // the otep-patched cells' java.base written
    std::string patch_error;
};

// Runs fork k of every cell of every run, then fork k+1, reporting progress on stderr (times since
// started), and summarises every cell.
void run_matrix(std::span<MatrixRun> runs, std::chrono::steady_clock::time_point started);
// The same for one JDK's matrix.
void run_matrix(const Options& o, const std::string& jdk, std::chrono::steady_clock::time_point started,
                Matrix* matrix);

}  // namespace vtscope::bench
