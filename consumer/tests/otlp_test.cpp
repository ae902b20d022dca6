// SPDX-License-Identifier: Apache-2.0
// --otlp end to end: the real vtscope against a real JDK 25 workload, exporting into a real
// OpenTelemetry Collector (built by scripts/build-collector.sh from the Go module proxy, file
// exporter, JSON lines). Without root, or without a Collector that builds, every test says
// SKIPPED loudly.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "output/json_io.h"
#include "otlp_records.h"
#include "cli/privilege.h"
#include "process_runner.h"
#include "e2e_fixture.h"

using namespace std::chrono_literals;
using vtscope::Json;
using vtscope::testing::at;
using vtscope::testing::Child;
using vtscope::testing::class_path;
using vtscope::testing::E2e;
using vtscope::testing::E2eRun;
using vtscope::testing::java_bin;
using vtscope::testing::number;
using vtscope::testing::read_lines;
using vtscope::testing::TempDir;
using vtscope::testing::text;
using vtscope::testing::wait_for_file;

namespace {

const std::string kSourceDir = VTSCOPE_SOURCE_DIR;
const std::string kCollectorBuild = VTSCOPE_COLLECTOR_BUILD;

#define SKIP_LOUDLY(why)                                                    \
    do {                                                                    \
        std::string reason_ = (why);                                        \
        std::fprintf(stderr, "\n*** SKIPPED: %s ***\n\n", reason_.c_str()); \
        GTEST_SKIP() << "SKIPPED: " << reason_;                             \
    } while (0)

// The Collector binary (built on first use, about 5 minutes; cached under the build folder), or
// why there is none.
const std::pair<std::string, std::string>& collector_binary() {
    static const std::pair<std::string, std::string> result = [] {
        std::string err;
        int code = vtscope::testing::run_command({"bash", kSourceDir + "/scripts/build-collector.sh", kCollectorBuild},
                                                 &err, std::chrono::minutes(15));
        std::string binary = kCollectorBuild + "/collector/otelcol-vtscope";
        if (code != 0 || access(binary.c_str(), X_OK) != 0) {
            while (!err.empty() && err.back() == '\n') err.pop_back();
            size_t last = err.rfind('\n');
            return std::make_pair(std::string(),
                                  "cannot build the OpenTelemetry Collector (scripts/build-collector.sh "
                                  "exited " +
                                      std::to_string(code) +
                                      "): " + (last == std::string::npos ? err : err.substr(last + 1)));
        }
        return std::make_pair(binary, std::string());
    }();
    return result;
}

#define REQUIRE_BPF_AND_COLLECTOR()                                                                     \
    do {                                                                                                \
        if (!vtscope::have_bpf_privilege())                                                             \
            SKIP_LOUDLY("needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN) to load BPF programs"); \
        if (collector_binary().first.empty()) SKIP_LOUDLY(collector_binary().second);                   \
    } while (0)

int free_port() { return vtscope::testing::free_loopback_port(); }
bool port_open(int port) { return vtscope::testing::loopback_port_open(port); }

// A Collector on 127.0.0.1:port writing JSON lines to out (consumer/tests/collector/config.yaml).
struct Collector {
    Child child;
    std::string out;
    std::string err;
    // Stops it (SIGTERM, so the file exporter flushes) and returns its output lines.
    std::vector<std::string> finish() {
        if (child.running()) {
            child.signal(SIGTERM);
            child.wait(20s);
        }
        return read_lines(out);
    }
};

// config: a file of consumer/tests/collector/; extra: more Collector arguments.
Collector start_collector(const TempDir& dir, const std::string& name, int port,
                          const std::string& config = "config.yaml", const std::vector<std::string>& extra = {}) {
    Collector c;
    c.out = dir.path(name + ".jsonl");
    c.err = dir.path(name + ".err");
    setenv("VTSCOPE_OTLP_PORT", std::to_string(port).c_str(), 1);
    setenv("VTSCOPE_COLLECTOR_OUT", c.out.c_str(), 1);
    std::vector<std::string> argv = {collector_binary().first, "--config",
                                     kSourceDir + "/consumer/tests/collector/" + config};
    argv.insert(argv.end(), extra.begin(), extra.end());
    c.child = Child::start(argv, "", c.err);
    vtscope::testing::wait_until([&] { return port_open(port) || !c.child.running(); }, 30s, 50ms);
    return c;
}

Json parse(const std::string& line) {
    Json json = vtscope::parse_json(line);
    if (json.is_discarded()) ADD_FAILURE() << "no JSON: " << line.substr(0, 200);
    return json;
}

using Key = vtscope::testing::OtlpKey;
using vtscope::testing::collector_logs;
using vtscope::testing::CollectorLogs;
const Json& attribute(const Json& list, const std::string& key) { return vtscope::testing::otlp_attribute(list, key); }
bool subset(const std::multiset<Key>& small, const std::multiset<Key>& big) {
    return vtscope::testing::is_sub_multiset(small, big);
}
std::multiset<Key> local_keys(const std::vector<std::string>& lines) {
    size_t bad = 0;
    auto keys = vtscope::testing::local_keys(lines, &bad);
    EXPECT_EQ(bad, 0u) << "local lines that do not parse";
    return keys;
}

double num(const Json& j) { return vtscope::json_number(j); }

// The demo service under a long load, traced by `vtscope COMMAND --duration D` with extra
// options; `during` runs once the load has started.
struct DemoRun : E2eRun {
    double seconds = 0;  // from the start of the load to vtscope's exit
};

DemoRun run_demo(const std::string& command, double duration, std::vector<std::string> extra,
                 const std::function<void()>& during) {
    DemoRun run;
    E2e e2e;
    vtscope::testing::Workload service("io.vtscope.workloads.DemoService", {},
                                       {"--requests", "100000", "--concurrency", "8"});
    service.ready_timeout = std::chrono::seconds(90);
    service.expected = false;
    ::testing::AssertionResult ready = e2e.start(service);
    std::vector<std::string> options = {"--duration", std::to_string(duration)};
    if (command == "trace") options.insert(options.end(), {"--syscalls", "read,write,sendto,recvfrom"});
    options.insert(options.end(), extra.begin(), extra.end());
    if (ready) ready = e2e.attach(command, options);
    if (!ready) {
        run.error = ready.message();
        return run;
    }
    e2e.go();
    auto start = std::chrono::steady_clock::now();
    during();
    e2e.wait_sessions(120s);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    static_cast<E2eRun&>(run) = e2e.finish();  // stops the service
    return run;
}

// Waits until the Collector has written records (the export is under way), at most 60 s.
bool collector_receiving(const std::string& out) {
    return vtscope::testing::wait_until([&] { return !vtscope::testing::read_file(out).empty(); }, 60s);
}

// What every run must pass, the Collector killed or not: every event vtscope saw is a local
// line, was handed to the exporter, and is exactly one of delivered or a counted drop; the
// Collector holds nothing vtscope did not write locally.
void expect_counted(const nlohmann::json& summary, const std::vector<std::string>& lines, const CollectorLogs& logs) {
    const nlohmann::json& otlp = at(summary, "/otlp");
    ASSERT_TRUE(otlp.is_object()) << "no otlp section in the summary";
    EXPECT_EQ(number(summary, "/lost"), 0) << "kernel events lost";
    EXPECT_EQ(number(summary, "/events"), static_cast<double>(lines.size()));
    EXPECT_EQ(number(otlp, "/records"), static_cast<double>(lines.size()));
    EXPECT_EQ(number(otlp, "/records"), number(otlp, "/delivered") + number(otlp, "/dropped"));
    EXPECT_EQ(number(otlp, "/dropped"),
              number(otlp, "/dropped_queue_full") + number(otlp, "/dropped_failed") + number(otlp, "/rejected"));
    EXPECT_TRUE(subset(logs.keys, local_keys(lines))) << "the Collector holds records vtscope did not write";
}

// The reconciliation of a run whose Collector lived to the end: as above, and the Collector
// holds the delivered records, each once.
void expect_reconciled(const nlohmann::json& summary, const std::vector<std::string>& lines,
                       const CollectorLogs& logs) {
    expect_counted(summary, lines, logs);
    EXPECT_EQ(static_cast<double>(logs.keys.size()), number(summary, "/otlp/delivered"))
        << "Collector records vs delivered";
}

// The counts of a fault test's run, for its log.
void print_export(const DemoRun& run, const CollectorLogs& logs) {
    const nlohmann::json& otlp = at(run.summary, "/otlp");
    std::printf(
        "vtscope lines %zu, Collector log records %zu, delivered %.0f, dropped %.0f (queue full %.0f, "
        "not delivered %.0f), retries %.0f, vtscope ran %.1f s\n",
        run.lines.size(), logs.keys.size(), number(otlp, "/delivered"), number(otlp, "/dropped"),
        number(otlp, "/dropped_queue_full"), number(otlp, "/dropped_failed"), number(otlp, "/retries"), run.seconds);
}

}  // namespace

