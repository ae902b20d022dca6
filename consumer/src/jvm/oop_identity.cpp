// SPDX-License-Identifier: Apache-2.0
#include "jvm/oop_identity.h"

#include <bit>
#include <cstring>

namespace vtscope {

namespace {
constexpr const char* kTidOffset = "_ZN16java_lang_Thread11_tid_offsetE";
// A header-local table (zAddress.inline.hpp); every copy in libjvm.so is the same.
constexpr const char* kLoadShiftTable = "_ZL22ZPointerLoadShiftTable";

struct Collector {
    const char* vtable;  // the most derived CollectedHeap subclass's vtable
    const char* name;
    vtscope_oop_rule rule;
};
// Shenandoah evacuates concurrently, with no colour to check: no rule is sound for it (rule NONE).
constexpr Collector kCollectors[] = {
    {"_ZTV15G1CollectedHeap", "G1", VTSCOPE_OOP_STW},
    {"_ZTV10SerialHeap", "Serial", VTSCOPE_OOP_STW},
    {"_ZTV20ParallelScavengeHeap", "Parallel", VTSCOPE_OOP_STW},
    {"_ZTV14XCollectedHeap", "ZGC", VTSCOPE_OOP_XZGC},
    {"_ZTV14ZCollectedHeap", "ZGC (generational)", VTSCOPE_OOP_ZGEN},
    {"_ZTV11EpsilonHeap", "Epsilon", VTSCOPE_OOP_EPSILON},
    {"_ZTV14ShenandoahHeap", "Shenandoah", VTSCOPE_OOP_NONE},
};

// An object's vtable pointer points past the vtable's offset-to-top and typeinfo words (Itanium
// C++ ABI, 2.5.2).
constexpr uint64_t kVtableAddressPoint = 16;

Expected<uint64_t> static_address(const VMStructs& structs, const char* name) {
    auto f = structs.find(name);
    if (!f || !f->is_static || f->address == 0) return make_error(std::string("VMStructs has no ") + name);
    return f->address;
}

Expected<uint64_t> instance_offset(const VMStructs& structs, const char* name) {
    auto f = structs.find(name);
    if (!f || f->is_static || f->offset >= 64 * 1024) return make_error(std::string("VMStructs has no ") + name);
    return f->offset;
}

// *(*instance_p + field): the address of one of ZGC's globals, which XGlobalsForVMStructs and
// ZGlobalsForVMStructs hold as pointers.
Expected<uint64_t> zgc_global(const VMStructs& structs, const MemoryReader& memory, const std::string& type,
                              const std::string& field) {
    auto instance = static_address(structs, (type + "::_instance_p").c_str());
    if (!instance) return instance.error();
    auto offset = instance_offset(structs, (type + "::" + field).c_str());
    if (!offset) return offset.error();
    uint64_t object = 0, address = 0;
    if (!memory.read_value(*instance, object) || object == 0 || !memory.read_value(object + *offset, address) ||
        address == 0)
        return make_error("cannot read " + type + "::" + field);
    return address;
}

std::optional<Error> resolve_stw(const VMStructs& structs, uint64_t heap, OopIdentity& id) {
    // Named _is_gc_active (set by IsGCActiveMark) before its rename, which reached 21u in an
    // update; the same flag under either name.
    auto active = instance_offset(structs, "CollectedHeap::_is_stw_gc_active");
    if (!active) active = instance_offset(structs, "CollectedHeap::_is_gc_active");
    if (!active) return active.error();
    auto count = instance_offset(structs, "CollectedHeap::_total_collections");
    if (!count) return count.error();
    id.active_address = heap + *active;
    id.count_address = heap + *count;
    return std::nullopt;
}

std::optional<Error> resolve_xzgc(const VMStructs& structs, const MemoryReader& memory, OopIdentity& id) {
    constexpr const char* kType = "XGlobalsForVMStructs";
    auto good = zgc_global(structs, memory, kType, "_XAddressGoodMask");
    auto seq = zgc_global(structs, memory, kType, "_XGlobalSeqNum");
    auto metadata = zgc_global(structs, memory, kType, "_XAddressMetadataMask");
    if (!good) return good.error();
    if (!seq) return seq.error();
    if (!metadata) return metadata.error();
    uint64_t mask = 0, good_mask = 0;
    if (!memory.read_value(*metadata, mask) || !memory.read_value(*good, good_mask))
        return make_error("cannot read ZGC's address masks");
    // Four metadata bits (xGlobals.hpp: Marked0, Marked1, Remapped, Finalizable), the good mask one of them.
    if (std::popcount(mask) != 4 || (mask >> std::countr_zero(mask)) != 0xF || std::popcount(good_mask) != 1 ||
        (good_mask & ~mask) != 0)
        return make_error("ZGC's address masks are implausible");
    id.good_mask_address = *good;
    id.seq_address = *seq;
    id.metadata_mask = mask;
    return std::nullopt;
}
}  // namespace

const std::vector<std::string>& oop_identity_symbol_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n = {kTidOffset, kLoadShiftTable};
        for (const Collector& c : kCollectors) n.push_back(c.vtable);
        return n;
    }();
    return names;
}

