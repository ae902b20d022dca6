// SPDX-License-Identifier: Apache-2.0
// Makes the seeds of the memory-reading fuzz targets from a live JVM: runs the same readers
// vtscope runs, through a MemoryReader that records every byte they read, and writes those bytes
// in FuzzMemory's input format, after the target's own prefix (see each *_fuzz.cpp).
//   vtscope_fuzz_capture vmstructs PID OUT          (VMStructs, layout, thread list, own ids)
//   vtscope_fuzz_capture record-region PID OUT      (a JVM with libvtscope loaded)
//   vtscope_fuzz_capture process-context PID OUT    (a JVM that publishes OTEP 4719)
//   vtscope_fuzz_capture process-context-payload PID OUT
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "symbols/elf_symbols.h"
#include "fuzz_input.h"
#include "jvm/java_threads.h"
#include "channels/process_context.h"
#include "process/process_memory.h"
#include "channels/record_region.h"
#include "jvm/vmstructs.h"

namespace {

using vtscope::fuzz::append_region;

// Every byte read successfully, by address; contiguous runs become FuzzMemory regions.
class RecordingMemory final : public vtscope::MemoryReader {
public:
    explicit RecordingMemory(pid_t pid) : memory_(pid) {}
    bool read(uint64_t address, void* out, size_t size) const override {
        if (!memory_.read(address, out, size)) return false;
        for (size_t i = 0; i < size; i++) bytes_[address + i] = static_cast<const char*>(out)[i];
        return true;
    }
    std::string image() const {
        std::string image, run;
        uint64_t run_start = 0;
        for (auto [address, byte] : bytes_) {
            if (!run.empty() && address != run_start + run.size()) {
                append_region(image, run_start, run);
                run.clear();
            }
            if (run.empty()) run_start = address;
            run.push_back(byte);
        }
        if (!run.empty()) append_region(image, run_start, run);
        return image;
    }

private:
    vtscope::ProcessMemory memory_;
    mutable std::map<uint64_t, char> bytes_;
};

template <typename T>
void append_value(std::string& out, const T& value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

[[noreturn]] void die(const std::string& message) {
    std::cerr << "vtscope_fuzz_capture: " << message << "\n";
    std::exit(1);
}

std::string capture_vmstructs(pid_t pid, const std::vector<vtscope::Mapping>& maps) {
    const vtscope::Mapping* jvm = vtscope::find_libjvm(maps);
    if (!jvm) die("no libjvm.so mapped");
    auto file = vtscope::open_module(pid, *jvm);
    if (!file) die(file.error().message);
    auto elf = vtscope::ElfFile::load(file->fd.get(), vtscope::vmstructs_symbol_names(), jvm->path);
    if (!elf) die(elf.error().message);
    auto symbols = vtscope::vmstructs_symbols(*elf, jvm->start - elf->first_load_vaddr());
    if (!symbols) die(symbols.error().message);
    RecordingMemory memory(pid);
    auto structs = vtscope::VMStructs::read(memory, *symbols);
    if (!structs) die(structs.error().message);
    auto layout = vtscope::resolve_layout(*structs, memory);
    if (!layout) die(layout.error().message);
    auto threads = vtscope::walk_java_threads(memory, *layout);
    if (!threads) die(threads.error().message);
    for (size_t i = 0; i < threads->size() && i < 8; i++)
        (void)vtscope::sample_own_id(memory, *layout, (*threads)[i].java_thread);
    std::string out;
    for (uint64_t v :
         {symbols->entries_pointer, symbols->type_name_offset, symbols->field_name_offset, symbols->type_string_offset,
          symbols->is_static_offset, symbols->offset_offset, symbols->address_offset, symbols->array_stride})
        append_value(out, v);
    return out + memory.image();
}

std::string capture_record_region(pid_t pid, const std::vector<vtscope::Mapping>& maps) {
    auto regions = vtscope::find_region_mappings(maps);
    if (regions.empty()) die("no vtscope record region mapped");
    RecordingMemory memory(pid);
    auto region = vtscope::validate_region(memory, *regions.front(), pid);
    if (!region) die(region.error().message);
    (void)vtscope::read_writer_stats(memory, *region);
    std::string out;
    append_value(out, static_cast<uint32_t>(pid));
    append_value(out, regions.front()->start);
    append_value(out, regions.front()->end);
    return out + memory.image();
}

std::string capture_process_context(pid_t pid, const std::vector<vtscope::Mapping>& maps, bool payload_only) {
    auto header = vtscope::find_process_context(maps);
    if (!header) die("no OTEL_CTX mapping");
    RecordingMemory memory(pid);
    auto resource = vtscope::read_process_context(memory, *header);
    if (!resource) die(resource.error().message);
    if (payload_only) {
        struct {
            uint32_t size;
            uint64_t address;
        } payload{};
        vtscope::ProcessMemory direct(pid);
        if (!direct.read_value(*header + 12, payload.size) || !direct.read_value(*header + 24, payload.address))
            die("cannot read the OTEL_CTX header");
        std::string bytes(payload.size, '\0');
        if (!direct.read(payload.address, bytes.data(), bytes.size())) die("cannot read the payload");
        return bytes;
    }
    std::string out;
    append_value(out, *header);
    return out + memory.image();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) die("usage: vmstructs|record-region|process-context|process-context-payload PID OUT");
    std::string what = argv[1];
    pid_t pid = static_cast<pid_t>(std::atoi(argv[2]));
    auto maps = vtscope::read_maps(pid);
    if (!maps) die(maps.error().message);
    std::string seed;
    if (what == "vmstructs")
        seed = capture_vmstructs(pid, *maps);
    else if (what == "record-region")
        seed = capture_record_region(pid, *maps);
    else if (what == "process-context" || what == "process-context-payload")
        seed = capture_process_context(pid, *maps, what == "process-context-payload");
    else
        die("unknown seed " + what);
    std::ofstream(argv[3], std::ios::binary) << seed;
    std::cout << argv[3] << ": " << seed.size() << " bytes\n";
    return 0;
}
