// SPDX-License-Identifier: Apache-2.0
// The JVM-free parts of libvtscope.so: agent options, the patched java.base's detection, the
// record table's slot protocol and the OTEP 4719 payload encoding.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../../common/vtscope_record.h"
#include "agent_options.h"
#include "java_base_patch.h"
#include "otel_ctx.h"
#include "record_table.h"
#include "vtscope_native.h"

using namespace vtscope::native;

TEST(AgentOptions, ParsesFeaturesAndCapacity) {
    AgentOptions o;
    std::string error;
    ASSERT_TRUE(parse_agent_options("", &o, &error));
    EXPECT_EQ(o.features, VTSCOPE_FEATURE_VTT);
    ASSERT_TRUE(parse_agent_options("probes,otep,capacity=1024", &o, &error)) << error;
    EXPECT_EQ(o.features, VTSCOPE_FEATURE_PROBES | VTSCOPE_FEATURE_OTEP);
    EXPECT_EQ(o.capacity, 1024u);
    EXPECT_EQ(feature_names(o.features), "probes,otep");
    EXPECT_FALSE(parse_agent_options("probes,bogus", &o, &error));
    EXPECT_NE(error.find("unknown option 'bogus'"), std::string::npos) << error;
    EXPECT_FALSE(parse_agent_options("capacity=12", &o, &error));
    EXPECT_FALSE(parse_agent_options("capacity=1024", &o, &error)) << "a capacity alone selects no feature";
    EXPECT_FALSE(parse_agent_options("vtt,,probes", &o, &error));
    ASSERT_TRUE(parse_agent_options("probes,paper-release", &o, &error));
    EXPECT_TRUE(o.paper_release);
    EXPECT_FALSE(o.otep_jvmti);
    ASSERT_TRUE(parse_agent_options("otep-jvmti", &o, &error)) << error;
    EXPECT_EQ(o.features, VTSCOPE_FEATURE_OTEP) << "otep-jvmti is otep through the JVMTI events";
    EXPECT_TRUE(o.otep_jvmti);
    ASSERT_TRUE(parse_agent_options("write-patch=/tmp/patch dir", &o, &error)) << error;
    EXPECT_EQ(o.write_patch_dir, "/tmp/patch dir");
    EXPECT_EQ(o.features, 0u) << "write-patch turns no feature on";
    EXPECT_FALSE(parse_agent_options("write-patch=", &o, &error));
    EXPECT_NE(error.find("needs a directory"), std::string::npos) << error;
    EXPECT_FALSE(parse_agent_options("otep,write-patch=/tmp/p", &o, &error));
    EXPECT_NE(error.find("goes alone"), std::string::npos) << error;
}

// The patch is found in the JVM's options as HotSpot keeps them, and trusted only with a stamp of
// the running JDK's build, in a directory nobody else can change, holding the class files the
// library writes (java_base_patch.h).
class JavaBasePatchTest : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/vtscope-patch-test-XXXXXX";
        root = mkdtemp(tmpl);
        std::filesystem::create_directories(root / "jdk");
        std::filesystem::create_directories(root / "other");
        write(root / "jdk" / "release",
              "IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_VERSION=\"25.0.3\"\nJAVA_RUNTIME_VERSION=\"25.0.3+9-LTS\"\n");
        write_patch_classes();
    }
    void TearDown() override { std::filesystem::remove_all(root); }
    static void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }
    std::string arg(const std::string& paths) { return "--patch-module=java.base=" + paths; }
    // What write-patch leaves: the class files (directories 0755, files 0644 whatever the umask).
    void write_patch_classes() {
        for (const char* d :
             {"patch", "patch/java", "patch/java/lang", "patch/io", "patch/io/vtscope", "patch/io/vtscope/otep"}) {
            std::filesystem::create_directories(root / d);
            chmod((root / d).c_str(), 0755);
        }
        write(root / "patch/java/lang/VirtualThread.class", "\xca\xfe\xba\xbe...io/vtscope/otep/PatchLink...");
        write(root / "patch/io/vtscope/otep/MountHook.class", std::string(mount_hook.begin(), mount_hook.end()));
        write(root / "patch/io/vtscope/otep/PatchLink.class", std::string(patch_link.begin(), patch_link.end()));
        for (const char* f : {"patch/java/lang/VirtualThread.class", "patch/io/vtscope/otep/MountHook.class",
                              "patch/io/vtscope/otep/PatchLink.class"})
            chmod((root / f).c_str(), 0644);
    }
    void stamp(const std::string& text) {
        write(root / "patch" / kPatchStamp, text);
        chmod((root / "patch" / kPatchStamp).c_str(), 0644);
    }
    JavaBasePatch check(const std::string& paths, const std::string& jdk) {
        return check_java_base_patch({arg(paths)}, jdk, {mount_hook, patch_link});
    }
    std::filesystem::path root;
    const std::vector<unsigned char> mount_hook = {0xca, 0xfe, 0xba, 0xbe, 'M', 'H'};
    const std::vector<unsigned char> patch_link = {0xca, 0xfe, 0xba, 0xbe, 'P', 'L'};
    static constexpr const char* kGoodStamp =
        "# written\nIMPLEMENTOR=\"Eclipse "
        "Adoptium\"\nJAVA_RUNTIME_VERSION=\"25.0.3+9-LTS\"\nVIRTUAL_THREAD_SHA256=ab\n";
};

