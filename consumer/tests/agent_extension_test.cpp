// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of vtscope-otel-agent-extension.jar under the real OpenTelemetry Java agent
// (from Maven Central, copied to build/java/agent/ by `make`): an application that never touches
// the OpenTelemetry API, the JDK's HttpServer with its handlers on virtual threads, instrumented
// only by the agent's own HTTP server instrumentation; the agent exports its spans as OTLP JSON
// (logging-otlp) and vtscope trace must attribute every known write of every request to the trace
// and server span the agent exported for that request. They need root (BPF) and the agent jars;
// without either every test says SKIPPED loudly.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include "attribution_checker.h"
#include "jvm/jvm_attach.h"
#include "cli/privilege.h"
#include "channels/process_context.h"
#include "channels/record_region.h"
#include "process/proc_maps.h"
#include "process_runner.h"
#include "output/report.h"
#include "test_support.h"

using namespace std::chrono_literals;
using vtscope::testing::at;
using vtscope::testing::check_markers;
using vtscope::testing::CheckResult;
using vtscope::testing::Child;
using vtscope::testing::E2e;
using vtscope::testing::E2eRun;
using vtscope::testing::read_file;
using vtscope::testing::read_lines;
using vtscope::testing::TempDir;
using vtscope::testing::text;
using vtscope::testing::wait_for_file;
using vtscope::testing::Workload;

