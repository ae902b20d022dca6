// SPDX-License-Identifier: Apache-2.0
// JDK 21-23: a thread's Java id read out of its java.lang.Thread object. These JDKs have no
// JavaThread::_monitor_owner_id (JEP 491, JDK 24), so the id is the `long tid` field of the object
// that JavaThread::_vthread (the mounted thread) or _threadObj (the OS thread's own) refers to,
// through an OopHandle (a pointer to an OopStorage slot holding the oop). A collector may move
// that object while it is read from outside the JVM, so every read is checked by the rule of the
// collector in use (docs/identity-channels.md, "JDK 21"); the BPF programs apply the same rules
// (consumer/bpf/channel_vmstructs.bpf.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "../../bpf/attribution.h"
#include "core/expected.h"
#include "process/process_memory.h"
#include "symbols/elf_symbols.h"
#include "jvm/vmstructs.h"

namespace vtscope {

struct OopIdentity {
    vtscope_oop_rule rule = VTSCOPE_OOP_NONE;
    std::string collector;  // "G1", "Serial", "Parallel", "ZGC", "ZGC (generational)", "Epsilon"
    uint32_t tid_offset = 0;
    uint64_t vthread = 0;                             // JavaThread::_vthread
    uint64_t thread_obj = 0;                          // JavaThread::_threadObj
    uint64_t active_address = 0, count_address = 0;   // STW
    uint64_t good_mask_address = 0, seq_address = 0;  // ZGC
    uint64_t metadata_mask = 0;
    uint32_t remapped_shift = 0;
    uint8_t load_shift[VTSCOPE_ZGEN_SHIFT_TABLE] = {};
};

// The libjvm.so symbols resolve_oop_identity needs (from .symtab), to be loaded with the others.
const std::vector<std::string>& oop_identity_symbol_names();

// Which collector the target runs (the vtable of *Universe::_collectedHeap) and everything its rule
// reads, checked. An error names the collector when no sound rule exists for it (Shenandoah).
Expected<OopIdentity> resolve_oop_identity(const VMStructs& structs, const MemoryReader& memory, const ElfFile& libjvm,
                                           uint64_t load_bias);

// Why a read of a thread's id did not give one.
enum class OopReadResult { kOk, kReadFault, kBadId, kGcPause, kPointerNotGood, kPhaseChanged };

// The tid of the object that the OopHandle at java_thread + handle_offset refers to, read by the
// collector's rule in the same order as the BPF programs (process_vm_readv copies its iovecs in
// order; each step is its own batch, so the order holds across them too).
OopReadResult read_thread_tid(const MemoryReader& memory, const OopIdentity& identity, uint64_t java_thread,
                              uint64_t handle_offset, int64_t& tid);

// Fills the oop fields of the BPF configuration.
void configure_oop_identity(const OopIdentity& identity, volatile vtscope_attribution_config* config);

}  // namespace vtscope
