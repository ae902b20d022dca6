// SPDX-License-Identifier: Apache-2.0
// Unit tests of what a JVM in a container needs: the /proc/PID/status parser (NSpid, ids), the
// cgroup's container id, the region's writer pid checked against the JVM's own pid, the
// namespace ids of the JSON lines, and container.id in the OTLP resource.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <csignal>
#include <string>

#include "../../common/vtscope_record.h"
#include "channels/record_region.h"
#include "fake_memory.h"
#include "otlp/otlp_resource.h"
#include "output/block_format.h"
#include "output/event_format.h"
#include "output/namespace_fields.h"
#include "process/container_id.h"
#include "process/proc_status.h"
#include "process/thread_ids.h"

namespace {

const std::string kId = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(ProcStatus, ParsesIdsAndTheLastNSpidField) {
    auto s = vtscope::parse_proc_status(
        "Name:\tjava\nUid:\t1000\t1001\t1002\t1003\nGid:\t2000\t2001\t2001\t2001\nNSpid:\t4242\t17\t1\n");
    EXPECT_TRUE(s.has_uid);
    EXPECT_TRUE(s.has_gid);
    EXPECT_EQ(s.real_uid, 1000u);
    EXPECT_EQ(s.effective_uid, 1001u);
    EXPECT_EQ(s.real_gid, 2000u);
    EXPECT_EQ(s.effective_gid, 2001u);
    EXPECT_EQ(s.ns_levels, 3);
    EXPECT_EQ(s.ns_pid, 1);
    EXPECT_TRUE(s.own_pid_namespace());
    auto host = vtscope::parse_proc_status("NSpid:\t4242\n");
    EXPECT_EQ(host.ns_levels, 1);
    EXPECT_EQ(host.ns_pid, 4242);
    EXPECT_FALSE(host.own_pid_namespace());
}

TEST(ProcStatus, RefusesWhatIsNotTheKernelsText) {
    // A name that looks like a line, numbers out of range or not numbers, too many levels.
    auto s = vtscope::parse_proc_status("Name:\tUid: 7 7 7 7\nUid:\t1\t2\nNSpid:\t12x\nGid:\t-1\t0\t0\t0\n");
    EXPECT_FALSE(s.has_uid);
    EXPECT_FALSE(s.has_gid);
    EXPECT_EQ(s.ns_levels, 0);
    EXPECT_EQ(vtscope::parse_proc_status("NSpid:\t99999999999999999999\n").ns_levels, 0);
    EXPECT_EQ(vtscope::parse_proc_status("NSpid:\t5\t0\n").ns_levels, 0);  // no pid 0
    std::string deep = "NSpid:";
    for (int i = 0; i < vtscope::kMaxNsPidFields + 1; i++) deep += "\t" + std::to_string(i + 1);
    EXPECT_EQ(vtscope::parse_proc_status(deep).ns_levels, 0);
    EXPECT_EQ(vtscope::parse_proc_status("").ns_levels, 0);
}

TEST(ProcStatus, ReadsThisProcess) {
    auto s = vtscope::read_proc_status(getpid());
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_TRUE(s->has_uid);
    EXPECT_EQ(s->effective_uid, geteuid());
    auto t = vtscope::read_thread_status(getpid(), getpid());
    ASSERT_TRUE(t);
    EXPECT_FALSE(vtscope::read_proc_status(0));
}

TEST(ContainerId, EveryRuntimesCgroupPath) {
    const std::string paths[] = {
        "12:memory:/docker/" + kId + "\n0::/\n",
        "0::/system.slice/docker-" + kId + ".scope\n",
        "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1f2e_3d4c.slice/cri-containerd-" + kId +
            ".scope\n",
        "0::/kubepods/burstable/pod1f2e3d4c-5b6a-7980-a1b2-c3d4e5f60718/" + kId + "\n",
        "0::/kubepods.slice/crio-" + kId + ".scope\n",
        "0::/machine.slice/libpod-" + kId + ".scope/container\n",
        "1:name=systemd:/\n0::/machine.slice/libpod-" + kId + ".scope",
    };
    for (const std::string& text : paths) EXPECT_EQ(vtscope::parse_container_id(text).value_or("none"), kId) << text;
}

TEST(ContainerId, NoneWhereNoContainerIsNamed) {
    const std::string texts[] = {
        "0::/\n",
        "4:memory:/process_api/65c7247a264a62ff1512a3ddf78536fa\n",  // 32 digits: not a runtime's id
        "0::/machine.slice/libpod-conmon-" + kId + ".scope\n",       // podman's monitor, not the container
        "0::/docker/" + kId.substr(0, 63) + "G\n",                   // not hex
        "0::/docker/" + std::string(kId).replace(0, 1, "A") + "\n",  // upper case: no runtime writes it
        "0::/docker/" + kId + "0\n",                                 // 65 digits
        "0:/docker/" + kId + "\n",                                   // one ':' only: not a cgroup line
        "",
    };
    for (const std::string& text : texts) EXPECT_FALSE(vtscope::parse_container_id(text)) << text;
}

TEST(ContainerId, TheDeepestComponentWins) {
    std::string outer(64, 'a'), inner(64, 'b');
    EXPECT_EQ(vtscope::parse_container_id("0::/docker/" + outer + "/docker/" + inner + "\n"), inner);
}

// The JVM in a container stores its own getpid() in the region's header: the region is its
// process's when checked against its namespace pid, foreign against the host pid.
TEST(RecordRegion, TheWriterPidIsTheJvmsOwn) {
    vtscope::testing::FakeMemory memory;
    vtscope_region_header h{};
    h.magic = VTSCOPE_REGION_MAGIC;
    h.version = VTSCOPE_REGION_VERSION;
    h.header_size = VTSCOPE_REGION_HEADER_SIZE;
    h.slot_size = VTSCOPE_SLOT_SIZE;
    h.record_offset = VTSCOPE_RECORD_OFFSET;
    h.max_probe = VTSCOPE_MAX_PROBE;
    h.capacity = 64;
    h.writer_pid = 1;
    constexpr uint64_t kBase = 0x7f0000000000;
    memory.put(kBase, &h, sizeof(h));
    vtscope::Mapping mapping;
    mapping.start = kBase;
    mapping.end = kBase + VTSCOPE_REGION_HEADER_SIZE + 64 * VTSCOPE_SLOT_SIZE;
    EXPECT_TRUE(vtscope::validate_region(memory, mapping, 1));
    auto foreign = vtscope::validate_region(memory, mapping, 4242);
    ASSERT_FALSE(foreign);
    EXPECT_NE(foreign.error().message.find("another process"), std::string::npos);
}

// A process of its own pid namespace: ns_pid 1 on every line, and its thread's own tid.
TEST(NamespaceFields, WrittenAfterTidOnlyForATargetInItsOwnPidNamespace) {
    vtscope_syscall_event e{};
    e.pid = 4242;
    e.tid = 4243;
    std::string line;
    vtscope::append_syscall_event(line, e, "write", ",\"ns_pid\":1,\"ns_tid\":2");
    auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["ns_pid"], 1);
    EXPECT_EQ(j["ns_tid"], 2);
    EXPECT_NE(line.find("\"tid\":4243,\"ns_pid\":1,\"ns_tid\":2,\"vthread\""), std::string::npos) << line;
    vtscope_block_event b{};
    b.pid = 4242;
    b.tid = 4243;
    std::string block = vtscope::format_block_event(b, false, {}, ",\"ns_pid\":1,\"ns_tid\":null");
    auto k = nlohmann::json::parse(block);
    EXPECT_EQ(k["ns_pid"], 1);
    EXPECT_TRUE(k["ns_tid"].is_null());
    // This process shares its pid namespace with itself: nothing is written.
    vtscope::NamespaceFields same(getpid(), getpid());
    EXPECT_FALSE(same.enabled());
    EXPECT_EQ(same.fields(static_cast<uint32_t>(getpid())), "");
}