TEST_F(JavaBasePatchTest, PathsAndPropertiesComeFromTheLastOption) {
    EXPECT_TRUE(java_base_patch_paths({"-Xmx1g", "--patch-module=java.sql=/x"}).empty());
    EXPECT_EQ(java_base_patch_paths({arg("/a"), "-Dx=1", arg("/b::/c")}), (std::vector<std::string>{"/b", "/c"}));
    EXPECT_EQ(jvm_arg_property({"-Dotel.service.name=a", "-Dotel.service.names=b", "-Dotel.service.name=c"},
                               "otel.service.name"),
              "c");
    EXPECT_FALSE(jvm_arg_property({"-Dotel.service.names=b"}, "otel.service.name").has_value());
}

TEST_F(JavaBasePatchTest, OnlyAStampOfTheRunningBuildIsTrusted) {
    std::string jdk = (root / "jdk").string();
    // Not patched, or patched without the library's stamp (someone else's patch): not ours.
    EXPECT_EQ(check_java_base_patch({"-Xmx1g"}, jdk, {mount_hook, patch_link}).kind, JavaBasePatch::Kind::kNone);
    EXPECT_EQ(check((root / "other").string(), jdk).kind, JavaBasePatch::Kind::kNone);
    EXPECT_EQ(check((root / "patch").string(), jdk).kind, JavaBasePatch::Kind::kNone);

    stamp(kGoodStamp);
    JavaBasePatch ours = check((root / "other").string() + ":" + (root / "patch").string(), jdk);
    EXPECT_EQ(ours.kind, JavaBasePatch::Kind::kOurs) << ours.error;
    EXPECT_EQ(ours.dir, (root / "patch").string());

    stamp("IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_RUNTIME_VERSION=\"25.0.2+10-LTS\"\n");
    JavaBasePatch older = check((root / "patch").string(), jdk);
    EXPECT_EQ(older.kind, JavaBasePatch::Kind::kMismatch);
    EXPECT_NE(older.error.find("was written for JAVA_RUNTIME_VERSION=\"25.0.2+10-LTS\""), std::string::npos)
        << older.error;
    EXPECT_NE(older.error.find("write-patch=DIR"), std::string::npos) << older.error;

    stamp("IMPLEMENTOR=\"Other\"\nJAVA_RUNTIME_VERSION=\"25.0.3+9-LTS\"\n");
    EXPECT_EQ(check((root / "patch").string(), jdk).kind, JavaBasePatch::Kind::kMismatch)
        << "the same version from another vendor is another build";

    stamp("IMPLEMENTOR=\"Eclipse Adoptium\"\n");
    EXPECT_EQ(check((root / "patch").string(), jdk).kind, JavaBasePatch::Kind::kMismatch);
    stamp("IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_RUNTIME_VERSION=\"25.0.3+9-LTS\"\n");
    JavaBasePatch no_release = check((root / "patch").string(), (root / "nowhere").string());
    EXPECT_EQ(no_release.kind, JavaBasePatch::Kind::kMismatch);
    EXPECT_NE(no_release.error.find("names no JAVA_RUNTIME_VERSION"), std::string::npos) << no_release.error;
}

