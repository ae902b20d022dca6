// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of `vtscope profile`: a real JDK 25 running the CpuBudgets workload (8
// virtual threads, each under its own trace, spinning known CPU budgets on 2 carriers), sampled
// by the real vtscope binary. Accuracy is checked against the ground truth the workload measured
// in the same run (ratios, never wall-clock thresholds: this machine is shared and loaded).
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/privilege.h"
#include "process/proc_stat.h"
#include "process_runner.h"
#include "test_support.h"

using namespace std::chrono_literals;
using nlohmann::json;
using vtscope::testing::at;
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

namespace {

using vtscope::testing::kJavaDir;
using vtscope::testing::kNoPrivilege;
using vtscope::testing::kVtscope;

struct Truth {
    std::string trace_id;
    int64_t vthread = 0;
    int budget_ms = 0;
    double cpu_ms = 0;
    int slices = 0;
    size_t carriers = 0;
    bool idle = false;
};

// A run of CpuBudgets under one or more profile sessions: the fixture's, the ground truth, and the
// first session's report and stacks.
struct ProfileRun : E2eRun {
    std::vector<Truth> truth;
    std::string report, folded, svg_path;
    double steal_share = 0;  // of the machine's busy CPU time while the threads spun
};

std::vector<Truth> read_truth(const std::vector<std::string>& lines) {
    std::vector<Truth> truth;
    std::string error;
    for (const json& j : vtscope::testing::parse_lines(lines, &error)) {
        Truth t;
        t.trace_id = text(j, "/trace_id");
        t.vthread = static_cast<int64_t>(number(j, "/vthread"));
        t.budget_ms = static_cast<int>(number(j, "/budget_ms"));
        t.cpu_ms = number(j, "/cpu_ns") / 1e6;
        t.slices = static_cast<int>(number(j, "/slices"));
        t.carriers = at(j, "/carriers").size();
        t.idle = at(j, "/idle") == true;
        truth.push_back(t);
    }
    EXPECT_EQ(error, "");
    return truth;
}

// Runs CpuBudgets under one `vtscope profile` session per entry of `sessions` (all started before
// the go file, stopped by SIGINT once the ground truth is written, while the JVM still lives, so
// its perf map can be read at the end). dir holds the files the sessions' options name.
ProfileRun run_profiled(const TempDir& dir, const std::vector<std::string>& jvm_options,
                        const std::vector<std::vector<std::string>>& sessions) {
    ProfileRun run;
    E2e e2e;
    std::vector<std::string> options = {"-Djdk.virtualThreadScheduler.parallelism=2"};
    options.insert(options.end(), jvm_options.begin(), jvm_options.end());
    ::testing::AssertionResult ready =
        e2e.start({"io.vtscope.workloads.CpuBudgets", options, {"--hold-file", e2e.path("hold")}});
    for (const std::vector<std::string>& session : sessions)
        if (ready) ready = e2e.attach("profile", session);
    if (!ready) {
        ADD_FAILURE() << ready.message();
        return run;
    }
    auto before = vtscope::read_proc_stat();
    e2e.go();
    if (!wait_for_file(e2e.path("expected.jsonl"), 300s, {&e2e.workload()}))
        ADD_FAILURE() << "no ground truth: " << read_file(e2e.path("java.err"));
    auto after = vtscope::read_proc_stat();
    if (before && after) run.steal_share = vtscope::steal_share(*before, *after).value_or(0);
    std::printf("[ profile  ] steal: %.1f%% of the machine's busy CPU time while the threads spun\n",
                100.0 * run.steal_share);
    e2e.signal_sessions(SIGINT);
    e2e.wait_sessions(120s);
    vtscope::testing::touch(e2e.path("hold"));
    e2e.wait_workload(60s);
    static_cast<E2eRun&>(run) = e2e.finish();
    for (const vtscope::testing::Session& session : run.sessions)
        if (session.summary.is_null()) ADD_FAILURE() << "no summary: " << session.stderr_text;
    if (!run.sessions.empty()) run.report = run.sessions[0].output_text;
    run.svg_path = dir.path("flame.svg");
    run.folded = read_file(dir.path("folded.txt"));
    run.truth = read_truth(run.expected);
    return run;
}

const json* find_trace(const json& profile, const std::string& trace_id) {
    for (const json& t : at(profile, "/traces"))
        if (text(t, "/trace_id") == trace_id) return &t;
    return nullptr;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return lines;
}

// Samples of each trace's folded stacks, and how many of them contain a frame matching needle.
std::map<std::string, std::pair<double, double>> frames_per_trace(const std::string& folded,
                                                                  const std::string& needle) {
    std::map<std::string, std::pair<double, double>> out;
    for (const std::string& line : lines_of(folded)) {
        auto space = line.rfind(' ');
        if (line.rfind("trace ", 0) != 0 || space == std::string::npos) continue;
        std::string trace = line.substr(6, line.find(';') - 6);
        double count = std::stod(line.substr(space + 1));
        out[trace].first += count;
        if (line.find(needle) != std::string::npos) out[trace].second += count;
    }
    return out;
}

// The folded lines of one trace that lack needle (what a failed stack check shows).
std::string stacks_without(const std::string& folded, const std::string& trace, const std::string& needle) {
    std::string out, prefix = "trace " + trace + ";";
    for (const std::string& line : lines_of(folded)) {
        if (line.rfind(prefix, 0) == 0 && line.find(needle) == std::string::npos) out += "  " + line + "\n";
    }
    return out;
}

// The acceptance checks on one session's profile: every trace over 100 ms within 15% of its
// ground truth (above it, of the ground truth plus the steal the machine measured), the ranking
// exact, the trace's samples on its own thread only and the thread's
// on its own trace only, none for the parked thread's trace, >= 98% of the carriers' samples
// attributed (ok or no_context). Returns the estimated ms per trace id.
std::map<std::string, double> check_accuracy(const ProfileRun& run, const json& profile, const std::string& label,
                                             const std::string& folded = "", double min_carrier_share = 0.98) {
    std::map<std::string, double> estimates;
    std::vector<Truth> spinners;
    for (const Truth& t : run.truth)
        if (!t.idle) spinners.push_back(t);
    EXPECT_EQ(spinners.size(), 8u) << run.java_stderr;
    auto spin_frames = frames_per_trace(folded, ";io.vtscope.workloads.CpuBudgets.spin");
    std::vector<std::pair<double, std::string>> by_truth, by_estimate;
    for (const Truth& t : spinners) {
        const json* est = find_trace(profile, t.trace_id);
        double samples = est ? number(*est, "/samples") : 0, cpu_ms = est ? number(*est, "/cpu_ms") : 0;
        double error = t.cpu_ms > 0 ? 100.0 * (cpu_ms - t.cpu_ms) / t.cpu_ms : 0;
        auto [folded_samples, with_spin] = spin_frames[t.trace_id];
        double spin_share = folded_samples > 0 ? 100.0 * with_spin / folded_samples : 0;
        std::printf(
            "[ profile  ] %s: trace %s vthread #%lld budget %3d ms: %4.0f samples, %6.1f ms estimated, "
            "%6.1f ms ground truth (%+.1f%%), %d slices on %zu carriers",
            label.c_str(), t.trace_id.c_str(), static_cast<long long>(t.vthread), t.budget_ms, samples, cpu_ms,
            t.cpu_ms, error, t.slices, t.carriers);
        if (!folded.empty()) std::printf("; spin frame in %.1f%%", spin_share);
        std::printf("\n");
        estimates[t.trace_id] = cpu_ms;
        EXPECT_NE(est, nullptr) << label << ": no samples for trace " << t.trace_id;
        if (!est) continue;
        if (t.budget_ms > 100) {  // "every trace over 100 ms": the 150 to 400 ms budgets
            // Steal: the cpu-clock event's hrtimer runs on CLOCK_MONOTONIC and samples the task
            // current when it fires (perf_swevent_hrtimer, kernel/events/core.c), so time the
            // hypervisor stole while a thread was current counts in its samples; its CPU clock
            // (sum_exec_runtime, advanced by the run queue's clock_task) leaves that time out
            // (update_rq_clock_task, kernel/sched/core.c, CONFIG_PARAVIRT_TIME_ACCOUNTING=y
            // here). A thread that lost the machine's share s of its time to steal is sampled
            // as truth / (1 - s), so the 15% above the ground truth is counted from there.
            double ceiling = 100.0 * (1.15 / (1.0 - std::min(run.steal_share, 0.5)) - 1.0);
            EXPECT_GE(error, -15.0) << label << ": trace " << t.trace_id;
            EXPECT_LE(error, ceiling) << label << ": trace " << t.trace_id << " (steal " << 100.0 * run.steal_share
                                      << "% of the busy CPU time)";
        }
        if (!folded.empty()) {
            EXPECT_GE(spin_share, 80.0) << label << ": trace " << t.trace_id << "; its stacks without the spin frame:\n"
                                        << stacks_without(folded, t.trace_id, ";io.vtscope.workloads.CpuBudgets.spin");
        }
        EXPECT_EQ(at(*est, "/vthreads").size(), 1u) << label;
        if (at(*est, "/vthreads").size() == 1) {
            EXPECT_EQ(static_cast<int64_t>(number(*est, "/vthreads/0")), t.vthread) << label;
        }
        by_truth.push_back({t.cpu_ms, t.trace_id});
        by_estimate.push_back({cpu_ms, t.trace_id});
    }
    for (const json& v : at(profile, "/vthreads")) {
        int64_t id = static_cast<int64_t>(number(v, "/java_id"));
        auto own = std::find_if(spinners.begin(), spinners.end(), [&](const Truth& t) { return t.vthread == id; });
        for (const auto& item : at(v, "/traces").items()) {
            const std::string& trace = item.key();
            // "none": no_context, before the first publish or after the clear; "unknown":
            // context_unknown, no trace to check (the attributed share is checked above).
            if (trace == "none" || trace == "unknown") continue;
            EXPECT_NE(own, spinners.end())
                << label << ": samples of trace " << trace << " on unknown virtual thread #" << id;
            if (own != spinners.end()) {
                EXPECT_EQ(trace, own->trace_id) << label << ": " << item.value() << " samples of virtual thread #" << id
                                                << " under a foreign trace";
            }
        }
    }
    std::sort(by_truth.rbegin(), by_truth.rend());
    std::sort(by_estimate.rbegin(), by_estimate.rend());
    for (size_t i = 0; i < by_truth.size() && i < by_estimate.size(); i++)
        EXPECT_EQ(by_truth[i].second, by_estimate[i].second) << label << ": rank " << i;

    // The parked control thread: never mounted while sampled, so never named.
    for (const Truth& t : run.truth) {
        if (t.idle) {
            EXPECT_EQ(find_trace(profile, t.trace_id), nullptr) << label << ": samples for the parked thread's trace";
        }
    }

    // Carriers: the default scheduler's ForkJoinPool workers (comm is cut at 15 characters).
    double carrier_samples = 0, carrier_attributed = 0;
    for (const json& th : at(profile, "/threads")) {
        if (text(th, "/name").rfind("ForkJoinPool-", 0) != 0) continue;
        carrier_samples += number(th, "/samples");
        carrier_attributed += number(th, "/ok") + number(th, "/no_context");
    }
    std::printf("[ profile  ] %s: carriers: %.0f of %.0f samples attributed (%.2f%%)\n", label.c_str(),
                carrier_attributed, carrier_samples,
                carrier_samples > 0 ? 100.0 * carrier_attributed / carrier_samples : 0.0);
    EXPECT_GT(carrier_samples, 0) << label;
    if (carrier_samples > 0) {
        EXPECT_GE(carrier_attributed / carrier_samples, min_carrier_share) << label;
    }
    return estimates;
}

}  // namespace