// Every test: root and a Collector binary (else SKIPPED loudly), a directory of its own and a
// free port for the Collector.
class OtlpExport : public ::testing::Test {
protected:
    void SetUp() override { REQUIRE_BPF_AND_COLLECTOR(); }
    // Starts the Collector (a file of consumer/tests/collector/, more arguments) on the port.
    ::testing::AssertionResult start(const std::string& config = "config.yaml",
                                     const std::vector<std::string>& extra = {}) {
        collector = start_collector(dir, "collector", port, config, extra);
        if (port_open(port)) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure()
               << "the Collector does not listen on " << port << ": " << vtscope::testing::read_file(collector.err);
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
    void stopped_five_seconds(const std::vector<std::string>& queue_options, bool expect_queue_drops);

    TempDir dir;
    int port = free_port();
    Collector collector;
};

// The marker harness traced with --otlp: the Collector's log records are exactly vtscope's own
// JSON lines (as a multiset of trace id, span id, syscall, bytes), with the resource set.
// The Collector's log records of a marker harness run are exactly vtscope's own JSON lines (as a
// multiset of trace id, span id, syscall, bytes), with the resource set (service.name service).
void expect_marker_records_equal_lines(const E2eRun& run, const std::vector<std::string>& out,
                                       const std::string& service) {
    CollectorLogs logs = collector_logs(out);
    std::multiset<Key> local = local_keys(run.lines);
    std::printf("vtscope lines %zu, Collector log records %zu, delivered %.0f, dropped %.0f\n", run.lines.size(),
                logs.keys.size(), number(run.summary, "/otlp/delivered"), number(run.summary, "/otlp/dropped"));
    std::printf("example record: %s\n", logs.example.c_str());
    EXPECT_GE(run.expected.size(), 128u);
    EXPECT_EQ(logs.keys, local);
    EXPECT_EQ(number(run.summary, "/otlp/dropped"), 0) << run.vtscope_stderr;
    expect_reconciled(run.summary, run.lines, logs);
    // Every marker's trace and span ids came out natively on a record.
    std::set<std::pair<std::string, std::string>> exported;
    for (const Key& k : logs.keys) exported.insert({std::get<0>(k), std::get<1>(k)});
    for (const std::string& line : run.expected) {
        Json m = parse(line);
        EXPECT_TRUE(exported.count({vtscope::json_string(vtscope::json_at(m, "trace_id")),
                                    vtscope::json_string(vtscope::json_at(m, "span_id"))}))
            << line;
    }
    ASSERT_FALSE(logs.resources.empty());
    for (const Json& r : logs.resources) {
        EXPECT_EQ(vtscope::json_string(
                      vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "service.name"), "stringValue")),
                  service);
        EXPECT_FALSE(vtscope::json_string(
                         vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "process.pid"), "intValue"))
                         .empty());
        EXPECT_FALSE(vtscope::json_string(
                         vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "host.name"), "stringValue"))
                         .empty());
        EXPECT_EQ(
            vtscope::json_string(
                vtscope::json_at(attribute(vtscope::json_at(r, "attributes"), "service.instance.id"), "stringValue"))
                .size(),
            36u);
    }
}

TEST_F(OtlpExport, MarkerHarnessRecordsEqualLocalLines) {
    ASSERT_TRUE(start());
    E2eRun run = vtscope::testing::run_marker_harness({}, {"--threads", "16", "--markers", "8", "--mode", "concurrent"},
                                                      {"--otlp", url(), "--service", "otlp-marker-test"});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    expect_marker_records_equal_lines(run, collector.finish(), "otlp-marker-test");
}

// The Collector stopped (SIGSTOP) for 5 s mid-run, then resumed: vtscope neither stalls nor
// loses a kernel event, and what was not delivered is counted.
void OtlpExport::stopped_five_seconds(const std::vector<std::string>& queue_options, bool expect_queue_drops) {
    ASSERT_TRUE(start());
    const double duration = 10;
    // The final flush may take 30 s: the sanitized build (make test) encodes the backlog the stall
    // left several times slower than the release build, which delivers it within the default 10 s.
    std::vector<std::string> options = {"--otlp", url(), "--otlp-timeout", "30"};
    options.insert(options.end(), queue_options.begin(), queue_options.end());
    DemoRun run = run_demo("trace", duration, options, [&] {
        EXPECT_TRUE(collector_receiving(collector.out)) << "no record reached the Collector";
        collector.child.signal(SIGSTOP);
        std::this_thread::sleep_for(5s);  // the fault: the Collector stopped for 5 s
        collector.child.signal(SIGCONT);
    });
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    CollectorLogs logs = collector_logs(collector.finish());
    const nlohmann::json& otlp = at(run.summary, "/otlp");
    print_export(run, logs);
    expect_reconciled(run.summary, run.lines, logs);
    EXPECT_GT(run.lines.size(), 1000u);
    // Not stalling is proven by the counts above (a stalled drain would lose kernel events); the
    // wall-clock bound only catches a hang, loose enough for a loaded machine.
    EXPECT_LT(run.seconds, 3 * duration + 30) << "vtscope hung";
    if (expect_queue_drops) {
        EXPECT_GT(number(otlp, "/dropped_queue_full"), 0) << "the queue never filled";
    }
    EXPECT_EQ(number(otlp, "/dropped_failed"), 0);
}

TEST_F(OtlpExport, CollectorStoppedFiveSecondsReconciles) { stopped_five_seconds({}, false); }

// The same with a queue of 2,000 events, which the stall overflows: the drops are counted and
// the totals still reconcile.
TEST_F(OtlpExport, CollectorStoppedWithSmallQueueCountsDrops) { stopped_five_seconds({"--otlp-queue", "2000"}, true); }

