// SPDX-License-Identifier: Apache-2.0
// vtscope-harness: the paper's dual-channel correctness experiment (section 7.2, Table 6) over
// every identity channel of vtscope. For each channel x scope mode x lifetime mode it runs the
// marker harness R times, classifies every marker on the identity and the content plane, prints
// a table shaped like Table 6 and writes the per-run results as JSON.
//
// With --check it also enforces the soundness claims and exits non-zero when one fails:
// vmstructs, lifecycle and otep-tls must attribute every marker correctly in every run;
// two-probe may fail only on a sender's first marker.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "attribution_checker.h"
#include "cli/privilege.h"
#include "output/json_io.h"
#include "traced_run.h"

namespace {

using vtscope::json_text;
using vtscope::OrderedJson;
using vtscope::testing::CheckResult;
using vtscope::testing::HarnessPaths;

struct Config {
    std::vector<std::string> channels = {"vmstructs", "lifecycle", "otep-tls", "two-probe"};
    std::vector<std::string> scopes = {"clean", "leaky-final"};
    std::vector<std::string> lifetimes = {"sequential", "concurrent"};
    std::vector<std::string> gcs = {"G1"};
    int runs = 6;
    int threads = 16;
    int markers = 8;
    std::string context = "otel";
    bool gc_pressure = false;
    bool check = false;
    std::string json;
    std::string javaagent, extension;  // run the workload under the OpenTelemetry Java agent (+ extension)
    std::string java_base_patch;       // otep-tls on a java.base libvtscope patched (write-patch=DIR)
};

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

const char* kUsage =
    "usage: vtscope-harness [--channels LIST] [--scopes clean,leaky-final] [--lifetimes sequential,concurrent]\n"
    "                       [--runs R] [--threads N] [--markers M] [--context otel|synthetic] [--gcs G1,ZGC,...]\n"
    "                       [--gc-pressure] [--json FILE] [--check] [--javaagent JAR [--extension JAR]]\n"
    "                       [--java-base-patch DIR]\n"
    "channels: vmstructs, lifecycle, otep-tls, two-probe (default: all four)\n"
    "gcs: G1, Parallel, Serial, Z (as in -XX:+Use<name>GC; default G1), ZGenerational (-XX:+UseZGC\n"
    "  -XX:+ZGenerational: JDK 21-23, where ZGC's default is the non-generational one)\n"
    "--java-base-patch DIR: otep-tls with --patch-module java.base=DIR, a patch written by\n"
    "  java -agentpath:libvtscope.so=write-patch=DIR -version (OTEP without a JVMTI environment)\n";

bool parse(int argc, char** argv, Config* c, std::string* error) {
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                *error = arg + " needs a value";
                return "";
            }
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else if (arg == "--channels") {
            c->channels = split(value());
        } else if (arg == "--scopes") {
            c->scopes = split(value());
        } else if (arg == "--lifetimes") {
            c->lifetimes = split(value());
        } else if (arg == "--gcs") {
            c->gcs = split(value());
        } else if (arg == "--runs" || arg == "--threads" || arg == "--markers") {
            std::string v = value();
            char* end = nullptr;
            long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < 1 || n > 20000) {
                *error = "invalid " + arg + " '" + v + "'";
                return false;
            }
            (arg == "--runs" ? c->runs : arg == "--threads" ? c->threads : c->markers) = static_cast<int>(n);
        } else if (arg == "--context") {
            c->context = value();
        } else if (arg == "--json") {
            c->json = value();
        } else if (arg == "--javaagent") {
            c->javaagent = value();
        } else if (arg == "--extension") {
            c->extension = value();
        } else if (arg == "--java-base-patch") {
            c->java_base_patch = value();
        } else if (arg == "--gc-pressure") {
            c->gc_pressure = true;
        } else if (arg == "--check") {
            c->check = true;
        } else {
            *error = "unknown option '" + arg + "'";
            return false;
        }
        if (!error->empty()) return false;
    }
    for (const auto& ch : c->channels)
        if (ch != "vmstructs" && ch != "lifecycle" && ch != "otep-tls" && ch != "two-probe") {
            *error = "unknown channel '" + ch + "'";
            return false;
        }
    if (!c->extension.empty() && c->javaagent.empty()) {
        *error = "--extension needs --javaagent";
        return false;
    }
    if (c->context != "otel" && c->context != "synthetic") {
        *error = "--context must be otel or synthetic";
        return false;
    }
    return true;
}

