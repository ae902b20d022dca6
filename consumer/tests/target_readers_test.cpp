// SPDX-License-Identifier: Apache-2.0
// VMStructs, thread-list and record-region readers against a fake target address space.
#include <elf.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "../../common/vtscope_record.h"
#include "symbols/elf_symbols.h"
#include "fake_memory.h"
#include "jvm/java_threads.h"
#include "process/proc_maps.h"
#include "channels/record_region.h"
#include "symbols/stack_symbolizer.h"
#include "channels/thread_context_tls.h"
#include "jvm/vmstructs.h"

using vtscope::testing::FakeMemory;

namespace {

// Lays out a VMStructs table like HotSpot's: six-word entries ending with a null type name.
struct FakeVMStructs {
    struct Entry {
        std::string type, field, type_string;
        bool is_static;
        uint64_t offset, address;
    };
    static constexpr uint64_t kSymbols = 0x1000, kTable = 0x10000, kStrings = 0x50000;

    static vtscope::VMStructsSymbols symbols() {
        vtscope::VMStructsSymbols s;
        s.entries_pointer = kSymbols;
        s.type_name_offset = kSymbols + 8;
        s.field_name_offset = kSymbols + 16;
        s.type_string_offset = kSymbols + 24;
        s.is_static_offset = kSymbols + 32;
        s.offset_offset = kSymbols + 40;
        s.address_offset = kSymbols + 48;
        s.array_stride = kSymbols + 56;
        return s;
    }

    static void install(FakeMemory& mem, const std::vector<Entry>& entries) {
        uint64_t descriptors[8] = {kTable, 0, 8, 16, 24, 32, 40, 48};
        mem.put(kSymbols, descriptors, sizeof(descriptors));
        std::vector<uint64_t> table((entries.size() + 1) * 6, 0);
        uint64_t str = kStrings;
        auto add_string = [&](const std::string& s) {
            mem.put_string(str, s);
            uint64_t at = str;
            str += s.size() + 1;
            return at;
        };
        for (size_t i = 0; i < entries.size(); i++) {
            const Entry& e = entries[i];
            table[i * 6 + 0] = add_string(e.type);
            table[i * 6 + 1] = add_string(e.field);
            table[i * 6 + 2] = add_string(e.type_string);
            table[i * 6 + 3] = e.is_static ? 1 : 0;
            table[i * 6 + 4] = e.offset;
            table[i * 6 + 5] = e.address;
        }
        mem.put(kTable, table.data(), table.size() * sizeof(uint64_t));
    }

    static std::vector<Entry> jdk25_like(bool with_owner_id = true) {
        std::vector<Entry> e = {
            {"ThreadsSMRSupport", "_java_thread_list", "ThreadsList*", true, 0, 0x9000},
            {"ThreadsList", "_length", "const uint", false, 4, 0},
            {"ThreadsList", "_threads", "JavaThread*const*const", false, 16, 0},
            {"Thread", "_osthread", "OSThread*", false, 1016, 0},
            {"OSThread", "_thread_id", "pid_t", false, 12, 0},
            {"JavaThread", "_threadObj", "OopHandle", false, 1120, 0},
            {"JavaThread", "_vthread", "OopHandle", false, 1128, 0},
            {"JavaThread", "_terminated", "JavaThread::TerminatedTypes", false, 1344, 0},
        };
        if (with_owner_id) e.push_back({"JavaThread", "_monitor_owner_id", "int64_t", false, 1312, 0});
        return e;
    }
};

}  // namespace

TEST(VMStructs, ReadsTableAndResolvesLayout) {
    FakeMemory mem;
    FakeVMStructs::install(mem, FakeVMStructs::jdk25_like());
    auto structs = vtscope::VMStructs::read(mem, FakeVMStructs::symbols());
    ASSERT_TRUE(structs.ok()) << structs.error().message;
    EXPECT_EQ(structs->size(), 9u);
    auto layout = vtscope::resolve_layout(*structs, mem);
    ASSERT_TRUE(layout.ok()) << layout.error().message;
    EXPECT_EQ(layout->java_thread_monitor_owner_id, 1312u);
    EXPECT_EQ(layout->java_thread_list_address, 0x9000u);
    EXPECT_EQ(layout->osthread_thread_id, 12u);
    EXPECT_EQ(*layout->java_thread_terminated, 1344u);
}