// The Collector absent at start and started 3 s later: what was queued meanwhile is delivered.
TEST_F(OtlpExport, CollectorStartedLateReconciles) {
    // --otlp-timeout 30: as in stopped_five_seconds, for the sanitized build's slower encoding.
    DemoRun run = run_demo("trace", 6, {"--otlp", url(), "--otlp-timeout", "30"}, [&] {
        std::this_thread::sleep_for(3s);  // the fault: no Collector for the first 3 s
        collector = start_collector(dir, "collector", port);
    });
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    CollectorLogs logs = collector_logs(collector.finish());
    const nlohmann::json& otlp = at(run.summary, "/otlp");
    print_export(run, logs);
    expect_reconciled(run.summary, run.lines, logs);
    EXPECT_GT(number(otlp, "/retries"), 0) << "nothing was refused: the Collector was not absent";
    EXPECT_GT(number(otlp, "/delivered"), 0);
}

// The Collector killed for good mid-run: vtscope finishes on time with one error line and a
// non-zero drop count, and its local output is complete.
TEST_F(OtlpExport, CollectorKilledFinishesWithOneErrorLine) {
    ASSERT_TRUE(start());
    const double duration = 6;
    DemoRun run = run_demo("trace", duration, {"--otlp", url(), "--otlp-timeout", "2"}, [&] {
        EXPECT_TRUE(collector_receiving(collector.out)) << "no record reached the Collector";
        collector.child.signal(SIGKILL);
    });
    ASSERT_TRUE(run.error.empty()) << run.error;
    CollectorLogs logs = collector_logs(collector.finish());
    const nlohmann::json& otlp = at(run.summary, "/otlp");
    print_export(run, logs);
    std::printf("stderr:\n%s", run.vtscope_stderr.c_str());
    EXPECT_EQ(run.vtscope_exit, 1) << run.vtscope_stderr;
    size_t errors = 0;
    for (size_t at = run.vtscope_stderr.find("vtscope: error:"); at != std::string::npos;
         at = run.vtscope_stderr.find("vtscope: error:", at + 1))
        errors++;
    EXPECT_EQ(errors, 1u) << run.vtscope_stderr;
    EXPECT_NE(run.vtscope_stderr.find("vtscope: error: otlp: "), std::string::npos) << run.vtscope_stderr;
    EXPECT_GT(number(otlp, "/dropped_failed"), 0);
    EXPECT_EQ(text(run.summary, "/stop_reason"), "duration reached");
    EXPECT_LT(run.seconds, duration + 2 + 3) << "vtscope stalled";
    // The Collector died without flushing its last writes: it may hold fewer than delivered.
    expect_counted(run.summary, run.lines, logs);
}

// A JVM whose OpenTelemetry SDK is configured (-Dotel.service.name, -Dotel.resource.attributes)
// and publishes its resource in an OTEP 4719 process context (libvtscope's "otep" option):
// vtscope, given no --service and another name in its own environment, exports under the
// application's resource.
TEST_F(OtlpExport, ServiceNameFromTheTargetsProcessContext) {
    ASSERT_TRUE(start());
    setenv("OTEL_SERVICE_NAME", "from-vtscope-environment", 1);  // the process context comes first
    E2eRun run = vtscope::testing::run_marker_harness(
        {std::string("-agentpath:") + VTSCOPE_NATIVE_LIB + "=otep", "-Dotel.service.name=process-context-e2e",
         "-Dotel.resource.attributes=deployment.environment.name=e2e"},
        {"--threads", "4", "--markers", "8"}, {"--otlp", url()});
    unsetenv("OTEL_SERVICE_NAME");
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_EQ(run.vtscope_stderr.find("process context is not used"), std::string::npos) << run.vtscope_stderr;
    CollectorLogs logs = collector_logs(collector.finish());
    ASSERT_FALSE(logs.resources.empty());
    EXPECT_EQ(logs.keys, local_keys(run.lines));
    for (const Json& r : logs.resources) {
        const Json& attrs = vtscope::json_at(r, "attributes");
        std::printf(
            "resource: service.name %s, deployment.environment.name %s, service.instance.id %s\n",
            vtscope::json_string(vtscope::json_at(attribute(attrs, "service.name"), "stringValue")).c_str(),
            vtscope::json_string(vtscope::json_at(attribute(attrs, "deployment.environment.name"), "stringValue"))
                .c_str(),
            vtscope::json_string(vtscope::json_at(attribute(attrs, "service.instance.id"), "stringValue")).c_str());
        EXPECT_EQ(vtscope::json_string(vtscope::json_at(attribute(attrs, "service.name"), "stringValue")),
                  "process-context-e2e");
        EXPECT_EQ(
            vtscope::json_string(vtscope::json_at(attribute(attrs, "deployment.environment.name"), "stringValue")),
            "e2e");
        EXPECT_FALSE(
            vtscope::json_string(vtscope::json_at(attribute(attrs, "telemetry.sdk.language"), "stringValue")).empty())
            << "the SDK's own resource attributes come with it";
    }
}

// Two JVMs traced by two vtscopes into one Collector: each one's records come out under its own
// resource (process.pid, service.instance.id, service.name), and each resource holds exactly
// the records of that vtscope's own lines.
TEST_F(OtlpExport, TwoJvmsSeparatedByResource) {
    ASSERT_TRUE(start());
    E2eRun runs[2];
    std::thread second([&] {
        runs[1] = vtscope::testing::run_marker_harness({}, {"--threads", "8", "--markers", "8"},
                                                       {"--otlp", url(), "--service", "jvm-b"});
    });
    runs[0] = vtscope::testing::run_marker_harness({}, {"--threads", "16", "--markers", "8"},
                                                   {"--otlp", url(), "--service", "jvm-a"});
    second.join();
    for (const auto& run : runs) {
        ASSERT_TRUE(run.error.empty()) << run.error;
        EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    }
    // Records by the resource's (service.name, process.pid, service.instance.id).
    std::map<std::tuple<std::string, std::string, std::string>, std::multiset<Key>> by_resource;
    for (const std::string& line : collector.finish()) {
        Json j = parse(line);
        for (const Json& rl : vtscope::json_array(vtscope::json_at(j, "resourceLogs"))) {
            const Json& attrs = vtscope::json_at(rl, "resource", "attributes");
            auto& keys = by_resource[{
                vtscope::json_string(vtscope::json_at(attribute(attrs, "service.name"), "stringValue")),
                vtscope::json_string(vtscope::json_at(attribute(attrs, "process.pid"), "intValue")),
                vtscope::json_string(vtscope::json_at(attribute(attrs, "service.instance.id"), "stringValue"))}];
            for (const Json& sl : vtscope::json_array(vtscope::json_at(rl, "scopeLogs")))
                for (const Json& r : vtscope::json_array(vtscope::json_at(sl, "logRecords")))
                    keys.insert({vtscope::json_string(vtscope::json_at(r, "traceId")),
                                 vtscope::json_string(vtscope::json_at(r, "spanId")),
                                 vtscope::json_string(vtscope::json_at(
                                     attribute(vtscope::json_at(r, "attributes"), "vtscope.syscall"), "stringValue")),
                                 vtscope::json_string(vtscope::json_at(
                                     attribute(vtscope::json_at(r, "attributes"), "vtscope.bytes"), "intValue"))});
        }
    }
    ASSERT_EQ(by_resource.size(), 2u) << "expected two resources, one per vtscope";
    const char* names[2] = {"jvm-a", "jvm-b"};
    std::set<std::string> pids, instances;
    for (int i = 0; i < 2; i++) {
        const std::multiset<Key>* found = nullptr;
        for (const auto& [resource, keys] : by_resource)
            if (std::get<0>(resource) == names[i]) {
                found = &keys;
                pids.insert(std::get<1>(resource));
                instances.insert(std::get<2>(resource));
            }
        ASSERT_NE(found, nullptr) << names[i];
        std::printf("%s: vtscope lines %zu, Collector records under its resource %zu\n", names[i], runs[i].lines.size(),
                    found->size());
        EXPECT_EQ(*found, local_keys(runs[i].lines)) << names[i];
    }
    EXPECT_EQ(pids.size(), 2u);
    EXPECT_EQ(instances.size(), 2u);
}