// The stamp alone once made a patch trusted: a directory others can write, a symbolic link, or
// class files that are not the library's now refuse it, each in one line naming the path.
TEST_F(JavaBasePatchTest, APatchOthersCouldChangeOrThatIsNotOursIsRefused) {
    std::string jdk = (root / "jdk").string(), patch = (root / "patch").string();
    stamp(kGoodStamp);
    ASSERT_EQ(check(patch, jdk).kind, JavaBasePatch::Kind::kOurs);
    auto refused = [&](const std::string& paths, const std::string& why) {
        JavaBasePatch p = check(paths, jdk);
        EXPECT_EQ(p.kind, JavaBasePatch::Kind::kMismatch) << why;
        EXPECT_NE(p.error.find(why), std::string::npos) << p.error;
        EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
    };

    chmod(patch.c_str(), 0777);
    refused(patch, patch + " is writable by group or others");
    chmod(patch.c_str(), 0755);
    chmod((root / "patch/io/vtscope").c_str(), 0775);
    refused(patch, patch + "/io/vtscope is writable by group or others");
    chmod((root / "patch/io/vtscope").c_str(), 0755);
    chmod((root / "patch" / kPatchStamp).c_str(), 0666);
    refused(patch, "vtscope-patch.properties is writable by group or others");
    chmod((root / "patch" / kPatchStamp).c_str(), 0644);
    if (geteuid() == 0) {  // a directory of another user (root may hand it over)
        ASSERT_EQ(chown((root / "patch/java").c_str(), 12345, 12345), 0);
        refused(patch, patch + "/java belongs to uid 12345");
        ASSERT_EQ(chown((root / "patch/java").c_str(), 0, 0), 0);
    }

    // A symbolic link as the directory, or planted for a class file: never followed.
    std::filesystem::create_directory_symlink(root / "patch", root / "link");
    EXPECT_EQ(check((root / "link").string(), jdk).kind, JavaBasePatch::Kind::kNone) << "a link is no patch directory";
    std::filesystem::rename(root / "patch/io/vtscope/otep/PatchLink.class", root / "PatchLink.class");
    std::filesystem::create_symlink(root / "PatchLink.class", root / "patch/io/vtscope/otep/PatchLink.class");
    refused(patch, "PatchLink.class: Too many levels of symbolic links");
    std::filesystem::remove(root / "patch/io/vtscope/otep/PatchLink.class");
    refused(patch, "PatchLink.class is missing");

    write_patch_classes();
    write(root / "patch/io/vtscope/otep/MountHook.class", "\xca\xfe\xba\xbeMX");  // as long as ours
    refused(patch, "MountHook.class is not the class this library writes");
    write(root / "patch/io/vtscope/otep/MountHook.class", std::string(1 << 20, 'x'));
    refused(patch, "MountHook.class is larger than 6 bytes");
    write_patch_classes();
    write(root / "patch/java/lang/VirtualThread.class", "\xca\xfe\xba\xbe unpatched");
    refused(patch, "VirtualThread.class is not the one write-patch makes");
    write_patch_classes();
    ASSERT_EQ(check(patch, jdk).kind, JavaBasePatch::Kind::kOurs);
}

// write-patch=DIR checks DIR before anything is written into it.
TEST_F(JavaBasePatchTest, TheWriterRefusesADirectoryItCouldBeMisledIn) {
    std::string error;
    std::string fresh = (root / "fresh").string();
    EXPECT_TRUE(prepare_patch_directory(fresh, &error)) << error;
    EXPECT_TRUE(std::filesystem::is_directory(fresh));
    EXPECT_TRUE(prepare_patch_directory(fresh, &error)) << "an existing directory of ours" << error;
    chmod(fresh.c_str(), 0777);
    EXPECT_FALSE(prepare_patch_directory(fresh, &error));
    EXPECT_NE(error.find("writable by group or others"), std::string::npos) << error;
    std::filesystem::create_directory_symlink(root / "other", root / "planted");
    EXPECT_FALSE(prepare_patch_directory((root / "planted").string(), &error));
    EXPECT_NE(error.find("cannot open " + (root / "planted").string()), std::string::npos) << error;
}

