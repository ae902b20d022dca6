// SPDX-License-Identifier: Apache-2.0
// Emulates the probe ABI of the paper's patched JDK (its Appendix B) so the hotspot-probes
// channel can be tested without that JDK: hotspot:vthread__start(vid, addr),
// vthread__end(vid), vthread__freeze(vid, result, addr), vthread__thaw(vid, kind, addr), fired
// in the orders the paper documents, with marker writes in between, on two carrier threads.
//
// Each emulated virtual thread k writes markers of 1000+k bytes to /dev/null (the harness
// convention) and its ground truth goes to --expected as JSON lines. Each carrier c also writes
// 5000+c bytes after events that must leave it unmapped (after end, and after a return-barrier
// thaw that follows an end): the test requires those writes to stay unattributed.
//
// Usage: hotspot_abi_emulator --expected FILE --ready-file FILE --go-file FILE
#include <fcntl.h>
#include <sys/sdt.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

// HotSpot's enums: freeze_result (continuationFreezeThaw.cpp), Continuation::thaw_kind.
constexpr int kFreezeOk = 0;
constexpr int kFreezePinnedMonitor = 4;
constexpr int kThawTop = 0;
constexpr int kThawReturnBarrier = 1;
constexpr int kThreadsPerCarrier = 8;

struct alignas(64) Record {  // OTEP 4947 layout (common/vtscope_record.h)
    uint8_t trace_id[16];
    uint8_t span_id[8];
    uint8_t valid;
    uint8_t trace_flags;
    uint16_t attrs_size;
    uint8_t attrs[36];
};
static_assert(sizeof(Record) == 64);

struct Marker {
    int sender, seq;
    long vid;
    std::string trace_id, span_id;
};

std::mutex g_mutex;
std::vector<Marker> g_markers;
int g_fd = -1;

std::string hex(const uint8_t* b, size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; i++) {
        s.push_back(digits[b[i] >> 4]);
        s.push_back(digits[b[i] & 15]);
    }
    return s;
}

void write_bytes(size_t count) {
    static char buffer[8192];
    if (write(g_fd, buffer, count) != static_cast<ssize_t>(count)) std::perror("write");
}

// A new span in the record, written in place with the valid flag cleared around it.
void set_span(Record* r, int sender, int seq) {
    __atomic_store_n(&r->valid, 0, __ATOMIC_RELEASE);
    for (int i = 0; i < 16; i++) r->trace_id[i] = static_cast<uint8_t>(0x10 + sender + i);
    for (int i = 0; i < 8; i++) r->span_id[i] = static_cast<uint8_t>(seq * 16 + i + 1);
    r->trace_flags = 1;
    __atomic_store_n(&r->valid, 1, __ATOMIC_RELEASE);
}

void marker(Record* r, int sender, int seq, long vid) {
    set_span(r, sender, seq);
    write_bytes(1000 + sender);
    std::lock_guard<std::mutex> lock(g_mutex);
    g_markers.push_back({sender, seq, vid, hex(r->trace_id, 16), hex(r->span_id, 8)});
}

void carrier(int c, std::vector<Record>* records) {
    for (int i = 0; i < kThreadsPerCarrier; i++) {
        int sender = c * kThreadsPerCarrier + i;
        long vid = 100 + sender;
        Record* r = &(*records)[sender];
        uintptr_t addr = reinterpret_cast<uintptr_t>(r);
        // First mount: no thaw, only start (the marker before the first park).
        DTRACE_PROBE2(hotspot, vthread__start, vid, addr);
        marker(r, sender, 0, vid);
        // A park: freeze ok (unmount), then a remount: thaw kind=top.
        DTRACE_PROBE3(hotspot, vthread__freeze, vid, kFreezeOk, addr);
        DTRACE_PROBE3(hotspot, vthread__thaw, vid, kThawTop, addr);
        marker(r, sender, 1, vid);
        // A pinned freeze keeps the thread on its carrier: the mapping must stay.
        DTRACE_PROBE3(hotspot, vthread__freeze, vid, kFreezePinnedMonitor, addr);
        marker(r, sender, 2, vid);
        // A return-barrier thaw inside the same mount: neither inserts nor deletes.
        DTRACE_PROBE3(hotspot, vthread__thaw, vid, kThawReturnBarrier, addr);
        marker(r, sender, 3, vid);
        // Termination: end, then (as the paper observed) a return-barrier thaw after end.
        DTRACE_PROBE1(hotspot, vthread__end, vid);
        write_bytes(5000 + c);
        DTRACE_PROBE3(hotspot, vthread__thaw, vid, kThawReturnBarrier, addr);
        write_bytes(5000 + c);
        __atomic_store_n(&r->valid, 0, __ATOMIC_RELEASE);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string expected, ready, go;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string name = argv[i];
        if (name == "--expected")
            expected = argv[i + 1];
        else if (name == "--ready-file")
            ready = argv[i + 1];
        else if (name == "--go-file")
            go = argv[i + 1];
    }
    if (expected.empty() || ready.empty() || go.empty()) {
        std::fprintf(stderr, "usage: %s --expected FILE --ready-file FILE --go-file FILE\n", argv[0]);
        return 2;
    }
    g_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    std::vector<Record> records(2 * kThreadsPerCarrier);
    std::memset(records.data(), 0, records.size() * sizeof(Record));
    std::ofstream(ready + ".tmp") << getpid() << "\n";
    std::rename((ready + ".tmp").c_str(), ready.c_str());
    for (int i = 0; i < 12000 && access(go.c_str(), F_OK) != 0; i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::thread a(carrier, 0, &records), b(carrier, 1, &records);
    a.join();
    b.join();
    std::ofstream out(expected);
    for (const Marker& m : g_markers)
        out << "{\"sender\":" << m.sender << ",\"seq\":" << m.seq << ",\"platform\":false,\"vthread\":" << m.vid
            << ",\"thread_id\":" << m.vid << ",\"trace_id\":\"" << m.trace_id << "\",\"span_id\":\"" << m.span_id
            << "\",\"trace_flags\":1,\"fd\":" << g_fd << ",\"count\":" << 1000 + m.sender << "}\n";
    return 0;
}
