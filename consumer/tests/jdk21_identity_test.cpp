// SPDX-License-Identifier: Apache-2.0
// The vmstructs channel on JDK 21 (no _monitor_owner_id: ids read from the thread objects under the
// collector's rule, jvm/oop_identity.h) against every collector it supports, with collections
// forced while the markers are written (io.vtscope.workloads.GcIdentity). Every marker must be
// attributed to the virtual thread that wrote it, or be context_unknown with a GC reason: never
// another thread. The JDK 21 runtime is the CMake cache variable VTSCOPE_TEST_JAVA21_HOME; without it
// every test says SKIPPED.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include "e2e_fixture.h"
#include "process_runner.h"

using namespace vtscope::testing;

namespace {

constexpr int64_t kBase = 100000, kMaxId = 100000;  // GcIdentity: a marker is BASE + id bytes

std::string java21_home() { return VTSCOPE_TEST_JAVA21_HOME; }

// GcIdentity with the JVM and workload options, run by the JDK 21 runtime from the project's jars.
Workload gc_identity_on_21(const std::vector<std::string>& jvm, const std::vector<std::string>& args) {
    Workload w("io.vtscope.workloads.GcIdentity", jvm, args);
    w.launcher = {java21_home() + "/bin/java"};
    return w;
}

struct Collector {
    const char* name;
    std::vector<std::string> options;
};

class Jdk21Identity : public ::testing::TestWithParam<Collector> {};

// What the markers of one run came to.
struct Figures {
    int attributed = 0, wrong = 0, foreign = 0;
    std::map<std::string, int> unknown;  // GC reason -> markers
    int total() const {
        int n = attributed + wrong;
        for (const auto& [reason, count] : unknown) n += count;
        return n;
    }
};

Figures check(const E2eRun& run, const std::set<int64_t>& threads) {
    Figures f;
    std::string error;
    for (const nlohmann::json& line : parse_lines(run.lines, &error)) {
        if (!line["count"].is_number_integer()) continue;
        int64_t count = line["count"].get<int64_t>();
        if (count < kBase || count >= kBase + kMaxId) continue;  // not a marker
        int64_t writer = count - kBase;
        if (!threads.count(writer)) {
            f.foreign++;
            ADD_FAILURE() << "a marker of no sender thread: " << line;
            continue;
        }
        std::string reason = line.value("reason", "");
        if (line["vthread"].is_number_integer() && line["vthread"].get<int64_t>() == writer &&
            line["java_thread"] == line["vthread"]) {
            f.attributed++;
        } else if (line["vthread"].is_null() && line["java_thread"].is_null() && line["status"] == "context_unknown" &&
                   reason.rfind("gc_", 0) == 0) {
            f.unknown[reason]++;
        } else {
            f.wrong++;
            ADD_FAILURE() << "marker of thread " << writer << " attributed as " << line;
        }
    }
    EXPECT_TRUE(error.empty()) << error;
    return f;
}

TEST_P(Jdk21Identity, EveryMarkerItsOwnThreadOrUnknownWithAGcReason) {
    if (java21_home().empty())
        GTEST_SKIP() << "SKIPPED: VTSCOPE_TEST_JAVA21_HOME is not set (configure with a JDK 21 runtime)";
    constexpr int kThreads = 32, kMarkers = 150;
    std::vector<std::string> jvm = {"-Xmx64m", "-Djdk.virtualThreadScheduler.parallelism=2"};
    jvm.insert(jvm.end(), GetParam().options.begin(), GetParam().options.end());
    Workload w = gc_identity_on_21(
        jvm, {"--threads", std::to_string(kThreads), "--markers", std::to_string(kMarkers), "--park-us", "2000"});
    E2e e2e;
    ASSERT_TRUE(e2e.start(w));
    ASSERT_TRUE(e2e.attach("trace", {"--syscalls", "write"}));
    E2eRun run = e2e.run();
    ASSERT_TRUE(run.error.empty()) << run.error;
    ASSERT_EQ(run.java_exit, 0) << run.java_stderr;
    ASSERT_EQ(run.vtscope_exit, 0) << run.vtscope_stderr;

    std::set<int64_t> threads;
    std::string error;
    for (const nlohmann::json& t : parse_lines(run.expected, &error)) threads.insert(t["thread"].get<int64_t>());
    ASSERT_EQ(threads.size(), size_t{kThreads}) << error;
    Figures f = check(run, threads);
    std::string unknown;
    for (const auto& [reason, count] : f.unknown) unknown += " " + reason + " " + std::to_string(count);
    std::cout << "[ figures  ] " << GetParam().name << ": " << f.attributed << " of " << kThreads * kMarkers
              << " markers attributed, unknown:" << (unknown.empty() ? " none" : unknown) << ", wrong " << f.wrong
              << " (" << run.java_stderr.substr(run.java_stderr.find("GcIdentity:")) << ")" << std::endl;
    EXPECT_EQ(f.wrong, 0);
    EXPECT_EQ(f.foreign, 0);
    EXPECT_EQ(f.total(), kThreads * kMarkers) << "every marker is seen once";
    EXPECT_GE(f.attributed * 10, kThreads * kMarkers * 9) << "most markers attributed";
    // The summary counts the same reasons (over every event, not only the markers).
    for (const auto& [reason, count] : f.unknown) EXPECT_GE(number(run.summary, "/reasons/" + reason), count);
}

INSTANTIATE_TEST_SUITE_P(Collectors, Jdk21Identity,
                         ::testing::Values(Collector{"Serial", {"-XX:+UseSerialGC"}},
                                           Collector{"Parallel", {"-XX:+UseParallelGC"}},
                                           Collector{"G1", {"-XX:+UseG1GC"}}, Collector{"ZGC", {"-XX:+UseZGC"}},
                                           Collector{"ZGenerational", {"-XX:+UseZGC", "-XX:+ZGenerational"}}),
                         [](const auto& p) { return std::string(p.param.name); });

// Shenandoah evacuates concurrently on 21 with no colour to check: refused in one line.
TEST(Jdk21Identity, ShenandoahIsRefusedInOneLine) {
    if (java21_home().empty())
        GTEST_SKIP() << "SKIPPED: VTSCOPE_TEST_JAVA21_HOME is not set (configure with a JDK 21 runtime)";
    Workload w = gc_identity_on_21({"-XX:+UseShenandoahGC"}, {"--threads", "1", "--markers", "1"});
    E2e e2e;
    ASSERT_TRUE(e2e.start(w));
    EXPECT_FALSE(e2e.attach("trace", {"--syscalls", "write"}));
    E2eRun run = e2e.finish(std::chrono::seconds(10));
    EXPECT_NE(run.vtscope_exit, 0);
    EXPECT_NE(run.vtscope_stderr.find("unsupported JVM: Shenandoah on JDK 21-23"), std::string::npos)
        << run.vtscope_stderr;
}

// The library channels read libvtscope's records, which the JDK 21 writer cannot share: refused in
// one line that names the channel that works.
TEST(Jdk21Identity, LibraryChannelsAreRefusedInOneLine) {
    if (java21_home().empty())
        GTEST_SKIP() << "SKIPPED: VTSCOPE_TEST_JAVA21_HOME is not set (configure with a JDK 21 runtime)";
    Workload w = gc_identity_on_21({}, {"--threads", "1", "--markers", "1"});
    E2e e2e;
    ASSERT_TRUE(e2e.start(w));
    for (const char* channel : {"otep-tls", "lifecycle", "two-probe"}) {
        std::string err;
        int rc = run_command({VTSCOPE_BIN, "trace", "--pid", std::to_string(e2e.pid()), "--identity", channel,
                              "--duration", "1", "--output", "/dev/null"},
                             &err, std::chrono::seconds(30));
        EXPECT_EQ(rc, 1) << channel;
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
        EXPECT_NE(err.find(std::string("unsupported on JDK 21-23: --identity ") + channel), std::string::npos) << err;
        EXPECT_NE(err.find("the default vmstructs channel works there"), std::string::npos) << err;
    }
}

}  // namespace
