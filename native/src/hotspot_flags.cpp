// SPDX-License-Identifier: Apache-2.0
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

// gHotSpotVMStructs, with the stride and field offsets libjvm exports to read its entries
// (src/hotspot/share/runtime/vmStructs.cpp). The table ends with an entry whose type name is null
// (the *_last_entry macros there).
struct StructEntries {
    const char* table = nullptr;
    uint64_t stride = 0, type_name = 0, field_name = 0, offset = 0, address = 0;

    static std::optional<StructEntries> exported() {
        auto stride = exported_u64("gHotSpotVMStructEntryArrayStride");
        auto type_name = exported_u64("gHotSpotVMStructEntryTypeNameOffset");
        auto field_name = exported_u64("gHotSpotVMStructEntryFieldNameOffset");
        auto offset = exported_u64("gHotSpotVMStructEntryOffsetOffset");
        auto address = exported_u64("gHotSpotVMStructEntryAddressOffset");
        const char* table = exported_table("gHotSpotVMStructs");
        if (!stride || !type_name || !field_name || !offset || !address || !table || *stride == 0) return std::nullopt;
        return StructEntries{table, *stride, *type_name, *field_name, *offset, *address};
    }
    // Calls visit(type, field, field_offset, static_address) for each entry that names a field.
    template <typename Visit>
    void for_each(Visit visit) const {
        for (const char* e = table; const char* type = string_at(e, type_name); e += stride) {
            const char* field = string_at(e, field_name);
            if (!field) continue;
            uint64_t field_offset = 0;
            std::memcpy(&field_offset, e + offset, sizeof(field_offset));
            visit(type, field, field_offset, string_at(e, address));
        }
    }
};

struct FlagLayout {
    const char* flags = nullptr;  // JVMFlag::flags, the table
    size_t count = 0;             // JVMFlag::numFlags
    uint64_t size = 0;            // sizeof(JVMFlag)
    uint64_t name_offset = 0;     // JVMFlag::_name
    uint64_t addr_offset = 0;     // JVMFlag::_addr
};

std::optional<FlagLayout> flag_layout() {
    auto entries = StructEntries::exported();
    auto type_stride = exported_u64("gHotSpotVMTypeEntryArrayStride");
    auto type_type_name = exported_u64("gHotSpotVMTypeEntryTypeNameOffset");
    auto type_size = exported_u64("gHotSpotVMTypeEntrySizeOffset");
    const char* types = exported_table("gHotSpotVMTypes");
    if (!entries || !type_stride || !type_type_name || !type_size || !types || *type_stride == 0) return std::nullopt;
    FlagLayout layout;
    bool have_flags = false, have_count = false, have_name = false, have_addr = false;
    entries->for_each([&](const char* type, const char* field, uint64_t field_offset, const char* static_address) {
        if (std::strcmp(type, "JVMFlag") != 0) return;
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
    });
    // gHotSpotVMTypes ends the same way.
    for (const char* e = types; const char* type = string_at(e, *type_type_name); e += *type_stride)
        if (std::strcmp(type, "JVMFlag") == 0) std::memcpy(&layout.size, e + *type_size, sizeof(layout.size));
    if (!have_flags || !have_count || !have_name || !have_addr || !layout.flags || layout.size == 0)
        return std::nullopt;
    return layout;
}

// The address of static field `field` of HotSpot type `type` as gHotSpotVMStructs lists it, or
// null.
const char* static_field_address(const char* type, const char* field) {
    auto entries = StructEntries::exported();
    if (!entries) return nullptr;
    const char* found = nullptr;
    entries->for_each([&](const char* t, const char* f, uint64_t, const char* static_address) {
        if (!found && std::strcmp(t, type) == 0 && std::strcmp(f, field) == 0) found = static_address;
    });
    return found;
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