namespace {

// The 32-digit lowercase hex tokens of text: the trace ids a run's output names.
std::set<std::string> trace_ids_in(const std::string& text) {
    std::set<std::string> ids;
    auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
    for (size_t i = 0; i < text.size();) {
        size_t j = i;
        while (j < text.size() && hex(text[j])) j++;
        if (j - i == 32) ids.insert(text.substr(i, 32));
        i = j > i ? j : i + 1;
    }
    return ids;
}

// What the Collector's metric exports hold: every exemplar's trace id, and every point's
// attribute keys and values (to show no trace id is a label).
struct CollectorMetrics {
    size_t exports = 0;
    size_t points = 0;
    std::vector<std::string> exemplar_traces;
    std::vector<std::string> attribute_keys, attribute_values;
    const Json* last = nullptr;  // the last export request
    std::vector<Json> requests;
};

CollectorMetrics collector_metrics(const std::vector<std::string>& lines) {
    CollectorMetrics m;
    for (const std::string& line : lines) {
        Json j = parse(line);
        if (!vtscope::json_at(j, "resourceMetrics").is_array()) continue;
        m.requests.push_back(j);
    }
    for (const Json& j : m.requests) {
        m.exports++;
        for (const Json& rm : vtscope::json_array(vtscope::json_at(j, "resourceMetrics")))
            for (const Json& sm : vtscope::json_array(vtscope::json_at(rm, "scopeMetrics")))
                for (const Json& metric : vtscope::json_array(vtscope::json_at(sm, "metrics")))
                    for (const char* kind : {"sum", "histogram"})
                        for (const Json& p :
                             vtscope::json_array(vtscope::json_at(vtscope::json_member(metric, kind), "dataPoints"))) {
                            m.points++;
                            for (const Json& a : vtscope::json_array(vtscope::json_at(p, "attributes"))) {
                                m.attribute_keys.push_back(vtscope::json_string(vtscope::json_at(a, "key")));
                                m.attribute_values.push_back(
                                    vtscope::json_string(vtscope::json_at(a, "value", "stringValue")));
                            }
                            for (const Json& x : vtscope::json_array(vtscope::json_at(p, "exemplars")))
                                m.exemplar_traces.push_back(vtscope::json_string(vtscope::json_at(x, "traceId")));
                        }
    }
    if (!m.requests.empty()) m.last = &m.requests.back();
    return m;
}

// Exemplars are there, each names a trace of the run, and no trace id (nor a key about one) is
// an attribute of a point.
void expect_exemplars_not_labels(const CollectorMetrics& m, const std::set<std::string>& run_traces) {
    std::printf("metric exports %zu, points %zu, exemplars %zu, run traces %zu\n", m.exports, m.points,
                m.exemplar_traces.size(), run_traces.size());
    EXPECT_GT(m.exemplar_traces.size(), 0u) << "no exemplar";
    for (const std::string& t : m.exemplar_traces) EXPECT_TRUE(run_traces.count(t)) << "exemplar trace " << t;
    for (const std::string& k : m.attribute_keys) EXPECT_EQ(k.find("trace"), std::string::npos) << k;
    for (const std::string& v : m.attribute_values) EXPECT_TRUE(trace_ids_in(v).empty()) << v;
}

// The points of the named metric in an export request.
std::vector<const Json*> points_of(const Json& request, const std::string& name, const char* kind) {
    std::vector<const Json*> out;
    for (const Json& rm : vtscope::json_array(vtscope::json_at(request, "resourceMetrics")))
        for (const Json& sm : vtscope::json_array(vtscope::json_at(rm, "scopeMetrics")))
            for (const Json& metric : vtscope::json_array(vtscope::json_at(sm, "metrics")))
                if (vtscope::json_string(vtscope::json_at(metric, "name")) == name)
                    for (const Json& p :
                         vtscope::json_array(vtscope::json_at(vtscope::json_member(metric, kind), "dataPoints")))
                        out.push_back(&p);
    return out;
}

}  // namespace

// block --otlp: one log record per reported interval, the same (trace id, span id, duration) as
// the JSON lines; the blocked-time histogram counts those intervals, with exemplars from them.
TEST_F(OtlpExport, BlockRecordsMatchLinesAndHistogramHasExemplars) {
    ASSERT_TRUE(start());
    DemoRun run = run_demo("block", 4, {"--threshold", "0.1", "--otlp", url(), "--service", "blk"}, [] {});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    std::vector<std::string> out = collector.finish();
    using Interval = std::tuple<std::string, std::string, std::string>;  // trace id, span id, duration
    std::multiset<Interval> local, exported;
    std::set<std::string> run_traces;
    for (const std::string& line : run.lines) {
        Json j = parse(line);
        auto text = [](const Json& v) { return v.is_string() ? vtscope::json_string(v) : std::string(); };
        local.insert({text(vtscope::json_at(j, "trace_id")), text(vtscope::json_at(j, "span_id")),
                      std::to_string(static_cast<uint64_t>(num(vtscope::json_at(j, "duration_ns"))))});
        if (vtscope::json_at(j, "trace_id").is_string())
            run_traces.insert(vtscope::json_string(vtscope::json_at(j, "trace_id")));
    }
    for (const std::string& line : out) {
        Json j = parse(line);
        for (const Json& rl : vtscope::json_array(vtscope::json_at(j, "resourceLogs"))) {
            EXPECT_EQ(vtscope::json_string(vtscope::json_at(
                          attribute(vtscope::json_at(rl, "resource", "attributes"), "service.name"), "stringValue")),
                      "blk");
            for (const Json& sl : vtscope::json_array(vtscope::json_at(rl, "scopeLogs")))
                for (const Json& r : vtscope::json_array(vtscope::json_at(sl, "logRecords"))) {
                    EXPECT_EQ(vtscope::json_string(vtscope::json_at(r, "eventName")), "vtscope.block");
                    exported.insert(
                        {vtscope::json_string(vtscope::json_at(r, "traceId")),
                         vtscope::json_string(vtscope::json_at(r, "spanId")),
                         vtscope::json_string(vtscope::json_at(
                             attribute(vtscope::json_at(r, "attributes"), "vtscope.block.duration_ns"), "intValue"))});
                }
        }
    }
    const nlohmann::json& logs = at(run.summary, "/otlp_signals/logs");
    std::printf("block lines %zu (%zu with a trace), Collector log records %zu, delivered %.0f, dropped %.0f\n",
                run.lines.size(), run_traces.size(), exported.size(), number(logs, "/delivered"),
                number(logs, "/dropped"));
    EXPECT_GT(run_traces.size(), 0u) << "no interval with a trace context: the test shows nothing";
    EXPECT_EQ(number(logs, "/dropped"), 0);
    EXPECT_EQ(number(logs, "/records"), static_cast<double>(run.lines.size()));
    EXPECT_EQ(exported, local);
    // The last histogram export counts every reported interval: the blocking ones in
    // vtscope.block.duration, the run-queue waits (preempted) in vtscope.block.cpu_wait.
    CollectorMetrics m = collector_metrics(out);
    ASSERT_NE(m.last, nullptr) << "no metric export";
    auto counted = [&](const char* metric) {
        double n = 0;
        for (const Json* p : points_of(*m.last, metric, "histogram")) {
            n += std::stod(vtscope::json_string(vtscope::json_at((*p), "count")));
            double in_buckets = 0;
            for (const Json& b : vtscope::json_array(vtscope::json_at((*p), "bucketCounts")))
                in_buckets += std::stod(vtscope::json_string(b));
            EXPECT_EQ(in_buckets, std::stod(vtscope::json_string(vtscope::json_at((*p), "count"))));
        }
        return n;
    };
    double preempted = 0;
    for (const std::string& line : run.lines)
        preempted += vtscope::json_string(vtscope::json_at(parse(line), "block_reason")) == "preempted";
    EXPECT_EQ(counted("vtscope.block.duration"), static_cast<double>(run.lines.size()) - preempted);
    EXPECT_EQ(counted("vtscope.block.cpu_wait"), preempted);
    expect_exemplars_not_labels(m, run_traces);
    EXPECT_EQ(number(run.summary, "/otlp_signals/metrics/dropped"), 0);
}

