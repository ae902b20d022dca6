// SPDX-License-Identifier: Apache-2.0
#include "core/probe_modules.h"

#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <set>
#include <thread>

#include "symbols/elf_symbols.h"

namespace vtscope {

namespace {
// Whether the module mapped at m (its offset-0 mapping) has the probe; false when it cannot be read.
bool module_has_usdt_probe(pid_t pid, const Mapping& m, const std::string& provider, const std::string& name) {
    auto file = open_module(pid, m);
    return file && has_usdt_probe(file->fd.get(), provider, name);
}
}  // namespace

const Mapping* find_module_mapping(const std::vector<Mapping>& maps, const std::string& path) {
    for (const Mapping& m : maps)
        if (m.path == path && m.offset == 0) return &m;
    return nullptr;
}

std::string mapped_file_path(pid_t pid, const Mapping& m) {
    char path[96];
    std::snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", static_cast<int>(pid),
                  static_cast<unsigned long long>(m.start), static_cast<unsigned long long>(m.end));
    return path;
}

Expected<std::string> mapped_module_path(pid_t pid, const std::vector<Mapping>& maps, const std::string& path) {
    const Mapping* m = find_module_mapping(maps, path);
    if (!m) return make_error(path + " is no longer mapped in process " + std::to_string(pid));
    return mapped_file_path(pid, *m);
}

bool has_usdt_probe(int fd, const std::string& provider, const std::string& name) {
    auto elf = ElfHandle::read(fd, "a probe module");
    if (!elf) return false;
    bool found = false;
    Elf_Scn* scn = nullptr;
    while (!found && (scn = elf_nextscn(elf->get(), scn)) != nullptr) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE ||
            !section_in_file(*elf, shdr.sh_type, shdr.sh_offset, shdr.sh_size))
            continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        size_t offset = 0, name_offset = 0, desc_offset = 0;
        GElf_Nhdr note;
        while (data && (offset = gelf_getnote(data, offset, &note, &name_offset, &desc_offset)) > 0) {
            // stapsdt note: owner "stapsdt", type 3; descriptor = 3 addresses, then
            // provider\0name\0args\0 (systemtap's sdt.h).
            const char* owner = static_cast<const char*>(data->d_buf) + name_offset;
            if (note.n_type != 3 || note.n_namesz != 8 || std::strncmp(owner, "stapsdt", 8) != 0) continue;
            const char* desc = static_cast<const char*>(data->d_buf) + desc_offset;
            size_t words = 3 * (gelf_getclass(elf->get()) == ELFCLASS32 ? 4 : 8);
            if (note.n_descsz <= words) continue;
            const char* p = desc + words;
            const char* end = desc + note.n_descsz;
            std::string prov(p, strnlen(p, end - p));
            p += prov.size() + 1;
            if (p >= end) continue;
            std::string probe(p, strnlen(p, end - p));
            if (prov == provider && probe == name) {
                found = true;
                break;
            }
        }
    }
    return found;
}

Expected<std::string> find_vtscope_library(pid_t pid, const std::vector<Mapping>& maps) {
    std::set<std::string> tried;
    for (const Mapping& m : maps) {
        if (m.offset != 0 || m.path.empty() || m.path[0] != '/' || m.path.find(".so") == std::string::npos ||
            !tried.insert(m.path).second)
            continue;
        auto file = open_module(pid, m);
        if (!file) continue;
        auto elf = ElfFile::load(file->fd.get(), {"vtscope_native_init"}, m.path);
        if (elf && elf->find("vtscope_native_init")) return m.path;
    }
    return make_error("libvtscope.so is not loaded in process " + std::to_string(pid) +
                      " (start the JVM with -agentpath:libvtscope.so=probes)");
}

std::optional<ProbeEventsLocation> find_probe_events_state(pid_t pid, const std::vector<Mapping>& maps,
                                                           const std::string& library) {
    constexpr const char* kActive = "vtscope_probe_events_active";
    constexpr const char* kEpoch = "vtscope_probe_events_epoch";
    const Mapping* base = find_module_mapping(maps, library);
    if (!base) return std::nullopt;
    auto file = open_module(pid, *base);
    if (!file) return std::nullopt;
    auto elf = ElfFile::load(file->fd.get(), {kActive, kEpoch}, library);
    if (!elf) return std::nullopt;
    const ElfSymbol* active = elf->find(kActive);
    const ElfSymbol* epoch = elf->find(kEpoch);
    if (!active || !epoch) return std::nullopt;
    uint64_t bias = base->start - elf->first_load_vaddr();
    return ProbeEventsLocation{bias + active->value, bias + epoch->value};
}

std::optional<ProbeEventsState> read_probe_events_state(const MemoryReader& memory, const ProbeEventsLocation& at) {
    ProbeEventsState state;
    if (!memory.read_value(at.active, state.active) || !memory.read_value(at.epoch, state.epoch)) return std::nullopt;
    return state;
}

bool wait_for_probe_events(const MemoryReader& memory, const ProbeEventsLocation& at,
                           std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        auto state = read_probe_events_state(memory, at);
        if (!state) return false;
        if (state->active == 1) return true;
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

bool wait_for_probe_events(pid_t pid, const std::vector<Mapping>& maps, const std::string& library,
                           const MemoryReader& memory, std::chrono::milliseconds timeout) {
    auto at = find_probe_events_state(pid, maps, library);
    return !at || wait_for_probe_events(memory, *at, timeout);  // an older library: always on
}

Expected<std::string> find_hotspot_probe_module(pid_t pid, const std::vector<Mapping>& maps) {
    if (const Mapping* jvm = find_libjvm(maps)) {
        if (module_has_usdt_probe(pid, *jvm, "hotspot", "vthread__thaw")) return jvm->path;
        return make_error(
            "this JVM has no hotspot:vthread__thaw probe (the hotspot-probes channel needs the paper's "
            "patched JDK)");
    }
    char exe[PATH_MAX];
    ssize_t n = readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), exe, sizeof(exe) - 1);
    if (n > 0) {
        std::string path(exe, static_cast<size_t>(n));
        const Mapping* m = find_module_mapping(maps, path);
        if (m && module_has_usdt_probe(pid, *m, "hotspot", "vthread__thaw")) return path;
    }
    return make_error("process " + std::to_string(pid) + " has no hotspot:vthread__* probes");
}

}  // namespace vtscope
