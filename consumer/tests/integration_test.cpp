// SPDX-License-Identifier: Apache-2.0
// End-to-end tests: a real JDK 25 running the bundled harness, traced by the real vtscope binary
// with its BPF programs. They need root (BPF); without it every test says SKIPPED loudly.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <string>
#include <vector>

#include "attribution_checker.h"
#include "cli/privilege.h"
#include "core/probe_modules.h"
#include "symbols/elf_symbols.h"
#include "process/proc_maps.h"
#include "process/process_memory.h"
#include "output/report.h"
#include "process_runner.h"
#include "test_support.h"

using namespace std::chrono_literals;
using vtscope::testing::at;
using vtscope::testing::check_markers;
using vtscope::testing::CheckResult;
using vtscope::testing::Child;
using vtscope::testing::E2e;
using vtscope::testing::E2eRun;
using vtscope::testing::number;
using vtscope::testing::read_file;
using vtscope::testing::read_lines;
using vtscope::testing::run_command;
using vtscope::testing::TempDir;
using vtscope::testing::text;
using vtscope::testing::wait_for_file;
using vtscope::testing::Workload;

namespace {

using vtscope::testing::class_path;
using vtscope::testing::java_bin;
using vtscope::testing::jdk_tool;
using vtscope::testing::kJavaDir;
using vtscope::testing::kVtscope;

E2eRun run_harness(const std::vector<std::string>& jvm_options, const std::vector<std::string>& harness_options,
                   const std::vector<std::string>& trace_options = {},
                   const std::function<std::string(pid_t)>& before_trace = {}) {
    E2eRun run = vtscope::testing::run_marker_harness(jvm_options, harness_options, trace_options, before_trace);
    if (!run.error.empty()) ADD_FAILURE() << run.error;
    return run;
}

void expect_clean_run(const E2eRun& run) {
    EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_EQ(text(run.summary, "/stop_reason"), "target exited") << run.vtscope_stderr;
    EXPECT_TRUE(at(run.summary, "/lost").is_number()) << run.vtscope_stderr;
    EXPECT_EQ(number(run.summary, "/lost"), 0) << run.vtscope_stderr;
}

// MarkerHarness ready and waiting for a go that never comes: a JVM to attach to.
Workload idle_harness(const std::vector<std::string>& jvm_options = {}, const std::vector<std::string>& args = {}) {
    return {"io.vtscope.workloads.MarkerHarness", jvm_options, args};
}

}  // namespace

// The paper's harness (Table 6): 16 virtual threads x 8 markers, each under its own span, parks
// between markers, the first marker before the first park. Every marker must be attributed to
// the right virtual thread and the right trace and span, in every run.
class PaperHarness : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(PaperHarness, EveryMarkerAttributedOnBothPlanes) {
    REQUIRE_BPF();
    for (int round = 0; round < 2; round++) {
        E2eRun run = run_harness({"-Djdk.virtualThreadScheduler.parallelism=2"}, GetParam());
        expect_clean_run(run);
        CheckResult r = check_markers(run.expected, run.lines);
        std::printf("[ harness  ] %s round %d: %s\n", ::testing::PrintToString(GetParam()).c_str(), round,
                    r.summary().c_str());
        EXPECT_GE(r.expected, 128);
        EXPECT_EQ(r.correct, r.expected) << r.summary();
        EXPECT_EQ(r.misattributed, 0);
        EXPECT_EQ(r.extra, 0);
    }
}

INSTANTIATE_TEST_SUITE_P(Modes, PaperHarness,
                         ::testing::Values(std::vector<std::string>{"--scope", "clean"},
                                           std::vector<std::string>{"--scope", "leaky-final"},
                                           std::vector<std::string>{"--mode", "concurrent", "--scope", "leaky-final",
                                                                    "--platform-threads", "2"},
                                           std::vector<std::string>{"--mode", "concurrent", "--nested", "--yields",
                                                                    "--platform-threads", "2"}));

// Platform threads: their markers carry vthread null and their own context.
TEST(PlatformThreads, MarkersCarryNullVthreadAndOwnContext) {
    REQUIRE_BPF();
    E2eRun run = run_harness({}, {"--threads", "2", "--platform-threads", "6", "--mode", "concurrent"});
    expect_clean_run(run);
    CheckResult r = check_markers(run.expected, run.lines);
    EXPECT_EQ(r.correct, r.expected) << r.summary();
    int platform_markers = 0;
    for (const auto& line : run.expected)
        if (line.find("\"platform\":true") != std::string::npos) platform_markers++;
    EXPECT_EQ(platform_markers, 6 * 8);
}

// Carriers created after vtscope attached (no warm-up: the scheduler starts its carriers only
// when the markers run) are picked up through the JavaThread::run uprobe.
TEST(NewThreads, CarriersStartedAfterAttachAreAttributed) {
    REQUIRE_BPF();
    E2eRun run = run_harness({"-Djdk.virtualThreadScheduler.parallelism=2"},
                             {"--no-warm-up", "--mode", "concurrent", "--yields"});
    expect_clean_run(run);
    CheckResult r = check_markers(run.expected, run.lines);
    EXPECT_EQ(r.correct, 128) << r.summary();
    ASSERT_TRUE(at(run.summary, "/threads/started").is_number()) << run.vtscope_stderr;
    long started = static_cast<long>(number(run.summary, "/threads/started"));
    std::printf("[ threads  ] %ld Java threads started during the trace; %s\n", started, r.summary().c_str());
    EXPECT_GE(started, 2) << run.vtscope_stderr;
}

// Stress: 2,000 virtual threads x 10 markers on 2 carriers, nested scopes, parks, yields and
// allocation in a small heap (many GCs), under each collector. No misattribution on either
// plane; unattributed markers are printed with their cause.
class Stress : public ::testing::TestWithParam<std::string> {};

TEST_P(Stress, NoMisattributionUnderGcPressure) {
    REQUIRE_BPF();
    E2eRun run = run_harness({GetParam(), "-Xmx96m", "-Xlog:gc:stderr", "-Djdk.virtualThreadScheduler.parallelism=2",
                              "-Djdk.virtualThreadScheduler.maxPoolSize=2"},
                             {"--mode", "concurrent", "--threads", "2000", "--markers", "10", "--nested", "--yields",
                              "--gc-pressure", "--platform-threads", "4", "--scope", "leaky-final"});
    expect_clean_run(run);
    CheckResult r = check_markers(run.expected, run.lines);
    int gcs = 0;
    for (size_t at = 0; (at = run.java_stderr.find("[gc", at)) != std::string::npos; at++) gcs++;
    std::printf("[ stress   ] %s: %d GC log lines; %s\n", GetParam().c_str(), gcs, r.summary().c_str());
    EXPECT_EQ(r.expected, 2004 * 10);
    EXPECT_EQ(r.misattributed, 0) << r.summary();
    EXPECT_EQ(r.missing, 0) << r.summary();
    EXPECT_EQ(r.extra, 0) << r.summary();
    EXPECT_GT(gcs, 10) << "the run should trigger many collections";
}

// The region window: the tracer attaches before the application's first context use, so the
// writer creates its record region while 300 virtual threads publish and write markers at once.
// The BPF side follows the region's memfd_create and mmap, so no marker may miss its context.
class RegionWindow : public ::testing::TestWithParam<std::string> {};

TEST_P(RegionWindow, RegionCreatedAfterAttachIsKnownBeforeAnyMarker) {
    REQUIRE_BPF();
    E2eRun run = run_harness({GetParam(), "-Djdk.virtualThreadScheduler.parallelism=2"},
                             {"--late-region", "--mode", "concurrent", "--threads", "300", "--markers", "10"});
    expect_clean_run(run);
    CheckResult r = check_markers(run.expected, run.lines);
    std::printf("[ region   ] %s: %s\n", GetParam().c_str(), r.summary().c_str());
    EXPECT_EQ(r.expected, 3000);
    EXPECT_EQ(r.correct, r.expected) << r.summary();
    EXPECT_EQ(at(run.summary, "/region_found"), true) << run.vtscope_stderr;
}