// profile --otlp: CPU time by status, the last export equal to the session's total, with the
// traces that used it as exemplars.
TEST_F(OtlpExport, ProfileCpuTimeWithExemplars) {
    ASSERT_TRUE(start());
    DemoRun run = run_demo("profile", 4, {"--otlp", url(), "--top", "1000000"}, [] {});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    CollectorMetrics m = collector_metrics(collector.finish());
    ASSERT_NE(m.last, nullptr) << "no metric export";
    double cpu_s = 0;
    for (const Json* p : points_of(*m.last, "vtscope.cpu.time", "sum"))
        cpu_s += num(vtscope::json_at((*p), "asDouble"));
    std::string report;
    for (const std::string& line : run.lines) report += line + "\n";
    std::printf("CPU time in the last export %.3f s, in the summary %.3f s\n", cpu_s,
                number(run.summary, "/profile/cpu_ms") / 1000);
    const double summary_ms = number(run.summary, "/profile/cpu_ms");  // printed with 6 significant digits
    EXPECT_GT(summary_ms, 0);
    EXPECT_NEAR(cpu_s * 1000, summary_ms, std::max(0.01, summary_ms * 1e-5));
    expect_exemplars_not_labels(m, trace_ids_in(report + run.summary.dump()));
    EXPECT_EQ(number(run.summary, "/otlp/dropped"), 0);
}

// profile --otlp-profiles: the samples as one OTLP profile (development stage) that the pinned
// Collector takes with profiles enabled: its CPU time equals the session's, its links name the
// run's traces, its stacks are symbolised frames through the dictionary.
void expect_profile_equals_session(const DemoRun& run, const std::vector<std::string>& out,
                                   const std::string& collector_err);

TEST_F(OtlpExport, ProfileStacksAsOtlpProfile) {
    ASSERT_TRUE(start("config-profiles.yaml", {"--feature-gates=service.profilesSupport"}));
    DemoRun run =
        run_demo("profile", 4, {"--otlp", url(), "--otlp-profiles", "--service", "prof", "--top", "1000000"}, [] {});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    expect_profile_equals_session(run, collector.finish(), vtscope::testing::read_file(collector.err));
}

// The one profile request of a profile --otlp-profiles --service prof run in the Collector's
// output: its CPU time equals the session's, its links name the run's traces, its stacks are
// symbolised frames through the dictionary.
void expect_profile_equals_session(const DemoRun& run, const std::vector<std::string>& out,
                                   const std::string& collector_err) {
    const nlohmann::json& exported = at(run.summary, "/otlp_signals/profiles");
    EXPECT_EQ(number(exported, "/delivered"), 1) << run.vtscope_stderr << collector_err;
    EXPECT_EQ(number(exported, "/dropped"), 0);
    std::vector<Json> requests;
    for (const std::string& line : out) {
        Json j = parse(line);
        if (vtscope::json_at(j, "resourceProfiles").is_array()) requests.push_back(j);
    }
    ASSERT_EQ(requests.size(), 1u) << "profile requests in the Collector's output";
    const Json& request = requests[0];
    const Json& dictionary = vtscope::json_at(request, "dictionary");
    const auto& strings = vtscope::json_array(vtscope::json_at(dictionary, "stringTable"));
    ASSERT_FALSE(strings.empty());
    auto index = [](const Json& v) { return v.is_number() ? static_cast<size_t>(vtscope::json_number(v)) : 0; };
    EXPECT_EQ(vtscope::json_string(strings[0]), "");
    std::string report;
    for (const std::string& line : run.lines) report += line + "\n";
    std::set<std::string> run_traces = trace_ids_in(report + run.summary.dump());
    double cpu_ns = 0;
    size_t samples = 0, linked = 0, with_frames = 0, bad_links = 0;
    // The Collector's pdata moves the resource's strings into the string table when it writes a
    // profile (keyStrindex, stringValueStrindex): resolve them there.
    auto resource_string = [&](const Json& attributes, const std::string& key) {
        for (const Json& a : vtscope::json_array(attributes)) {
            std::string k = vtscope::json_at(a, "key").is_string()
                                ? vtscope::json_string(vtscope::json_at(a, "key"))
                                : vtscope::json_string(strings.at(index(vtscope::json_at(a, "keyStrindex"))));
            if (k != key) continue;
            const Json& v = vtscope::json_at(a, "value");
            return vtscope::json_at(v, "stringValue").is_string()
                       ? vtscope::json_string(vtscope::json_at(v, "stringValue"))
                       : vtscope::json_string(strings.at(index(vtscope::json_at(v, "stringValueStrindex"))));
        }
        return std::string();
    };
    for (const Json& rp : vtscope::json_array(vtscope::json_at(request, "resourceProfiles"))) {
        EXPECT_EQ(resource_string(vtscope::json_at(rp, "resource", "attributes"), "service.name"), "prof");
        EXPECT_EQ(resource_string(vtscope::json_at(rp, "resource", "attributes"), "service.instance.id").size(), 36u);
        for (const Json& sp : vtscope::json_array(vtscope::json_at(rp, "scopeProfiles")))
            for (const Json& profile : vtscope::json_array(vtscope::json_at(sp, "profiles"))) {
                EXPECT_EQ(
                    vtscope::json_string(strings.at(index(vtscope::json_at(profile, "sampleType", "typeStrindex")))),
                    "cpu");
                EXPECT_EQ(
                    vtscope::json_string(strings.at(index(vtscope::json_at(profile, "sampleType", "unitStrindex")))),
                    "nanoseconds");
                for (const Json& sample : vtscope::json_array(vtscope::json_at(profile, "samples"))) {
                    samples++;
                    for (const Json& v : vtscope::json_array(vtscope::json_at(sample, "values")))
                        cpu_ns += std::stod(vtscope::json_string(v));
                    if (size_t link = index(vtscope::json_at(sample, "linkIndex"))) {
                        linked++;
                        const std::string trace = vtscope::json_string(vtscope::json_at(
                            vtscope::json_array(vtscope::json_at(dictionary, "linkTable")).at(link), "traceId"));
                        if (!run_traces.count(trace)) bad_links++;
                    }
                    const Json& stack = vtscope::json_array(vtscope::json_at(dictionary, "stackTable"))
                                            .at(index(vtscope::json_at(sample, "stackIndex")));
                    bool named = false;
                    for (const Json& l : vtscope::json_array(vtscope::json_at(stack, "locationIndices"))) {
                        const Json& location =
                            vtscope::json_array(vtscope::json_at(dictionary, "locationTable")).at(index(l));
                        for (const Json& line : vtscope::json_array(vtscope::json_at(location, "lines"))) {
                            const Json& function = vtscope::json_array(vtscope::json_at(dictionary, "functionTable"))
                                                       .at(index(vtscope::json_at(line, "functionIndex")));
                            named = named ||
                                    !vtscope::json_string(strings.at(index(vtscope::json_at(function, "nameStrindex"))))
                                         .empty();
                        }
                    }
                    if (named) with_frames++;
                }
            }
    }
    const double summary_ms = number(run.summary, "/profile/cpu_ms");
    std::printf(
        "profile samples %zu (%zu with a trace link, %zu with named frames), CPU %.3f ms, summary %.3f ms, "
        "strings %zu, stacks %zu\n",
        samples, linked, with_frames, cpu_ns / 1e6, summary_ms, strings.size(),
        vtscope::json_array(vtscope::json_at(dictionary, "stackTable")).size());
    EXPECT_GT(samples, 0u);
    EXPECT_GT(linked, 0u) << "no sample links a trace";
    EXPECT_EQ(bad_links, 0u) << "links to traces the run did not see";
    EXPECT_GT(with_frames, 0u) << "no symbolised stack";
    EXPECT_NEAR(cpu_ns / 1e6, summary_ms, std::max(0.01, summary_ms * 1e-5));
}