// JDK 21-23: no _monitor_owner_id (the ids come from the thread objects, oop_identity.h), and
// _osthread declared in JavaThread rather than Thread.
TEST(VMStructs, Jdk21LayoutWithoutMonitorOwnerIdResolves) {
    FakeMemory mem;
    auto entries = FakeVMStructs::jdk25_like(false);
    for (auto& e : entries)
        if (e.field == "_osthread") e.type = "JavaThread", e.offset = 784;
    FakeVMStructs::install(mem, entries);
    auto structs = vtscope::VMStructs::read(mem, FakeVMStructs::symbols());
    ASSERT_TRUE(structs.ok());
    auto layout = vtscope::resolve_layout(*structs, mem);
    ASSERT_TRUE(layout.ok()) << layout.error().message;
    EXPECT_FALSE(layout->has_monitor_owner_id);
    EXPECT_EQ(layout->thread_osthread, 784u);
    auto jdk25 = FakeVMStructs::jdk25_like(true);
    FakeMemory mem25;
    FakeVMStructs::install(mem25, jdk25);
    auto structs25 = vtscope::VMStructs::read(mem25, FakeVMStructs::symbols());
    ASSERT_TRUE(structs25.ok());
    auto layout25 = vtscope::resolve_layout(*structs25, mem25);
    ASSERT_TRUE(layout25.ok());
    EXPECT_TRUE(layout25->has_monitor_owner_id);
    EXPECT_EQ(layout25->thread_osthread, 1016u);
}

TEST(VMStructs, ImplausibleDescriptorsAndMissingEndAreErrors) {
    FakeMemory mem;
    uint64_t descriptors[8] = {FakeVMStructs::kTable, 0, 8, 16, 24, 32, 40, 4096};  // absurd stride
    mem.put(FakeVMStructs::kSymbols, descriptors, sizeof(descriptors));
    EXPECT_FALSE(vtscope::VMStructs::read(mem, FakeVMStructs::symbols()).ok());
    FakeMemory empty;
    EXPECT_FALSE(vtscope::VMStructs::read(empty, FakeVMStructs::symbols()).ok());
}

// A hostile JVM writes its own VMStructs table: an offset near 2^64 once made the walk's span of
// Thread::_osthread and JavaThread::_terminated wrap and memcpy outside its buffer (ASan:
// heap-buffer-overflow). The layout is now refused, naming the field.
TEST(VMStructs, OffsetNearTwoToTheSixtyFourIsRefusedNamingTheField) {
    for (const char* field : {"_osthread", "_terminated", "_thread_id", "_length"}) {
        FakeMemory mem;
        auto entries = FakeVMStructs::jdk25_like();
        for (auto& e : entries)
            if (e.field == field) e.offset = UINT64_MAX - 1;
        FakeVMStructs::install(mem, entries);
        auto structs = vtscope::VMStructs::read(mem, FakeVMStructs::symbols());
        ASSERT_TRUE(structs.ok()) << structs.error().message;
        auto layout = vtscope::resolve_layout(*structs, mem);
        if (layout.ok()) {
            // The old code accepted the layout; walking a thread with it overflowed.
            vtscope::HotSpotLayout hostile = *layout;
            FakeMemory threads;
            uint64_t list = 0x20000, array = 0x21000, jt = 0x30000;
            threads.put_value<uint64_t>(0x9000, list);
            std::vector<char> header(4096, 0);
            uint32_t one = 1;
            std::memcpy(header.data() + 4, &one, 4);
            std::memcpy(header.data() + 16, &array, 8);
            threads.put(list, header.data(), header.size());
            threads.put_value<uint64_t>(array, jt);
            threads.put(jt, std::vector<char>(4096, 0).data(), 4096);
            (void)vtscope::walk_java_threads(threads, hostile);
            ADD_FAILURE() << "a layout with " << field << " at 2^64-2 was accepted";
            continue;
        }
        EXPECT_NE(layout.error().message.find(field), std::string::npos) << layout.error().message;
        EXPECT_EQ(layout.error().message.find('\n'), std::string::npos);
    }
}

