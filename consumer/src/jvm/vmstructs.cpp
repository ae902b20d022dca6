// SPDX-License-Identifier: Apache-2.0
#include "jvm/vmstructs.h"

namespace vtscope {

const std::vector<std::string>& vmstructs_symbol_names() {
    static const std::vector<std::string> names = {
        "gHotSpotVMStructs",
        "gHotSpotVMStructEntryTypeNameOffset",
        "gHotSpotVMStructEntryFieldNameOffset",
        "gHotSpotVMStructEntryTypeStringOffset",
        "gHotSpotVMStructEntryIsStaticOffset",
        "gHotSpotVMStructEntryOffsetOffset",
        "gHotSpotVMStructEntryAddressOffset",
        "gHotSpotVMStructEntryArrayStride",
    };
    return names;
}

Expected<VMStructsSymbols> vmstructs_symbols(const ElfFile& libjvm, uint64_t load_bias) {
    uint64_t addresses[8];
    const auto& names = vmstructs_symbol_names();
    for (size_t i = 0; i < names.size(); i++) {
        const ElfSymbol* sym = libjvm.find(names[i]);
        if (!sym) return make_error("libjvm.so does not export " + names[i] + " (not a HotSpot JVM?)");
        addresses[i] = sym->value + load_bias;
    }
    return VMStructsSymbols{addresses[0], addresses[1], addresses[2], addresses[3],
                            addresses[4], addresses[5], addresses[6], addresses[7]};
}

Expected<VMStructs> VMStructs::read(const MemoryReader& memory, const VMStructsSymbols& s) {
    uint64_t base = 0;
    uint64_t type_name = 0, field_name = 0, type_string = 0, is_static = 0, offset = 0, address = 0, stride = 0;
    if (!memory.read_value(s.entries_pointer, base) || !memory.read_value(s.type_name_offset, type_name) ||
        !memory.read_value(s.field_name_offset, field_name) || !memory.read_value(s.type_string_offset, type_string) ||
        !memory.read_value(s.is_static_offset, is_static) || !memory.read_value(s.offset_offset, offset) ||
        !memory.read_value(s.address_offset, address) || !memory.read_value(s.array_stride, stride))
        return make_error("cannot read the VMStructs descriptors from the target");
    // A VMStructEntry is six words; anything else means the symbols are not what we think.
    if (base == 0 || stride < 32 || stride > 256 || type_name >= stride || field_name >= stride ||
        type_string >= stride || is_static >= stride || offset >= stride || address >= stride)
        return make_error("VMStructs descriptors are implausible (stride " + std::to_string(stride) + ")");

    VMStructs result;
    constexpr size_t kMaxEntries = 100000;  // HotSpot 25 has about 2,000
    for (size_t i = 0; i < kMaxEntries; i++) {
        uint64_t entry = base + i * stride;
        uint64_t type_ptr = 0, field_ptr = 0, type_string_ptr = 0, off = 0, addr = 0;
        int32_t stat = 0;
        if (!memory.read_value(entry + type_name, type_ptr))
            return make_error("cannot read VMStructs entry " + std::to_string(i));
        if (type_ptr == 0) return result;  // the table ends with a null type name
        if (!memory.read_value(entry + field_name, field_ptr) ||
            !memory.read_value(entry + type_string, type_string_ptr) || !memory.read_value(entry + is_static, stat) ||
            !memory.read_value(entry + offset, off) || !memory.read_value(entry + address, addr))
            return make_error("cannot read VMStructs entry " + std::to_string(i));
        std::string type_str, field_str, type_string_str;
        if (!memory.read_string(type_ptr, type_str) || field_ptr == 0 || !memory.read_string(field_ptr, field_str))
            continue;  // an entry we cannot name is one we cannot use
        if (type_string_ptr) (void)memory.read_string(type_string_ptr, type_string_str);
        VMStructField field{stat != 0, off, addr, type_string_str};
        result.fields_.emplace(type_str + "::" + field_str, std::move(field));
    }
    return make_error("VMStructs table has no end marker");
}

std::optional<VMStructField> VMStructs::find(const std::string& qualified) const {
    auto it = fields_.find(qualified);
    if (it == fields_.end()) return std::nullopt;
    return it->second;
}

namespace {
// The target writes its own VMStructs table, so every offset in it is untrusted: an offset near
// 2^64 would make `base + offset` wrap and the arithmetic on spans of fields index outside the
// buffers it was sized for. Every field vtscope reads lies within a few KiB of its object's start
// (JDK 25: JavaThread::_terminated at 1344), so one bound checked here, once, makes every later
// `offset + sizeof(field)` small and exact.
constexpr uint64_t kMaxFieldOffset = 64 * 1024;

std::optional<Error> check_offset(const char* name, uint64_t offset) {
    if (offset < kMaxFieldOffset) return std::nullopt;
    return make_error(std::string("implausible VMStructs offset of ") + name + ": " + std::to_string(offset) +
                      " (at most " + std::to_string(kMaxFieldOffset - 1) + ")");
}
}  // namespace

Expected<HotSpotLayout> resolve_layout(const VMStructs& structs, const MemoryReader& memory) {
    HotSpotLayout layout;
    auto instance = [&](const char* name, uint64_t& out) -> std::optional<Error> {
        auto f = structs.find(name);
        if (!f || f->is_static) return make_error(std::string("VMStructs has no field ") + name);
        if (auto err = check_offset(name, f->offset)) return err;
        out = f->offset;
        return std::nullopt;
    };
    // An optional field: absent is fine, present with an implausible offset refuses the layout.
    auto optional_instance = [&](const char* name, std::optional<uint64_t>& out) -> std::optional<Error> {
        auto f = structs.find(name);
        if (!f || f->is_static) return std::nullopt;
        if (auto err = check_offset(name, f->offset)) return err;
        out = f->offset;
        return std::nullopt;
    };
    // JEP 491 added _monitor_owner_id in JDK 24. Without it (JDK 21-23) the id is read from the
    // thread objects instead (jvm/oop_identity.h), which jvm_target resolves separately.
    std::optional<uint64_t> monitor_owner_id;
    if (auto err = optional_instance("JavaThread::_monitor_owner_id", monitor_owner_id))
        return make_error("unsupported JVM: " + err->message);
    layout.has_monitor_owner_id = monitor_owner_id.has_value();
    layout.java_thread_monitor_owner_id = monitor_owner_id.value_or(0);
    // Virtual threads (JEP 444) added JavaThread::_vthread in JDK 21: its absence is the "JDK too old" case.
    if (auto f = structs.find("JavaThread::_vthread"); !f || f->is_static)
        return make_error("unsupported JVM: VMStructs has no JavaThread::_vthread (JDK 21 or later needed)");
    auto list = structs.find("ThreadsSMRSupport::_java_thread_list");
    if (!list || !list->is_static || list->address == 0)
        return make_error("unsupported JVM: VMStructs has no ThreadsSMRSupport::_java_thread_list");
    layout.java_thread_list_address = list->address;
    // JDK 25 declares _osthread in Thread, JDK 21 in JavaThread (the same field, exported by the
    // class that declares it).
    const char* osthread = "Thread::_osthread";
    if (auto f = structs.find(osthread); !f || f->is_static) osthread = "JavaThread::_osthread";
    for (auto [name, out] : std::initializer_list<std::pair<const char*, uint64_t*>>{
             {"ThreadsList::_length", &layout.threads_list_length},
             {"ThreadsList::_threads", &layout.threads_list_threads},
             {osthread, &layout.thread_osthread},
             {"OSThread::_thread_id", &layout.osthread_thread_id},
             {"JavaThread::_threadObj", &layout.java_thread_thread_obj},
             {"JavaThread::_vthread", &layout.java_thread_vthread},
         }) {
        if (auto err = instance(name, *out)) return make_error("unsupported JVM: " + err->message);
    }
    if (auto err = optional_instance("JavaThread::_terminated", layout.java_thread_terminated))
        return make_error("unsupported JVM: " + err->message);
    if (auto err = optional_instance("JavaThread::_cont_entry", layout.java_thread_cont_entry))
        return make_error("unsupported JVM: " + err->message);
    if (auto f = structs.find("Abstract_VM_Version::_s_vm_release"); f && f->is_static) {
        uint64_t ptr = 0;
        if (memory.read_value(f->address, ptr)) (void)memory.read_string(ptr, layout.vm_release, 64);
    }
    return layout;
}

}  // namespace vtscope