// The acceptance run (default identity channel, vmstructs) at 499 Hz with --stacks and
// -XX:+PreserveFramePointer: the accuracy checks, >= 80% of each trace's samples contain the spin
// method, and the flame graph opens in a real headless browser.
TEST(Profile, CpuPerTraceMatchesGroundTruth) {
    REQUIRE_BPF();
    TempDir dir;
    // spin keeps its own frame only when C2 does not inline it into slice.
    ProfileRun run = run_profiled(
        dir,
        {"-XX:+PreserveFramePointer", "-XX:CompileCommand=quiet",
         "-XX:CompileCommand=dontinline,io.vtscope.workloads.CpuBudgets::spin"},
        {{"--hz", "499", "--stacks", "--folded", dir.path("folded.txt"), "--flamegraph", dir.path("flame.svg")}});
    ASSERT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    ASSERT_EQ(run.java_exit, 0) << run.java_stderr;
    std::printf("%s", run.report.c_str());
    const json& profile = at(run.summary, "/profile");
    ASSERT_TRUE(profile.is_object()) << run.vtscope_stderr;
    EXPECT_EQ(at(run.summary, "/lost"), 0);
    EXPECT_EQ(at(profile, "/hz"), 499);
    // With cpu-clock (no hardware PMU in these VMs) the session's steal share is known.
    if (text(profile, "/event") == "cpu-clock") {
        EXPECT_TRUE(at(profile, "/steal_share").is_number()) << run.vtscope_stderr;
    }
    EXPECT_EQ(run.vtscope_stderr.find("PreserveFramePointer"), std::string::npos) << run.vtscope_stderr;
    check_accuracy(run, profile, "vmstructs", run.folded);

    // The SVG in a real headless browser: its script ran (data-ready), zoom and search worked on
    // one tower per trace, and nothing was logged as an uncaught error.
    std::string svg = read_file(run.svg_path);
    ASSERT_NE(svg.find("<svg"), std::string::npos);
    const std::string chromium = "/usr/bin/chromium";
    if (!std::filesystem::exists(chromium)) {
        std::fprintf(stderr, "\n*** SKIPPED: the flame graph browser check: no %s (apt-get install chromium) ***\n\n",
                     chromium.c_str());
        return;
    }
    std::string dom_path = dir.path("dom.txt");
    Child browser =
        Child::start({chromium, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                      "--user-data-dir=" + dir.path("chromium"), "--dump-dom", "file://" + run.svg_path + "#selftest"},
                     dom_path, dir.path("chromium.err"));
    ASSERT_EQ(browser.wait(180s).value_or(-1), 0) << read_file(dir.path("chromium.err"));
    std::string dom = read_file(dom_path);
    std::string log = read_file(dir.path("chromium.err"));
    EXPECT_NE(dom.find("data-ready=\"1\""), std::string::npos) << dom.substr(0, 400) << "\n" << log;
    EXPECT_EQ(log.find("Uncaught"), std::string::npos) << log;
    auto selftest_at = dom.find("data-selftest=\"");
    ASSERT_NE(selftest_at, std::string::npos) << log;
    std::string selftest = dom.substr(selftest_at + 15, dom.find('"', selftest_at + 15) - selftest_at - 15);
    std::printf("[ profile  ] flame graph in Chromium: %s\n", selftest.c_str());
    int towers = 0;
    std::sscanf(selftest.c_str(), "towers=%d", &towers);
    // One tower per trace, plus one per non-virtual thread name (threads of one name share one).
    std::set<std::string> roots;
    for (const json& t : at(profile, "/traces")) roots.insert(text(t, "/trace_id"));
    for (const json& t : at(profile, "/non_virtual")) roots.insert(text(t, "/name"));
    EXPECT_GE(static_cast<size_t>(towers), roots.size()) << selftest;
    EXPECT_GE(towers, 8) << selftest;
}