namespace {
// Generational ZGC: a load-good zpointer decodes as ptr >> ZPointerLoadShiftTable[its remapped
// bits] (ZPointer::uncolor, zAddress.inline.hpp); the table is read from libjvm.so and checked
// against the current ZPointerLoadShift (set from it, ZGlobalsPointers::pd_set_good_masks).
std::optional<Error> resolve_zgen(const VMStructs& structs, const MemoryReader& memory, const ElfFile& libjvm,
                                  uint64_t load_bias, OopIdentity& id) {
    constexpr const char* kType = "ZGlobalsForVMStructs";
    auto good = zgc_global(structs, memory, kType, "_ZPointerLoadGoodMask");
    auto bad = zgc_global(structs, memory, kType, "_ZPointerLoadBadMask");
    auto shift = zgc_global(structs, memory, kType, "_ZPointerLoadShift");
    if (!good) return good.error();
    if (!bad) return bad.error();
    if (!shift) return shift.error();
    const ElfSymbol* table = libjvm.find(kLoadShiftTable);
    constexpr size_t kEntries = 9;  // indexed by the one-hot remapped nibble: 0, 1, 2, 4, 8
    if (!table || table->size != kEntries * sizeof(int32_t))
        return make_error("libjvm.so has no ZPointerLoadShiftTable of 9 entries");
    int32_t entries[kEntries] = {};
    uint64_t good_mask = 0, bad_mask = 0, current_shift = 0;
    if (!memory.read(table->value + load_bias, entries, sizeof(entries)) || !memory.read_value(*good, good_mask) ||
        !memory.read_value(*bad, bad_mask) || !memory.read_value(*shift, current_shift))
        return make_error("cannot read generational ZGC's pointer masks");
    uint64_t remapped = good_mask ^ bad_mask;  // ZPointerLoadBadMask = good ^ ZPointerLoadMetadataMask
    uint32_t low = remapped ? static_cast<uint32_t>(std::countr_zero(remapped)) : 0;
    if (remapped == 0 || (remapped >> low) != 0xF || std::popcount(good_mask) != 1 || (good_mask & ~remapped))
        return make_error("generational ZGC's pointer masks are implausible");
    for (size_t i = 0; i < kEntries; i++) {
        if (entries[i] < 0 || entries[i] >= 64) return make_error("ZPointerLoadShiftTable is implausible");
        id.load_shift[i] = static_cast<uint8_t>(entries[i]);
    }
    if (id.load_shift[(good_mask >> low) & 0xF] != current_shift)
        return make_error("ZPointerLoadShift does not match ZPointerLoadShiftTable");
    id.good_mask_address = *good;
    id.metadata_mask = remapped;
    id.remapped_shift = low;
    return std::nullopt;
}
}  // namespace