namespace {

using vtscope::testing::java_bin;
using vtscope::testing::kJavaDir;
using vtscope::testing::kNoPrivilege;
using vtscope::testing::kVtscope;
const std::string kExtension = kJavaDir + "/vtscope-otel-agent-extension.jar";
const std::string kWorkloads = kJavaDir + "/vtscope-workloads.jar";

// The agents `make` fetched: the newest on Maven Central this was tested with, and the oldest
// supported one (older agents cannot read the class files of release 25).
std::string agent_jar(const std::string& which) {
    return kJavaDir + "/agent/opentelemetry-javaagent" + (which == "oldest" ? "-oldest" : "") + ".jar";
}

#define REQUIRE_AGENT(jar)                                                                            \
    do {                                                                                              \
        if (!vtscope::have_bpf_privilege()) SKIP_LOUDLY(kNoPrivilege);                                \
        if (!std::filesystem::exists(jar))                                                            \
            SKIP_LOUDLY("no OpenTelemetry Java agent at " + std::string(jar) + " (make fetches it)"); \
        if (!std::filesystem::exists(kExtension)) SKIP_LOUDLY("no " + kExtension + " (run make)");    \
    } while (0)

// The JVM options of an application under the agent with vtscope's extension: spans printed as
// OTLP JSON (one line per export, through the agent's logger on stderr), nothing else exported,
// and the agent's HTTP client instrumentation off so each request's server span is a root.
std::vector<std::string> agent_options(const std::string& agent, bool with_extension = true) {
    std::vector<std::string> o = {"-javaagent:" + agent,
                                  "-Dotel.traces.exporter=logging-otlp",
                                  "-Dotel.metrics.exporter=none",
                                  "-Dotel.logs.exporter=none",
                                  "-Dotel.bsp.schedule.delay=200",
                                  "-Dotel.instrumentation.java-http-client.enabled=false",
                                  "-Djdk.virtualThreadScheduler.parallelism=2"};
    if (with_extension) o.push_back("-Dotel.javaagent.extensions=" + kExtension);
    return o;
}

// A run of AgentHttpService: the fixture's, and the vtscope record regions the JVM mapped while it
// served.
struct ServiceRun : E2eRun {
    int regions = -1;
};

// As vtscope counts them: a memfd mapping each, the JDK 21 writer's file once however often mapped.
int record_regions(pid_t pid) {
    auto maps = vtscope::read_maps(pid);
    return maps ? static_cast<int>(vtscope::find_region_mappings(*maps).size()) : -1;
}

// Starts AgentHttpService with the JVM options, class path and arguments, attaches vtscope trace
// (write syscalls, plus vtscope_args) once the server is up, lets the requests run and collects
// everything. before_trace, if given, runs once the server is up, before anything else.
ServiceRun run_service(const std::vector<std::string>& jvm_options, const std::string& class_path,
                       const std::vector<std::string>& args, bool trace = true,
                       const std::vector<std::string>& vtscope_args = {},
                       const std::function<void(pid_t)>& before_trace = {}) {
    E2e e2e;
    ServiceRun run;
    std::vector<std::string> service_args = {"--sink", e2e.path("sink")};
    service_args.insert(service_args.end(), args.begin(), args.end());
    Workload service("io.vtscope.workloads.AgentHttpService", jvm_options, service_args);
    service.class_path = class_path;
    service.ready_timeout = std::chrono::seconds(180);
    ::testing::AssertionResult ready = e2e.start(service);
    if (!ready) {
        ADD_FAILURE() << ready.message();
        return run;
    }
    if (before_trace) before_trace(e2e.pid());
    int regions = record_regions(e2e.pid());
    std::vector<std::string> options = {"--syscalls", "write"};
    options.insert(options.end(), vtscope_args.begin(), vtscope_args.end());
    if (trace && !(ready = e2e.attach("trace", options))) {
        ADD_FAILURE() << ready.message();
        return run;
    }
    static_cast<E2eRun&>(run) = e2e.run();
    run.regions = regions;
    if (trace && run.summary.is_null()) ADD_FAILURE() << "no --summary-json: " << run.vtscope_stderr;
    return run;
}

// A span as the agent's logging-otlp exporter prints it (OTLP JSON, ids in hex).
struct ExportedSpan {
    std::string trace_id, span_id, parent_span_id, name, url_path;
    int kind = 0;
};

std::string string_after(const std::string& text, const std::string& needle) {
    auto at = text.find(needle);
    if (at == std::string::npos) return "";
    at += needle.size();
    return text.substr(at, text.find('"', at) - at);
}

// Every span object in the exporter's output: each starts with {"traceId":"...; a span's text runs
// to the next one (the fields looked for are unique within a span: no links, no events here).
std::vector<ExportedSpan> exported_spans(const std::string& output) {
    std::vector<ExportedSpan> spans;
    const std::string start = "{\"traceId\":\"";
    for (size_t at = output.find(start); at != std::string::npos;) {
        size_t next = output.find(start, at + 1);
        std::string text = output.substr(at, next == std::string::npos ? std::string::npos : next - at);
        ExportedSpan s;
        s.trace_id = string_after(text, "\"traceId\":\"");
        s.span_id = string_after(text, "\"spanId\":\"");
        s.parent_span_id = string_after(text, "\"parentSpanId\":\"");
        s.name = string_after(text, "\"name\":\"");
        s.url_path = string_after(text, "\"key\":\"url.path\",\"value\":{\"stringValue\":\"");
        auto kind = text.find("\"kind\":");
        if (kind != std::string::npos) s.kind = std::atoi(text.c_str() + kind + 7);
        spans.push_back(s);
        at = next;
    }
    return spans;
}

struct Attribution {
    int total = 0, attributed = 0, misattributed = 0, unattributed = 0, missing = 0, in_child = 0;
    int requests = 0, server_spans = 0, child_spans = 0;
    std::vector<std::string> examples;
    std::string summary() const {
        return std::to_string(attributed) + "/" + std::to_string(total) + " writes attributed (" +
               std::to_string(in_child) + " in child spans), " + std::to_string(misattributed) + " misattributed, " +
               std::to_string(unattributed) + " unattributed, " + std::to_string(missing) + " missing; " +
               std::to_string(requests) + " requests, " + std::to_string(server_spans) + " server spans, " +
               std::to_string(child_spans) + " child spans exported";
    }
};

// Checks each expected write against the trace: it must be there once, with the trace id and
// span id that the agent exported for its request (the child span's inside the child span).
Attribution check_writes(const ServiceRun& run) {
    Attribution a;
    long sink_fd = -1;
    struct Expected {
        int request;
        bool child;
        int seen = 0;
    };
    std::map<uint64_t, Expected> by_size;
    for (const std::string& line : run.expected) {
        if (auto fd = vtscope::json_int_field(line, "sink_fd")) sink_fd = *fd;
        auto size = vtscope::json_int_field(line, "size");
        auto request = vtscope::json_int_field(line, "request");
        if (!size || !request) continue;
        by_size[*size] = {static_cast<int>(*request), line.find("\"child\":true") != std::string::npos};
        a.requests = std::max(a.requests, static_cast<int>(*request) + 1);
    }
    std::map<int, ExportedSpan> server, child;
    for (const ExportedSpan& s : exported_spans(run.java_stderr + run.java_stdout)) {
        if (s.kind == 2 && s.url_path.rfind("/req/", 0) == 0) {
            int n = std::stoi(s.url_path.substr(5));
            EXPECT_EQ(server.count(n), 0u) << "two server spans for " << s.url_path;
            server[n] = s;
        } else if (s.name.rfind("vtscope-child-", 0) == 0) {
            child[std::stoi(s.name.substr(14))] = s;
        }
    }
    a.server_spans = static_cast<int>(server.size());
    a.child_spans = static_cast<int>(child.size());
    for (const auto& [n, c] : child) {
        EXPECT_EQ(c.trace_id, server[n].trace_id) << "child span of request " << n;
        EXPECT_EQ(c.parent_span_id, server[n].span_id) << "child span of request " << n;
    }
    for (const std::string& line : run.lines) {
        auto e = vtscope::parse_event_line(line);
        if (!e || e->syscall != "write" || !e->fd || *e->fd != sink_fd || !e->count) continue;
        auto it = by_size.find(*e->count);
        if (it == by_size.end()) continue;  // e.g. the expected file, written later on a reused fd
        Expected& x = it->second;
        x.seen++;
        a.total++;
        const ExportedSpan& want = x.child ? child[x.request] : server[x.request];
        if (e->status != "ok") {
            a.unattributed++;
        } else if (!want.span_id.empty() && e->trace_id == want.trace_id && e->span_id == want.span_id) {
            a.attributed++;
            if (x.child) a.in_child++;
        } else {
            a.misattributed++;
            if (a.examples.size() < 5) a.examples.push_back(line);
        }
    }
    for (const auto& [size, x] : by_size) {
        if (x.seen == 0) a.missing++;
        EXPECT_LE(x.seen, 1) << "write of " << size << " bytes seen " << x.seen << " times";
    }
    return a;
}

void expect_all_attributed(const ServiceRun& run, const std::string& label, int requests, bool child) {
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/lost"), 0) << run.vtscope_stderr;
    EXPECT_EQ(run.regions, 1) << "one vtscope record region per JVM";
    EXPECT_EQ(run.java_stderr.find("WARN io.vtscope"), std::string::npos) << run.java_stderr;
    Attribution a = check_writes(run);
    std::printf("[ agent    ] %s: %s\n", label.c_str(), a.summary().c_str());
    for (const std::string& e : a.examples) std::printf("[ agent    ]   misattributed: %s\n", e.c_str());
    EXPECT_EQ(a.requests, requests);
    EXPECT_EQ(a.server_spans, requests) << "the agent must export one server span per request";
    EXPECT_EQ(a.child_spans, child ? requests : 0);
    EXPECT_EQ(a.total, requests * 4);
    EXPECT_EQ(a.attributed, a.total) << a.summary();
    EXPECT_EQ(a.misattributed, 0) << a.summary();
    EXPECT_EQ(a.missing, 0) << a.summary();
    if (child) {
        EXPECT_EQ(a.in_child, requests * 2) << a.summary();
    }
}

std::string api_class_path() {
    return kWorkloads + ":" + kJavaDir + "/lib/opentelemetry-api-1.68.0.jar:" + kJavaDir +
           "/lib/opentelemetry-context-1.68.0.jar:" + kJavaDir + "/lib/opentelemetry-common-1.68.0.jar";
}

// A run of 10 requests (40 writes) whose spans reach no vtscope writer: every write is seen, none
// is attributed, and none is given to another span.
void expect_no_write_attributed(const ServiceRun& run, const std::string& label, int regions) {
    Attribution a = check_writes(run);
    std::printf("[ agent    ] %s: %s\n", label.c_str(), a.summary().c_str());
    EXPECT_EQ(run.regions, regions);
    EXPECT_EQ(a.total, 40);
    EXPECT_EQ(a.attributed, 0);
    EXPECT_EQ(a.misattributed, 0);
}

// The traced events that claim "no span was current" (no_context), and those that say the context
// is unknown for `reason` (context_unknown).
std::pair<int, int> count_no_context_and_unknown(const ServiceRun& run, const std::string& reason) {
    int no_context = 0, unknown = 0;
    for (const auto& line : run.lines) {
        auto e = vtscope::parse_event_line(line);
        if (!e) continue;
        if (e->status == "no_context") no_context++;
        if (e->status == "context_unknown" && e->reason == reason) unknown++;
    }
    return {no_context, unknown};
}

}  // namespace