// The same window in a target that creates its region, writes its markers and exits within one of
// the session's 250 ms rounds: the region is known only to the BPF side, which attributed the
// markers through it, and the summary must say it was found (it did not, before the session's
// final look at what the BPF side found).
TEST(RegionWindowShortRun, RegionFoundInTheSummaryOfARunShorterThanOneRound) {
    REQUIRE_BPF();
    E2eRun run = run_harness({"-Djdk.virtualThreadScheduler.parallelism=2"},
                             {"--late-region", "--mode", "concurrent", "--threads", "2", "--markers", "2"});
    expect_clean_run(run);
    CheckResult r = check_markers(run.expected, run.lines);
    std::printf("[ region   ] short run: %s\n", r.summary().c_str());
    EXPECT_EQ(r.expected, 4);
    EXPECT_EQ(r.correct, r.expected) << r.summary();
    EXPECT_EQ(at(run.summary, "/region_found"), true) << run.vtscope_stderr;
}

INSTANTIATE_TEST_SUITE_P(Collectors, RegionWindow,
                         ::testing::Values("-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseZGC"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                             return param.param.substr(param.param.find("Use") + 3);
                         });

// Slot hand-over: a region of 256 slots for 2,000 threads in 8 waves of 250, so nearly every
// claim takes over the slot of a terminated thread while other threads write and syscalls are
// read. Any mistake in the hand-over would show as a foreign context.
TEST(Stress, SlotTakeOverUnderChurnIsSound) {
    REQUIRE_BPF();
    E2eRun run =
        run_harness({"-XX:+UseG1GC", "-Xmx96m", "-Dvtscope.records.capacity=256",
                     "-Djdk.virtualThreadScheduler.parallelism=2", "-Djdk.virtualThreadScheduler.maxPoolSize=2"},
                    {"--mode", "concurrent", "--waves", "8", "--threads", "2000", "--markers", "6", "--nested",
                     "--yields", "--gc-pressure", "--scope", "leaky-final", "--writer-stats"});
    expect_clean_run(run);
    CheckResult r = check_markers(run.expected, run.lines);
    std::printf("[ takeover ] %s\n", r.summary().c_str());
    // The writer's final counters, from the workload itself: vtscope's summary holds its last look
    // while the JVM lived (every 250 ms), which can miss the last wave's take-overs.
    long claimed = -1, released = -1, unavailable = -1;
    auto stats = run.java_stderr.find("MarkerHarness: writer records: ");
    ASSERT_NE(stats, std::string::npos) << run.java_stderr;
    ASSERT_EQ(
        std::sscanf(run.java_stderr.c_str() + stats, "MarkerHarness: writer records: %ld claimed, %ld released, %ld",
                    &claimed, &released, &unavailable),
        3);
    const nlohmann::json& writer = at(run.summary, "/writer");
    ASSERT_TRUE(at(writer, "/released").is_number()) << run.vtscope_stderr;
    std::printf(
        "[ takeover ] writer records: %ld claimed, %ld released, %ld unavailable (vtscope's last look: %.0f, "
        "%.0f, %.0f)\n",
        claimed, released, unavailable, number(writer, "/claimed"), number(writer, "/released"),
        number(writer, "/unavailable"));
    EXPECT_GT(released, 1000) << "most claims should take over a dead thread's slot";
    // The target exits at the end of its run: vtscope's last look came before, and says so.
    EXPECT_EQ(at(writer, "/final"), false);
    EXPECT_LE(number(writer, "/released"), released) << "vtscope's look is an earlier one";
    EXPECT_LE(number(writer, "/claimed"), claimed);
    EXPECT_GT(number(writer, "/claimed"), 0);
    EXPECT_EQ(r.expected, 2000 * 6);
    EXPECT_EQ(r.misattributed, 0) << r.summary();
    EXPECT_EQ(r.missing, 0) << r.summary();
}

INSTANTIATE_TEST_SUITE_P(Collectors, Stress,
                         ::testing::Values("-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseSerialGC", "-XX:+UseZGC"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                             return param.param.substr(param.param.find("Use") + 3);
                         });

// Bad input: one line naming the problem, non-zero exit.
namespace {
// Exit status policy (vtscope --help): 2 for a usage error, 1 for any other error.
void expect_one_line_error(const std::vector<std::string>& argv, const std::string& needle, int expected_code = 1) {
    std::string err;
    int code = run_command(argv, &err, 60s);
    EXPECT_EQ(code, expected_code) << ::testing::PrintToString(argv) << ": " << err;
    EXPECT_NE(err.find(needle), std::string::npos) << "stderr: " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "one line expected, got: " << err;
}

}  // namespace

TEST(BadInput, OptionsAndPids) {
    expect_one_line_error({kVtscope, "trace"}, "trace needs --pid PID", 2);
    expect_one_line_error({kVtscope, "trace", "--pid", "0"}, "invalid pid", 2);
    // Not a number: a name, which no JVM of the host matches.
    expect_one_line_error({kVtscope, "trace", "--pid", "no.such.Jvm"}, "no JVM matches 'no.such.Jvm'");
    expect_one_line_error({kVtscope, "bogus"}, "unknown command 'bogus'", 2);
    expect_one_line_error({kVtscope, "stat", "--pid", "1", "--pid", "2"}, "--pid given twice", 2);
    expect_one_line_error({kVtscope, "trace", "--pid", "1", "--duration", "1e8"}, "at most 10000000", 2);
    expect_one_line_error({kVtscope, "report", "/tmp"}, "cannot read /tmp: it is a directory");
    // pid_max is at most 2^22 on Linux, so this pid cannot exist.
    expect_one_line_error({kVtscope, "trace", "--pid", "99999999"}, "no process with pid 99999999");
    expect_one_line_error({kVtscope, "trace", "--pid", "1", "--output", "/nonexistent-dir/x.jsonl"},
                          "cannot write output /nonexistent-dir/x.jsonl");
}

TEST(BadInput, NotAJvmUnknownSyscallOldJdkNoPrivilege) {
    REQUIRE_BPF();
    Child sleeper = Child::start({"sleep", "60"}, "", "");
    expect_one_line_error({kVtscope, "trace", "--pid", std::to_string(sleeper.pid())}, "is not a JVM");

    E2e jvm;
    TempDir dir;
    ASSERT_TRUE(jvm.start(idle_harness()));
    std::string pid = std::to_string(jvm.pid());
    expect_one_line_error({kVtscope, "trace", "--pid", pid, "--syscalls", "write,notasyscall"},
                          "unknown syscall 'notasyscall'");
    expect_one_line_error({kVtscope, "trace", "--pid", pid, "--duration", "5", "--output", "/dev/null", "--ready-file",
                           "/nonexistent-dir/ready"},
                          "cannot write ready file /nonexistent-dir/ready: No such file or directory");
    expect_one_line_error({kVtscope, "trace", "--pid", pid, "--identity", "otep-tls"},
                          "needs the JVM started with -agentpath:libvtscope.so=otep");
    // Without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (root keeps its uid, loses the capabilities).
    expect_one_line_error(
        {"setpriv", "--inh-caps=-all", "--bounding-set=-bpf,-perfmon,-sys_admin", kVtscope, "trace", "--pid", pid},
        "no BPF privilege");

    const std::string old_java = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java";
    if (!std::filesystem::exists(old_java)) {
        std::fprintf(stderr, "\n*** SKIPPED: old-JDK case: no JDK 17 at %s ***\n\n", old_java.c_str());
        return;
    }
    // A JDK 17 JVM that stays up: the source launcher runs a one-line program that sleeps.
    std::string source = dir.path("Wait.java");
    if (std::FILE* f = std::fopen(source.c_str(), "w")) {
        std::fputs(
            "class Wait { public static void main(String[] a) throws Exception {"
            " new java.io.File(a[0]).createNewFile(); Thread.sleep(60000); } }\n",
            f);
        std::fclose(f);
    }
    Child old = Child::start({old_java, source, dir.path("old.ready")}, "", "");
    ASSERT_TRUE(wait_for_file(dir.path("old.ready"), 60s));
    expect_one_line_error({kVtscope, "trace", "--pid", std::to_string(old.pid())}, "JDK 21 or later needed");
}

