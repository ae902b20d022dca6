// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of a JVM in a container, traced from the host by its host pid. The containers
// are sandboxes made with unshare(1): a pid namespace of their own (the JVM is pid 1 there) with
// its own /proc, a mount namespace of their own with a private tmpfs on /tmp and /dev/shm (so the
// JVM's perf map, attach socket, JFR recording and record-region file are invisible on the host's
// /tmp), run as root, as nobody (setpriv), or as root of a user namespace of their own. The test
// folder is bind-mounted at its own path inside, so the workload's ready, go and ground-truth files
// still meet. Every check is the one the host run passes: all markers on both planes, block's and
// profile's frames and intervals the same as a host run of the same workload. Root is needed (BPF);
// where unshare is not permitted every test says SKIPPED loudly.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "attribution_checker.h"
#include "cli/privilege.h"
#include "e2e_fixture.h"
#include "process/proc_stat.h"
#include "process/proc_status.h"
#include "process_runner.h"
#include "test_support.h"

using namespace std::chrono_literals;
using nlohmann::json;
using vtscope::testing::at;
using vtscope::testing::CheckResult;
using vtscope::testing::E2e;
using vtscope::testing::E2eRun;
using vtscope::testing::number;
using vtscope::testing::read_file;
using vtscope::testing::text;
using vtscope::testing::Workload;