TEST(RecordTable, ClaimFindReleaseFollowTheSlotProtocol) {
    RecordTable table;
    std::string error;
    ASSERT_TRUE(table.create(64, &error)) << error;
    const auto* h = reinterpret_cast<const vtscope_region_header*>(table.base());
    EXPECT_EQ(h->magic, VTSCOPE_REGION_MAGIC);
    EXPECT_EQ(h->writer_pid, static_cast<uint32_t>(getpid()));

    // The region is named so readers find it in /proc/PID/maps.
    std::ifstream maps("/proc/self/maps");
    std::string line, found;
    while (std::getline(maps, line))
        if (line.find("/memfd:vtscope-records") != std::string::npos) found = line;
    EXPECT_FALSE(found.empty());

    uint64_t a = table.claim(100, true);
    ASSERT_NE(a, 0u);
    EXPECT_EQ(table.claim(100, true), a) << "a second claim returns the thread's slot";
    EXPECT_EQ(table.find(100), a);
    uint64_t b = table.claim(164, false);  // 164 & 63 == 100 & 63: the next slot
    EXPECT_EQ(b, a + VTSCOPE_SLOT_SIZE);
    const auto* slot_b = reinterpret_cast<const vtscope_slot*>(b - VTSCOPE_RECORD_OFFSET);
    EXPECT_EQ(slot_b->head.owner, 164);
    EXPECT_EQ(slot_b->head.kind, VTSCOPE_KIND_PLATFORM);
    EXPECT_EQ(table.find(228), 0u);

    // Releasing 100 leaves a tombstone: 164 is still found past it, and 228 reuses it.
    auto* record_a = reinterpret_cast<vtscope_record*>(a);
    record_a->valid = 1;
    record_a->trace_id[0] = 0xab;
    table.release(100);
    const auto* slot_a = reinterpret_cast<const vtscope_slot*>(a - VTSCOPE_RECORD_OFFSET);
    EXPECT_EQ(slot_a->head.owner, VTSCOPE_OWNER_RELEASED);
    EXPECT_EQ(record_a->valid, 0);
    EXPECT_EQ(record_a->trace_id[0], 0);
    EXPECT_EQ(table.find(100), 0u);
    EXPECT_EQ(table.find(164), b);
    EXPECT_EQ(table.claim(228, true), a);
    // paper-release keeps the record's bytes: a stale reader still sees the last context.
    auto* record_228 = reinterpret_cast<vtscope_record*>(a);
    record_228->valid = 1;
    table.release(228, true);
    EXPECT_EQ(record_228->valid, 1);
    EXPECT_EQ(table.find(228), 0u);
    EXPECT_EQ(table.claim(292, true), a) << "a new claim clears what paper-release kept";
    EXPECT_EQ(record_228->valid, 0);
    EXPECT_EQ(h->records_claimed, 4u);
    EXPECT_EQ(h->records_released, 2u);
}

TEST(RecordTable, FullChainAndForeignOwnersAreRespected) {
    RecordTable table;
    std::string error;
    ASSERT_TRUE(table.create(64, &error));
    for (int i = 0; i < VTSCOPE_MAX_PROBE; i++) ASSERT_NE(table.claim(1 + 64 * i, true), 0u);
    EXPECT_EQ(table.claim(1 + 64 * VTSCOPE_MAX_PROBE, true), 0u) << "a full chain gives no slot";
    const auto* h = reinterpret_cast<const vtscope_region_header*>(table.base());
    EXPECT_EQ(h->records_unavailable, 1u);
    // A slot being handed over (BUSY) is neither claimed nor matched.
    auto* slot = reinterpret_cast<vtscope_slot*>(table.base() + VTSCOPE_REGION_HEADER_SIZE + 5 * VTSCOPE_SLOT_SIZE);
    slot->head.owner = VTSCOPE_OWNER_BUSY;
    EXPECT_EQ(table.find(5), 0u);
}

TEST(RecordTable, AdoptValidatesTheHeader) {
    RecordTable creator;
    std::string error;
    ASSERT_TRUE(creator.create(128, &error));
    RecordTable adopter;
    EXPECT_TRUE(adopter.adopt(creator.base(), creator.size(), &error)) << error;
    EXPECT_FALSE(adopter.adopt(creator.base(), VTSCOPE_REGION_HEADER_SIZE, &error))
        << "mapping smaller than the capacity";
    auto* h = reinterpret_cast<vtscope_region_header*>(creator.base());
    h->writer_pid += 1;
    EXPECT_FALSE(adopter.adopt(creator.base(), creator.size(), &error));
    EXPECT_NE(error.find("another process"), std::string::npos);
}