TEST(VMStructs, OffsetsUpToTheBoundAreAccepted) {
    FakeMemory mem;
    auto entries = FakeVMStructs::jdk25_like();
    for (auto& e : entries)
        if (e.field == "_terminated") e.offset = 64 * 1024 - 1;
    FakeVMStructs::install(mem, entries);
    auto structs = vtscope::VMStructs::read(mem, FakeVMStructs::symbols());
    ASSERT_TRUE(structs.ok());
    auto layout = vtscope::resolve_layout(*structs, mem);
    ASSERT_TRUE(layout.ok()) << layout.error().message;
    EXPECT_EQ(*layout->java_thread_terminated, 64u * 1024 - 1);
    entries.back().offset = 64 * 1024;  // _monitor_owner_id, one past the bound
    FakeMemory over;
    FakeVMStructs::install(over, entries);
    auto refused = vtscope::resolve_layout(*vtscope::VMStructs::read(over, FakeVMStructs::symbols()), over);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("JavaThread::_monitor_owner_id"), std::string::npos);
}

namespace {
// A two-thread JVM: thread A runs nothing (its handles hold the same oop), thread B has a
// virtual thread mounted (the handles differ).
struct FakeThreads {
    vtscope::HotSpotLayout layout;
    FakeMemory mem;
    static constexpr uint64_t kList = 0x20000, kArray = 0x21000, kA = 0x30000, kB = 0x40000;

    FakeThreads() {
        layout.java_thread_list_address = 0x9000;
        layout.threads_list_length = 4;
        layout.threads_list_threads = 16;
        layout.thread_osthread = 1016;
        layout.osthread_thread_id = 12;
        layout.java_thread_monitor_owner_id = 1312;
        layout.java_thread_thread_obj = 1120;
        layout.java_thread_vthread = 1128;
        layout.java_thread_terminated = 1344;
        mem.put_value<uint64_t>(0x9000, kList);
        set_list({kA, kB});
        add_thread(kA, 101, 5, 0xaaa0, 0xaaa0);
        add_thread(kB, 102, 40, 0xbbb0, 0xccc0);
    }

    void set_list(const std::vector<uint64_t>& threads) {
        std::vector<char> list(24, 0);
        uint32_t length = static_cast<uint32_t>(threads.size());
        uint64_t array = kArray;
        std::memcpy(list.data() + 4, &length, 4);
        std::memcpy(list.data() + 16, &array, 8);
        mem.put(kList, list.data(), list.size());
        mem.put(kArray, threads.data(), threads.size() * sizeof(uint64_t));
    }

    void add_thread(uint64_t jt, uint32_t tid, int64_t monitor_owner_id, uint64_t thread_oop, uint64_t vthread_oop) {
        std::vector<char> bytes(2048, 0);
        uint64_t osthread = jt + 0x5000;
        uint64_t thread_obj_slot = jt + 0x6000, vthread_slot = jt + 0x6008;
        uint32_t not_terminated = 0xDEAD - 3;
        std::memcpy(bytes.data() + 1016, &osthread, 8);
        std::memcpy(bytes.data() + 1120, &thread_obj_slot, 8);
        std::memcpy(bytes.data() + 1128, &vthread_slot, 8);
        std::memcpy(bytes.data() + 1312, &monitor_owner_id, 8);
        std::memcpy(bytes.data() + 1344, &not_terminated, 4);
        mem.put(jt, bytes.data(), bytes.size());
        std::vector<char> os(16, 0);
        std::memcpy(os.data() + 12, &tid, 4);
        mem.put(osthread, os.data(), os.size());
        uint64_t slots[2] = {thread_oop, vthread_oop};
        mem.put(thread_obj_slot, slots, sizeof(slots));
    }
};
}  // namespace

