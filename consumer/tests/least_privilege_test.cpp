// SPDX-License-Identifier: Apache-2.0
// The capability sets docs/security.md gives, held to: each command runs against a JVM of another
// user (nobody) with exactly its documented set (effective, permitted, inheritable, ambient and
// bounding alike, through setpriv) and no CAP_SYS_ADMIN, and one capability less is refused in
// one line.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "process_runner.h"
#include "test_support.h"

namespace {

using namespace std::chrono_literals;
using vtscope::testing::Child;
using vtscope::testing::class_path;
using vtscope::testing::java_bin;
using vtscope::testing::kJavaDir;
using vtscope::testing::kVtscope;
using vtscope::testing::read_file;
using vtscope::testing::TempDir;
using vtscope::testing::wait_for_file;

constexpr const char* kCommandCaps = "+bpf,+perfmon,+sys_ptrace";
constexpr const char* kStacksCaps = "+bpf,+perfmon,+sys_ptrace,+kill,+dac_override,+syslog";
constexpr const char* kJfrCaps = "+bpf,+perfmon,+sys_ptrace,+kill,+dac_override,+setuid,+setgid,+chown";

struct CapsRun {
    int exit_code = -1;
    std::string stderr_text;
    std::string error;  // the test's own failure (the JVM did not start), empty when the run happened
};

// DemoService as nobody, and vtscope with exactly caps: `vtscope COMMAND --pid PID ARGS...`.
CapsRun run_with_caps(const std::string& caps, const std::string& command, const std::vector<std::string>& args) {
    TempDir dir, out;  // the JVM's (nobody's) and vtscope's own, for its outputs
    CapsRun run;
    if (chown(dir.path("").c_str(), 65534, 65534) != 0) return {-1, "", "cannot hand the test folder to nobody"};
    Child jvm = Child::start({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", java_bin(),
                              "--enable-native-access=ALL-UNNAMED", "-XX:+PreserveFramePointer", "-cp", class_path(),
                              "io.vtscope.workloads.DemoService", "--requests", "100000", "--concurrency", "4",
                              "--ready-file", dir.path("java.ready"), "--go-file", dir.path("go")},
                             "", dir.path("java.err"));
    if (!wait_for_file(dir.path("java.ready"), 60s, {&jvm}))
        return {-1, "", "DemoService: " + read_file(dir.path("java.err"))};
    if (std::FILE* go = std::fopen(dir.path("go").c_str(), "w")) std::fclose(go);
    std::vector<std::string> argv = {"/usr/bin/setpriv",
                                     "--inh-caps=-all," + caps,
                                     "--ambient-caps=-all," + caps,
                                     "--bounding-set=-all," + caps,
                                     "--",
                                     kVtscope,
                                     command,
                                     "--pid",
                                     std::to_string(jvm.pid()),
                                     "--duration",
                                     "3"};
    argv.insert(argv.end(), args.begin(), args.end());
    for (std::string& a : argv)
        if (a.starts_with("DIR/")) a = out.path(a.substr(4));
    Child tracer = Child::start(argv, "", out.path("vtscope.err"));
    run.exit_code = tracer.wait(120s).value_or(-1);
    run.stderr_text = read_file(out.path("vtscope.err"));
    jvm.signal(SIGKILL);
    jvm.wait(10s);
    return run;
}

// Without CAP_SYS_ADMIN, vtscope's uprobes need uprobe_multi links (Linux 6.6+).
bool kernel_has_uprobe_multi() {
    std::string version = read_file("/proc/sys/kernel/osrelease");
    int major = 0, minor = 0;
    return std::sscanf(version.c_str(), "%d.%d", &major, &minor) == 2 && (major > 6 || (major == 6 && minor >= 6));
}

void expect_clean(const CapsRun& run, const std::string& what) {
    ASSERT_TRUE(run.error.empty()) << what << ": " << run.error;
    EXPECT_EQ(run.exit_code, 0) << what << ":\n" << run.stderr_text;
    EXPECT_EQ(run.stderr_text.find("vtscope: error"), std::string::npos) << what << ":\n" << run.stderr_text;
    // Warnings of the workload (an interval whose end was not seen) may come; none of a refusal.
    for (const char* refused : {"Permission denied", "Operation not permitted", "cannot signal", "cannot connect",
                                "CAP_", "no BPF privilege"})
        EXPECT_EQ(run.stderr_text.find(refused), std::string::npos) << what << ":\n" << run.stderr_text;
}

class LeastPrivilege : public ::testing::Test {
protected:
    void SetUp() override {
        REQUIRE_BPF();
        if (geteuid() != 0) SKIP_LOUDLY("setpriv needs root to set the capability sets");
        if (!kernel_has_uprobe_multi()) SKIP_LOUDLY("this kernel has no uprobe_multi links (Linux 6.6+)");
        REQUIRE_READABLE_BY_NOBODY(kJavaDir + "/vtscope-workloads.jar");
    }
};

TEST_F(LeastPrivilege, CommandsRunWithBpfPerfmonAndPtraceAlone) {
    expect_clean(run_with_caps(kCommandCaps, "trace", {"--output", "DIR/trace.jsonl"}), "trace");
    expect_clean(run_with_caps(kCommandCaps, "stat", {}), "stat");
    expect_clean(run_with_caps(kCommandCaps, "block", {"--output", "DIR/block.jsonl"}), "block");
    expect_clean(run_with_caps(kCommandCaps, "profile", {"--output", "DIR/profile.txt"}), "profile");
}

TEST_F(LeastPrivilege, StacksAndJfrRunWithTheirDocumentedSets) {
    expect_clean(run_with_caps(kStacksCaps, "profile", {"--stacks", "--output", "DIR/profile.txt"}),
                 "profile --stacks");
    expect_clean(run_with_caps(kStacksCaps, "block", {"--stacks", "--output", "DIR/block.jsonl"}), "block --stacks");
    expect_clean(run_with_caps(kJfrCaps, "block", {"--jfr", "--output", "DIR/block.jsonl"}), "block --jfr");
}

TEST_F(LeastPrivilege, OneCapabilityLessIsOneLine) {
    CapsRun no_ptrace = run_with_caps("+bpf,+perfmon", "trace", {"--output", "DIR/trace.jsonl"});
    ASSERT_TRUE(no_ptrace.error.empty()) << no_ptrace.error;
    EXPECT_NE(no_ptrace.exit_code, 0);
    EXPECT_NE(no_ptrace.stderr_text.find("vtscope: error: "), std::string::npos) << no_ptrace.stderr_text;

    std::string jfr_without_kill = std::string(kJfrCaps).replace(std::string(kJfrCaps).find(",+kill"), 6, "");
    CapsRun no_kill = run_with_caps(jfr_without_kill, "block", {"--jfr", "--output", "DIR/block.jsonl"});
    ASSERT_TRUE(no_kill.error.empty()) << no_kill.error;
    EXPECT_NE(no_kill.exit_code, 0);
    EXPECT_NE(no_kill.stderr_text.find("cannot signal the JVM"), std::string::npos) << no_kill.stderr_text;
}

}  // namespace