// The writer must cost nothing per mount/unmount and create no JVMTI environment. HotSpot takes
// the notifying transition path (JvmtiVTMSTransitionDisabler::VTMS_vthread_mount/unmount, from
// the notifyJvmti* natives) only once a JVMTI environment asked for virtual-thread events, and
// every environment is made by JvmtiEnv::create_a_jvmti (prims/jvmtiEnv.cpp). bpftrace starts
// the JVM (so start-up is covered) and counts those functions: zero with the writer and
// OpenTelemetry active; non-zero with the JDWP agent, the control that shows the probes fire.
namespace {
struct JvmtiCounts {
    long mounts = -1, unmounts = -1, environments = -1;
};

JvmtiCounts count_jvmti_activity(const std::string& extra_jvm_option) {
    TempDir dir;
    JvmtiCounts counts;
    std::string libjvm = vtscope::testing::java_home() + "/lib/server/libjvm.so";
    std::string command = java_bin() + " --enable-native-access=ALL-UNNAMED " +
                          (extra_jvm_option.empty() ? "" : extra_jvm_option + " ") + "-cp " + class_path() +
                          " io.vtscope.workloads.MarkerHarness --expected " + dir.path("expected.jsonl") +
                          " --mode concurrent --yields";
    std::string program =
        "BEGIN { @mounts = 0; @unmounts = 0; @environments = 0; }\n"
        "uprobe:" +
        libjvm +
        ":_ZN27JvmtiVTMSTransitionDisabler18VTMS_vthread_mountEP8_jobjectb /pid == cpid/ { @mounts++; }\n"
        "uprobe:" +
        libjvm +
        ":_ZN27JvmtiVTMSTransitionDisabler20VTMS_vthread_unmountEP8_jobjectb /pid == cpid/ { @unmounts++; }\n"
        "uprobe:" +
        libjvm + ":_ZN8JvmtiEnv14create_a_jvmtiEi /pid == cpid/ { @environments++; }\n";
    Child tracer =
        Child::start({"bpftrace", "-c", command, "-e", program}, dir.path("bpftrace.out"), dir.path("bpftrace.err"));
    EXPECT_EQ(tracer.wait(180s).value_or(-1), 0) << read_file(dir.path("bpftrace.err"));
    EXPECT_EQ(read_lines(dir.path("expected.jsonl")).size(), 128u) << "the workload did not run";
    std::string out = read_file(dir.path("bpftrace.out"));
    auto value = [&](const std::string& name) {
        auto at = out.find("@" + name + ": ");
        return at == std::string::npos ? -1L : std::stol(out.substr(at + name.size() + 3));
    };
    counts.mounts = value("mounts");
    counts.unmounts = value("unmounts");
    counts.environments = value("environments");
    return counts;
}
}  // namespace

TEST(WriterCost, NoJvmtiEnvironmentAndNoNotifyingTransitions) {
    REQUIRE_BPF();
    if (run_command({"bpftrace", "--version"}, nullptr, 30s) != 0) {
        std::fprintf(stderr, "\n*** SKIPPED: bpftrace is not installed ***\n\n");
        GTEST_SKIP() << "SKIPPED: bpftrace is not installed";
    }
    JvmtiCounts writer = count_jvmti_activity("");
    std::printf("[ jvmti    ] writer + OpenTelemetry: %ld notifying mounts, %ld unmounts, %ld JVMTI environments\n",
                writer.mounts, writer.unmounts, writer.environments);
    EXPECT_EQ(writer.mounts, 0);
    EXPECT_EQ(writer.unmounts, 0);
    EXPECT_EQ(writer.environments, 0);

    JvmtiCounts control =
        count_jvmti_activity("-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0");
    std::printf("[ jvmti    ] control, JDWP agent: %ld notifying mounts, %ld unmounts, %ld JVMTI environments\n",
                control.mounts, control.unmounts, control.environments);
    EXPECT_GT(control.mounts, 100);
    EXPECT_GT(control.unmounts, 100);
    EXPECT_GT(control.environments, 0);
}

// Honest statuses: without a record region nothing says whether a span is current, so events are
// context_unknown (reason no_record_region) with their identity, never no_context; the note at
// attach and the summary say why, and do not tell to add a jar that is already there.
TEST(Trust, NoRegionIsContextUnknownAndTheSummarySaysWhy) {
    REQUIRE_BPF();
    TempDir dir;
    // A JVM with no vtscope writer at all: a virtual thread writing to a file in a loop.
    std::string source = dir.path("Plain.java");
    if (std::FILE* f = std::fopen(source.c_str(), "w")) {
        std::fputs(
            "class Plain { public static void main(String[] a) throws Exception {"
            " var out = new java.io.FileOutputStream(a[1]);"
            " Thread.ofVirtual().start(() -> { try { while (true) { out.write(1); Thread.sleep(2); } }"
            " catch (Exception e) { } });"
            " new java.io.File(a[0]).createNewFile(); Thread.sleep(60000); } }\n",
            f);
        std::fclose(f);
    }
    Child plain = Child::start({java_bin(), source, dir.path("plain.ready"), dir.path("plain.out")}, "", "");
    ASSERT_TRUE(wait_for_file(dir.path("plain.ready"), 60s));
    std::string err;
    ASSERT_EQ(run_command({kVtscope, "trace", "--pid", std::to_string(plain.pid()), "--syscalls", "write", "--duration",
                           "1", "--output", dir.path("plain.jsonl"), "--summary-json", dir.path("plain.json")},
                          &err, 60s),
              0)
        << err;
    int unknown = 0;
    for (const auto& line : read_lines(dir.path("plain.jsonl"))) {
        auto e = vtscope::parse_event_line(line);
        ASSERT_TRUE(e) << line;
        EXPECT_NE(e->status, "no_context") << line;
        if (e->status == "context_unknown") {
            unknown++;
            EXPECT_EQ(e->reason, "no_record_region") << line;
            EXPECT_TRUE(e->java_thread.has_value()) << line;
        }
    }
    EXPECT_GT(unknown, 100) << err;
    EXPECT_NE(err.find("vtscope: note: no record region found"), std::string::npos) << err;  // its wording
    nlohmann::json summary = vtscope::testing::read_json(dir.path("plain.json"));
    EXPECT_EQ(at(summary, "/region_found"), false) << summary;
    EXPECT_NE(text(summary, "/missing_region").find("put vtscope-java.jar"), std::string::npos) << summary;
    // The note at attach, counted in the summary's diagnostics as printed.
    EXPECT_GE(number(summary, "/diagnostics/notes"), 1) << summary;
    EXPECT_EQ(text(summary, "/diagnostics/messages/0/kind"), "note") << summary;
    EXPECT_EQ(text(summary, "/diagnostics/messages/0/text").rfind("no record region found", 0), 0u) << summary;

    // The writer on the class path, no context published yet (--late-region): say that instead.
    E2e idle;
    ASSERT_TRUE(idle.start(idle_harness({}, {"--late-region"})));
    ASSERT_EQ(run_command({kVtscope, "trace", "--pid", std::to_string(idle.pid()), "--duration", "0.3", "--output",
                           "/dev/null", "--summary-json", dir.path("late.json")},
                          &err, 60s),
              0)
        << err;
    summary = vtscope::testing::read_json(dir.path("late.json"));
    std::string missing = text(summary, "/missing_region");
    EXPECT_NE(missing.find("writer is in the target but has published no context yet"), std::string::npos) << summary;
    EXPECT_EQ(missing.find("put vtscope-java.jar"), std::string::npos) << summary;
}