Expected<OopIdentity> resolve_oop_identity(const VMStructs& structs, const MemoryReader& memory, const ElfFile& libjvm,
                                           uint64_t load_bias) {
    OopIdentity id;
    auto vthread = instance_offset(structs, "JavaThread::_vthread");
    auto thread_obj = instance_offset(structs, "JavaThread::_threadObj");
    if (!vthread || !thread_obj) return make_error("VMStructs has no JavaThread::_vthread or _threadObj");
    // The handles are read as one pointer to the slot: OopHandle is `oop* _obj` (oopHandle.hpp).
    if (auto obj = structs.find("OopHandle::_obj"); obj && (obj->is_static || obj->offset != 0))
        return make_error("OopHandle::_obj is not at offset 0");
    id.vthread = *vthread;
    id.thread_obj = *thread_obj;
    const ElfSymbol* tid = libjvm.find(kTidOffset);
    int32_t tid_offset = 0;
    if (!tid || !memory.read_value(tid->value + load_bias, tid_offset))
        return make_error("cannot read java_lang_Thread::_tid_offset (libjvm.so without .symtab?)");
    // Set by java_lang_Thread::compute_offsets: a field of a small object, 8-aligned as a long is.
    if (tid_offset <= 0 || tid_offset >= 4096 || tid_offset % 8 != 0)
        return make_error("implausible java_lang_Thread::_tid_offset " + std::to_string(tid_offset));
    id.tid_offset = static_cast<uint32_t>(tid_offset);

    auto heap_pointer = static_address(structs, "Universe::_collectedHeap");
    if (!heap_pointer) return heap_pointer.error();
    uint64_t heap = 0, vtable = 0;
    if (!memory.read_value(*heap_pointer, heap) || heap == 0 || !memory.read_value(heap, vtable))
        return make_error("cannot read Universe::_collectedHeap");
    const Collector* collector = nullptr;
    for (const Collector& c : kCollectors)
        if (const ElfSymbol* s = libjvm.find(c.vtable); s && s->value + load_bias + kVtableAddressPoint == vtable)
            collector = &c;
    if (!collector) return make_error("cannot tell which garbage collector the JVM runs");
    id.collector = collector->name;
    id.rule = collector->rule;
    std::optional<Error> err;
    switch (collector->rule) {
        case VTSCOPE_OOP_STW: err = resolve_stw(structs, heap, id); break;
        case VTSCOPE_OOP_XZGC: err = resolve_xzgc(structs, memory, id); break;
        case VTSCOPE_OOP_ZGEN:
            err = resolve_zgen(structs, memory, libjvm, load_bias, id);
            if (!err) err = resolve_stw(structs, heap, id);  // the count; the flag is not used
            break;
        case VTSCOPE_OOP_EPSILON: break;
        case VTSCOPE_OOP_NONE:
            return make_error(std::string(collector->name) +
                              " on JDK 21-23 evacuates objects concurrently, so a thread's id cannot be read soundly "
                              "from outside the JVM (use another collector, or JDK 24+)");
    }
    if (err) return make_error(id.collector + ": " + err->message);
    return id;
}