// A child in a pid namespace of its own (where this machine lets one be made): its host pid maps
// to its own tid 1, and an id that is not its thread's maps to nothing.
TEST(ThreadIds, MapsAChildInItsOwnPidNamespace) {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t outer = fork();
    ASSERT_GE(outer, 0);
    if (outer == 0) {
        // The child unshares, forks the namespace's pid 1, and reports its host pid.
        if (unshare(CLONE_NEWPID) != 0) _exit(77);
        pid_t inner = fork();
        if (inner == 0) {
            pause();
            _exit(0);
        }
        (void)!write(ready[1], &inner, sizeof(inner));
        waitpid(inner, nullptr, 0);
        _exit(0);
    }
    close(ready[1]);
    pid_t inner = 0;
    bool made = read(ready[0], &inner, sizeof(inner)) == sizeof(inner);
    close(ready[0]);
    if (!made) {
        waitpid(outer, nullptr, 0);
        GTEST_SKIP() << "SKIPPED: unshare(CLONE_NEWPID) is not permitted here";
    }
    auto status = vtscope::read_proc_status(inner);
    ASSERT_TRUE(status);
    EXPECT_EQ(status->ns_pid, 1);
    vtscope::ThreadIds ids(inner, status->own_pid_namespace());
    EXPECT_EQ(ids.ns_tid(inner).value_or(-1), 1);
    EXPECT_EQ(ids.host_tid(1).value_or(-1), inner);
    EXPECT_FALSE(ids.ns_tid(getpid()));
    vtscope::NamespaceFields fields(inner, 1);
    EXPECT_EQ(fields.fields(static_cast<uint32_t>(inner)), ",\"ns_pid\":1,\"ns_tid\":1");
    kill(inner, SIGKILL);
    waitpid(outer, nullptr, 0);
}

TEST(Resource, ContainerIdFromTheTargetsCgroupUnlessItsContextNamesOne) {
    auto env = [](const char*) -> const char* { return nullptr; };
    auto reader = [](pid_t pid) -> std::optional<std::string> {
        return pid == 7 ? std::optional<std::string>(kId) : std::nullopt;
    };
    auto find = [](const std::vector<vtscope::OtlpAttribute>& list, const std::string& key) -> std::string {
        for (const auto& a : list)
            if (a.key == key) return a.text;
        return "absent";
    };
    auto in_container = vtscope::make_resource("", env, 7, "h", "u", {}, nullptr, reader);
    ASSERT_TRUE(in_container);
    EXPECT_EQ(find(*in_container, "container.id"), kId);
    auto on_host = vtscope::make_resource("", env, 8, "h", "u", {}, nullptr, reader);
    ASSERT_TRUE(on_host);
    EXPECT_EQ(find(*on_host, "container.id"), "absent");
    auto own = vtscope::make_resource("", env, 7, "h", "u", {vtscope::OtlpAttribute::string("container.id", "own")},
                                      nullptr, reader);
    ASSERT_TRUE(own);
    EXPECT_EQ(find(*own, "container.id"), "own");
    int count = 0;
    for (const auto& a : *own) count += a.key == "container.id";
    EXPECT_EQ(count, 1);
}

}  // namespace