// The attach window: a JVM whose 64 virtual and 2 platform threads already hold contexts and write
// all the time, attached 10 times in a row while a second process loads both CPUs. Every event of
// those threads must be attributed to the right thread and context, from the first one on.
TEST(Trust, AttachingToABusyJvmIsCorrectFromTheFirstEvent) {
    REQUIRE_BPF();
    E2e jvm;
    Workload holders("io.vtscope.workloads.ContextHolders", {"-Djdk.virtualThreadScheduler.parallelism=2"},
                     {"--seconds", "900"});
    holders.go_file = false;
    ASSERT_TRUE(jvm.start(holders));
    const E2e& dir = jvm;
    struct Truth {
        long long thread_id;
        bool virtual_thread;
        std::string trace_id, span_id;
    };
    std::map<long long, Truth> by_count;
    std::string error;
    for (const nlohmann::json& t : vtscope::testing::parse_lines(read_lines(dir.path("expected.jsonl")), &error))
        by_count[static_cast<long long>(number(t, "/count"))] = {static_cast<long long>(number(t, "/thread_id")),
                                                                 at(t, "/virtual") == true, text(t, "/trace_id"),
                                                                 text(t, "/span_id")};
    ASSERT_EQ(error, "");
    ASSERT_EQ(by_count.size(), 66u);
    Child load1 = Child::start({"sh", "-c", "while :; do :; done"}, "", "");
    Child load2 = Child::start({"sh", "-c", "while :; do :; done"}, "", "");
    long long checked = 0, wrong = 0;
    for (int attach = 0; attach < 10; attach++) {
        std::string out = dir.path("trace" + std::to_string(attach) + ".jsonl");
        std::string err;
        ASSERT_EQ(run_command({kVtscope, "trace", "--pid", std::to_string(jvm.pid()), "--syscalls", "write",
                               "--duration", "0.2", "--output", out},
                              &err, 60s),
                  0)
            << err;
        for (const auto& line : read_lines(out)) {
            auto e = vtscope::parse_event_line(line);
            ASSERT_TRUE(e) << line;
            if (!e->count) continue;
            auto it = by_count.find(static_cast<long long>(*e->count));
            if (it == by_count.end()) continue;  // another thread's write (the JVM's own)
            const Truth& want = it->second;
            checked++;
            bool right = e->status == "ok" && e->java_thread == want.thread_id &&
                         e->vthread == (want.virtual_thread ? std::optional<int64_t>(want.thread_id) : std::nullopt) &&
                         e->trace_id == want.trace_id && e->span_id == want.span_id;
            if (!right && wrong++ < 5) ADD_FAILURE() << "attach " << attach << ": " << line;
        }
    }
    std::printf("[ attach   ] 10 attaches under CPU load: %lld events of context-holding threads, %lld wrong\n",
                checked, wrong);
    EXPECT_GT(checked, 1000);
    EXPECT_EQ(wrong, 0);
}

// A target that dies while vtscope attaches: whatever step notices, one line naming it (or, when
// it dies after the attach, the normal end "target exited" with exit 0).
TEST(BadInput, TargetExitingDuringAttachIsOneLine) {
    REQUIRE_BPF();
    int during = 0, after = 0;
    for (int delay_ms : {0, 40, 80, 120, 200, 300}) {
        E2e jvm;
        ASSERT_TRUE(jvm.start(idle_harness()));
        TempDir dir;
        Child tracer = Child::start({kVtscope, "trace", "--pid", std::to_string(jvm.pid()), "--output",
                                     dir.path("out.jsonl"), "--summary-json", dir.path("summary.json")},
                                    "", dir.path("err"));
        // Not a synchronisation: the kill lands at each of these points of the attach in turn.
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        jvm.workload().signal(SIGKILL);
        int code = tracer.wait(60s).value_or(-1);
        std::string err = read_file(dir.path("err"));
        std::string pid = std::to_string(jvm.workload().pid());
        if (code == 1) {
            during++;
            // Gone before vtscope first looked: it never was there for vtscope.
            if (err != "vtscope: error: no process with pid " + pid + "\n") {
                EXPECT_EQ(err, "vtscope: error: target " + pid + " exited during attach\n");
            }
        } else {
            after++;
            EXPECT_EQ(code, 0) << err;
            EXPECT_EQ(text(vtscope::testing::read_json(dir.path("summary.json")), "/stop_reason"), "target exited")
                << err;
        }
    }
    std::printf("[ exiting  ] killed during attach %d times, after it %d times\n", during, after);
}

// Lost events are never silent: an output that stalls (a pipe whose reader starts 3 s late) fills
// the ring buffer; the first summary line counts the lost events, a warning names the cause, the
// JSON carries them, and the exit status stays 0 (they are reported, not an error).
TEST(Trust, LostEventsAreCountedInTheFirstLineAndTheJson) {
    REQUIRE_BPF();
    E2e jvm;
    Workload holders("io.vtscope.workloads.ContextHolders", {}, {"--seconds", "60"});
    holders.go_file = false;
    ASSERT_TRUE(jvm.start(holders));
    const E2e& dir = jvm;
    std::string fifo = dir.path("out.fifo");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    // Opened at once (vtscope's open does not block), read only 3 s later: the stall is the test.
    Child reader = Child::start({"sh", "-c", "exec 3<" + fifo + "; sleep 3; cat <&3 > /dev/null"}, "", "");
    std::string err;
    ASSERT_EQ(run_command({kVtscope, "trace", "--pid", std::to_string(jvm.pid()), "--syscalls", "write", "--duration",
                           "1", "--output", fifo, "--summary-json", dir.path("s.json")},
                          &err, 120s),
              0)
        << err;
    nlohmann::json summary = vtscope::testing::read_json(dir.path("s.json"));
    double lost = number(summary, "/lost");
    std::printf("[ lost     ] %.0f of %.0f events lost while the output stalled\n", lost, number(summary, "/events"));
    EXPECT_GT(lost, 0) << err;
    EXPECT_EQ(text(summary, "/lost_cause"), "the ring buffer was full") << summary;
    // What the user reads: the count in the first line, and the cause.
    std::string first_line = err.substr(0, err.find('\n'));
    EXPECT_NE(first_line.find("lost " + std::to_string(static_cast<long long>(lost))), std::string::npos) << err;
    EXPECT_NE(err.find("events were not counted: the ring buffer was full"), std::string::npos) << err;
}

// Stopping: at --duration and on SIGINT vtscope flushes, prints its summary and exits 0.
TEST(Lifecycle, DurationAndSignalStopCleanly) {
    REQUIRE_BPF();
    E2e jvm;
    ASSERT_TRUE(jvm.start(idle_harness()));
    std::string pid = std::to_string(jvm.pid());
    std::string err;
    TempDir json_dir;
    EXPECT_EQ(run_command({kVtscope, "trace", "--pid", pid, "--duration", "0.5", "--output", "/dev/null",
                           "--summary-json", json_dir.path("t.json")},
                          &err, 60s),
              0)
        << err;
    nlohmann::json summary = vtscope::testing::read_json(json_dir.path("t.json"));
    EXPECT_EQ(text(summary, "/stop_reason"), "duration reached") << summary;
    EXPECT_TRUE(at(summary, "/events").is_number()) << summary;
    // stat's summary, and an error's too (exit code 1, the message, no counts).
    EXPECT_EQ(run_command({kVtscope, "stat", "--pid", pid, "--duration", "0.3", "--output", "/dev/null",
                           "--summary-json", json_dir.path("s.json")},
                          &err, 60s),
              0)
        << err;
    summary = vtscope::testing::read_json(json_dir.path("s.json"));
    EXPECT_EQ(text(summary, "/command"), "stat");
    EXPECT_EQ(text(summary, "/stop_reason"), "duration reached");
    EXPECT_EQ(at(summary, "/exit_code"), 0);
    EXPECT_EQ(text(summary, "/identity"), "vmstructs");
    EXPECT_GT(number(summary, "/threads/at_attach"), 0) << summary;
    EXPECT_EQ(
        run_command({kVtscope, "trace", "--pid", "99999999", "--summary-json", json_dir.path("e.json")}, &err, 60s), 1);
    summary = vtscope::testing::read_json(json_dir.path("e.json"));
    EXPECT_EQ(at(summary, "/exit_code"), 1) << summary;
    EXPECT_EQ(text(summary, "/error"), "no process with pid 99999999");

    // SIGINT once it is ready.
    ASSERT_TRUE(jvm.attach("trace"));
    jvm.signal_sessions(SIGINT);
    E2eRun run = jvm.finish(30s);
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_EQ(text(run.summary, "/stop_reason"), "signal") << run.vtscope_stderr;
}

