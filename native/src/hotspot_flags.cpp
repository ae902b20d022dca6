#include "hotspot_flags.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace vtscope::native {
namespace {

// A uint64_t that libjvm exports (the entries' strides and field offsets), or nullopt.
std::optional<uint64_t> exported_u64(const char* symbol) {
    auto* value = static_cast<const uint64_t*>(dlsym(RTLD_DEFAULT, symbol));
    if (!value) return std::nullopt;
    return *value;
}

// An exported pointer variable's value (the tables themselves), or null.
const char* exported_table(const char* symbol) {
    auto* table = static_cast<const char* const*>(dlsym(RTLD_DEFAULT, symbol));
    return table ? *table : nullptr;
}

const char* string_at(const char* entry, uint64_t offset) {
    const char* s = nullptr;
    std::memcpy(&s, entry + offset, sizeof(s));
    return s;
}

struct FlagLayout {
    const char* flags = nullptr;  // JVMFlag::flags, the table
    size_t count = 0;             // JVMFlag::numFlags
    uint64_t size = 0;            // sizeof(JVMFlag)
    uint64_t name_offset = 0;     // JVMFlag::_name
    uint64_t addr_offset = 0;     // JVMFlag::_addr
};

std::optional<FlagLayout> flag_layout() {
    auto stride = exported_u64("gHotSpotVMStructEntryArrayStride");
    auto type_name = exported_u64("gHotSpotVMStructEntryTypeNameOffset");
    auto field_name = exported_u64("gHotSpotVMStructEntryFieldNameOffset");
    auto offset = exported_u64("gHotSpotVMStructEntryOffsetOffset");
    auto address = exported_u64("gHotSpotVMStructEntryAddressOffset");
    auto type_stride = exported_u64("gHotSpotVMTypeEntryArrayStride");
    auto type_type_name = exported_u64("gHotSpotVMTypeEntryTypeNameOffset");
    auto type_size = exported_u64("gHotSpotVMTypeEntrySizeOffset");
    const char* structs = exported_table("gHotSpotVMStructs");
    const char* types = exported_table("gHotSpotVMTypes");
    if (!stride || !type_name || !field_name || !offset || !address || !type_stride || !type_type_name || !type_size ||
        !structs || !types || *stride == 0 || *type_stride == 0)
        return std::nullopt;
    FlagLayout layout;
    bool have_flags = false, have_count = false, have_name = false, have_addr = false;
    // Both tables end with an entry whose type name is null (vmStructs.cpp, the *_last_entry macros).
    for (const char* e = structs; const char* type = string_at(e, *type_name); e += *stride) {
        if (std::strcmp(type, "JVMFlag") != 0) continue;
        const char* field = string_at(e, *field_name);
        if (!field) continue;
        uint64_t field_offset = 0;
        std::memcpy(&field_offset, e + *offset, sizeof(field_offset));
        const char* static_address = string_at(e, *address);
        if (std::strcmp(field, "flags") == 0 && static_address) {
            std::memcpy(&layout.flags, static_address, sizeof(layout.flags));
            have_flags = true;
        } else if (std::strcmp(field, "numFlags") == 0 && static_address) {
            std::memcpy(&layout.count, static_address, sizeof(layout.count));
            have_count = true;
        } else if (std::strcmp(field, "_name") == 0) {
            layout.name_offset = field_offset;
            have_name = true;
        } else if (std::strcmp(field, "_addr") == 0) {
            layout.addr_offset = field_offset;
            have_addr = true;
        }
    }
    for (const char* e = types; const char* type = string_at(e, *type_type_name); e += *type_stride)
        if (std::strcmp(type, "JVMFlag") == 0) std::memcpy(&layout.size, e + *type_size, sizeof(layout.size));
    if (!have_flags || !have_count || !have_name || !have_addr || !layout.flags || layout.size == 0)
        return std::nullopt;
    return layout;
}

// The address of static field `field` of HotSpot type `type` as gHotSpotVMStructs lists it, or
// null.
const char* static_field_address(const char* type, const char* field) {
    auto stride = exported_u64("gHotSpotVMStructEntryArrayStride");
    auto type_name = exported_u64("gHotSpotVMStructEntryTypeNameOffset");
    auto field_name = exported_u64("gHotSpotVMStructEntryFieldNameOffset");
    auto address = exported_u64("gHotSpotVMStructEntryAddressOffset");
    const char* structs = exported_table("gHotSpotVMStructs");
    if (!stride || !type_name || !field_name || !address || !structs || *stride == 0) return nullptr;
    for (const char* e = structs; const char* t = string_at(e, *type_name); e += *stride) {
        const char* f = string_at(e, *field_name);
        if (f && std::strcmp(t, type) == 0 && std::strcmp(f, field) == 0) return string_at(e, *address);
    }
    return nullptr;
}

}  // namespace

std::optional<std::vector<std::string>> hotspot_jvm_args() {
    const char* array_at = static_field_address("Arguments", "_jvm_args_array");
    const char* count_at = static_field_address("Arguments", "_num_jvm_args");
    if (!array_at || !count_at) return std::nullopt;
    char** array = nullptr;
    int count = 0;
    std::memcpy(&array, array_at, sizeof(array));
    std::memcpy(&count, count_at, sizeof(count));
    if (count < 0 || (count > 0 && !array)) return std::nullopt;
    std::vector<std::string> args;
    for (int i = 0; i < count; i++)
        if (array[i]) args.emplace_back(array[i]);
    return args;
}

std::optional<bool> hotspot_bool_flag(std::string_view name) {
    auto layout = flag_layout();
    if (!layout) return std::nullopt;
    for (size_t i = 0; i < layout->count; i++) {
        const char* flag = layout->flags + i * layout->size;
        const char* flag_name = string_at(flag, layout->name_offset);
        if (!flag_name || name != flag_name) continue;
        const char* value = string_at(flag, layout->addr_offset);
        if (!value) return std::nullopt;
        bool b = false;
        std::memcpy(&b, value, sizeof(b));
        return b;
    }
    return std::nullopt;
}

}  // namespace vtscope::native