class AgentExtension : public ::testing::TestWithParam<std::string> {};

// The application never touches the OpenTelemetry API and has no vtscope jar on its class path:
// every write of every request is attributed to the agent's server span for that request.
TEST_P(AgentExtension, ServerSpansOfTheAgentsInstrumentationOnVirtualThreads) {
    REQUIRE_AGENT(agent_jar(GetParam()));
    ServiceRun run = run_service(agent_options(agent_jar(GetParam())), kWorkloads, {"--requests", "60"});
    expect_all_attributed(run, GetParam() + " agent, server spans only", 60, false);
}

// The application also makes a manual child span through the API (bridged by the agent): the
// writes inside it carry the child's span id, the others the server span's.
TEST_P(AgentExtension, ManualChildSpanThroughTheAgentsBridge) {
    REQUIRE_AGENT(agent_jar(GetParam()));
    ServiceRun run =
        run_service(agent_options(agent_jar(GetParam())), api_class_path(), {"--requests", "60", "--child-span"});
    expect_all_attributed(run, GetParam() + " agent, manual child spans", 60, true);
}

INSTANTIATE_TEST_SUITE_P(Agents, AgentExtension, ::testing::Values("newest", "oldest"));

// vtscope-otel.jar on the application's class path too, with VtScopeOtel.install(): one region
// in the process, and the application side stands down (its storage stays the agent's bridge,
// unwrapped), so each change is published once, by the extension.
TEST(AgentExtensionWithVtScopeOtel, OneRegionAndOnePublisher) {
    REQUIRE_AGENT(agent_jar("newest"));
    std::string cp = api_class_path() + ":" + kJavaDir + "/vtscope-java.jar:" + kJavaDir + "/vtscope-otel.jar";
    ServiceRun run =
        run_service(agent_options(agent_jar("newest")), cp, {"--requests", "40", "--child-span", "--vtscope-otel"});
    expect_all_attributed(run, "newest agent + vtscope-otel.jar", 40, true);
    ASSERT_FALSE(run.expected.empty());
    auto storage = vtscope::json_string_field(run.expected.front(), "app_storage");
    ASSERT_TRUE(storage.has_value()) << run.expected.front();
    std::printf("[ agent    ] application's context storage: %s\n", std::string(*storage).c_str());
    EXPECT_EQ(storage->find("VtScope"), std::string::npos) << "the application side must not wrap: " << *storage;
    EXPECT_NE(storage->find("AgentContextStorage"), std::string::npos) << *storage;
    EXPECT_NE(run.java_stderr.find("vtscope-otel.jar stands down"), std::string::npos) << run.java_stderr;
}