// The lifecycle channel as a reference: two sessions sample the same run, one resolving the
// mounted thread through HotSpot's _monitor_owner_id (vmstructs, with --per-thread events, so
// that mode meets the same checks), one through libvtscope.so's mount/unmount probes (lifecycle,
// per-CPU events). Both pass the accuracy checks (no sample on a foreign or the
// parked thread's trace, each trace within 15% of its ground truth) and agree per trace within 10%
// of its ground truth or four standard deviations of the difference that sampling alone gives,
// whichever is larger: a slice of S sampling periods collects S rounded up or down, an error of
// variance at most 1/4 of a sample for a sampler of independent phase, so two sessions' estimates
// of a thread's N slices differ with a variance of at most N/2 samples. (Over ten runs the two
// channels' estimates differed by -6.0% to +7.3% of the ground truth; 10% alone failed one run in a
// fresh clone at 13.0%: 41 slices, a four-sigma bound of 36 ms for a 200 ms thread.) The lifecycle
// channel maps a carrier only from its first mount seen, so its carrier share is only printed.
TEST(Profile, LifecycleChannelAgreesWithVmStructs) {
    REQUIRE_BPF();
    TempDir dir;
    constexpr int kHz = 499;
    ProfileRun run = run_profiled(
        dir, {"-agentpath:" + std::string(VTSCOPE_NATIVE_LIB) + "=probes"},
        {{"--hz", std::to_string(kHz), "--per-thread"}, {"--hz", std::to_string(kHz), "--identity", "lifecycle"}});
    ASSERT_EQ(run.sessions.size(), 2u);
    ASSERT_EQ(run.java_exit, 0) << run.java_stderr;
    for (const vtscope::testing::Session& s : run.sessions) ASSERT_EQ(s.exit, 0) << s.stderr_text;
    ASSERT_EQ(text(run.sessions[1].summary, "/identity"), "lifecycle");
    auto vmstructs = check_accuracy(run, at(run.sessions[0].summary, "/profile"), "vmstructs");
    auto lifecycle = check_accuracy(run, at(run.sessions[1].summary, "/profile"), "lifecycle", "", 0.0);
    for (const Truth& t : run.truth) {
        if (t.idle || t.budget_ms <= 100) continue;
        double a = vmstructs[t.trace_id], b = lifecycle[t.trace_id];
        std::printf("[ profile  ] trace %s: vmstructs %.1f ms, lifecycle %.1f ms (%+.1f%% of the ground truth)\n",
                    t.trace_id.c_str(), a, b, 100.0 * (a - b) / t.cpu_ms);
        double period_ms = 1000.0 / kHz, sampling_sigma_ms = std::sqrt(t.slices / 2.0) * period_ms;
        EXPECT_LE(std::fabs(a - b), std::max(0.10 * t.cpu_ms, 4 * sampling_sigma_ms)) << "trace " << t.trace_id;
    }
}

