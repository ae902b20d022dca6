// SPDX-License-Identifier: Apache-2.0
// `vtscope list` and `--pid NAME` against real JVMs: two JVMs of the same main class, one with a
// service name. list names both with their JDK; the service name selects its JVM for stat; the
// shared main class is refused, naming both pids.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e_fixture.h"
#include "process_runner.h"
#include "test_support.h"

using namespace std::chrono_literals;
using vtscope::testing::Child;
using vtscope::testing::TempDir;

namespace {

// PinningCases waiting for a go file that never comes: a JVM that stays until stopped.
Child idle_jvm(const TempDir& dir, const std::string& name, const std::vector<std::string>& env) {
    std::vector<std::string> argv = {"env"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.insert(argv.end(), {vtscope::testing::java_bin(), "-cp", vtscope::testing::class_path(),
                             "io.vtscope.workloads.PinningCases", "--expected", dir.path(name + ".jsonl"),
                             "--ready-file", dir.path(name + ".ready"), "--go-file", dir.path(name + ".go")});
    return Child::start(argv, "", dir.path(name + ".err"));
}

std::string run_capture(const std::vector<std::string>& argv, const TempDir& dir, int* code) {
    Child c = Child::start(argv, dir.path("out"), dir.path("err"));
    auto exit_code = c.wait(60s);
    *code = exit_code ? *exit_code : -1;
    return vtscope::testing::read_file(dir.path("out")) + vtscope::testing::read_file(dir.path("err"));
}

}  // namespace

TEST(List, NamesEveryJvmAndANameSelectsOne) {
    TempDir dir;
    Child named = idle_jvm(dir, "named", {"OTEL_SERVICE_NAME=list-test-service"});
    Child plain = idle_jvm(dir, "plain", {});
    for (const char* name : {"named", "plain"})
        ASSERT_TRUE(vtscope::testing::wait_until(
            [&] { return std::filesystem::exists(dir.path(std::string(name) + ".ready")); }, 120s))
            << vtscope::testing::read_file(dir.path(std::string(name) + ".err"));
    int code = 0;
    std::string out = run_capture({vtscope::testing::kVtscope, "list", "--json"}, dir, &code);
    EXPECT_EQ(code, 0) << out;
    int found = 0;
    for (const std::string& line : vtscope::testing::read_lines(dir.path("out"))) {
        auto j = nlohmann::json::parse(line);
        if (j["pid"] != named.pid() && j["pid"] != plain.pid()) continue;
        found++;
        EXPECT_EQ(j["main"], "io.vtscope.workloads.PinningCases");
        EXPECT_TRUE(j["java_version"].is_string() && j["java_version"].get<std::string>().starts_with("25")) << line;
        EXPECT_EQ(j["service_name"], j["pid"] == named.pid() ? nlohmann::json("list-test-service") : nlohmann::json());
    }
    EXPECT_EQ(found, 2) << out;
    out = run_capture({vtscope::testing::kVtscope, "list"}, dir, &code);
    EXPECT_NE(out.find(std::to_string(named.pid()) + " "), std::string::npos) << out;
    out = run_capture({vtscope::testing::kVtscope, "stat", "--pid", "PinningCases", "-d", "1"}, dir, &code);
    EXPECT_EQ(code, 1);
    // Both named (another test's PinningCases may be there too: then more are).
    EXPECT_NE(out.find("'PinningCases' matches "), std::string::npos) << out;
    for (pid_t pid : {named.pid(), plain.pid()})
        EXPECT_NE(out.find(std::to_string(pid) + " (io.vtscope.workloads.PinningCases)"), std::string::npos) << out;
    if (geteuid() != 0) {
        std::printf("SKIPPED: the selection by name attaches with stat, which needs root\n");
    } else {
        out = run_capture({vtscope::testing::kVtscope, "stat", "--pid", "list-test-service", "-d", "1",
                           "--summary-json", dir.path("summary.json")},
                          dir, &code);
        EXPECT_EQ(code, 0) << out;
        auto summary = vtscope::testing::read_json(dir.path("summary.json"));
        EXPECT_EQ(summary["command"], "stat") << out;
    }
    named.stop(0ms, 5s);
    plain.stop(0ms, 5s);
}