TEST(JavaThreads, WalkFindsThreadsAndProvesOwnIdOnlyWhenNothingIsMounted) {
    FakeThreads f;
    auto threads = vtscope::walk_java_threads(f.mem, f.layout);
    ASSERT_TRUE(threads.ok()) << threads.error().message;
    ASSERT_EQ(threads->size(), 2u);
    EXPECT_EQ((*threads)[0].tid, 101u);
    EXPECT_EQ((*threads)[0].java_thread, FakeThreads::kA);
    EXPECT_EQ(vtscope::sample_own_id(f.mem, f.layout, (*threads)[0].java_thread), 5);
    EXPECT_EQ((*threads)[1].tid, 102u);
    EXPECT_EQ((*threads)[1].java_thread, FakeThreads::kB);
    EXPECT_EQ(vtscope::sample_own_id(f.mem, f.layout, (*threads)[1].java_thread), 0)
        << "a carrier with a mounted virtual thread must not be given an own id";
}

TEST(JavaThreads, SkipsTerminatedThreads) {
    FakeThreads f;
    f.add_thread(FakeThreads::kB, 102, 40, 0xbbb0, 0xccc0);
    std::vector<char> bytes(2048);
    ASSERT_TRUE(f.mem.read(FakeThreads::kB, bytes.data(), bytes.size()));
    uint32_t exiting = 0xDEAD - 2;  // JavaThread::_thread_exiting
    std::memcpy(bytes.data() + 1344, &exiting, 4);
    f.mem.put(FakeThreads::kB, bytes.data(), bytes.size());
    auto threads = vtscope::walk_java_threads(f.mem, f.layout);
    ASSERT_TRUE(threads.ok());
    ASSERT_EQ(threads->size(), 1u);
    EXPECT_EQ((*threads)[0].tid, 101u);
}

// A layout made by hand (or a future bound) must not wrap the walk's span either: the wrapped
// field is read on its own, fails, and the thread is skipped.
TEST(JavaThreads, WalkWithAWrappingOffsetReadsNothingOutOfBounds) {
    FakeThreads f;
    f.layout.thread_osthread = UINT64_MAX - 1;
    f.layout.java_thread_terminated = 0;
    auto threads = vtscope::walk_java_threads(f.mem, f.layout);
    ASSERT_TRUE(threads.ok()) << threads.error().message;
    EXPECT_TRUE(threads->empty());
}

namespace {
// Counts the calls a reader makes, each a system call for ProcessMemory.
class CountingMemory final : public vtscope::MemoryReader {
public:
    explicit CountingMemory(const MemoryReader& inner) : inner_(inner) {}
    bool read(uint64_t address, void* out, size_t size) const override {
        calls++;
        return inner_.read(address, out, size);
    }
    void read_batch(std::span<vtscope::ReadRequest> requests) const override {
        calls++;
        inner_.read_batch(requests);
    }
    mutable int calls = 0;

private:
    const MemoryReader& inner_;
};
}  // namespace