// A machine that booted without tracefs mounted (seen on these VMs): every subcommand attaches
// tracepoints, which libbpf finds under tracefs, so each mounts it first. Run in a mount namespace
// of its own (unshare from util-linux) whose tracefs mounts are gone, so the machine's are untouched.
TEST(Lifecycle, EverySubcommandStartsWithoutTracefsMounted) {
    REQUIRE_BPF();
    if (access("/usr/bin/unshare", X_OK) != 0) SKIP_LOUDLY("needs /usr/bin/unshare (util-linux)");
    E2e jvm;
    ASSERT_TRUE(jvm.start(idle_harness()));
    std::string pid = std::to_string(jvm.pid());
    for (const char* command : {"trace", "stat", "profile", "block"}) {
        const char* script =
            "umount -R /sys/kernel/tracing 2>/dev/null; umount -R /sys/kernel/debug 2>/dev/null; "
            "if [ -d /sys/kernel/tracing/events ]; then echo 'tracefs still mounted' >&2; exit 97; fi; "
            "exec \"$0\" \"$@\"";
        std::string err;
        std::string summary_path = jvm.path(std::string(command) + ".json");
        int code = run_command(
            {"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, kVtscope, command,
             "--pid", pid, "--duration", "0.3", "--output", "/dev/null", "--summary-json", summary_path},
            &err, 60s);
        EXPECT_EQ(code, 0) << command << ": " << err;
        EXPECT_NE(err.find("tracefs was not mounted; mounted it at /sys/kernel/tracing"), std::string::npos)
            << command << ": " << err;
        EXPECT_EQ(text(vtscope::testing::read_json(summary_path), "/stop_reason"), "duration reached")
            << command << ": " << err;
    }
}

namespace {

// Whether a tracer holds all four USDT semaphores of libvtscope.so in pid, that is, every one of its
// probes is live (bpftrace prints "Attaching" before the last one is).
bool all_probe_semaphores_held(pid_t pid, const std::vector<vtscope::Mapping>& maps, const std::string& lib,
                               const vtscope::ProcessMemory& memory) {
    const std::vector<std::string> names = {"vtscope_vthread__start_semaphore", "vtscope_vthread__end_semaphore",
                                            "vtscope_vthread__mount_semaphore", "vtscope_vthread__unmount_semaphore"};
    const vtscope::Mapping* base = vtscope::find_module_mapping(maps, lib);
    if (!base) return false;
    auto file = vtscope::open_module(pid, *base);
    if (!file) return false;
    auto elf = vtscope::ElfFile::load(file->fd.get(), names, lib);
    if (!elf) return false;
    for (const std::string& name : names) {
        const vtscope::ElfSymbol* symbol = elf->find(name);
        uint16_t held = 0;
        if (!symbol || !memory.read_value(base->start - elf->first_load_vaddr() + symbol->value, held) || held == 0)
            return false;
    }
    return true;
}

}  // namespace

// The lifecycle probes of libvtscope.so (-agentpath:...=probes): bpftrace attaches to the four
// USDT probes (which enables their semaphores) before the harness runs, prints every event, and
// the test checks them against the harness's own record of each sender: one start and one end
// per thread, mounts = unmounts (JDK 25 posts the first mount and the final unmount), and every record
// argument equal to the address the writer used for that thread.
TEST(LifecycleProbes, CountsAndRecordAddressesMatchTheWorkload) {
    REQUIRE_BPF();
    TempDir dir;
    const std::string lib = VTSCOPE_NATIVE_LIB;
    E2e jvm;
    ASSERT_TRUE(jvm.start(idle_harness({"-agentpath:" + lib + "=probes", "-Djdk.virtualThreadScheduler.parallelism=2"},
                                       {"--mode", "concurrent", "--yields"})));
    // Dormant until a tracer attaches: the library keeps its JVMTI events off.
    vtscope::ProcessMemory memory(jvm.pid());
    auto maps = vtscope::read_maps(jvm.pid());
    ASSERT_TRUE(static_cast<bool>(maps));
    EXPECT_FALSE(vtscope::wait_for_probe_events(jvm.pid(), *maps, lib, memory, 0ms))
        << "vtscope_probe_events_active is set with no tracer attached";
    std::string probe = "usdt:" + lib + ":vtscope:";
    std::string program = probe + "vthread__start { printf(\"S %lld %lld\\n\", arg0, arg1); }\n" + probe +
                          "vthread__end { printf(\"E %lld\\n\", arg0); }\n" + probe +
                          "vthread__mount { printf(\"M %lld %lld\\n\", arg0, arg1); }\n" + probe +
                          "vthread__unmount { printf(\"U %lld\\n\", arg0); }\n";
    Child tracer = Child::start({"bpftrace", "-p", std::to_string(jvm.pid()), "-e", program}, dir.path("events"),
                                dir.path("bpftrace.err"));
    ASSERT_TRUE(vtscope::testing::wait_until(
        [&] { return !tracer.running() || all_probe_semaphores_held(jvm.pid(), *maps, lib, memory); }, 60s))
        << "bpftrace did not attach: " << read_file(dir.path("bpftrace.err"));
    ASSERT_TRUE(tracer.running()) << read_file(dir.path("bpftrace.err"));
    // The library sees the semaphores within 50 ms and switches its events on.
    ASSERT_TRUE(vtscope::wait_for_probe_events(jvm.pid(), *maps, lib, memory, 5s))
        << "libvtscope did not enable its events for the attached tracer";
    jvm.go();
    ASSERT_EQ(jvm.wait_workload(120s), 0) << read_file(jvm.path("java.err"));
    tracer.signal(SIGINT);
    tracer.wait(30s);

    struct Counts {
        int starts = 0, ends = 0, mounts = 0, unmounts = 0;
        std::set<long long> records;
    };
    std::map<long long, Counts> by_thread;
    std::istringstream events(read_file(dir.path("events")));
    std::string kind;
    while (events >> kind) {
        long long vid = 0, record = 0;
        if (kind == "S" || kind == "M") {
            events >> vid >> record;
            Counts& c = by_thread[vid];
            (kind == "S" ? c.starts : c.mounts)++;
            c.records.insert(record);
        } else if (kind == "E" || kind == "U") {
            events >> vid;
            (kind == "E" ? by_thread[vid].ends : by_thread[vid].unmounts)++;
        } else {
            std::string rest;
            std::getline(events, rest);  // bpftrace's own lines
        }
    }
    int senders = 0;
    std::set<long long> seen;
    for (const std::string& line : read_lines(jvm.path("expected.jsonl"))) {
        long long vid = vtscope::json_int_field(line, "vthread").value_or(-1);
        long long record = vtscope::json_int_field(line, "record").value_or(0);
        if (vid < 0 || !seen.insert(vid).second) continue;
        senders++;
        const Counts& c = by_thread[vid];
        EXPECT_EQ(c.starts, 1) << "thread " << vid;
        EXPECT_EQ(c.ends, 1) << "thread " << vid;
        // JDK 25 posts a mount right after VirtualThreadStart and an unmount right before
        // VirtualThreadEnd: the probes see complete pairs.
        EXPECT_EQ(c.mounts, c.unmounts) << "thread " << vid;
        EXPECT_GE(c.unmounts, 7) << "thread " << vid << " parks between its 8 markers";
        EXPECT_NE(record, 0) << "thread " << vid;
        EXPECT_EQ(c.records, std::set<long long>{record})
            << "thread " << vid << ": every probe names the writer's record";
    }
    EXPECT_EQ(senders, 16);
    long total_mounts = 0, total_unmounts = 0, threads = 0;
    for (const auto& [vid, c] : by_thread) {
        total_mounts += c.mounts;
        total_unmounts += c.unmounts;
        threads += c.starts;
    }
    std::printf("[ probes   ] %zu threads seen, %ld starts, %ld mounts, %ld unmounts\n", by_thread.size(), threads,
                total_mounts, total_unmounts);
}