// stat --otlp: cumulative sums by syscall and status; the last export's calls add up to every
// event the session counted, and no data point carries a label beyond syscall and status.
TEST_F(OtlpExport, StatSumsEqualCountedEvents) {
    ASSERT_TRUE(start());
    DemoRun run = run_demo("stat", 4, {"--otlp", url(), "--top", "1000000"}, [] {});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    std::vector<std::string> lines = collector.finish();
    ASSERT_FALSE(lines.empty());
    double calls = 0;
    size_t points = 0;
    Json last = parse(lines.back());
    for (const Json* p : points_of(last, "vtscope.syscall.calls", "sum")) {
        EXPECT_EQ(vtscope::json_array(vtscope::json_at((*p), "attributes")).size(), 2u);
        points++;
        calls += std::stod(vtscope::json_string(vtscope::json_at((*p), "asInt")));
    }
    std::printf("metric exports in the Collector %zu, points in the last %zu, calls %.0f, events %.0f\n", lines.size(),
                points, calls, number(run.summary, "/events"));
    EXPECT_GT(calls, 0);
    EXPECT_EQ(calls, number(run.summary, "/events"));
    EXPECT_EQ(number(run.summary, "/otlp/dropped"), 0);
    // The report lists every trace (--top 1000000): each exemplar names one of them.
    std::string report;
    for (const std::string& line : run.lines) report += line + "\n";
    expect_exemplars_not_labels(collector_metrics(lines), trace_ids_in(report));
}

// Each signal over each OTLP protocol into one Collector that serves gRPC and HTTP
// (config-protocols.yaml): the logs of the marker harness, and profile's metrics and OTLP
// profile, reconciled with vtscope's local output as the tests above do over the default.
class OtlpProtocolExport : public OtlpExport, public ::testing::WithParamInterface<const char*> {
protected:
    ::testing::AssertionResult start_both() {
        setenv("VTSCOPE_OTLP_GRPC_PORT", std::to_string(grpc_port).c_str(), 1);
        auto started = start("config-protocols.yaml", {"--feature-gates=service.profilesSupport"});
        if (started && !vtscope::testing::wait_until([&] { return port_open(grpc_port); }, 30s, 50ms))
            return ::testing::AssertionFailure() << "the Collector's gRPC receiver does not listen on " << grpc_port;
        return started;
    }
    // The endpoint of the protocol under test, and the options that choose it.
    std::vector<std::string> otlp_options() const {
        const bool grpc = std::string(GetParam()) == "grpc";
        return {"--otlp", "http://127.0.0.1:" + std::to_string(grpc ? grpc_port : port), "--otlp-protocol", GetParam()};
    }
    int grpc_port = free_port();
};

TEST_P(OtlpProtocolExport, MarkerHarnessLogsEqualLocalLines) {
    ASSERT_TRUE(start_both());
    std::vector<std::string> options = otlp_options();
    options.insert(options.end(), {"--service", "otlp-marker-test"});
    E2eRun run = vtscope::testing::run_marker_harness({}, {"--threads", "16", "--markers", "8", "--mode", "concurrent"},
                                                      options);
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_EQ(number(run.summary, "/otlp/retries"), 0) << run.vtscope_stderr;
    expect_marker_records_equal_lines(run, collector.finish(), "otlp-marker-test");
}

TEST_P(OtlpProtocolExport, ProfileMetricsAndProfileEqualSession) {
    ASSERT_TRUE(start_both());
    std::vector<std::string> options = otlp_options();
    options.insert(options.end(), {"--otlp-profiles", "--service", "prof", "--top", "1000000"});
    DemoRun run = run_demo("profile", 4, options, [] {});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    std::vector<std::string> out = collector.finish();
    // The metrics: the last export's CPU time is the session's.
    CollectorMetrics m = collector_metrics(out);
    ASSERT_NE(m.last, nullptr) << "no metric export";
    double cpu_s = 0;
    for (const Json* p : points_of(*m.last, "vtscope.cpu.time", "sum"))
        cpu_s += num(vtscope::json_at((*p), "asDouble"));
    const double summary_ms = number(run.summary, "/profile/cpu_ms");
    EXPECT_GT(summary_ms, 0);
    EXPECT_NEAR(cpu_s * 1000, summary_ms, std::max(0.01, summary_ms * 1e-5));
    std::string report;
    for (const std::string& line : run.lines) report += line + "\n";
    expect_exemplars_not_labels(m, trace_ids_in(report + run.summary.dump()));
    EXPECT_EQ(number(run.summary, "/otlp_signals/metrics/dropped"), 0);
    // The profile.
    expect_profile_equals_session(run, out, vtscope::testing::read_file(collector.err));
}

INSTANTIATE_TEST_SUITE_P(EachProtocol, OtlpProtocolExport, ::testing::Values("grpc", "http/protobuf", "http/json"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                             std::string name = param.param;
                             for (char& c : name)
                                 if (c == '/') c = '_';
                             return name;
                         });

// ---------------------------------------------------------------------------------------------
// An authenticated Collector (issue 44): TLS from a CA generated here, a bearer token, gzip.