TEST(JavaThreads, WalkReadsInBatchesNotPerThread) {
    FakeThreads f;
    std::vector<uint64_t> list;
    for (uint32_t i = 0; i < 300; i++) {  // more than one batch of threads (256)
        uint64_t jt = 0x100000 + uint64_t{i} * 0x10000;
        f.add_thread(jt, 1000 + i, 7 + i, 0xd000 + i * 16, 0xd000 + i * 16);
        list.push_back(jt);
    }
    list.push_back(0);          // a null entry and a misaligned one are skipped, not read
    list.push_back(0x12345);    // (the list is HotSpot's, but the consumer validates what it reads)
    list.push_back(0x7770000);  // unmapped: its reads fail, the others still succeed
    f.set_list(list);
    CountingMemory counting(f.mem);
    auto threads = vtscope::walk_java_threads(counting, f.layout);
    ASSERT_TRUE(threads.ok()) << threads.error().message;
    ASSERT_EQ(threads->size(), 300u);
    for (uint32_t i = 0; i < 300; i++) {
        EXPECT_EQ((*threads)[i].tid, 1000 + i);
        EXPECT_EQ((*threads)[i].java_thread, 0x100000 + uint64_t{i} * 0x10000);
    }
    // The list pointer, its header, the array, two batches per 256 threads, the list pointer again.
    EXPECT_EQ(counting.calls, 4 + 2 * 2);
}

TEST(JavaThreads, OwnIdSampleIsThreeBatchesEach) {
    FakeThreads f;
    CountingMemory counting(f.mem);
    EXPECT_EQ(vtscope::sample_own_id(counting, f.layout, FakeThreads::kA), 5);
    EXPECT_EQ(counting.calls, 6);
}

// ProcessMemory's batched reads against this process: every request's ok flag says exactly
// whether it was read, whatever failed before it in the same system call.
TEST(ProcessMemory, BatchReadsMarkEachRequest) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    auto* area = static_cast<unsigned char*>(
        mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(area, MAP_FAILED);
    for (size_t i = 0; i < 3 * page; i++) area[i] = static_cast<unsigned char>(i * 7);
    ASSERT_EQ(mprotect(area + page, page, PROT_NONE), 0);  // a hole in the middle page
    auto at = [&](size_t offset) { return reinterpret_cast<uint64_t>(area) + offset; };

    vtscope::ProcessMemory memory(getpid());
    // 1,500 requests: more than one process_vm_readv (1,024 iovecs at most), with failures
    // (the hole, a read running into it, address 0) spread over both calls.
    constexpr size_t kCount = 1500;
    std::vector<uint64_t> out(kCount, 0);
    std::vector<vtscope::ReadRequest> requests;
    std::vector<bool> expected;
    for (size_t i = 0; i < kCount; i++) {
        size_t offset = (i * 8) % (page - 8);  // in the first page: readable
        bool ok = true;
        if (i % 97 == 5) offset = page + 16, ok = false;                // in the hole
        if (i % 131 == 7) offset = page - 4, ok = false;                // runs into the hole
        if (i % 211 == 9) offset = 2 * page + (i % 64) * 8, ok = true;  // past the hole: readable
        uint64_t address = i % 389 == 11 ? 0 : at(offset);
        if (address == 0) ok = false;
        requests.push_back({address, &out[i], sizeof(uint64_t)});
        expected.push_back(ok);
    }
    uint64_t none = 0;
    requests.push_back({0, &none, 0});  // nothing to read: done
    expected.push_back(true);
    memory.read_batch(requests);
    for (size_t i = 0; i < requests.size(); i++) {
        ASSERT_EQ(requests[i].ok, expected[i]) << "request " << i;
        if (requests[i].ok && requests[i].size) {
            uint64_t want = 0;
            std::memcpy(&want, reinterpret_cast<const void*>(requests[i].address), sizeof(want));
            EXPECT_EQ(out[i], want) << "request " << i;
        }
    }
    munmap(area, 3 * page);

    // A target that is gone fails every request, in one call.
    vtscope::ProcessMemory gone(0x3ffffff0);
    uint64_t value = 0;
    vtscope::ReadRequest one[] = {{at(0), &value, sizeof(value)}, {at(8), &value, sizeof(value)}};
    gone.read_batch(one);
    EXPECT_FALSE(one[0].ok);
    EXPECT_FALSE(one[1].ok);
}