// vtscope stat counts in the kernel what vtscope trace streams: attached side by side to the
// bundled sample service, stat's report equals `vtscope report` of trace's file, line for line
// (every status count, every trace id with its syscalls, bytes and virtual threads).
TEST(Stat, CountsEqualTheReportOfATraceOfTheSameRun) {
    REQUIRE_BPF();
    E2e e2e;
    Workload service("io.vtscope.workloads.DemoService", {}, {"--requests", "120", "--concurrency", "8"});
    service.expected = false;
    ASSERT_TRUE(e2e.start(service));
    ASSERT_TRUE(e2e.attach("trace"));
    ASSERT_TRUE(e2e.attach("stat", {"--top", "1000"}));
    E2eRun run = e2e.run(120s);
    ASSERT_EQ(run.java_exit, 0) << run.java_stderr;
    ASSERT_EQ(run.sessions.size(), 2u);
    for (const vtscope::testing::Session& s : run.sessions) {
        ASSERT_EQ(s.exit, 0) << s.stderr_text;
        EXPECT_EQ(at(s.summary, "/lost"), 0) << s.stderr_text;
        EXPECT_EQ(text(s.summary, "/stop_reason"), "target exited") << s.stderr_text;
    }
    EXPECT_EQ(text(run.sessions[1].summary, "/command"), "stat");

    std::string trace_path = e2e.path("trace.jsonl");
    if (std::FILE* f = std::fopen(trace_path.c_str(), "w")) {
        std::fputs(run.sessions[0].output_text.c_str(), f);
        std::fclose(f);
    }
    Child report_run =
        Child::start({kVtscope, "report", trace_path, "--top", "1000"}, e2e.path("report.txt"), e2e.path("report.err"));
    ASSERT_EQ(report_run.wait(60s).value_or(-1), 0) << read_file(e2e.path("report.err"));
    std::string report = read_file(e2e.path("report.txt"));
    const std::string& counted = run.sessions[1].output_text;
    EXPECT_EQ(counted, report);
    EXPECT_NE(counted.find("traces: 120 distinct trace ids"), std::string::npos) << counted;
}

// The lifecycle probes cost nothing while nobody traces: libvtscope keeps its JVMTI events off
// until a tracer holds the probe semaphores, and switches them off again once it detaches.
TEST(LifecycleProbes, EventsAreOnOnlyWhileATracerIsAttached) {
    REQUIRE_BPF();
    const std::string lib = VTSCOPE_NATIVE_LIB;
    E2e jvm;
    ASSERT_TRUE(jvm.start(idle_harness({"-agentpath:" + lib + "=probes"})));
    vtscope::ProcessMemory memory(jvm.pid());
    auto maps = vtscope::read_maps(jvm.pid());
    ASSERT_TRUE(static_cast<bool>(maps));
    EXPECT_FALSE(vtscope::wait_for_probe_events(jvm.pid(), *maps, lib, memory, 200ms)) << "on before any tracer";

    // Two tracers, one after the other: the second finds the events on, and nothing went off under
    // either (vtscope waits for the library before it reports ready).
    for (const char* duration : {"2", "1"}) {
        TempDir dir;
        Child session = Child::start({kVtscope, "trace", "--pid", std::to_string(jvm.pid()), "--identity", "lifecycle",
                                      "--duration", duration, "--output", dir.path("out.jsonl"), "--ready-file",
                                      dir.path("vtscope.ready"), "--summary-json", dir.path("summary.json")},
                                     "", dir.path("vtscope.err"));
        ASSERT_TRUE(wait_for_file(dir.path("vtscope.ready"), 30s, {&session})) << read_file(dir.path("vtscope.err"));
        EXPECT_TRUE(vtscope::wait_for_probe_events(jvm.pid(), *maps, lib, memory, 0ms)) << "off while traced";
        ASSERT_EQ(session.wait(30s).value_or(-1), 0) << read_file(dir.path("vtscope.err"));
        nlohmann::json summary = vtscope::testing::read_json(dir.path("summary.json"));
        EXPECT_EQ(number(summary, "/mappings/resets"), 0) << "the events went off under a tracer: " << summary;
        EXPECT_EQ(read_file(dir.path("vtscope.err")).find("warning"), std::string::npos)
            << read_file(dir.path("vtscope.err"));
    }

    // Detached: the watcher switches off after two polls without a tracer.
    bool off = vtscope::testing::wait_until(
        [&] { return !vtscope::wait_for_probe_events(jvm.pid(), *maps, lib, memory, 0ms); }, 1s);
    EXPECT_TRUE(off) << "still on 1 s after the tracer detached";
    jvm.go();
    ASSERT_EQ(jvm.wait_workload(120s), 0) << read_file(jvm.path("java.err"));
}

// A java.base patched for OTEP by the library under test (agent option write-patch=DIR), written
// once per test process by a JVM of the JDK the tests run; empty (with a test failure) when it
// cannot be written.
const std::string& java_base_patch_dir() {
    static TempDir dir;
    static std::string written = [] {
        std::string err;
        std::string patch = dir.path("java.base");
        int rc = run_command(
            {java_bin(), "-agentpath:" + std::string(VTSCOPE_NATIVE_LIB) + "=write-patch=" + patch, "-version"}, &err,
            120s);
        if (rc != 0 || err.find("vtscope: wrote a patched java.base for OTEP to " + patch) == std::string::npos) {
            ADD_FAILURE() << "write-patch failed (" << rc << "): " << err;
            return std::string();
        }
        return patch;
    }();
    return written;
}

// How the library keeps otel_thread_ctx_v1 current: the VirtualThread mount hook (agent option
// otep), the JVMTI mount/unmount events (otep-jvmti, the fallback), or the same calls in a
// java.base the library patched (otep with --patch-module, no JVMTI environment). Each test runs
// all three and checks, in the JVM's log, that the path it meant is the one that ran.
struct OtepPath {
    const char* name;
    const char* option;
    bool patched;  // --patch-module java.base=java_base_patch_dir()
    const char* log_line;
};
constexpr OtepPath kOtepPaths[] = {
    {"otep", "otep", false, "vtscope: otep: otel_thread_ctx_v1 follows mounts through the VirtualThread mount hook\n"},
    {"otep-jvmti", "otep-jvmti", false,
     "vtscope: otep: otel_thread_ctx_v1 follows mounts through the JVMTI mount events (otep-jvmti requested)\n"},
    {"otep-patched", "otep", true,
     "vtscope: otep: otel_thread_ctx_v1 follows mounts through the patched java.base in "},
};

std::vector<std::string> otep_jvm_options(const OtepPath& path) {
    std::vector<std::string> options;
    if (path.patched) options.push_back("--patch-module=java.base=" + java_base_patch_dir());
    options.push_back("-agentpath:" + std::string(VTSCOPE_NATIVE_LIB) + "=" + path.option);
    options.push_back("-Djdk.virtualThreadScheduler.parallelism=2");
    return options;
}

// OTEP 4947 from outside: with -agentpath:libvtscope.so=otep the carriers' otel_thread_ctx_v1
// follows mounts. vtscope --identity otep-tls reads it as a third-party reader would (the
// exported TLS symbol, its TLSDESC descriptor, the thread pointer) at every marker write, and
// must find the mounted virtual thread's record: its owner and its context.
TEST(OtepTls, ThirdPartyReaderFindsTheMountedThreadsContext) {
    REQUIRE_BPF();
    for (const OtepPath& path : kOtepPaths) {
        for (const char* scope : {"clean", "leaky-final"}) {
            E2eRun run =
                run_harness(otep_jvm_options(path), {"--mode", "concurrent", "--yields", "--nested", "--scope", scope},
                            {"--identity", "otep-tls"});
            expect_clean_run(run);
            EXPECT_NE(run.java_stderr.find(path.log_line), std::string::npos) << run.java_stderr;
            CheckResult r = check_markers(run.expected, run.lines);
            std::printf("[ otep-tls ] %s %s: %s\n", path.name, scope, r.summary().c_str());
            EXPECT_EQ(r.expected, 128);
            EXPECT_EQ(r.correct, r.expected) << path.name << " " << scope << ": " << r.summary();
        }
    }
}

