// SPDX-License-Identifier: Apache-2.0
// HotSpot's VMStructs table, read from outside the JVM. libjvm.so exports gHotSpotVMStructs
// (a pointer to an array of VMStructEntry) and gHotSpotVMStructEntry*Offset / ArrayStride,
// which describe the entry layout (hotspot/share/runtime/vmStructs.cpp); the Serviceability Agent
// reads the same table. Offsets change between JDK builds, so they are always taken from it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "symbols/elf_symbols.h"
#include "core/expected.h"
#include "process/process_memory.h"

namespace vtscope {

struct VMStructField {
    bool is_static = false;
    uint64_t offset = 0;   // for instance fields
    uint64_t address = 0;  // for static fields, in the target
    std::string type;
};

// Runtime addresses of the exported symbols that describe the table.
struct VMStructsSymbols {
    uint64_t entries_pointer = 0;  // &gHotSpotVMStructs
    uint64_t type_name_offset = 0;
    uint64_t field_name_offset = 0;
    uint64_t type_string_offset = 0;
    uint64_t is_static_offset = 0;
    uint64_t offset_offset = 0;
    uint64_t address_offset = 0;
    uint64_t array_stride = 0;
};

// The exported symbol names, in the order of VMStructsSymbols' fields.
const std::vector<std::string>& vmstructs_symbol_names();
// Fills symbols from libjvm's ELF file and its load bias; error when one is missing.
Expected<VMStructsSymbols> vmstructs_symbols(const ElfFile& libjvm, uint64_t load_bias);

class VMStructs {
public:
    static Expected<VMStructs> read(const MemoryReader& memory, const VMStructsSymbols& symbols);

    // "Type::field", e.g. "JavaThread::_monitor_owner_id".
    std::optional<VMStructField> find(const std::string& qualified) const;
    size_t size() const { return fields_.size(); }

private:
    std::map<std::string, VMStructField> fields_;
};

// The fields vtscope needs, resolved and checked.
struct HotSpotLayout {
    uint64_t java_thread_list_address = 0;           // &ThreadsSMRSupport::_java_thread_list
    uint64_t threads_list_length = 0;                // ThreadsList::_length
    uint64_t threads_list_threads = 0;               // ThreadsList::_threads
    uint64_t thread_osthread = 0;                    // Thread::_osthread (JavaThread::_osthread on JDK 21)
    uint64_t osthread_thread_id = 0;                 // OSThread::_thread_id
    bool has_monitor_owner_id = false;               // JDK 24+; JDK 21-23 read ids from objects (oop_identity.h)
    uint64_t java_thread_monitor_owner_id = 0;       // JavaThread::_monitor_owner_id (JDK 24+)
    uint64_t java_thread_thread_obj = 0;             // JavaThread::_threadObj (OopHandle)
    uint64_t java_thread_vthread = 0;                // JavaThread::_vthread (OopHandle)
    std::optional<uint64_t> java_thread_terminated;  // JavaThread::_terminated
    std::optional<uint64_t> java_thread_cont_entry;  // JavaThread::_cont_entry (mounted continuation)
    std::string vm_release;                          // Abstract_VM_Version::_s_vm_release, if readable
};

Expected<HotSpotLayout> resolve_layout(const VMStructs& structs, const MemoryReader& memory);

}  // namespace vtscope