// A header every check accepts: 16,384 slots, written by writer_pid.
vtscope_region_header valid_region_header(uint32_t writer_pid) {
    vtscope_region_header h{};
    h.magic = VTSCOPE_REGION_MAGIC;
    h.version = VTSCOPE_REGION_VERSION;
    h.header_size = VTSCOPE_REGION_HEADER_SIZE;
    h.slot_size = VTSCOPE_SLOT_SIZE;
    h.capacity = 16384;
    h.max_probe = VTSCOPE_MAX_PROBE;
    h.writer_pid = writer_pid;
    h.record_offset = VTSCOPE_RECORD_OFFSET;
    return h;
}

TEST(RecordRegion, FindsAndValidatesHeader) {
    std::string maps_text =
        "7f0000000000-7f0000201000 rw-s 00000000 00:01 1234 /memfd:vtscope-records (deleted)\n"
        "7f1000000000-7f1000001000 rw-s 00000000 00:01 1235 /memfd:vtscope-records-other (deleted)\n"
        "7f2000000000-7f2000100000 r-xp 00000000 08:01 99 /usr/lib/jvm/x/lib/server/libjvm.so\n";
    auto maps = vtscope::parse_maps(maps_text);
    ASSERT_EQ(maps.size(), 3u);
    auto regions = vtscope::find_region_mappings(maps);
    ASSERT_EQ(regions.size(), 1u);
    ASSERT_NE(vtscope::find_libjvm(maps), nullptr);
    EXPECT_EQ(vtscope::find_libjvm(maps)->start, 0x7f2000000000u);

    FakeMemory mem;
    vtscope_region_header h = valid_region_header(77);
    h.records_claimed = 5;
    mem.put_value(0x7f0000000000, h);
    auto region = vtscope::validate_region(mem, *regions[0], 77);
    ASSERT_TRUE(region.ok()) << region.error().message;
    EXPECT_EQ(region->capacity, 16384u);
    EXPECT_EQ(vtscope::read_writer_stats(mem, *region)->claimed, 5u);

    EXPECT_FALSE(vtscope::validate_region(mem, *regions[0], 78).ok()) << "another process's region";
    h.capacity = 1000;
    mem.put_value(0x7f0000000000, h);
    EXPECT_FALSE(vtscope::validate_region(mem, *regions[0], 77).ok()) << "capacity not a power of two";
    h.capacity = 1 << 20;  // larger than the 2 MiB mapping
    mem.put_value(0x7f0000000000, h);
    EXPECT_FALSE(vtscope::validate_region(mem, *regions[0], 77).ok());
    h.capacity = 16384;
    h.magic = 1;
    mem.put_value(0x7f0000000000, h);
    EXPECT_FALSE(vtscope::validate_region(mem, *regions[0], 77).ok());
}

// The JDK 21 writer (no memfd_create without FFM) maps a file vtscope-records-<pid>-<random>
// under /dev/shm, or java.io.tmpdir, and unlinks it at once.
TEST(RecordRegion, FindsTheJdk21WritersFile) {
    std::string maps_text =
        "7f0000000000-7f0000201000 rw-s 00000000 00:1a 501 /dev/shm/vtscope-records-77-0123456789abcdef (deleted)\n"
        "7f0100000000-7f0100201000 rw-s 00000000 00:1a 501 /dev/shm/vtscope-records-77-0123456789abcdef (deleted)\n"
        "7f0200000000-7f0200201000 rw-s 00000000 08:01 502 /tmp/vtscope-records-77-fedcba9876543210\n"
        "7f0300000000-7f0300201000 rw-s 00000000 00:1a 503 /dev/shm/vtscope-records\n"
        "7f0400000000-7f0400201000 rw-s 00000000 00:1a 504 /dev/shm/my-vtscope-records-77-00\n"
        "7f0500000000-7f0500201000 rw-s 00000000 00:1a 505 /dev/shm/vtscope-test-records-77-00 (deleted)\n"
        "7f0600000000-7f0600201000 rw-s 00001000 00:1a 501 /dev/shm/vtscope-records-77-aaaaaaaaaaaaaaaa\n";
    auto maps = vtscope::parse_maps(maps_text);
    ASSERT_EQ(maps.size(), 7u);
    auto regions = vtscope::find_region_mappings(maps);
    ASSERT_EQ(regions.size(), 2u) << "each file once, only vtscope-records-* names, only from offset 0";
    EXPECT_EQ(regions[0]->start, 0x7f0000000000u) << "the first mapping of the file";
    EXPECT_EQ(regions[1]->start, 0x7f0200000000u) << "not deleted (yet): still the writer's file";

    // The header checks are those of the memfd region.
    FakeMemory mem;
    vtscope_region_header h = valid_region_header(77);
    mem.put_value(0x7f0000000000, h);
    EXPECT_TRUE(vtscope::validate_region(mem, *regions[0], 77).ok());
    EXPECT_FALSE(vtscope::validate_region(mem, *regions[0], 78).ok()) << "another process's region";
}