// What each channel needs from the JVM: the vmstructs channel nothing at all. The two-probe
// ablation also releases records the paper's way (without clearing them, paper-release), so a
// stale cached address shows what the paper's did.
std::vector<std::string> agent_options(const std::string& channel, const std::string& lib,
                                       const std::string& java_base_patch) {
    if (channel == "lifecycle") return {"-agentpath:" + lib + "=probes"};
    if (channel == "two-probe") return {"-agentpath:" + lib + "=probes,paper-release"};
    if (channel == "otep-tls" && !java_base_patch.empty())
        return {"--patch-module=java.base=" + java_base_patch, "-agentpath:" + lib + "=otep"};
    if (channel == "otep-tls") return {"-agentpath:" + lib + "=otep"};
    return {};
}

struct Cell {
    std::string channel, scope, lifetime, gc;
    std::vector<CheckResult> runs;
    std::vector<int> gc_events;  // lines of -Xlog:gc per run
    std::vector<std::string> errors;
};

int count_gc_lines(const std::string& log) {
    int n = 0;
    for (size_t at = 0; (at = log.find("[gc", at)) != std::string::npos; at++) n++;
    return n;
}

void add(vtscope::testing::PlaneCounts& a, const vtscope::testing::PlaneCounts& b) {
    a.correct += b.correct;
    a.unmapped += b.unmapped;
    a.invalid += b.invalid;
    a.misattributed += b.misattributed;
}

bool sound_channel(const std::string& channel) { return channel != "two-probe"; }

// The JVM options that select a --gcs name.
std::vector<std::string> gc_options(const std::string& gc) {
    if (gc == "ZGenerational") return {"-XX:+UseZGC", "-XX:+ZGenerational"};
    return {"-XX:+Use" + gc + "GC"};
}

}  // namespace