// The one validation of a region header (common/vtscope_record.h) that the library and the
// consumer share: each field that can be wrong gives its own outcome and a message naming it.
TEST(RegionHeaderCheck, NamesTheFirstFieldThatDiffers) {
    constexpr uint32_t kPid = 4242;
    constexpr uint64_t kMappingSize = VTSCOPE_REGION_HEADER_SIZE + 64ull * VTSCOPE_SLOT_SIZE;
    vtscope_region_header good{};
    good.magic = VTSCOPE_REGION_MAGIC;
    good.version = VTSCOPE_REGION_VERSION;
    good.header_size = VTSCOPE_REGION_HEADER_SIZE;
    good.slot_size = VTSCOPE_SLOT_SIZE;
    good.capacity = 64;
    good.max_probe = VTSCOPE_MAX_PROBE;
    good.writer_pid = kPid;
    good.record_offset = VTSCOPE_RECORD_OFFSET;
    EXPECT_EQ(vtscope_check_region_header(&good, kMappingSize, kPid), VTSCOPE_REGION_VALID);

    struct Case {
        void (*spoil)(vtscope_region_header&);
        vtscope_region_check expected;
        const char* message_part;
    };
    const Case cases[] = {
        {[](vtscope_region_header& h) { h.magic ^= 1; }, VTSCOPE_REGION_BAD_MAGIC, "bad magic"},
        {[](vtscope_region_header& h) { h.version = 2; }, VTSCOPE_REGION_BAD_VERSION, "version 2 is not supported"},
        {[](vtscope_region_header& h) { h.header_size = 8192; }, VTSCOPE_REGION_BAD_HEADER_SIZE, "header size 8192"},
        {[](vtscope_region_header& h) { h.slot_size = 64; }, VTSCOPE_REGION_BAD_SLOT_SIZE, "slot size 64"},
        {[](vtscope_region_header& h) { h.record_offset = 0; }, VTSCOPE_REGION_BAD_RECORD_OFFSET, "record offset 0"},
        {[](vtscope_region_header& h) { h.max_probe = 16; }, VTSCOPE_REGION_BAD_MAX_PROBE, "max probe 16"},
        {[](vtscope_region_header& h) { h.capacity = 0; }, VTSCOPE_REGION_BAD_CAPACITY, "capacity 0 is not"},
        {[](vtscope_region_header& h) { h.capacity = 48; }, VTSCOPE_REGION_BAD_CAPACITY, "capacity 48 is not"},
        {[](vtscope_region_header& h) { h.capacity = 128; }, VTSCOPE_REGION_TRUNCATED, "(128 slots)"},
        {[](vtscope_region_header& h) { h.writer_pid = kPid + 1; }, VTSCOPE_REGION_FOREIGN,
         "another process (pid 4243)"},
        // Two fields wrong: the magic is checked first (the writer stores it last).
        {[](vtscope_region_header& h) {
             h.magic = 0;
             h.writer_pid = 1;
         },
         VTSCOPE_REGION_BAD_MAGIC, "bad magic"},
    };
    for (const Case& c : cases) {
        vtscope_region_header h = good;
        c.spoil(h);
        vtscope_region_check check = vtscope_check_region_header(&h, kMappingSize, kPid);
        EXPECT_EQ(check, c.expected) << c.message_part;
        char message[160];
        EXPECT_NE(std::string(vtscope_describe_region_check(check, &h, message, sizeof(message))).find(c.message_part),
                  std::string::npos)
            << message;
    }
}

TEST(RegionHeaderCheck, AMappingSmallerThanTheHeaderIsRefusedUnread) {
    // The header is not read (null here): a short mapping may end before it.
    EXPECT_EQ(vtscope_check_region_header(nullptr, VTSCOPE_REGION_HEADER_SIZE - 1, 1), VTSCOPE_REGION_TOO_SMALL);
    char message[160];
    EXPECT_NE(std::string(vtscope_describe_region_check(VTSCOPE_REGION_TOO_SMALL, nullptr, message, sizeof(message)))
                  .find("smaller than its 4096-byte header"),
              std::string::npos);
    std::string error;
    EXPECT_FALSE(validate_region_header(0, 1 << 20, getpid(), &error)) << "no region at all";
    EXPECT_NE(error.find("missing"), std::string::npos) << error;
}

TEST(SlotAddress, ProbesLinearlyFromTheHomeSlotAndWraps) {
    constexpr uint64_t kBase = 0x7f0000000000;
    constexpr uint64_t kMask = 63;  // 64 slots
    auto slot = [](uint64_t index) { return kBase + VTSCOPE_REGION_HEADER_SIZE + index * VTSCOPE_SLOT_SIZE; };
    EXPECT_EQ(vtscope_slot_address(kBase, kMask, 100, 0), slot(100 & 63));
    EXPECT_EQ(vtscope_slot_address(kBase, kMask, 100, 1), slot((100 & 63) + 1));
    EXPECT_EQ(vtscope_slot_address(kBase, kMask, 63, 1), slot(0)) << "the chain wraps to slot 0";
    EXPECT_EQ(vtscope_slot_address(kBase, kMask, 64 + 5, VTSCOPE_MAX_PROBE - 1), slot(5 + VTSCOPE_MAX_PROBE - 1));
}

// The payload's structure is checked by a real decoder in process_context_test.cpp; this is a
// byte-level pin of its layout: ProcessContext.attributes (field 2, tag 0x12) first when there is
// no resource.
TEST(ProcessContext, PayloadStartsWithProcessContextAttributesWithoutAResource) {
    std::vector<uint8_t> p = encode_process_context_payload({});
    ASSERT_GE(p.size(), 2u);
    EXPECT_EQ(p[0], 0x12);
}