TEST(ThreadContextTls, OnlyStaticTlsDescriptorsAreAccepted) {
    EXPECT_EQ(*vtscope::static_tls_offset(static_cast<uint64_t>(-168)), -168);  // seen for libvtscope.so
    EXPECT_FALSE(vtscope::static_tls_offset(0x7f12345678a0).ok()) << "a heap pointer: dynamic TLS";
    EXPECT_FALSE(vtscope::static_tls_offset(16).ok());
    EXPECT_FALSE(vtscope::static_tls_offset(static_cast<uint64_t>(-3)).ok()) << "misaligned";
}

namespace {

// A small ELF64 file: function symbols in .symtab (with .strtab and .shstrtab) and one PT_LOAD
// at offset 0. symtab_size, when given, is what the .symtab header claims instead of its size.
std::string tiny_elf(const std::vector<std::pair<std::string, uint64_t>>& functions, uint64_t symtab_size = 0) {
    std::string strtab(1, '\0'), shstrtab = std::string("\0.strtab\0.symtab\0.shstrtab\0", 27);
    std::vector<Elf64_Sym> syms(1);
    for (const auto& [name, value] : functions) {
        Elf64_Sym sym{};
        sym.st_name = static_cast<uint32_t>(strtab.size());
        sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
        sym.st_shndx = 1;
        sym.st_value = value;
        sym.st_size = 0x10;
        syms.push_back(sym);
        strtab += name + '\0';
    }
    while (strtab.size() % 8) strtab += '\0';
    size_t strtab_at = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr), symtab_at = strtab_at + strtab.size();
    size_t shstrtab_at = symtab_at + syms.size() * sizeof(Elf64_Sym), shdrs_at = (shstrtab_at + 27 + 7) / 8 * 8;
    Elf64_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_DYN;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof(Elf64_Ehdr);
    eh.e_shoff = shdrs_at;
    eh.e_ehsize = sizeof(Elf64_Ehdr);
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 1;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 4;
    eh.e_shstrndx = 3;
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_filesz = ph.p_memsz = 0x10000;
    Elf64_Shdr sh[4] = {};
    sh[1] = {1, SHT_STRTAB, 0, 0, strtab_at, strtab.size(), 0, 0, 1, 0};
    sh[2] = {9, SHT_SYMTAB,       0, 0, symtab_at, symtab_size ? symtab_size : syms.size() * sizeof(Elf64_Sym), 1, 1,
             8, sizeof(Elf64_Sym)};
    sh[3] = {17, SHT_STRTAB, 0, 0, shstrtab_at, 27, 0, 0, 1, 0};
    std::string file(reinterpret_cast<const char*>(&eh), sizeof(eh));
    file.append(reinterpret_cast<const char*>(&ph), sizeof(ph));
    file += strtab;
    file.append(reinterpret_cast<const char*>(syms.data()), syms.size() * sizeof(Elf64_Sym));
    file += shstrtab;
    file.resize(shdrs_at, '\0');
    file.append(reinterpret_cast<const char*>(sh), sizeof(sh));
    return file;
}