// Failing visibly: when the extension cannot publish (here the record region cannot be created:
// native access denied), the agent's logger prints one WARN line saying so; the service runs on.
TEST(AgentExtensionFailure, OneWarnLineWhenTheWrapperIsNotInstalled) {
    REQUIRE_AGENT(agent_jar("newest"));
    std::vector<std::string> jvm = {"--illegal-native-access=deny"};
    for (const std::string& o : agent_options(agent_jar("newest"))) jvm.push_back(o);
    // run_service adds --enable-native-access=ALL-UNNAMED first; deny wins only without it, so
    // this run starts the JVM itself.
    E2e service;
    Workload denied("io.vtscope.workloads.AgentHttpService", jvm, {"--sink", service.path("sink"), "--requests", "5"});
    denied.launcher = {java_bin()};
    denied.class_path = kWorkloads;
    denied.go_file = false;
    denied.ready_timeout = std::chrono::seconds(180);
    ASSERT_TRUE(service.start(denied));
    E2eRun run = service.run(180s);
    ASSERT_EQ(run.java_exit, 0) << run.java_stderr;
    const std::string& err = run.java_stderr;
    int warnings = 0;
    std::string warning;
    for (size_t at = 0; (at = err.find("WARN io.vtscope", at)) != std::string::npos; at++) {
        warnings++;
        warning = err.substr(at, err.find('\n', at) - at);
    }
    std::printf("[ agent    ] %s\n", warning.c_str());
    EXPECT_EQ(warnings, 1) << err;
    EXPECT_NE(warning.find("the context storage wrapper was not installed"), std::string::npos) << err;
    EXPECT_NE(warning.find("Illegal native access"), std::string::npos) << err;
    EXPECT_EQ(run.expected.size(), 1u + 5 * 4) << "the service still served";
}