// OTEP 4947 for platform threads: a platform thread that holds a span points its own
// otel_thread_ctx_v1 at its record (once, when it claims it), so the same outside reader finds
// platform senders' contexts next to the virtual ones.
TEST(OtepTls, ThirdPartyReaderFindsPlatformThreadsContext) {
    REQUIRE_BPF();
    for (const OtepPath& path : kOtepPaths) {
        E2eRun run = run_harness(otep_jvm_options(path),
                                 {"--mode", "concurrent", "--threads", "4", "--platform-threads", "4", "--nested"},
                                 {"--identity", "otep-tls"});
        expect_clean_run(run);
        EXPECT_NE(run.java_stderr.find(path.log_line), std::string::npos) << run.java_stderr;
        CheckResult r = check_markers(run.expected, run.lines);
        std::printf("[ otep-tls ] %s platform + virtual: %s\n", path.name, r.summary().c_str());
        EXPECT_EQ(r.expected, 64);
        EXPECT_EQ(r.correct, r.expected) << path.name << ": " << r.summary();
    }
}

// libvtscope.so loaded into the running JVM (jcmd JVMTI.agent_load ... otep) after the Java writer
// had already claimed records (the harness's warm-up publishes from virtual threads): the
// virtual threads that start afterwards claim their records at their first publication, and the
// writer must point their carrier's otel_thread_ctx_v1 at them there, though it found no library
// when it first looked (the library announces itself in a system property); the outside reader
// finds every marker's thread and context.
TEST(OtepTls, ALibraryLoadedLaterKeepsTheThreadLocalsOfLaterThreads) {
    REQUIRE_BPF();
    auto load = [&](pid_t pid) -> std::string {
        std::string err;
        int rc = run_command({jdk_tool("jcmd"), std::to_string(pid), "JVMTI.agent_load", VTSCOPE_NATIVE_LIB, "otep"},
                             &err, 60s);
        return rc == 0 ? std::string() : "jcmd JVMTI.agent_load failed (" + std::to_string(rc) + "): " + err;
    };
    E2eRun run = run_harness({"-Djdk.virtualThreadScheduler.parallelism=2", "-XX:+EnableDynamicAgentLoading"},
                             {"--mode", "concurrent", "--nested"}, {"--identity", "otep-tls"}, load);
    expect_clean_run(run);
    EXPECT_NE(run.java_stderr.find(kOtepPaths[0].log_line), std::string::npos) << run.java_stderr;
    CheckResult r = check_markers(run.expected, run.lines);
    std::printf("[ otep-tls ] library loaded after the warm-up: %s\n", r.summary().c_str());
    EXPECT_EQ(r.expected, 128);
    EXPECT_EQ(r.correct, r.expected) << r.summary();
}

// probes and otep in one JVM: with the mount hook OTEP needs no JVMTI event, so the probe watcher
// must still switch the lifecycle probes' events on for a tracer; both channels stay sound.
TEST(OtepTls, MountHookAndLifecycleProbesTogether) {
    REQUIRE_BPF();
    const std::vector<std::string> jvm = {"-agentpath:" + std::string(VTSCOPE_NATIVE_LIB) + "=probes,otep",
                                          "-Djdk.virtualThreadScheduler.parallelism=2"};
    for (const char* identity : {"lifecycle", "otep-tls"}) {
        E2eRun run = run_harness(jvm, {"--mode", "concurrent", "--yields"}, {"--identity", identity});
        expect_clean_run(run);
        EXPECT_NE(run.java_stderr.find(kOtepPaths[0].log_line), std::string::npos) << run.java_stderr;
        CheckResult r = check_markers(run.expected, run.lines);
        std::printf("[ probes,otep ] %s: %s\n", identity, r.summary().c_str());
        EXPECT_EQ(r.expected, 128);
        EXPECT_EQ(r.correct, r.expected) << identity << ": " << r.summary();
    }
}

// The mount hook survives another agent's retransformation of VirtualThread: RetransformClasses
// starts from the original class file, so without libvtscope.so's ClassFileLoadHook still
// taking part the calls would be gone and every carrier's otel_thread_ctx_v1 would keep
// whatever it held last. A Java agent (built here with the JDK's javac and jar) retransforms
// VirtualThread with a no-op transformer in its premain, which runs after the library's VMInit
// (-agentpath comes first: JVMTI posts VMInit to the environments in their creation order); the
// outside reader must still find every marker's thread and context.
TEST(OtepTls, MountHookSurvivesAnotherAgentsRetransformation) {
    REQUIRE_BPF();
    TempDir dir;
    if (std::FILE* f = std::fopen(dir.path("RetransformVirtualThread.java").c_str(), "w")) {
        std::fputs(
            "public final class RetransformVirtualThread {\n"
            "  public static void premain(String a, java.lang.instrument.Instrumentation inst) throws Exception {\n"
            "    java.lang.instrument.ClassFileTransformer noop = new java.lang.instrument.ClassFileTransformer() {};\n"
            "    inst.addTransformer(noop, true);\n"
            "    inst.retransformClasses(Class.forName(\"java.lang.VirtualThread\"));\n"
            "    inst.removeTransformer(noop);\n"
            "    System.err.println(\"retransformed java.lang.VirtualThread\");\n"
            "  }\n"
            "}\n",
            f);
        std::fclose(f);
    }
    if (std::FILE* f = std::fopen(dir.path("manifest.txt").c_str(), "w")) {
        std::fputs("Premain-Class: RetransformVirtualThread\nCan-Retransform-Classes: true\n", f);
        std::fclose(f);
    }
    std::string err;
    ASSERT_EQ(run_command({jdk_tool("javac"), "-d", dir.path("classes"), dir.path("RetransformVirtualThread.java")},
                          &err, 120s),
              0)
        << err;
    ASSERT_EQ(run_command({jdk_tool("jar"), "--create", "--file", dir.path("agent.jar"), "--manifest",
                           dir.path("manifest.txt"), "-C", dir.path("classes"), "."},
                          &err, 60s),
              0)
        << err;
    E2eRun run = run_harness({"-agentpath:" + std::string(VTSCOPE_NATIVE_LIB) + "=otep",
                              "-javaagent:" + dir.path("agent.jar"), "-Djdk.virtualThreadScheduler.parallelism=2"},
                             {"--mode", "concurrent", "--yields", "--nested"}, {"--identity", "otep-tls"});
    expect_clean_run(run);
    size_t hooked = run.java_stderr.find(kOtepPaths[0].log_line);
    size_t retransformed = run.java_stderr.find("retransformed java.lang.VirtualThread");
    ASSERT_NE(hooked, std::string::npos) << run.java_stderr;
    ASSERT_NE(retransformed, std::string::npos) << run.java_stderr;
    EXPECT_LT(hooked, retransformed) << "the retransformation must come after the hook: " << run.java_stderr;
    CheckResult r = check_markers(run.expected, run.lines);
    std::printf("[ otep-tls ] after another agent's retransformation: %s\n", r.summary().c_str());
    EXPECT_EQ(r.expected, 128);
    EXPECT_EQ(r.correct, r.expected) << r.summary();
}