// Without -XX:+PreserveFramePointer the tool warns, and native frames still resolve.
TEST(Profile, WarnsWithoutFramePointersAndResolvesNativeFrames) {
    REQUIRE_BPF();
    TempDir dir;
    ProfileRun run = run_profiled(dir, {}, {{"--hz", "199", "--folded", dir.path("folded.txt")}});
    ASSERT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    EXPECT_NE(run.vtscope_stderr.find("-XX:+PreserveFramePointer"), std::string::npos) << run.vtscope_stderr;
    EXPECT_NE(run.report.find("-XX:+PreserveFramePointer"), std::string::npos) << run.report;
    // Some frame named from an ELF symbol table (neither a bracketed placeholder nor kernel).
    size_t named = 0;
    for (const std::string& frame :
         {std::string(";clock_gettime"), std::string(";JavaThread::"), std::string(";start_thread")})
        if (run.folded.find(frame) != std::string::npos) named++;
    EXPECT_GT(named, 0u) << run.folded.substr(0, 2000);
}

// Bad input: one line naming the problem, non-zero exit.
TEST(Profile, NotAJvm) {
    REQUIRE_BPF();
    Child sleeper = Child::start({"sleep", "60"}, "", "");
    std::string err;
    EXPECT_NE(run_command({kVtscope, "profile", "--pid", std::to_string(sleeper.pid())}, &err, 60s), 0);
    EXPECT_NE(err.find("is not a JVM"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST(Profile, BadInput) {
    struct Case {
        std::vector<std::string> args;
        std::string needle;
    } cases[] = {
        {{"profile"}, "profile needs --pid PID"},
        {{"profile", "--pid", "-3"}, "invalid pid"},
        {{"profile", "--pid", "no.such.Jvm"}, "no JVM matches 'no.such.Jvm'"},
        {{"profile", "--pid", "1", "--hz", "0"}, "invalid --hz: '0'"},
        {{"profile", "--pid", "1", "--by", "thread"}, "invalid --by: 'thread'"},
        {{"profile", "--pid", "1", "--bogus"}, "unknown option for profile: '--bogus'"},
        {{"profile", "--pid", "99999999"}, "no process with pid 99999999"},
        {{"profile", "--pid", "1", "--output", "/nonexistent-dir/x.txt"}, "cannot write output /nonexistent-dir/x.txt"},
        // Before the session, not after it: the stacks of a long session would be lost.
        {{"profile", "--pid", "1", "--duration", "600", "--flamegraph", "/nonexistent-dir/x.svg"},
         "cannot write output /nonexistent-dir/x.svg"},
        {{"profile", "--pid", "1", "--duration", "600", "--folded", "/nonexistent-dir/x.folded"},
         "cannot write output /nonexistent-dir/x.folded"},
        {{"profile", "--pid", "1", "--pid", "2"}, "--pid given twice"},
        {{"profile", "--pid", "1", "--folded", "-"}, "would share standard output"},
    };
    for (const Case& c : cases) {
        std::vector<std::string> argv = {kVtscope};
        argv.insert(argv.end(), c.args.begin(), c.args.end());
        std::string err;
        int code = run_command(argv, &err, 60s);
        EXPECT_NE(code, 0) << ::testing::PrintToString(c.args);
        EXPECT_NE(err.find(c.needle), std::string::npos) << "stderr: " << err;
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "one line expected, got: " << err;
    }
}