namespace {

// A CA, a server certificate for 127.0.0.1 and a client certificate it signs, made with the
// openssl CLI into dir (ca.pem, server.pem, server-key.pem, client.pem, client-key.pem); an error
// says which step failed.
std::string make_test_ca(const TempDir& dir) {
    const std::string ec = "ec_paramgen_curve:prime256v1";
    std::ofstream(dir.path("san.cnf")) << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
    const std::vector<std::vector<std::string>> steps = {
        {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", dir.path("ca-key.pem"),
         "-out", dir.path("ca.pem"), "-days", "1", "-subj", "/CN=vtscope-test-ca"},
        {"openssl", "req", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", dir.path("server-key.pem"), "-out",
         dir.path("server.csr"), "-subj", "/CN=127.0.0.1"},
        {"openssl", "x509", "-req", "-in", dir.path("server.csr"), "-CA", dir.path("ca.pem"), "-CAkey",
         dir.path("ca-key.pem"), "-CAcreateserial", "-out", dir.path("server.pem"), "-days", "1", "-extfile",
         dir.path("san.cnf")},
        {"openssl", "req", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", dir.path("client-key.pem"), "-out",
         dir.path("client.csr"), "-subj", "/CN=vtscope-client"},
        {"openssl", "x509", "-req", "-in", dir.path("client.csr"), "-CA", dir.path("ca.pem"), "-CAkey",
         dir.path("ca-key.pem"), "-CAcreateserial", "-out", dir.path("client.pem"), "-days", "1"}};
    for (const auto& step : steps) {
        std::string err;
        if (vtscope::testing::run_command(step, &err, std::chrono::seconds(60)) != 0)
            return "openssl " + step[1] + " failed: " + err;
    }
    return "";
}

const std::string kToken = "vtscope-test-token-4f1c2d";  // the Collector's; must never be printed

// The secret appears in none of what vtscope wrote: stderr, the summary, the local output.
void expect_token_unprinted(const E2eRun& run) {
    EXPECT_EQ(run.vtscope_stderr.find(kToken), std::string::npos) << "the token is on stderr";
    EXPECT_EQ(run.summary.dump().find(kToken), std::string::npos) << "the token is in the summary JSON";
    for (const std::string& line : run.lines) ASSERT_EQ(line.find(kToken), std::string::npos) << line;
    for (const auto& session : run.sessions) EXPECT_EQ(session.stdout_text.find(kToken), std::string::npos);
}

// The error lines of a run's stderr.
std::vector<std::string> error_lines(const std::string& err) {
    std::vector<std::string> lines;
    for (size_t at = err.find("vtscope: error:"); at != std::string::npos; at = err.find("vtscope: error:", at + 1))
        lines.push_back(err.substr(at, err.find('\n', at) - at));
    return lines;
}

// Sets an environment variable for one scope (vtscope inherits the test's environment).
struct ScopedEnv {
    std::string name;
    ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) { setenv(name.c_str(), value.c_str(), 1); }
    ~ScopedEnv() { unsetenv(name.c_str()); }
};

}  // namespace

class OtlpSecureExport : public OtlpExport {
protected:
    void SetUp() override {
        OtlpExport::SetUp();
        if (IsSkipped()) return;
        std::string failed = make_test_ca(dir);
        if (!failed.empty()) GTEST_FAIL() << failed;
        setenv("VTSCOPE_TLS_DIR", dir.path("").c_str(), 1);
        setenv("VTSCOPE_OTLP_TOKEN", kToken.c_str(), 1);
        setenv("VTSCOPE_OTLP_GRPC_PORT", std::to_string(grpc_port).c_str(), 1);
    }
    std::string https() const { return "https://127.0.0.1:" + std::to_string(port); }
    std::string ca() const { return dir.path("ca.pem"); }
    // A trace of the demo service that cannot deliver: one error line naming the endpoint and
    // cause, exit 1, and the local output complete (every event a line, none lost).
    // base: the endpoint's base URL when not https() (the gRPC receiver's port).
    void expect_one_clear_line(const std::vector<std::string>& options, const std::string& cause,
                               const std::string& base = "");
    std::string grpc_https() const { return "https://127.0.0.1:" + std::to_string(grpc_port); }
    ::testing::AssertionResult grpc_listening() {
        if (vtscope::testing::wait_until([&] { return port_open(grpc_port); }, 30s, 50ms))
            return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "the Collector's gRPC receiver does not listen on " << grpc_port;
    }

    int grpc_port = free_port();
};

// Logs over TLS (the generated CA), with the token from OTEL_EXPORTER_OTLP_HEADERS (percent-encoded)
// and gzip bodies: the Collector's records are exactly vtscope's own lines.
TEST_F(OtlpSecureExport, LogsOverTlsTokenGzipEqualLocalLines) {
    ASSERT_TRUE(start("config-auth.yaml"));
    ScopedEnv headers("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20" + kToken);
    E2eRun run = vtscope::testing::run_marker_harness(
        {}, {"--threads", "16", "--markers", "8", "--mode", "concurrent"},
        {"--otlp", https(), "--otlp-certificate", ca(), "--otlp-compression", "gzip", "--service", "otlp-secure"});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    CollectorLogs logs = collector_logs(collector.finish());
    std::printf("vtscope lines %zu, Collector log records %zu, delivered %.0f, requests %.0f\n", run.lines.size(),
                logs.keys.size(), number(run.summary, "/otlp/delivered"), number(run.summary, "/otlp/requests"));
    EXPECT_GE(run.expected.size(), 128u);
    EXPECT_EQ(logs.keys, local_keys(run.lines));
    EXPECT_EQ(number(run.summary, "/otlp/dropped"), 0) << run.vtscope_stderr;
    EXPECT_EQ(text(run.summary, "/otlp/endpoint"), https() + "/v1/logs");
    expect_reconciled(run.summary, run.lines, logs);
    expect_token_unprinted(run);
}

// block exports logs and metrics: over TLS with the CA and gzip from the environment and the
// token from --otlp-header, every interval arrives as a record and the last histogram counts them.
TEST_F(OtlpSecureExport, BlockLogsAndMetricsOverTlsTokenGzip) {
    ASSERT_TRUE(start("config-auth.yaml"));
    ScopedEnv certificate("OTEL_EXPORTER_OTLP_CERTIFICATE", ca());
    ScopedEnv compression("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip");
    DemoRun run =
        run_demo("block", 4,
                 {"--threshold", "0.1", "--otlp", https(), "--otlp-header", "Authorization=Bearer " + kToken}, [] {});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    std::vector<std::string> out = collector.finish();
    CollectorLogs logs = collector_logs(out);
    const nlohmann::json& log_counts = at(run.summary, "/otlp_signals/logs");
    std::printf("block lines %zu, Collector log records %zu, delivered %.0f\n", run.lines.size(), logs.keys.size(),
                number(log_counts, "/delivered"));
    EXPECT_GT(run.lines.size(), 0u) << "no interval: the test shows nothing";
    EXPECT_EQ(number(log_counts, "/dropped"), 0);
    EXPECT_EQ(number(log_counts, "/records"), static_cast<double>(run.lines.size()));
    EXPECT_EQ(logs.keys.size(), run.lines.size());
    CollectorMetrics m = collector_metrics(out);
    ASSERT_NE(m.last, nullptr) << "no metric export";
    // Every reported interval in one of the two histograms: blocking or waiting for a CPU.
    double counted = 0;
    for (const char* metric : {"vtscope.block.duration", "vtscope.block.cpu_wait"})
        for (const Json* p : points_of(*m.last, metric, "histogram"))
            counted += std::stod(vtscope::json_string(vtscope::json_at((*p), "count")));
    EXPECT_EQ(counted, static_cast<double>(run.lines.size()));
    EXPECT_EQ(number(run.summary, "/otlp_signals/metrics/dropped"), 0);
    expect_token_unprinted(run);
}