// The bytes in a memfd (as the fuzzer hands them over): any descriptor will do.
vtscope::UniqueFd memfd_with(const std::string& bytes) {
    vtscope::UniqueFd fd(memfd_create("elf", MFD_CLOEXEC));
    if (fd && write(fd.get(), bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) return {};
    return fd;
}

}  // namespace

TEST(ElfFile, LoadsSymbolsAndSegmentsFromAnyDescriptor) {
    auto fd = memfd_with(tiny_elf({{"wanted_function", 0x1000}, {"other_function", 0x2000}}));
    ASSERT_TRUE(fd);
    auto elf = vtscope::ElfFile::load(fd.get(), {"wanted_function"}, "a memfd");
    ASSERT_TRUE(elf) << elf.error().message;
    ASSERT_NE(elf->find("wanted_function"), nullptr);
    EXPECT_EQ(elf->find("wanted_function")->value, 0x1000u);
    EXPECT_EQ(elf->find("other_function"), nullptr);  // not asked for
    EXPECT_EQ(elf->file_offset(0x1000), 0x1000u);
    EXPECT_EQ(elf->file_offset(0x10000), 0u);
    auto not_elf = memfd_with("#!/bin/sh\n");
    EXPECT_FALSE(vtscope::ElfFile::load(not_elf.get(), {"x"}, "a script"));
}

// A .symtab header claiming a terabyte: libelf would allocate what it claims; the section is
// skipped because it does not lie inside the file.
TEST(ElfFile, ASectionBeyondTheFileIsSkipped) {
    auto fd = memfd_with(tiny_elf({{"wanted_function", 0x1000}}, uint64_t{1} << 40));
    ASSERT_TRUE(fd);
    auto elf = vtscope::ElfFile::load(fd.get(), {"wanted_function"}, "a memfd");
    ASSERT_TRUE(elf) << elf.error().message;
    EXPECT_EQ(elf->find("wanted_function"), nullptr);
    EXPECT_FALSE(
        vtscope::section_in_file(*vtscope::ElfHandle::read(fd.get(), "a memfd"), SHT_SYMTAB, 64, uint64_t{1} << 40));
}

// Names past kMaxSymbolNameBytes never reach the demangler (crafted mangled names make it take
// exponential time and stack) nor a frame; demangled names are cut at kMaxFrameNameBytes.
TEST(ElfSymbols, AnOverlongSymbolNameIsSkippedBeforeDemangling) {
    std::string overlong = "_ZN" + std::string(vtscope::kMaxSymbolNameBytes, 'a');
    auto fd = memfd_with(tiny_elf({{"_ZN10JavaThread3runEv", 0x1000}, {overlong, 0x2000}}));
    ASSERT_TRUE(fd);
    vtscope::ElfSymbols symbols = vtscope::load_elf_symbols(fd.get(), "a memfd");
    ASSERT_TRUE(symbols.loaded);
    ASSERT_NE(symbols.symbols.find(0x1004), nullptr);
    EXPECT_EQ(*symbols.symbols.find(0x1004), "JavaThread::run");
    EXPECT_EQ(symbols.symbols.find(0x2004), nullptr);
    EXPECT_EQ(symbols.symbols.size(), 1u);
}

TEST(TargetIds, TheNamespacePidIsTheLastOfNSpidAndTheUidTheEffectiveOne) {
    auto ids = vtscope::parse_target_ids("Name:\tUid: 7 7\nUid:\t1000\t1001\t1001\t1001\nNSpid:\t4242\t17\t1\n", 4242);
    EXPECT_TRUE(ids.known);
    EXPECT_EQ(ids.ns_pid, 1);
    EXPECT_EQ(ids.uid, 1001u);
    auto old_kernel = vtscope::parse_target_ids("Uid:\t0\t0\t0\t0\n", 99);
    EXPECT_EQ(old_kernel.ns_pid, 99);
    EXPECT_FALSE(vtscope::parse_target_ids("Name:\tx\n", 5).known);
}
