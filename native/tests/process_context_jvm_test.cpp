// SPDX-License-Identifier: Apache-2.0
// The OTEP 4719 process context of a real JVM, read from outside as a reader does (maps, then
// process_vm_readv of header and payload, the timestamp read before and after) and decoded by
// libprotobuf: with -agentpath:libvtscope.so=otep and an autoconfigured OpenTelemetry SDK with
// vtscope-otel on the class path, the application's resource is there with no configuration.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "otel_ctx.h"
#include "opentelemetry/proto/processcontext/v1development/process_context.pb.h"

// The generated messages of opentelemetry-proto 1.11.0 (cmake/OtlpProto.cmake).
namespace pb {
using opentelemetry::proto::common::v1::AnyValue;
using opentelemetry::proto::common::v1::KeyValue;
using opentelemetry::proto::processcontext::v1development::ProcessContext;
}  // namespace pb
using vtscope::native::ProcessContextHeader;

namespace {

uint64_t boottime_ns() {
    timespec now{};
    clock_gettime(CLOCK_BOOTTIME, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

bool read_remote(pid_t pid, uint64_t addr, void* out, size_t size) {
    iovec local{out, size};
    iovec remote{reinterpret_cast<void*>(addr), size};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

uint64_t find_context(pid_t pid, std::string* name) {
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    std::string line;
    while (std::getline(maps, line)) {
        for (const char* n : {"[anon_shmem:OTEL_CTX]", "[anon:OTEL_CTX]", "/memfd:OTEL_CTX"}) {
            size_t at = line.find(n);
            if (at == std::string::npos) continue;
            *name = line.substr(at);
            return std::strtoull(line.c_str(), nullptr, 16);
        }
    }
    return 0;
}

struct Jvm {
    pid_t pid = -1;
    std::filesystem::path dir;
    // program: a Java source file to run instead of the marker harness (MarkerHarness starts the
    // application's OpenTelemetry SDK).
    explicit Jvm(const std::vector<std::string>& jvm_args, const char* program = nullptr) {
        char tmpl[] = "/tmp/vtscope-pc-XXXXXX";
        dir = mkdtemp(tmpl);
        std::vector<std::string> argv = {VTSCOPE_JAVA_HOME "/bin/java"};
        argv.insert(argv.end(), jvm_args.begin(), jvm_args.end());
        if (program) {
            // A Java program of its own (the source launcher): it creates its first argument,
            // the ready file, and waits.
            std::ofstream((dir / "Main.java").string()) << program;
            argv.push_back((dir / "Main.java").string());
            argv.push_back((dir / "ready").string());
        } else {
            for (std::string a : {"-cp", VTSCOPE_JAVA_DIR "/*:" VTSCOPE_JAVA_DIR "/lib/*",
                                  "io.vtscope.workloads.MarkerHarness", "--expected"})
                argv.push_back(a);
            argv.push_back((dir / "e").string());
            argv.push_back("--ready-file");
            argv.push_back((dir / "ready").string());
            argv.push_back("--go-file");
            argv.push_back((dir / "never").string());
        }
        std::string err = (dir / "java.err").string();
        pid = fork();
        if (pid == 0) {
            std::freopen(err.c_str(), "w", stderr);
            std::freopen("/dev/null", "w", stdout);
            std::vector<char*> args;
            for (auto& a : argv) args.push_back(a.data());
            args.push_back(nullptr);
            execv(args[0], args.data());
            _exit(127);
        }
    }
    bool wait_ready() {
        for (int i = 0; i < 1200; i++) {
            if (std::filesystem::exists(dir / "ready")) return true;
            int status = 0;
            if (waitpid(pid, &status, WNOHANG) == pid) {
                pid = -1;
                return false;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return false;
    }
    std::string stderr_text() {
        std::ifstream in(dir / "java.err");
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
    ~Jvm() {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

const pb::KeyValue* find(const google::protobuf::RepeatedPtrField<pb::KeyValue>& kvs, const std::string& key) {
    for (const auto& kv : kvs)
        if (kv.key() == key) return &kv;
    return nullptr;
}

// The string value of attribute key, or "(absent)".
std::string string_attribute(const google::protobuf::RepeatedPtrField<pb::KeyValue>& kvs, const std::string& key) {
    const pb::KeyValue* kv = find(kvs, key);
    return kv ? kv->value().string_value() : "(absent)";
}

#define REQUIRE_JARS()                                                                                       \
    do {                                                                                                     \
        if (!std::filesystem::exists(VTSCOPE_JAVA_DIR "/vtscope-workloads.jar")) {                           \
            std::fprintf(stderr, "\n*** SKIPPED: no %s/vtscope-workloads.jar (make java builds it) ***\n\n", \
                         VTSCOPE_JAVA_DIR);                                                                  \
            GTEST_SKIP() << "SKIPPED: no Java jars";                                                         \
        }                                                                                                    \
    } while (0)

// The process context of pid as a reader takes it (OTEP 4719 reading protocol): the header
// (signature, version, timestamp non-zero), the payload, the timestamp again, then libprotobuf.
::testing::AssertionResult read_context(pid_t pid, ProcessContextHeader* h, pb::ProcessContext* ctx) {
    std::string name;
    uint64_t addr = find_context(pid, &name);
    if (addr == 0) return ::testing::AssertionFailure() << "no OTEL_CTX mapping";
    std::printf("[ mapping  ] %s\n", name.c_str());
    if (!read_remote(pid, addr, h, sizeof(*h))) return ::testing::AssertionFailure() << "header unreadable";
    if (std::string(h->signature, 8) != "OTEL_CTX" || h->version != 2u || h->monotonic_published_at_ns == 0 ||
        h->payload_size == 0 || h->payload_size > vtscope::native::kMaxPayload)
        return ::testing::AssertionFailure() << "bad header: version " << h->version << ", timestamp "
                                             << h->monotonic_published_at_ns << ", size " << h->payload_size;
    std::string payload(h->payload_size, '\0');
    if (!read_remote(pid, h->payload, payload.data(), payload.size()))
        return ::testing::AssertionFailure() << "payload unreadable";
    uint64_t again = 0;
    if (!read_remote(pid, addr + offsetof(ProcessContextHeader, monotonic_published_at_ns), &again, 8) ||
        again != h->monotonic_published_at_ns)
        return ::testing::AssertionFailure() << "updated while idle";
    if (!ctx->ParseFromString(payload)) return ::testing::AssertionFailure() << "not a ProcessContext";
    return ::testing::AssertionSuccess();
}

// HotSpot's switch of its notifying mount/unmount path, read from outside: JDK 25 keeps it in
// JvmtiVTMSTransitionDisabler::_VTMS_notify_jvmti_events (src/hotspot/share/prims/jvmtiThreadState.hpp),
// set for good by the first JVMTI environment (JvmtiExport::get_jvmti_interface). A local symbol
// of libjvm.so's .symtab, found with nm; nullopt when it cannot be read (no nm, another JDK).
std::optional<bool> notify_jvmti_events(pid_t pid) {
    std::string command = "nm " VTSCOPE_JAVA_HOME "/lib/server/libjvm.so 2>/dev/null";
    uint64_t symbol = 0;
    if (std::FILE* p = popen(command.c_str(), "r")) {
        char line[1024];
        while (std::fgets(line, sizeof(line), p))
            if (std::strstr(line, " _ZN27JvmtiVTMSTransitionDisabler25_VTMS_notify_jvmti_eventsE"))
                symbol = std::strtoull(line, nullptr, 16);
        pclose(p);
    }
    if (symbol == 0) return std::nullopt;
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    std::string line;
    uint64_t base = 0;
    while (base == 0 && std::getline(maps, line)) {
        unsigned long start = 0, end = 0, offset = 0;
        if (line.find("/libjvm.so") == std::string::npos ||
            std::sscanf(line.c_str(), "%lx-%lx %*s %lx", &start, &end, &offset) != 3 || offset != 0)
            continue;
        base = start;  // the first mapping of the file, at file offset 0 (its first PT_LOAD is at vaddr 0)
    }
    uint8_t value = 2;
    if (base == 0 || !read_remote(pid, base + symbol, &value, 1) || value > 1) return std::nullopt;
    return value == 1;
}

// Runs `jcmd PID ARGS` of the JDK and returns its output.
std::string jcmd(pid_t pid, const std::string& args) {
    std::string command = VTSCOPE_JAVA_HOME "/bin/jcmd " + std::to_string(pid) + " " + args + " 2>&1";
    std::string out;
    if (std::FILE* p = popen(command.c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof(buf), p)) out += buf;
        pclose(p);
    }
    return out;
}

}  // namespace

TEST(ProcessContextJvm, ReadFromOutsideWithTheApplicationsResource) {
    REQUIRE_JARS();
    uint64_t started = boottime_ns();
    Jvm jvm({"-agentpath:" VTSCOPE_NATIVE_LIB "=otep", "--enable-native-access=ALL-UNNAMED",
             "-Dotel.service.name=vtscope-pc-it", "-Dotel.resource.attributes=deployment.environment.name=ci"});
    ASSERT_TRUE(jvm.wait_ready()) << jvm.stderr_text();

    ProcessContextHeader h{};
    pb::ProcessContext ctx;
    ASSERT_TRUE(read_context(jvm.pid, &h, &ctx));
    EXPECT_GT(h.monotonic_published_at_ns, started) << "CLOCK_BOOTTIME, after the JVM started";
    EXPECT_LT(h.monotonic_published_at_ns, boottime_ns());
    EXPECT_EQ(string_attribute(ctx.resource().attributes(), "service.name"), "vtscope-pc-it") << ctx.DebugString();
    EXPECT_EQ(string_attribute(ctx.resource().attributes(), "deployment.environment.name"), "ci");
    EXPECT_EQ(string_attribute(ctx.resource().attributes(), "telemetry.sdk.language"), "java");
    EXPECT_EQ(string_attribute(ctx.attributes(), "threadlocal.schema_version"), "tlsdesc_v1_dev");
    const pb::KeyValue* key_map = find(ctx.attributes(), "threadlocal.attribute_key_map");
    ASSERT_NE(key_map, nullptr);
    EXPECT_TRUE(key_map->value().has_array_value());
    EXPECT_EQ(find(ctx.resource().attributes(), "threadlocal.schema_version"), nullptr);
}

// A JVM without OpenTelemetry, or one whose SDK has not started yet: the first publication already
// names the service its configuration gives (otel.service.name), which the SDK would name too.
TEST(ProcessContextJvm, TheFirstPublicationNamesTheConfiguredService) {
    Jvm jvm({"-agentpath:" VTSCOPE_NATIVE_LIB "=otep", "-Dotel.service.name=vtscope-pc-configured"},
            "public class Main { public static void main(String[] a) throws Exception {"
            " java.nio.file.Files.createFile(java.nio.file.Path.of(a[0])); Thread.sleep(60_000); } }");
    ASSERT_TRUE(jvm.wait_ready()) << jvm.stderr_text();
    ProcessContextHeader h{};
    pb::ProcessContext ctx;
    ASSERT_TRUE(read_context(jvm.pid, &h, &ctx)) << jvm.stderr_text();
    EXPECT_EQ(string_attribute(ctx.resource().attributes(), "service.name"), "vtscope-pc-configured")
        << ctx.DebugString();
    EXPECT_EQ(string_attribute(ctx.attributes(), "threadlocal.schema_version"), "tlsdesc_v1_dev");
}

// -XX:-DoJVMTIVirtualThreadTransitions takes HotSpot's JVMTI virtual-thread events away: the mount
// hook (otep) still keeps the thread-locals and publishes the process context; the features that
// need the events refuse to start, in one line, rather than run on with nothing.
TEST(ProcessContextJvm, WithoutTheJvmtiVirtualThreadEventsOnlyTheMountHookRuns) {
    const char* program =
        "public class Main { public static void main(String[] a) throws Exception {"
        " java.nio.file.Files.createFile(java.nio.file.Path.of(a[0])); Thread.sleep(60_000); } }";
    Jvm hooked({"-XX:+UnlockExperimentalVMOptions", "-XX:-DoJVMTIVirtualThreadTransitions",
                "-agentpath:" VTSCOPE_NATIVE_LIB "=otep", "-Dotel.service.name=vtscope-pc-no-transitions"},
               program);
    ASSERT_TRUE(hooked.wait_ready()) << hooked.stderr_text();
    EXPECT_NE(hooked.stderr_text().find("follows mounts through the VirtualThread mount hook"), std::string::npos)
        << hooked.stderr_text();
    ProcessContextHeader h{};
    pb::ProcessContext ctx;
    ASSERT_TRUE(read_context(hooked.pid, &h, &ctx)) << hooked.stderr_text();
    EXPECT_EQ(string_attribute(ctx.resource().attributes(), "service.name"), "vtscope-pc-no-transitions");
    for (const char* feature : {"vtt", "probes"}) {
        Jvm refused({"-XX:+UnlockExperimentalVMOptions", "-XX:-DoJVMTIVirtualThreadTransitions",
                     std::string("-agentpath:" VTSCOPE_NATIVE_LIB "=") + feature},
                    program);
        EXPECT_FALSE(refused.wait_ready()) << feature << ": the JVM started";
        EXPECT_NE(refused.stderr_text().find("-XX:-DoJVMTIVirtualThreadTransitions, so it posts no virtual-thread"),
                  std::string::npos)
            << feature << ": " << refused.stderr_text();
    }
}

// The SDK's resource is set at start-up, before libvtscope is in the process; the library,
// loaded into the running JVM afterwards (Agent_OnAttach), publishes it: it was kept in the
// vtscope.process.resource system property.
TEST(ProcessContextJvm, ALibraryLoadedLaterPublishesTheResourceSetBefore) {
    REQUIRE_JARS();
    Jvm jvm({"--enable-native-access=ALL-UNNAMED", "-Dotel.service.name=vtscope-pc-late"});
    ASSERT_TRUE(jvm.wait_ready()) << jvm.stderr_text();
    std::string name;
    ASSERT_EQ(find_context(jvm.pid, &name), 0u) << "a process context before the library was loaded: " << name;
    std::string property = jcmd(jvm.pid, "VM.system_properties");
    EXPECT_NE(property.find("vtscope.process.resource="), std::string::npos) << "the hand-over property is not set";
    std::string loaded = jcmd(jvm.pid, std::string("JVMTI.agent_load ") + VTSCOPE_NATIVE_LIB + " otep");
    std::printf("[ jcmd     ] JVMTI.agent_load: %s", loaded.c_str());

    ProcessContextHeader h{};
    pb::ProcessContext ctx;
    ASSERT_TRUE(read_context(jvm.pid, &h, &ctx)) << loaded << jvm.stderr_text();
    EXPECT_EQ(string_attribute(ctx.resource().attributes(), "service.name"), "vtscope-pc-late") << ctx.DebugString();
    EXPECT_EQ(string_attribute(ctx.resource().attributes(), "telemetry.sdk.language"), "java");
    EXPECT_EQ(string_attribute(ctx.attributes(), "threadlocal.schema_version"), "tlsdesc_v1_dev");
}

// OTEP on a java.base the library patched (java_base_patch.h): write-patch=DIR writes it, a JVM
// run with --patch-module java.base=DIR and -agentpath:libvtscope.so=otep has no JVMTI environment
// and still publishes the process context, the configured service first and then the SDK's
// resource through the Java side. A patch stamped for another JDK stops the JVM's start in one
// line; the patch without the library runs the JDK's own behaviour, with a warning.
TEST(ProcessContextJvm, OnAPatchedJavaBaseWithoutAJvmtiEnvironment) {
    REQUIRE_JARS();
    char tmpl[] = "/tmp/vtscope-patch-XXXXXX";
    std::filesystem::path root = mkdtemp(tmpl);
    std::string patch = (root / "java.base").string();
    std::string command =
        VTSCOPE_JAVA_HOME "/bin/java -agentpath:" VTSCOPE_NATIVE_LIB "=write-patch=" + patch + " -version 2>&1";
    std::string written;
    int rc = -1;
    if (std::FILE* p = popen(command.c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof(buf), p)) written += buf;
        rc = pclose(p);
    }
    ASSERT_EQ(rc, 0) << written;
    ASSERT_NE(written.find("vtscope: wrote a patched java.base for OTEP to " + patch), std::string::npos) << written;
    for (const char* file : {"java/lang/VirtualThread.class", "io/vtscope/otep/MountHook.class",
                             "io/vtscope/otep/PatchLink.class", "vtscope-patch.properties"})
        EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(patch) / file)) << file;

    {
        Jvm jvm({"--patch-module=java.base=" + patch, "-agentpath:" VTSCOPE_NATIVE_LIB "=otep",
                 "--enable-native-access=ALL-UNNAMED", "-Dotel.service.name=vtscope-pc-patched"});
        ASSERT_TRUE(jvm.wait_ready()) << jvm.stderr_text();
        EXPECT_NE(jvm.stderr_text().find("follows mounts through the patched java.base in " + patch +
                                         " (libvtscope takes no JVMTI environment)"),
                  std::string::npos)
            << jvm.stderr_text();
        ProcessContextHeader h{};
        pb::ProcessContext ctx;
        ASSERT_TRUE(read_context(jvm.pid, &h, &ctx)) << jvm.stderr_text();
        EXPECT_EQ(string_attribute(ctx.resource().attributes(), "service.name"), "vtscope-pc-patched")
            << ctx.DebugString();
        EXPECT_EQ(string_attribute(ctx.resource().attributes(), "telemetry.sdk.language"), "java");
        EXPECT_EQ(string_attribute(ctx.attributes(), "threadlocal.schema_version"), "tlsdesc_v1_dev");
        // The point of the patch: HotSpot's notifying transition path stayed off, where the
        // retransforming hook's JVMTI environment turns it on.
        std::optional<bool> notifying = notify_jvmti_events(jvm.pid);
        if (!notifying) {
            std::printf(
                "SKIPPED: HotSpot's _VTMS_notify_jvmti_events is not readable here (no nm, or a JDK "
                "without that symbol): the notifying path's state is not checked\n");
        } else {
            EXPECT_FALSE(*notifying) << "a JVMTI environment exists in the patched JVM";
            Jvm hooked({"-agentpath:" VTSCOPE_NATIVE_LIB "=otep"},
                       "public class Main { public static void main(String[] a) throws Exception {"
                       " java.nio.file.Files.createFile(java.nio.file.Path.of(a[0])); Thread.sleep(60_000); } }");
            ASSERT_TRUE(hooked.wait_ready()) << hooked.stderr_text();
            EXPECT_EQ(notify_jvmti_events(hooked.pid), std::optional<bool>(true))
                << "the retransforming hook's JVMTI environment did not turn the notifying path on";
        }
    }

    const char* program =
        "public class Main { public static void main(String[] a) throws Exception {"
        " Thread.ofVirtual().start(() -> {}).join();"
        " java.nio.file.Files.createFile(java.nio.file.Path.of(a[0])); Thread.sleep(60_000); } }";
    {
        Jvm unhooked({"--patch-module=java.base=" + patch}, program);
        EXPECT_TRUE(unhooked.wait_ready()) << unhooked.stderr_text();
        EXPECT_NE(unhooked.stderr_text().find("java.base carries vtscope's mount hook (--patch-module) but "
                                              "libvtscope.so is not loaded"),
                  std::string::npos)
            << unhooked.stderr_text();
    }
    {
        std::string stamp_path = patch + "/vtscope-patch.properties";
        std::ifstream in(stamp_path);
        std::string stamp(std::istreambuf_iterator<char>(in), {});
        size_t at = stamp.find("JAVA_RUNTIME_VERSION=\"");
        ASSERT_NE(at, std::string::npos) << stamp;
        stamp.insert(at + 22, "0.");  // another build of the JDK
        std::ofstream(stamp_path) << stamp;
        Jvm refused({"--patch-module=java.base=" + patch, "-agentpath:" VTSCOPE_NATIVE_LIB "=otep"}, program);
        EXPECT_FALSE(refused.wait_ready()) << "the JVM started on a patch of another JDK";
        EXPECT_NE(refused.stderr_text().find("vtscope: the patched java.base in " + patch + " was written for"),
                  std::string::npos)
            << refused.stderr_text();
    }
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
}