namespace {
// What the collector's rule reads around the object: the pause count and flag (STW), the good mask
// and the cycle number (ZGC).
struct Guard {
    uint32_t count = 0;
    uint8_t active = 0;
    uint64_t good = 0;
    uint32_t seq = 0;
};

// Before the object, the count is read before the flag; after it, the flag before the count: a
// pause that began after the first flag read and ended before the second one incremented the count
// in between (it does so while the flag is set), so the second count read sees it.
bool read_guard(const MemoryReader& memory, const OopIdentity& id, Guard& g, bool before) {
    switch (id.rule) {
        case VTSCOPE_OOP_STW: {
            ReadRequest count{id.count_address, &g.count, sizeof(g.count)};
            ReadRequest active{id.active_address, &g.active, sizeof(g.active)};
            ReadRequest ordered[] = {before ? count : active, before ? active : count};
            memory.read_batch(ordered);
            return ordered[0].ok && ordered[1].ok;
        }
        case VTSCOPE_OOP_XZGC: {
            ReadRequest r[] = {{id.good_mask_address, &g.good, sizeof(g.good)},
                               {id.seq_address, &g.seq, sizeof(g.seq)}};
            memory.read_batch(r);
            return r[0].ok && r[1].ok;
        }
        case VTSCOPE_OOP_ZGEN: {
            // The count closes an ABA of the load good mask (channel_vmstructs.bpf.h).
            ReadRequest count{id.count_address, &g.count, sizeof(g.count)};
            ReadRequest good{id.good_mask_address, &g.good, sizeof(g.good)};
            ReadRequest ordered[] = {before ? count : good, before ? good : count};
            memory.read_batch(ordered);
            return ordered[0].ok && ordered[1].ok;
        }
        default: return true;
    }
}

// The object's address from the slot's content, or why it is not usable.
OopReadResult decode(const OopIdentity& id, const Guard& g, uint64_t raw, uint64_t& object) {
    switch (id.rule) {
        case VTSCOPE_OOP_XZGC:
            // A good-coloured pointer is an address in the heap view of its colour (multi-mapped).
            if ((raw & id.metadata_mask) != g.good) return OopReadResult::kPointerNotGood;
            object = raw;
            break;
        case VTSCOPE_OOP_ZGEN: {
            uint64_t index = (g.good >> id.remapped_shift) & 0xF;
            if ((raw & (g.good ^ id.metadata_mask)) != 0 || (raw & g.good) == 0 || index >= 9)
                return OopReadResult::kPointerNotGood;
            object = raw >> id.load_shift[index];
            break;
        }
        default: object = raw; break;
    }
    return object == 0 ? OopReadResult::kBadId : OopReadResult::kOk;
}

OopReadResult compare(const OopIdentity& id, const Guard& before, const Guard& after) {
    switch (id.rule) {
        case VTSCOPE_OOP_STW:
            return after.active || after.count != before.count ? OopReadResult::kGcPause : OopReadResult::kOk;
        case VTSCOPE_OOP_XZGC:
        case VTSCOPE_OOP_ZGEN:
            return after.good != before.good || after.seq != before.seq || after.count != before.count
                       ? OopReadResult::kPhaseChanged
                       : OopReadResult::kOk;
        default: return OopReadResult::kOk;
    }
}
}  // namespace

OopReadResult read_thread_tid(const MemoryReader& memory, const OopIdentity& id, uint64_t java_thread,
                              uint64_t handle_offset, int64_t& tid) {
    uint64_t slot = 0, raw = 0, object = 0;
    if (!memory.read_value(java_thread + handle_offset, slot) || slot == 0) return OopReadResult::kReadFault;
    Guard before, after;
    if (!read_guard(memory, id, before, true)) return OopReadResult::kReadFault;
    if (id.rule == VTSCOPE_OOP_STW && before.active) return OopReadResult::kGcPause;
    // OopStorage slots hold full-width oops, never compressed ones (oopStorage.hpp: `oop*` entries).
    if (!memory.read_value(slot, raw)) return OopReadResult::kReadFault;
    if (OopReadResult r = decode(id, before, raw, object); r != OopReadResult::kOk) return r;
    int64_t value = 0;
    bool read = memory.read_value(object + id.tid_offset, value);
    if (!read_guard(memory, id, after, false)) return OopReadResult::kReadFault;
    if (OopReadResult r = compare(id, before, after); r != OopReadResult::kOk) return r;
    if (!read) return OopReadResult::kReadFault;
    if (value <= 0) return OopReadResult::kBadId;
    tid = value;
    return OopReadResult::kOk;
}

void configure_oop_identity(const OopIdentity& id, volatile vtscope_attribution_config* config) {
    config->oop_rule = id.rule;
    config->off_tid = id.tid_offset;
    config->off_vthread = id.vthread;
    config->off_thread_obj = id.thread_obj;
    config->gc_active_addr = id.active_address;
    config->gc_count_addr = id.count_address;
    config->gc_good_mask_addr = id.good_mask_address;
    config->gc_seq_addr = id.seq_address;
    config->gc_metadata_mask = id.metadata_mask;
    config->gc_remapped_shift = id.remapped_shift;
    for (size_t i = 0; i < VTSCOPE_ZGEN_SHIFT_TABLE; i++) config->gc_load_shift[i] = id.load_shift[i];
}

}  // namespace vtscope