// Control: the agent without the extension publishes nothing (the reason the extension exists).
TEST(AgentExtensionFailure, WithoutTheExtensionNothingIsAttributed) {
    REQUIRE_AGENT(agent_jar("newest"));
    ServiceRun run = run_service(agent_options(agent_jar("newest"), false), kWorkloads, {"--requests", "10"});
    expect_no_write_attributed(run, "newest agent, no extension", 0);
    // vtscope says why, at attach and in the summary, and claims no "no span was current".
    const std::string why =
        "runs the OpenTelemetry Java agent (" + agent_jar("newest") + ") without vtscope's agent extension";
    EXPECT_NE(run.vtscope_stderr.find("vtscope: note: the target " + why), std::string::npos) << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/region_found"), false) << run.summary;
    std::string missing = text(run.summary, "/missing_region");
    EXPECT_NE(missing.find("the target " + why), std::string::npos) << run.summary;
    EXPECT_EQ(missing.find("put vtscope-java.jar"), std::string::npos) << run.summary;
    auto [no_context, unknown] = count_no_context_and_unknown(run, "no_record_region");
    EXPECT_EQ(no_context, 0);
    EXPECT_GE(unknown, 40) << "the request writes, at least";
}

// The same with libvtscope.so loaded (otep): it creates the region, which no writer ever fills, as
// the agent's spans never reach one (its mount hook claims no record; through the JVMTI events it
// would claim one per virtual thread at its start, left zero). A zero or missing record then
// proves nothing: every write is context_unknown (no_context_writer), never no_context, and
// vtscope says why.
TEST(AgentExtensionFailure, WithoutTheExtensionLibvtscopesRecordsClaimNoContext) {
    REQUIRE_AGENT(agent_jar("newest"));
    std::vector<std::string> jvm = {std::string("-agentpath:") + VTSCOPE_NATIVE_LIB + "=otep"};
    for (const std::string& o : agent_options(agent_jar("newest"), false)) jvm.push_back(o);
    ServiceRun run = run_service(jvm, kWorkloads, {"--requests", "10"});
    expect_no_write_attributed(run, "newest agent, no extension, libvtscope.so=otep", 1);
    auto [no_context, no_writer] = count_no_context_and_unknown(run, "no_context_writer");
    std::printf("[ agent    ] no_context %d, context_unknown/no_context_writer %d\n", no_context, no_writer);
    EXPECT_EQ(no_context, 0);
    EXPECT_GE(no_writer, 40) << "the request writes, at least";
    EXPECT_EQ(text(run.summary, "/writer/context_writers"), "none") << run.summary;
    EXPECT_NE(text(run.summary, "/writer/missing_writer").find("without vtscope's agent extension"), std::string::npos)
        << run.summary;
    EXPECT_NE(run.vtscope_stderr.find("vtscope: note: the target runs the OpenTelemetry Java agent ("),
              std::string::npos)
        << run.vtscope_stderr;
}