int main(int argc, char** argv) {
    Config config;
    std::string error;
    if (!parse(argc, argv, &config, &error)) {
        std::fprintf(stderr, "vtscope-harness: error: %s\n%s", error.c_str(), kUsage);
        return 2;
    }
    if (!vtscope::have_bpf_privilege()) {
        std::printf("SKIPPED: vtscope-harness needs root (CAP_BPF and CAP_PERFMON) to trace\n");
        return 77;  // ctest's SKIP_RETURN_CODE
    }
    const char* java_home = std::getenv("JAVA_HOME");
    HarnessPaths paths{VTSCOPE_BIN,
                       std::string(java_home && *java_home ? java_home : VTSCOPE_DEFAULT_JAVA_HOME) + "/bin/java",
                       std::string(VTSCOPE_JAVA_DIR) + "/*:" + VTSCOPE_JAVA_DIR + "/lib/*", VTSCOPE_NATIVE_LIB};

    std::vector<Cell> cells;
    int failures = 0;
    for (const auto& gc : config.gcs)
        for (const auto& channel : config.channels)
            for (const auto& scope : config.scopes)
                for (const auto& lifetime : config.lifetimes) {
                    Cell cell{channel, scope, lifetime, gc, {}, {}, {}};
                    std::vector<std::string> jvm = agent_options(channel, paths.native_lib, config.java_base_patch);
                    for (const std::string& option : gc_options(gc)) jvm.push_back(option);
                    jvm.push_back("-Djdk.virtualThreadScheduler.parallelism=2");
                    jvm.push_back("-Xlog:gc:stderr");
                    if (config.gc_pressure) jvm.push_back("-Xmx128m");
                    if (!config.javaagent.empty()) {
                        // The agent exports nothing here: only its context storage matters.
                        for (const char* p : {"-Dotel.traces.exporter=none", "-Dotel.metrics.exporter=none",
                                              "-Dotel.logs.exporter=none"})
                            jvm.push_back(p);
                        jvm.push_back("-javaagent:" + config.javaagent);
                        if (!config.extension.empty()) jvm.push_back("-Dotel.javaagent.extensions=" + config.extension);
                    }
                    std::vector<std::string> harness = {"--threads", std::to_string(config.threads),
                                                        "--markers", std::to_string(config.markers),
                                                        "--scope",   scope,
                                                        "--mode",    lifetime,
                                                        "--context", config.context};
                    if (config.gc_pressure) harness.push_back("--gc-pressure");
                    // Under the agent the spans come from its SDK (GlobalOpenTelemetry, bridged).
                    if (!config.javaagent.empty()) harness.insert(harness.end(), {"--tracer", "global"});
                    for (int r = 0; r < config.runs; r++) {
                        auto run = vtscope::testing::run_traced_harness(paths, jvm, harness, {"--identity", channel});
                        CheckResult result = vtscope::testing::check_markers(run.expected, run.trace);
                        bool ok = run.error.empty() && result.expected == config.threads * config.markers &&
                                  result.missing == 0;
                        if (sound_channel(channel))
                            ok = ok && result.correct == result.expected;
                        else
                            ok = ok && result.failures_after_first == 0 && result.extra == 0;
                        if (!ok) {
                            failures++;
                            cell.errors.push_back("run " + std::to_string(r) + ": " +
                                                  (run.error.empty() ? result.summary() : run.error));
                        }
                        std::fprintf(stderr, "vtscope-harness: %s %s %s %s run %d: %s\n", gc.c_str(), channel.c_str(),
                                     scope.c_str(), lifetime.c_str(), r, result.summary().c_str());
                        cell.runs.push_back(result);
                        cell.gc_events.push_back(count_gc_lines(run.java_stderr));
                    }
                    cells.push_back(std::move(cell));
                }

    // Table 6 shape: per channel, scope and lifetime, summed over the runs.
    std::printf("\n%d x %d markers per run, %d runs per row, context %s%s\n", config.threads, config.markers,
                config.runs, config.context.c_str(), config.gc_pressure ? ", GC pressure (-Xmx128m)" : "");
    std::printf("%-8s %-10s %-11s %-10s | %-29s | %-45s | %s\n", "GC", "channel", "scope", "lifetime",
                "identity: ok unmap misattr", "content: ok unmap invalid misattr (foreign/span)",
                "runs all-correct, GC log lines");
    for (const Cell& cell : cells) {
        vtscope::testing::PlaneCounts id, content;
        int foreign = 0, span = 0, perfect = 0, collections = 0;
        for (int g : cell.gc_events) collections += g;
        for (const CheckResult& r : cell.runs) {
            add(id, r.identity);
            add(content, r.content);
            foreign += r.content_foreign;
            span += r.content_wrong_span;
            if (r.correct == r.expected && r.expected > 0) perfect++;
        }
        char planes[160];
        std::snprintf(planes, sizeof(planes), "%9d %5d %7d       | %8d %5d %7d %7d (%d/%d)", id.correct, id.unmapped,
                      id.misattributed, content.correct, content.unmapped, content.invalid, content.misattributed,
                      foreign, span);
        std::printf("%-8s %-10s %-11s %-10s | %-75s | %d/%zu, %d\n", cell.gc.c_str(), cell.channel.c_str(),
                    cell.scope.c_str(), cell.lifetime.c_str(), planes, perfect, cell.runs.size(), collections);
    }
    for (const Cell& cell : cells)
        for (const std::string& e : cell.errors)
            std::printf("FAILED %s %s %s %s %s\n", cell.gc.c_str(), cell.channel.c_str(), cell.scope.c_str(),
                        cell.lifetime.c_str(), e.c_str());

    if (!config.json.empty()) {
        std::ofstream out(config.json);
        out << "[\n";
        bool first = true;
        for (const Cell& cell : cells)
            for (size_t r = 0; r < cell.runs.size(); r++) {
                const CheckResult& c = cell.runs[r];
                // One run a line, as before: a file people read and diff.
                OrderedJson run = {{"gc", cell.gc},
                                   {"channel", cell.channel},
                                   {"scope", cell.scope},
                                   {"lifetime", cell.lifetime},
                                   {"context", config.context},
                                   {"run", r},
                                   {"markers", c.expected},
                                   {"observed", c.observed},
                                   {"correct", c.correct},
                                   {"identity",
                                    {{"correct", c.identity.correct},
                                     {"unmapped", c.identity.unmapped},
                                     {"misattributed", c.identity.misattributed}}},
                                   {"content",
                                    {{"correct", c.content.correct},
                                     {"unmapped", c.content.unmapped},
                                     {"invalid", c.content.invalid},
                                     {"misattributed", c.content.misattributed},
                                     {"foreign", c.content_foreign},
                                     {"wrong_span", c.content_wrong_span}}},
                                   {"failures_after_first_marker", c.failures_after_first},
                                   {"gc_log_lines", cell.gc_events[r]}};
                out << (first ? "" : ",\n") << json_text(run);
                first = false;
            }
        out << "\n]\n";
        if (!out) {
            std::fprintf(stderr, "vtscope-harness: error: cannot write %s\n", config.json.c_str());
            return 1;
        }
        std::printf("results: %s\n", config.json.c_str());
    }
    std::printf("%s\n", failures == 0 ? "all soundness claims held" : "SOUNDNESS CLAIMS FAILED");
    return config.check && failures ? 1 : 0;
}