namespace {

enum class Sandbox { kRoot, kNobody, kUserNamespace };

std::string sandbox_name(Sandbox s) {
    switch (s) {
        case Sandbox::kRoot: return "PidMountRoot";
        case Sandbox::kNobody: return "PidMountNobody";
        case Sandbox::kUserNamespace: return "UserPidMount";
    }
    return "?";
}

// unshare's options: new pid and mount namespaces (with a /proc of the new pid namespace), the
// child killed with unshare, mounts kept private to the sandbox.
std::vector<std::string> unshare_command(Sandbox s) {
    std::vector<std::string> argv = {"/usr/bin/unshare"};
    if (s == Sandbox::kUserNamespace) argv.insert(argv.end(), {"--user", "--map-root-user"});
    argv.insert(argv.end(), {"--pid", "--fork", "--kill-child", "--mount-proc", "--mount", "--propagation", "private"});
    return argv;
}

// What runs inside, as root of the sandbox, before the JVM: the test folder moved aside (/mnt),
// fresh tmpfs on /tmp and /dev/shm, the folder put back at its path, then exec of the rest.
const char* const kInside =
    "mount --bind \"$0\" /mnt && mount -t tmpfs tmpfs /tmp && mount -t tmpfs tmpfs /dev/shm && "
    "mkdir -p \"$0\" && mount --move /mnt \"$0\" && exec \"$@\"";

// The command before the JVM's options: unshare, the mounts, setpriv for nobody, java.
std::vector<std::string> sandbox_launcher(Sandbox s, const std::string& dir) {
    std::vector<std::string> argv = unshare_command(s);
    argv.insert(argv.end(), {"/bin/sh", "-c", kInside, dir});
    if (s == Sandbox::kNobody)
        argv.insert(argv.end(), {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
    argv.insert(argv.end(), {vtscope::testing::java_bin(), "--enable-native-access=ALL-UNNAMED"});
    return argv;
}

// Why this machine cannot make the sandbox (unshare refused: no privilege, user namespaces
// disabled, a seccomp profile), or empty.
std::string sandbox_unavailable(Sandbox s) {
    vtscope::testing::TempDir dir;
    std::vector<std::string> argv = unshare_command(s);
    argv.insert(argv.end(), {"/bin/sh", "-c", kInside, dir.path(""), "/bin/true"});
    std::string err;
    int code = vtscope::testing::run_command(argv, &err, 30s);
    if (code == 0) return "";
    return "unshare is not permitted here (" + sandbox_name(s) + ", exit " + std::to_string(code) + "): " + err;
}

#define REQUIRE_SANDBOX(s)                                                               \
    do {                                                                                 \
        REQUIRE_BPF();                                                                   \
        if (std::string why_ = sandbox_unavailable(s); !why_.empty()) SKIP_LOUDLY(why_); \
    } while (0)

// Starts the workload inside the sandbox and points the sessions at the JVM: the only child of
// unshare, pid 1 of its own pid namespace (its NSpid's last field).
::testing::AssertionResult start_sandboxed(E2e& e2e, Workload workload, Sandbox s) {
    std::string dir = e2e.path("");
    dir.pop_back();  // no trailing slash: it is a mount point inside
    // The JVM writes its ready file and ground truth there, as nobody too.
    if (s == Sandbox::kNobody && chown(dir.c_str(), 65534, 65534) != 0)
        return ::testing::AssertionFailure() << "cannot hand the test folder to nobody";
    workload.launcher = sandbox_launcher(s, dir);
    ::testing::AssertionResult ready = e2e.start(workload);
    if (!ready) return ready;
    pid_t unshare = e2e.workload().pid();
    std::string children =
        read_file("/proc/" + std::to_string(unshare) + "/task/" + std::to_string(unshare) + "/children");
    pid_t jvm = static_cast<pid_t>(std::atoi(children.c_str()));
    auto status = vtscope::read_proc_status(jvm);
    if (jvm <= 0 || !status || status->ns_levels < 2 || status->ns_pid != 1)
        return ::testing::AssertionFailure() << "no JVM as pid 1 of its own pid namespace under unshare " << unshare
                                             << " (children: " << children << ")";
    e2e.set_target(jvm);
    return ::testing::AssertionSuccess();
}

// Every line carries the JVM's own pid (1), and its thread's own tid, which is not the host's.
// ns_tid may be null only for a thread that exited before its first event was written (a line
// drained after the JVM exited); the attributed lines come from carriers that live on.
void expect_namespace_ids(const std::vector<json>& lines, const std::string& what) {
    size_t with_tid = 0, attributed = 0;
    for (const json& line : lines) {
        if (line.contains("jfr_only")) continue;
        ASSERT_EQ(at(line, "/ns_pid"), 1) << what << ": " << line.dump();
        const json& ns_tid = at(line, "/ns_tid");
        if (text(line, "/status") == "ok") {
            attributed++;
            EXPECT_TRUE(ns_tid.is_number()) << what << ": " << line.dump();
        }
        if (!ns_tid.is_number()) continue;
        with_tid++;
        EXPECT_NE(ns_tid, at(line, "/tid")) << what << ": " << line.dump();
    }
    std::printf("[ container] %s: %zu lines, %zu with ns_tid, %zu attributed\n", what.c_str(), lines.size(), with_tid,
                attributed);
    EXPECT_GT(attributed, 0u) << what;
}

std::vector<json> parse(const std::vector<std::string>& lines) {
    std::string error;
    std::vector<json> out = vtscope::testing::parse_lines(lines, &error);
    EXPECT_EQ(error, "");
    return out;
}

class Sandboxed : public ::testing::TestWithParam<Sandbox> {};

// The reproduction: the paper's marker harness in the sandbox gave 1000 of 1000 writes
// context_unknown/no_record_region (the region's writer pid is the JVM's own, 1) and, for threads
// that existed at attach, not_java_thread (OSThread's tid is the JVM's own too). Now every marker
// is attributed on both planes, as on the host (integration_test.cpp, PaperHarness).
TEST_P(Sandboxed, EveryMarkerAttributedOnBothPlanes) {
    REQUIRE_SANDBOX(GetParam());
    for (const std::vector<std::string>& harness :
         {std::vector<std::string>{"--scope", "clean"},
          std::vector<std::string>{"--mode", "concurrent", "--scope", "leaky-final", "--threads", "200"}}) {
        E2e e2e;
        Workload workload("io.vtscope.workloads.MarkerHarness", {"-Djdk.virtualThreadScheduler.parallelism=2"},
                          harness);
        ::testing::AssertionResult ready = start_sandboxed(e2e, workload, GetParam());
        if (ready) ready = e2e.attach("trace", {"--syscalls", "write"});
        ASSERT_TRUE(ready) << ready.message();
        E2eRun run = e2e.run();
        EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
        EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
        EXPECT_EQ(text(run.summary, "/stop_reason"), "target exited") << run.vtscope_stderr;
        EXPECT_EQ(number(run.summary, "/lost"), 0) << run.vtscope_stderr;
        EXPECT_EQ(at(run.summary, "/region_found"), true) << run.vtscope_stderr;
        CheckResult r = vtscope::testing::check_markers(run.expected, run.lines);
        std::printf("[ container] %s %s: %s\n", sandbox_name(GetParam()).c_str(),
                    ::testing::PrintToString(harness).c_str(), r.summary().c_str());
        EXPECT_GE(r.expected, 128);
        EXPECT_EQ(r.correct, r.expected) << r.summary() << "\n" << run.vtscope_stderr;
        EXPECT_EQ(r.misattributed, 0);
        EXPECT_EQ(r.extra, 0);
        expect_namespace_ids(parse(run.lines), "trace");
    }
}

// The OTEP 4947 reader (--identity otep-tls: the exported TLS symbol of libvtscope.so, loaded with
// -agentpath:...=otep, read as a third-party reader would) and the library's lifecycle probes
// (--identity lifecycle, =probes) in the sandbox: every marker correct, as on the host
// (integration_test.cpp, OtepTls.* and the lifecycle channels' tests).
TEST_P(Sandboxed, LibraryChannelsAttributeEveryMarker) {
    REQUIRE_SANDBOX(GetParam());
    for (const char* channel : {"otep-tls", "lifecycle"}) {
        E2e e2e;
        std::string agent = std::string("-agentpath:") + VTSCOPE_NATIVE_LIB + "=" +
                            (std::string(channel) == "otep-tls" ? "otep" : "probes");
        Workload workload("io.vtscope.workloads.MarkerHarness", {agent, "-Djdk.virtualThreadScheduler.parallelism=2"},
                          {"--mode", "concurrent", "--yields", "--nested", "--scope", "leaky-final"});
        ::testing::AssertionResult ready = start_sandboxed(e2e, workload, GetParam());
        if (ready) ready = e2e.attach("trace", {"--syscalls", "write", "--identity", channel});
        ASSERT_TRUE(ready) << ready.message();
        E2eRun run = e2e.run();
        EXPECT_EQ(run.java_exit, 0) << run.java_stderr;
        EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
        EXPECT_EQ(number(run.summary, "/lost"), 0) << run.vtscope_stderr;
        CheckResult r = vtscope::testing::check_markers(run.expected, run.lines);
        std::printf("[ container] %s --identity %s: %s\n", sandbox_name(GetParam()).c_str(), channel,
                    r.summary().c_str());
        EXPECT_EQ(r.expected, 128);
        EXPECT_EQ(r.correct, r.expected) << channel << ": " << r.summary() << "\n" << run.vtscope_stderr;
        EXPECT_EQ(r.misattributed, 0);
        expect_namespace_ids(parse(run.lines), std::string("trace --identity ") + channel);
    }
}

INSTANTIATE_TEST_SUITE_P(Sandboxes, Sandboxed,
                         ::testing::Values(Sandbox::kRoot, Sandbox::kNobody, Sandbox::kUserNamespace),
                         [](const auto& p) { return sandbox_name(p.param); });

// --- block --stacks: the same intervals and frames as on the host ---------------------------------

struct BlockRun {
    E2eRun run;
    std::vector<json> truth, intervals;
};

// PinningCases (3 repetitions of every case, on 2 carriers, frame pointers kept) under `vtscope
// block --threshold 5 --stacks` plus extra; on the host, or in sandbox s.
BlockRun run_block(std::optional<Sandbox> s, const std::vector<std::string>& extra = {}) {
    E2e e2e;
    Workload workload("io.vtscope.workloads.PinningCases",
                      {"-Djdk.virtualThreadScheduler.parallelism=2", "-XX:+PreserveFramePointer"},
                      {"--repetitions", "3"});
    ::testing::AssertionResult ready = s ? start_sandboxed(e2e, workload, *s) : e2e.start(workload);
    std::vector<std::string> options = {"--threshold", "5", "--stacks"};
    options.insert(options.end(), extra.begin(), extra.end());
    if (ready) ready = e2e.attach("block", options);
    BlockRun out;
    if (!ready) {
        out.run.error = ready.message();
        return out;
    }
    out.run = e2e.run();
    out.truth = parse(out.run.expected);
    out.intervals = parse(out.run.lines);
    return out;
}

std::string str(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "null";
}

// What a run says of each blocking case: its operation's interval (the one of its virtual thread
// inside its window, in its syscall, covering at least half of it; exactly one, as
// block_test.cpp requires), by reason and syscall, and the workload's frames found in the user
// stack of every repetition's interval (a frame some repetitions lack, the JIT's timing decides).
std::map<std::string, std::set<std::string>> block_shape(const BlockRun& b, const std::string& label) {
    std::map<std::string, std::set<std::string>> shape;
    std::map<std::string, std::set<std::string>> frames;  // case -> frames of every operation so far
    for (const json& op : b.truth) {
        if (at(op, "/blocking") != true) continue;
        std::string kase = str(op, "case");
        double t0 = number(op, "/t0_ns") - 2e6, t1 = number(op, "/t1_ns") + 2e6;  // block_test.cpp's slack
        std::vector<const json*> found;
        for (const json& iv : b.intervals)
            if (at(iv, "/vthread") == at(op, "/vthread") && str(iv, "syscall") == str(op, "syscall") &&
                number(iv, "/ts_ns") >= t0 && number(iv, "/ts_ns") + number(iv, "/duration_ns") <= t1 &&
                number(iv, "/duration_ns") >= 0.5 * (t1 - t0 - 4e6))
                found.push_back(&iv);
        EXPECT_EQ(found.size(), 1u) << label << " " << kase << " rep " << number(op, "/rep");
        if (found.size() != 1) {
            // What the thread did in the window instead, for the failure's message.
            for (const json& iv : b.intervals)
                if (at(iv, "/vthread") == at(op, "/vthread"))
                    std::printf("[ container] %s %s rep %.0f (window %.1f ms): %+.1f ms, %.1f ms: %s\n", label.c_str(),
                                kase.c_str(), number(op, "/rep"), (t1 - t0 - 4e6) / 1e6,
                                (number(iv, "/ts_ns") - t0 - 2e6) / 1e6, number(iv, "/duration_ns") / 1e6,
                                iv.dump().substr(0, 400).c_str());
            continue;
        }
        const json& iv = *found[0];
        EXPECT_EQ(str(iv, "trace_id"), str(op, "trace_id")) << label << " " << kase;
        EXPECT_EQ(str(iv, "span_id"), str(op, "span_id")) << label << " " << kase;
        shape[kase].insert(str(iv, "block_reason") + " " + str(iv, "syscall"));
        std::set<std::string> mine;
        for (const json& frame : at(iv, "/user_stack"))
            if (frame.is_string() &&
                frame.get<std::string>().find("io.vtscope.workloads.PinningCases") != std::string::npos)
                mine.insert(frame.get<std::string>());
        auto known = frames.find(kase);
        if (known == frames.end()) {
            frames[kase] = mine;
        } else {
            std::erase_if(known->second, [&](const std::string& f) { return !mine.count(f); });
        }
    }
    for (const auto& [kase, common] : frames) shape[kase].insert(common.begin(), common.end());
    return shape;
}

void expect_clean(const E2eRun& run, const std::string& label) {
    ASSERT_TRUE(run.error.empty()) << label << ": " << run.error;
    EXPECT_EQ(run.java_exit, 0) << label << ": " << run.java_stderr;
    EXPECT_EQ(run.vtscope_exit, 0) << label << ": " << run.vtscope_stderr;
    EXPECT_EQ(number(run.summary, "/lost"), 0) << label << ": " << run.vtscope_stderr;
}

void print_shape(const std::map<std::string, std::set<std::string>>& shape, const std::string& label) {
    for (const auto& [kase, items] : shape) {
        std::string all;
        for (const std::string& item : items) all += (all.empty() ? "" : " | ") + item;
        std::printf("[ container] block %s %-20s %s\n", label.c_str(), kase.c_str(), all.c_str());
    }
}

// The pinning matrix on the host and in the nobody sandbox: per case, the same reasons and
// syscalls and the same Java frames of the workload (the sandboxed JVM's perf map is
// /tmp/perf-1.map inside its own /tmp, made through its attach socket there).
TEST(Container, BlockStacksNameTheSameIntervalsAndFramesAsOnTheHost) {
    REQUIRE_SANDBOX(Sandbox::kNobody);
    BlockRun host = run_block(std::nullopt);
    expect_clean(host.run, "host");
    BlockRun boxed = run_block(Sandbox::kNobody);
    expect_clean(boxed.run, "sandbox");
    auto host_shape = block_shape(host, "host");
    auto boxed_shape = block_shape(boxed, "sandbox");
    print_shape(host_shape, "host   ");
    print_shape(boxed_shape, "sandbox");
    EXPECT_GE(host_shape.size(), 5u);
    EXPECT_EQ(boxed_shape, host_shape);
    EXPECT_EQ(boxed.run.vtscope_stderr.find("perf map"), std::string::npos) << boxed.run.vtscope_stderr;
    expect_namespace_ids(boxed.intervals, "block");
    for (const json& iv : host.intervals) EXPECT_FALSE(iv.contains("ns_pid")) << "on the host: " << iv.dump();
}

// --jfr in the sandbox: the recording is started through the attach socket in the JVM's /tmp and
// written there as nobody; every jdk.VirtualThreadPinned event joins an interval, as on the host
// (block_test.cpp, Block.JfrPinnedEventsJoinTheirIntervals).
TEST(Container, BlockJfrJoinsEveryPinnedEvent) {
    REQUIRE_SANDBOX(Sandbox::kNobody);
    BlockRun boxed = run_block(Sandbox::kNobody, {"--jfr"});
    expect_clean(boxed.run, "sandbox --jfr");
    const json& jfr = at(boxed.run.summary, "/block/jfr");
    std::printf("[ container] block --jfr in the sandbox: %.0f JFR events, %.0f joined, %.0f JFR only\n",
                number(jfr, "/events"), number(jfr, "/joined"), number(jfr, "/jfr_only"));
    EXPECT_GE(number(jfr, "/events"), 3 * 4) << boxed.run.vtscope_stderr;  // 4 pinning cases JFR reports
    EXPECT_EQ(number(jfr, "/joined"), number(jfr, "/events")) << boxed.run.vtscope_stderr;
    EXPECT_EQ(number(jfr, "/jfr_only"), 0);
}

// --- profile --stacks: the same frames as on the host -----------------------------------------------

struct ProfileRun {
    E2eRun run;
    std::string folded;
    double steal_share = 0;  // of the machine's busy CPU time while the threads spun
};

// CpuBudgets under `vtscope profile --hz 499 --stacks --folded`, stopped by SIGINT once the
// ground truth is written (the JVM still lives: its perf map is read at the end).
ProfileRun run_profile(std::optional<Sandbox> s) {
    E2e e2e;
    ProfileRun out;
    Workload workload(
        "io.vtscope.workloads.CpuBudgets",
        {"-Djdk.virtualThreadScheduler.parallelism=2", "-XX:+PreserveFramePointer", "-XX:CompileCommand=quiet",
         "-XX:CompileCommand=dontinline,io.vtscope.workloads.CpuBudgets::spin"},
        {"--hold-file", e2e.path("hold")});
    ::testing::AssertionResult ready = s ? start_sandboxed(e2e, workload, *s) : e2e.start(workload);
    if (ready) ready = e2e.attach("profile", {"--hz", "499", "--stacks", "--folded", e2e.path("folded.txt")});
    if (!ready) {
        out.run.error = ready.message();
        return out;
    }
    auto before = vtscope::read_proc_stat();
    e2e.go();
    if (!vtscope::testing::wait_for_file(e2e.path("expected.jsonl"), 300s, {&e2e.workload()}))
        ADD_FAILURE() << "no ground truth: " << read_file(e2e.path("java.err"));
    auto after = vtscope::read_proc_stat();
    if (before && after) out.steal_share = vtscope::steal_share(*before, *after).value_or(0);
    e2e.signal_sessions(SIGINT);
    e2e.wait_sessions(120s);
    vtscope::testing::touch(e2e.path("hold"));
    e2e.wait_workload(60s);
    out.run = e2e.finish();
    out.folded = read_file(e2e.path("folded.txt"));
    return out;
}

// The workload's frames that hold at least 5% of the samples under a trace, and each trace over
// 100 ms against its ground truth: within 15% below, and 15% above the ground truth plus the
// steal the machine measured (profile_test.cpp's check on the host, which says why).
std::set<std::string> profile_shape(const ProfileRun& p, const std::string& label) {
    std::map<std::string, double> frame_samples;
    double trace_samples = 0;
    size_t pos = 0;
    while (pos < p.folded.size()) {
        size_t end = p.folded.find('\n', pos);
        if (end == std::string::npos) end = p.folded.size();
        std::string line = p.folded.substr(pos, end - pos);
        pos = end + 1;
        size_t space = line.rfind(' ');
        if (space == std::string::npos || line.starts_with("[")) continue;  // not under a trace
        double count = std::atof(line.c_str() + space + 1);
        trace_samples += count;
        std::set<std::string> frames;
        size_t at_frame = 0;
        for (size_t semi = 0; semi != std::string::npos; at_frame = semi + 1) {
            semi = line.find(';', at_frame);
            std::string frame = line.substr(at_frame, (semi == std::string::npos ? space : semi) - at_frame);
            if (frame.find("io.vtscope.workloads.CpuBudgets") != std::string::npos) frames.insert(frame);
        }
        for (const std::string& f : frames) frame_samples[f] += count;
    }
    std::set<std::string> shape;
    for (const auto& [frame, samples] : frame_samples) {
        std::printf("[ container] profile %s %5.1f%% %s\n", label.c_str(), 100 * samples / trace_samples,
                    frame.c_str());
        if (samples >= 0.05 * trace_samples) shape.insert(frame);
    }
    const json& profile = at(p.run.summary, "/profile");
    double ceiling = 1.15 / (1.0 - std::min(p.steal_share, 0.5));
    for (const json& truth : parse(p.run.expected)) {
        if (at(truth, "/idle") == true || number(truth, "/budget_ms") <= 100) continue;
        double cpu_ms = number(truth, "/cpu_ns") / 1e6, seen = -1;
        for (const json& t : at(profile, "/traces"))
            if (text(t, "/trace_id") == text(truth, "/trace_id")) seen = number(t, "/cpu_ms");
        std::printf("[ container] profile %s trace %s: %.1f ms estimated, %.1f ms ground truth (steal %.1f%%)\n",
                    label.c_str(), text(truth, "/trace_id").c_str(), seen, cpu_ms, 100 * p.steal_share);
        EXPECT_GE(seen, 0.85 * cpu_ms) << label << " trace " << text(truth, "/trace_id");
        EXPECT_LE(seen, ceiling * cpu_ms) << label << " trace " << text(truth, "/trace_id");
    }
    return shape;
}

TEST(Container, ProfileStacksNameTheSameFramesAsOnTheHost) {
    REQUIRE_SANDBOX(Sandbox::kNobody);
    ProfileRun host = run_profile(std::nullopt);
    expect_clean(host.run, "host");
    ProfileRun boxed = run_profile(Sandbox::kNobody);
    expect_clean(boxed.run, "sandbox");
    std::set<std::string> host_frames = profile_shape(host, "host   ");
    std::set<std::string> boxed_frames = profile_shape(boxed, "sandbox");
    EXPECT_FALSE(host_frames.empty());
    EXPECT_TRUE(host_frames.count("io.vtscope.workloads.CpuBudgets.spin")) << host.folded.substr(0, 2000);
    EXPECT_EQ(boxed_frames, host_frames);
    EXPECT_EQ(boxed.run.vtscope_stderr.find("perf map"), std::string::npos) << boxed.run.vtscope_stderr;
}

// --- --otlp: container.id from the target's cgroup -------------------------------------------------

// A cgroup named as a container runtime names one (its last component 64 hex digits), made in the
// pids hierarchy (cgroup v1) or the unified one, removed on destruction; empty path when refused.
struct RuntimeCgroup {
    std::string id, parent, path;
    RuntimeCgroup() {
        unsigned char bytes[32];
        std::FILE* random = std::fopen("/dev/urandom", "rb");
        if (!random) return;
        bool got = std::fread(bytes, 1, sizeof(bytes), random) == sizeof(bytes);
        std::fclose(random);
        if (!got) return;
        char hex[3];
        for (unsigned char b : bytes) {
            std::snprintf(hex, sizeof(hex), "%02x", b);
            id += hex;
        }
        for (const char* root : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup"}) {
            std::string p = std::string(root) + "/vtscope-test-" + std::to_string(getpid());
            if (mkdir(p.c_str(), 0755) != 0) continue;
            if (mkdir((p + "/" + id).c_str(), 0755) == 0) {
                parent = p;
                path = p + "/" + id;
                return;
            }
            rmdir(p.c_str());
        }
    }
    ~RuntimeCgroup() {
        if (path.empty()) return;
        rmdir(path.c_str());
        rmdir(parent.c_str());
    }
    bool move(pid_t pid) const {
        std::FILE* procs = std::fopen((path + "/cgroup.procs").c_str(), "w");
        if (!procs) return false;
        bool written = std::fprintf(procs, "%d\n", static_cast<int>(pid)) > 0;
        return std::fclose(procs) == 0 && written;
    }
};

// The marker harness in the nobody sandbox, its JVM in a cgroup named like a container's, traced
// with --otlp into the test Collector: every resource it receives carries that container.id.
TEST(Container, OtlpResourceCarriesTheContainerIdOfItsCgroup) {
    REQUIRE_SANDBOX(Sandbox::kNobody);
    const std::string collector = std::string(VTSCOPE_COLLECTOR_BUILD) + "/collector/otelcol-vtscope";
    if (access(collector.c_str(), X_OK) != 0)
        SKIP_LOUDLY("no test Collector at " + collector + " (scripts/build-collector.sh)");
    RuntimeCgroup cgroup;
    if (cgroup.path.empty()) SKIP_LOUDLY("cannot create a cgroup here");
    vtscope::testing::TempDir dir;
    int port = vtscope::testing::free_loopback_port();
    setenv("VTSCOPE_OTLP_PORT", std::to_string(port).c_str(), 1);
    setenv("VTSCOPE_COLLECTOR_OUT", dir.path("collector.jsonl").c_str(), 1);
    vtscope::testing::Child otelcol = vtscope::testing::Child::start(
        {collector, "--config", std::string(VTSCOPE_SOURCE_DIR) + "/consumer/tests/collector/config.yaml"}, "",
        dir.path("collector.err"));
    ASSERT_TRUE(vtscope::testing::wait_until([&] { return vtscope::testing::loopback_port_open(port); }, 30s, 50ms))
        << read_file(dir.path("collector.err"));
    E2e e2e;
    Workload workload("io.vtscope.workloads.MarkerHarness", {"-Djdk.virtualThreadScheduler.parallelism=2"}, {});
    ::testing::AssertionResult ready = start_sandboxed(e2e, workload, Sandbox::kNobody);
    ASSERT_TRUE(ready) << ready.message();
    ASSERT_TRUE(cgroup.move(e2e.pid())) << "cannot move the JVM into " << cgroup.path;
    ready = e2e.attach("trace", {"--syscalls", "write", "--otlp", "http://127.0.0.1:" + std::to_string(port)});
    ASSERT_TRUE(ready) << ready.message();
    E2eRun run = e2e.run();
    EXPECT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;
    otelcol.signal(SIGTERM);
    otelcol.wait(20s);
    size_t resources = 0, with_id = 0;
    for (const json& request : parse(vtscope::testing::read_lines(dir.path("collector.jsonl"))))
        for (const json& rl : at(request, "/resourceLogs")) {
            resources++;
            for (const json& a : at(rl, "/resource/attributes"))
                if (text(a, "/key") == "container.id" && text(a, "/value/stringValue") == cgroup.id) with_id++;
        }
    std::printf("[ container] --otlp: %zu resources received, %zu with container.id %s\n", resources, with_id,
                cgroup.id.c_str());
    EXPECT_GT(resources, 0u) << read_file(dir.path("collector.err"));
    EXPECT_EQ(with_id, resources);
}

}  // namespace