// The paper's marker harness (16 virtual threads x 8 markers) under the agent with the extension,
// spans from GlobalOpenTelemetry (the agent's SDK): every marker right on both planes.
TEST(AgentExtensionHarness, EveryMarkerAttributedOnBothPlanes) {
    REQUIRE_AGENT(agent_jar("newest"));
    std::vector<std::string> jvm = {"-javaagent:" + agent_jar("newest"), "-Dotel.javaagent.extensions=" + kExtension,
                                    "-Dotel.traces.exporter=none",       "-Dotel.metrics.exporter=none",
                                    "-Dotel.logs.exporter=none",         "-Djdk.virtualThreadScheduler.parallelism=2"};
    for (const char* scope : {"clean", "leaky-final"}) {
        E2eRun run = vtscope::testing::run_marker_harness(
            jvm, {"--scope", scope, "--mode", "concurrent", "--yields", "--tracer", "global"});
        EXPECT_TRUE(run.error.empty()) << run.error << run.java_stderr;
        CheckResult r = check_markers(run.expected, run.lines);
        std::printf("[ agent    ] harness %s: %s; identity %d ok, content %d ok\n", scope, r.summary().c_str(),
                    r.identity.correct, r.content.correct);
        EXPECT_EQ(r.expected, 128);
        EXPECT_EQ(r.correct, 128) << r.summary();
        EXPECT_EQ(r.identity.correct, 128);
        EXPECT_EQ(r.content.correct, 128);
        EXPECT_EQ(r.misattributed, 0);
    }
}

// The application's resource in the OTEP 4719 process context under the agent (issue 15): the
// extension puts the agent's final resource there, whether libvtscope.so came with the JVM
// (-agentpath) or is loaded into it later, after the agent built its SDK (dynamic attach, where
// the resource waits in the vtscope.process.resource system property). vtscope --otlp then
// exports under it with no --service. The OTLP endpoint is a closed port: what the export
// carries is the session's one resource, which the summary reports with its source.
namespace {

// service.name of the target's process context, or why there is none.
std::string context_service_name(pid_t pid) {
    auto context = vtscope::target_process_context(pid);
    if (!context) return "unreadable: " + context.error().message;
    if (!*context) return "no process context";
    for (const vtscope::OtlpAttribute& a : **context)
        if (a.key == "service.name") return a.text;
    return "no service.name in the process context";
}

std::vector<std::string> otlp_to_nowhere() {
    return {"--otlp", "http://127.0.0.1:" + std::to_string(vtscope::testing::free_loopback_port()), "--otlp-timeout",
            "1"};
}

// vtscope's own environment must not name a service here.
struct NoServiceInEnvironment {
    NoServiceInEnvironment() {
        unsetenv("OTEL_SERVICE_NAME");
        unsetenv("OTEL_RESOURCE_ATTRIBUTES");
    }
};

void expect_exported_under(const ServiceRun& run, const std::string& service) {
    std::string name = text(run.summary, "/otlp_resource/service.name");
    std::string source = text(run.summary, "/otlp_resource/source");
    std::printf("[ agent    ] --otlp resource: service.name %s (from %s)\n", name.c_str(), source.c_str());
    EXPECT_EQ(name, service) << run.vtscope_stderr;
    EXPECT_EQ(source, "process_context");
    // No warning that it fell back to a default (that warning's wording: NoResourceAnywhereIsOneWarningLine).
    EXPECT_EQ(run.vtscope_stderr.find("otlp: exporting under"), std::string::npos) << run.vtscope_stderr;
}

}  // namespace

// Under the newest and the oldest supported agent.
class AgentResourceLateLoad : public ::testing::TestWithParam<std::string> {};