// OTEP 4719: with the otep feature the library announces the thread-local schema in a process
// context mapping that readers find in /proc/PID/maps (memfd "OTEL_CTX", signature written last).
TEST(OtepTls, ProcessContextAnnouncesTheSchema) {
    REQUIRE_BPF();
    E2e jvm;
    ASSERT_TRUE(jvm.start(idle_harness({"-agentpath:" + std::string(VTSCOPE_NATIVE_LIB) + "=otep"})));
    auto maps = vtscope::read_maps(jvm.pid());
    ASSERT_TRUE(maps.ok());
    const vtscope::Mapping* context = nullptr;
    for (const auto& m : *maps)
        if (m.path.rfind("/memfd:OTEL_CTX", 0) == 0) context = &m;
    ASSERT_NE(context, nullptr) << "no OTEL_CTX mapping";
    vtscope::ProcessMemory memory(jvm.pid());
    struct {
        char signature[8];
        uint32_t version, payload_size;
        uint64_t published_at_ns, payload;
    } header{};
    ASSERT_TRUE(memory.read_value(context->start, header));
    EXPECT_EQ(std::string(header.signature, 8), "OTEL_CTX");
    EXPECT_EQ(header.version, 2u);
    EXPECT_NE(header.published_at_ns, 0u);
    ASSERT_GT(header.payload_size, 0u);
    ASSERT_LT(header.payload_size, 4096u);
    std::string payload(header.payload_size, '\0');
    ASSERT_TRUE(memory.read(header.payload, payload.data(), payload.size()));
    EXPECT_NE(payload.find("threadlocal.schema_version"), std::string::npos);
    EXPECT_NE(payload.find("tlsdesc_v1_dev"), std::string::npos);
}

// The probe channels over libvtscope.so's lifecycle probes (-agentpath:...=probes), attached
// before the senders start: lifecycle (the paper's four-probe rules) must attribute every
// virtual marker; two-probe (mount/unmount only) fails on each thread's first marker and only there,
// and with records released the paper's way (paper-release), leaky-final turns stale mappings
// into silent content misattributions, as in the paper's Table 6.
TEST(ProbeChannels, LifecycleIsSoundAndTwoProbeFailsOnFirstMarkers) {
    REQUIRE_BPF();
    const std::vector<std::string> jvm = {"-agentpath:" + std::string(VTSCOPE_NATIVE_LIB) + "=probes",
                                          "-Djdk.virtualThreadScheduler.parallelism=2"};
    for (const char* scope : {"clean", "leaky-final"}) {
        E2eRun run = run_harness(jvm, {"--scope", scope}, {"--identity", "lifecycle"});
        expect_clean_run(run);
        CheckResult r = check_markers(run.expected, run.lines);
        std::printf("[ lifecycle] %s: %s\n", scope, r.summary().c_str());
        EXPECT_EQ(r.correct, 128) << r.summary();
        ASSERT_TRUE(at(run.summary, "/mappings/unmounts_unmapped").is_number()) << run.vtscope_stderr;
        EXPECT_EQ(at(run.summary, "/mappings/unmounts_unmapped"), 0) << run.vtscope_stderr;

        E2eRun naive = run_harness({"-agentpath:" + std::string(VTSCOPE_NATIVE_LIB) + "=probes,paper-release",
                                    "-Djdk.virtualThreadScheduler.parallelism=2"},
                                   {"--scope", scope}, {"--identity", "two-probe"});
        expect_clean_run(naive);
        CheckResult n = check_markers(naive.expected, naive.lines);
        std::printf("[ two-probe] %s: %s\n", scope, n.summary().c_str());
        // A sender that happens to be unmounted and mounted again before its first marker (a park
        // on the way) is mapped by then, so that marker is right: seen once in 16 on a fresh-clone
        // CI run (2026-12-05, correct 113). The paper's failure is the rule, not each instance.
        EXPECT_GE(n.correct, 128 - 16) << "all but each thread's first marker: " << n.summary();
        EXPECT_GE(n.misattributed + n.unattributed, 12) << "most first markers fail: " << n.summary();
        EXPECT_EQ(n.correct + n.misattributed + n.unattributed, 128) << n.summary();
        EXPECT_EQ(n.failures_after_first, 0) << "only first markers fail: " << n.summary();
        if (std::string(scope) == "clean")
            EXPECT_EQ(n.content_foreign, 0) << "cleared records: stale mappings read no context";
        else
            EXPECT_GT(n.content_foreign, 0) << "leaky-final: a stale mapping shows a dead thread's context";
    }
}

// The paper's patched-JDK probe ABI, driven by hotspot_abi_emulator: inserts on start and
// thaw(kind=top) only, deletes on freeze(ok) and end, keeps the mapping across a pinned freeze,
// ignores return-barrier thaws (also one after end). Every marker must be attributed, and the
// carriers' own writes after end must stay unmapped.
TEST(ProbeChannels, HotspotProbesFollowThePapersRules) {
    REQUIRE_BPF();
    TempDir dir;
    Child emulator = Child::start({VTSCOPE_HOTSPOT_EMULATOR, "--expected", dir.path("expected.jsonl"), "--ready-file",
                                   dir.path("ready"), "--go-file", dir.path("go")},
                                  "", dir.path("emulator.err"));
    ASSERT_TRUE(wait_for_file(dir.path("ready"), 30s));
    Child tracer = Child::start({kVtscope, "trace", "--pid", std::to_string(emulator.pid()), "--identity",
                                 "hotspot-probes", "--syscalls", "write", "--output", dir.path("trace.jsonl"),
                                 "--ready-file", dir.path("vtscope.ready"), "--summary-json", dir.path("summary.json")},
                                "", dir.path("vtscope.err"));
    ASSERT_TRUE(wait_for_file(dir.path("vtscope.ready"), 30s)) << read_file(dir.path("vtscope.err"));
    vtscope::testing::touch(dir.path("go"));
    ASSERT_EQ(emulator.wait(60s).value_or(-1), 0) << read_file(dir.path("emulator.err"));
    ASSERT_EQ(tracer.wait(30s).value_or(-1), 0) << read_file(dir.path("vtscope.err"));
    std::string err = read_file(dir.path("vtscope.err"));
    CheckResult r = check_markers(read_lines(dir.path("expected.jsonl")), read_lines(dir.path("trace.jsonl")));
    std::printf("[ hotspot  ] %s\n", r.summary().c_str());
    EXPECT_EQ(r.expected, 64);
    EXPECT_EQ(r.correct, 64) << r.summary();
    int carrier_writes = 0;
    for (const auto& line : read_lines(dir.path("trace.jsonl"))) {
        auto e = vtscope::parse_event_line(line);
        if (!e || !e->count || *e->count < 5000 || *e->count > 5001) continue;
        carrier_writes++;
        EXPECT_EQ(e->status, "unmapped") << line;
    }
    EXPECT_EQ(carrier_writes, 32);
    nlohmann::json summary = vtscope::testing::read_json(dir.path("summary.json"));
    const nlohmann::json& mappings = at(summary, "/mappings");
    EXPECT_EQ(text(summary, "/identity"), "hotspot-probes");
    EXPECT_EQ(at(mappings, "/inserted"), 32) << summary;
    EXPECT_EQ(at(mappings, "/deleted"), 32) << summary;
    EXPECT_EQ(at(mappings, "/unmounts_unmapped"), 0) << summary;
    EXPECT_EQ(at(mappings, "/ends_unmapped"), 0) << summary;
}

// Every syscall with a sys_enter tracepoint attaches, whatever its argument count (close has
// one, getpid none, exit_group one, openat four): fd and count where the syscall has them.
TEST(Syscalls, AnyArgumentCountAttachesAlongsideWrite) {
    REQUIRE_BPF();
    E2eRun run = run_harness({}, {}, {"--syscalls", "write,close,exit_group,getpid,openat"});
    expect_clean_run(run);
    CheckResult r = check_markers(run.expected, run.lines);
    EXPECT_EQ(r.correct, r.expected) << r.summary();
    std::map<std::string, int> seen;
    for (const auto& line : run.lines) {
        auto e = vtscope::parse_event_line(line);
        ASSERT_TRUE(e) << line;
        seen[e->syscall]++;
        if (e->syscall == "close") {
            EXPECT_TRUE(e->fd.has_value()) << line;
            EXPECT_FALSE(e->count.has_value()) << line;
        } else if (e->syscall != "write") {
            EXPECT_FALSE(e->count.has_value()) << line;
        }
    }
    std::printf("[ syscalls ] write %d, close %d, openat %d, exit_group %d, getpid %d\n", seen["write"], seen["close"],
                seen["openat"], seen["exit_group"], seen["getpid"]);
    EXPECT_GT(seen["close"], 0);
    EXPECT_GT(seen["openat"], 0);
    EXPECT_GT(seen["exit_group"], 0) << "the JVM's exit is traced before the target is gone";
}