void OtlpSecureExport::expect_one_clear_line(const std::vector<std::string>& options, const std::string& cause,
                                             const std::string& base) {
    std::vector<std::string> all = {"--otlp-timeout", "2"};
    all.insert(all.end(), options.begin(), options.end());
    DemoRun run = run_demo("trace", 3, all, [] {});
    ASSERT_TRUE(run.error.empty()) << run.error;
    std::printf("stderr:\n%s", run.vtscope_stderr.c_str());
    EXPECT_EQ(run.vtscope_exit, 1) << run.vtscope_stderr;
    std::vector<std::string> errors = error_lines(run.vtscope_stderr);
    ASSERT_EQ(errors.size(), 1u) << run.vtscope_stderr;
    EXPECT_EQ(errors[0].rfind("vtscope: error: otlp: ", 0), 0u) << errors[0];
    EXPECT_NE(errors[0].find(" not delivered to " + (base.empty() ? https() : base) + "/v1/logs"), std::string::npos)
        << errors[0];
    EXPECT_NE(errors[0].find(cause), std::string::npos) << errors[0];
    // Nothing lost locally: every event is a line, and every line was handed to the exporter.
    EXPECT_EQ(number(run.summary, "/lost"), 0);
    EXPECT_GT(run.lines.size(), 0u);
    EXPECT_EQ(number(run.summary, "/events"), static_cast<double>(run.lines.size()));
    EXPECT_EQ(number(run.summary, "/otlp/records"), static_cast<double>(run.lines.size()));
    EXPECT_EQ(number(run.summary, "/otlp/delivered"), 0);
    EXPECT_EQ(number(run.summary, "/otlp/dropped_failed"), static_cast<double>(run.lines.size()));
    expect_token_unprinted(run);
}

// A wrong token: the Collector answers 401, which no retry changes.
TEST_F(OtlpSecureExport, WrongTokenIsOneClearLine) {
    ASSERT_TRUE(start("config-auth.yaml"));
    expect_one_clear_line(
        {"--otlp", https(), "--otlp-certificate", ca(), "--otlp-header", "Authorization=Bearer not-" + kToken},
        "HTTP 401 Unauthorized");
    EXPECT_TRUE(collector_logs(collector.finish()).keys.empty());
}

// gRPC with TLS (the generated CA), the token as metadata and gzip message compression; the
// protocol from the logs' own variable (OTEL_EXPORTER_OTLP_LOGS_PROTOCOL) and an endpoint without
// a scheme, which gRPC makes TLS (exporter specification, "insecure"): the Collector's records are
// exactly vtscope's own lines.
TEST_F(OtlpSecureExport, GrpcLogsOverTlsTokenGzipEqualLocalLines) {
    ASSERT_TRUE(start("config-auth.yaml"));
    ASSERT_TRUE(grpc_listening());
    ScopedEnv protocol("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "grpc");
    E2eRun run = vtscope::testing::run_marker_harness(
        {}, {"--threads", "16", "--markers", "8", "--mode", "concurrent"},
        {"--otlp", "127.0.0.1:" + std::to_string(grpc_port), "--otlp-certificate", ca(), "--otlp-compression", "gzip",
         "--otlp-header", "Authorization=Bearer " + kToken, "--service", "otlp-secure-grpc"});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    CollectorLogs logs = collector_logs(collector.finish());
    std::printf("gRPC: vtscope lines %zu, Collector log records %zu, delivered %.0f, requests %.0f\n", run.lines.size(),
                logs.keys.size(), number(run.summary, "/otlp/delivered"), number(run.summary, "/otlp/requests"));
    EXPECT_GE(run.expected.size(), 128u);
    EXPECT_EQ(logs.keys, local_keys(run.lines));
    EXPECT_EQ(number(run.summary, "/otlp/dropped"), 0) << run.vtscope_stderr;
    EXPECT_EQ(text(run.summary, "/otlp/endpoint"), grpc_https() + "/v1/logs");
    expect_reconciled(run.summary, run.lines, logs);
    expect_token_unprinted(run);
}

// A wrong token over gRPC: UNAUTHENTICATED, which no retry changes; nothing lost locally.
TEST_F(OtlpSecureExport, GrpcWrongTokenIsOneClearLine) {
    ASSERT_TRUE(start("config-auth.yaml"));
    ASSERT_TRUE(grpc_listening());
    expect_one_clear_line({"--otlp", grpc_https(), "--otlp-protocol", "grpc", "--otlp-certificate", ca(),
                           "--otlp-header", "Authorization=Bearer not-" + kToken},
                          "gRPC UNAUTHENTICATED", grpc_https());
    EXPECT_TRUE(collector_logs(collector.finish()).keys.empty());
}

// No --otlp-certificate: the system's CAs do not know the test's, so TLS verification fails.
TEST_F(OtlpSecureExport, UnknownCaIsOneClearLine) {
    ASSERT_TRUE(start("config-auth.yaml"));
    expect_one_clear_line({"--otlp", https(), "--otlp-header", "Authorization=Bearer " + kToken},
                          "TLS: the receiver's certificate is not trusted");
    EXPECT_TRUE(collector_logs(collector.finish()).keys.empty());
}

// No Collector at all on the port: every attempt is refused until the final flush gives up.
TEST_F(OtlpSecureExport, CollectorDownIsOneClearLine) {
    expect_one_clear_line(
        {"--otlp", https(), "--otlp-certificate", ca(), "--otlp-header", "Authorization=Bearer " + kToken},
        "cannot connect");
}

// Mutual TLS (config-mtls.yaml): with the client certificate and key from the environment, the
// Collector's records are exactly vtscope's lines.
TEST_F(OtlpSecureExport, LogsOverMutualTlsEqualLocalLines) {
    ASSERT_TRUE(start("config-mtls.yaml"));
    ScopedEnv certificate("OTEL_EXPORTER_OTLP_LOGS_CLIENT_CERTIFICATE", dir.path("client.pem"));
    ScopedEnv key("OTEL_EXPORTER_OTLP_CLIENT_KEY", dir.path("client-key.pem"));
    E2eRun run = vtscope::testing::run_marker_harness(
        {}, {"--threads", "16", "--markers", "8", "--mode", "concurrent"},
        {"--otlp", https(), "--otlp-certificate", ca(), "--otlp-header", "Authorization=Bearer " + kToken});
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    CollectorLogs logs = collector_logs(collector.finish());
    std::printf("vtscope lines %zu, Collector log records %zu\n", run.lines.size(), logs.keys.size());
    EXPECT_EQ(logs.keys, local_keys(run.lines));
    EXPECT_EQ(number(run.summary, "/otlp/dropped"), 0) << run.vtscope_stderr;
    expect_token_unprinted(run);
}

// The same Collector without a client certificate: the handshake is refused, one clear line.
TEST_F(OtlpSecureExport, MutualTlsWithoutClientCertificateIsOneClearLine) {
    ASSERT_TRUE(start("config-mtls.yaml"));
    expect_one_clear_line(
        {"--otlp", https(), "--otlp-certificate", ca(), "--otlp-header", "Authorization=Bearer " + kToken},
        "alert certificate required");
    EXPECT_TRUE(collector_logs(collector.finish()).keys.empty());
}