TEST_P(AgentResourceLateLoad, LibraryLoadedIntoTheRunningJvmPublishesTheAgentsResource) {
    REQUIRE_AGENT(agent_jar(GetParam()));
    NoServiceInEnvironment env;
    std::vector<std::string> jvm = agent_options(agent_jar(GetParam()));
    jvm.push_back("-Dotel.service.name=agent-late-e2e");
    std::string before_load, after_load, load_output;
    ServiceRun run = run_service(jvm, kWorkloads, {"--requests", "10"}, true, otlp_to_nowhere(), [&](pid_t pid) {
        before_load = context_service_name(pid);
        auto loaded = vtscope::jvm_diagnostic_command(
            pid, std::string("JVMTI.agent_load ") + VTSCOPE_NATIVE_LIB + " otep", std::chrono::seconds(30));
        load_output = loaded ? *loaded : "error: " + loaded.error().message;
        while (!load_output.empty() && load_output.back() == '\n') load_output.pop_back();
        after_load = context_service_name(pid);
    });
    std::printf("[ agent    ] %s agent: before the load: %s; JVMTI.agent_load: %s; after: %s\n", GetParam().c_str(),
                before_load.c_str(), load_output.c_str(), after_load.c_str());
    EXPECT_EQ(before_load, "no process context");
    EXPECT_EQ(after_load, "agent-late-e2e") << load_output << run.java_stderr;
    EXPECT_EQ(run.regions, 1) << "the library adopts the extension's record region";
    expect_exported_under(run, "agent-late-e2e");
    // The library loaded late changes nothing in what is attributed.
    Attribution a = check_writes(run);
    std::printf("[ agent    ] after the late load: %s\n", a.summary().c_str());
    EXPECT_EQ(a.total, 40);
    EXPECT_EQ(a.attributed, a.total) << a.summary();
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
    EXPECT_EQ(run.java_stderr.find("WARN io.vtscope"), std::string::npos) << run.java_stderr;
}

INSTANTIATE_TEST_SUITE_P(Agents, AgentResourceLateLoad, ::testing::Values("newest", "oldest"));

TEST(AgentResource, LibraryAtStartUpPublishesTheAgentsResource) {
    REQUIRE_AGENT(agent_jar("newest"));
    NoServiceInEnvironment env;
    std::vector<std::string> jvm = {std::string("-agentpath:") + VTSCOPE_NATIVE_LIB + "=otep"};
    for (const std::string& o : agent_options(agent_jar("newest"))) jvm.push_back(o);
    jvm.push_back("-Dotel.service.name=agent-start-e2e");
    std::string at_ready;
    ServiceRun run = run_service(jvm, kWorkloads, {"--requests", "5"}, true, otlp_to_nowhere(),
                                 [&](pid_t pid) { at_ready = context_service_name(pid); });
    std::printf("[ agent    ] -agentpath: process context service.name: %s\n", at_ready.c_str());
    EXPECT_EQ(at_ready, "agent-start-e2e") << run.java_stderr;
    EXPECT_EQ(run.regions, 1);
    // The extension's storage declared itself in the region libvtscope.so created.
    EXPECT_EQ(text(run.summary, "/writer/context_writers"), "otel-storage") << run.vtscope_stderr;
    expect_exported_under(run, "agent-start-e2e");
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
}

// No resource anywhere (the extension without libvtscope.so: no process context; no --service,
// no OTEL_SERVICE_NAME): vtscope says so in one line, and how to give one.
TEST(AgentResource, NoResourceAnywhereIsOneWarningLine) {
    REQUIRE_AGENT(agent_jar("newest"));
    NoServiceInEnvironment env;
    std::vector<std::string> jvm = agent_options(agent_jar("newest"));
    jvm.push_back("-Dotel.service.name=agent-unpublished");
    ServiceRun run = run_service(jvm, kWorkloads, {"--requests", "2"}, true, otlp_to_nowhere());
    int lines = 0;
    std::string line;
    for (size_t at = 0; (at = run.vtscope_stderr.find("otlp: exporting under", at)) != std::string::npos; at++) {
        lines++;
        size_t start = run.vtscope_stderr.rfind('\n', at);
        start = start == std::string::npos ? 0 : start + 1;
        line = run.vtscope_stderr.substr(start, run.vtscope_stderr.find('\n', at) - start);
    }
    std::printf("[ agent    ] %s\n", line.c_str());
    EXPECT_EQ(lines, 1) << run.vtscope_stderr;
    EXPECT_EQ(line.rfind("vtscope: warning: otlp: exporting under service.name=unknown_service: ", 0), 0u) << line;
    EXPECT_NE(line.find("the target publishes no OTEP 4719 process context"), std::string::npos) << line;
    EXPECT_NE(line.find("--service NAME or OTEL_SERVICE_NAME"), std::string::npos) << line;
    EXPECT_EQ(text(run.summary, "/otlp_resource/service.name"), "unknown_service");
    EXPECT_EQ(text(run.summary, "/otlp_resource/source"), "default");
}
