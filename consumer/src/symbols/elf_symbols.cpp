// SPDX-License-Identifier: Apache-2.0
#include "symbols/elf_symbols.h"

#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <unordered_set>

namespace vtscope {

Expected<ElfHandle> ElfHandle::read(int fd, const std::string& what) {
    if (elf_version(EV_CURRENT) == EV_NONE) return make_error("libelf initialisation failed");
    struct stat st;
    if (fstat(fd, &st) != 0) return make_error("cannot stat " + what + ": " + std::strerror(errno));
    // ELF_C_READ reads what libelf needs with pread (elfutils read_unmmaped_file); ELF_C_READ_MMAP
    // would map the file, and a target truncating it would fault us with SIGBUS.
    Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
    if (!elf) return make_error(what + " is not an ELF file");
    ElfHandle handle(elf, static_cast<uint64_t>(std::max<off_t>(st.st_size, 0)));
    if (elf_kind(elf) != ELF_K_ELF) return make_error(what + " is not an ELF file");
    return handle;
}

ElfHandle::~ElfHandle() {
    if (elf_) elf_end(elf_);
}

bool section_in_file(const ElfHandle& elf, uint64_t sh_type, uint64_t sh_offset, uint64_t sh_size) {
    if (sh_type == SHT_NOBITS) return true;
    return sh_offset <= elf.file_size() && sh_size <= elf.file_size() - sh_offset;
}

std::vector<ElfSegment> load_segments(const ElfHandle& elf) {
    std::vector<ElfSegment> segments;
    size_t phnum = 0;
    if (elf_getphdrnum(elf.get(), &phnum) != 0) return segments;
    for (size_t i = 0; i < phnum && segments.size() < kMaxElfSegments; i++) {
        GElf_Phdr phdr;
        if (gelf_getphdr(elf.get(), static_cast<int>(i), &phdr) && phdr.p_type == PT_LOAD)
            segments.push_back({phdr.p_vaddr, phdr.p_offset, phdr.p_filesz});
    }
    return segments;
}

namespace {

// The data of a section of the wanted type that lies inside the file, with its header.
Elf_Data* checked_data(const ElfHandle& elf, Elf_Scn* scn, GElf_Shdr& shdr) {
    if (!gelf_getshdr(scn, &shdr) || !section_in_file(elf, shdr.sh_type, shdr.sh_offset, shdr.sh_size)) return nullptr;
    return elf_getdata(scn, nullptr);
}

// A name of at most kMaxSymbolNameBytes from string table `strtab`, else null: the demangler
// must never see a longer one (crafted mangled names can take it exponential time and stack).
const char* bounded_name(const ElfHandle& elf, size_t strtab, size_t offset) {
    const char* name = elf_strptr(elf.get(), strtab, offset);
    if (!name || !*name || strnlen(name, kMaxSymbolNameBytes + 1) > kMaxSymbolNameBytes) return nullptr;
    return name;
}

}  // namespace

void for_each_symbol(const ElfHandle& elf, const std::function<void(const ElfSymbolEntry&)>& visit) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf.get(), scn)) != nullptr) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr) || (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM)) continue;
        Elf_Data* data = checked_data(elf, scn, shdr);
        if (!data) continue;
        // The count from the data libelf read, not from the header's sh_entsize.
        size_t count = std::min(data->d_size / gelf_fsize(elf.get(), ELF_T_SYM, 1, EV_CURRENT), kMaxElfSymbols);
        for (size_t i = 0; i < count; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_shndx == SHN_UNDEF) continue;
            const char* name = bounded_name(elf, shdr.sh_link, sym.st_name);
            if (name) visit({name, sym.st_value, sym.st_size, static_cast<unsigned>(GELF_ST_TYPE(sym.st_info))});
        }
    }
}

Expected<ElfFile> ElfFile::load(int fd, const std::vector<std::string>& names, const std::string& what) {
    auto elf = ElfHandle::read(fd, what);
    if (!elf) return elf.error();
    ElfFile file;
    size_t phnum = 0;
    if (elf_getphdrnum(elf->get(), &phnum) != 0) return make_error(what + ": no program headers");
    file.segments_ = load_segments(*elf);
    if (!file.segments_.empty()) file.first_load_vaddr_ = file.segments_[0].vaddr - file.segments_[0].offset;
    std::unordered_set<std::string> wanted(names.begin(), names.end());
    for_each_symbol(*elf, [&](const ElfSymbolEntry& sym) {
        if (wanted.count(sym.name))
            file.symbols_.try_emplace(sym.name, ElfSymbol{sym.value, sym.size, sym.type == STT_TLS});
    });
    file.load_tlsdesc_slots(*elf);
    return file;
}

// TLS descriptors of the loaded symbols: .rela.dyn entries of type R_X86_64_TLSDESC whose
// symbol (an index into the section's linked .dynsym) is one of them.
void ElfFile::load_tlsdesc_slots(const ElfHandle& elf) {
    if (symbols_.empty()) return;
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf.get(), scn)) != nullptr) {
        GElf_Shdr shdr, symtab_header;
        if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_RELA) continue;
        Elf_Data* data = checked_data(elf, scn, shdr);
        Elf_Scn* symtab = elf_getscn(elf.get(), shdr.sh_link);
        Elf_Data* symdata = symtab ? checked_data(elf, symtab, symtab_header) : nullptr;
        if (!data || !symdata) continue;
        size_t count = std::min(data->d_size / gelf_fsize(elf.get(), ELF_T_RELA, 1, EV_CURRENT), kMaxElfRelocations);
        for (size_t i = 0; i < count; i++) {
            GElf_Rela rela;
            GElf_Sym sym;
            if (!gelf_getrela(data, static_cast<int>(i), &rela) || GELF_R_TYPE(rela.r_info) != R_X86_64_TLSDESC ||
                !gelf_getsym(symdata, static_cast<int>(GELF_R_SYM(rela.r_info)), &sym))
                continue;
            const char* name = bounded_name(elf, symtab_header.sh_link, sym.st_name);
            if (name && symbols_.count(name)) tlsdesc_slots_.try_emplace(name, rela.r_offset);
        }
    }
}

const ElfSymbol* ElfFile::find(const std::string& name) const {
    auto it = symbols_.find(name);
    return it == symbols_.end() ? nullptr : &it->second;
}

uint64_t ElfFile::tlsdesc_slot(const std::string& name) const {
    auto it = tlsdesc_slots_.find(name);
    return it == tlsdesc_slots_.end() ? 0 : it->second;
}

uint64_t ElfFile::file_offset(uint64_t vaddr) const {
    for (const ElfSegment& s : segments_) {
        if (vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz) return vaddr - s.vaddr + s.offset;
    }
    return 0;
}

Expected<TargetFile> open_module(pid_t pid, const Mapping& m, const TargetRoot* root) {
    auto mapped = open_mapped_file(pid, m.start, m.end, kMaxElfBytes);
    if (mapped || m.path.empty() || m.path[0] != '/' || m.path.ends_with(" (deleted)")) return mapped;
    // The mapping is gone (the target exited or unmapped it): the path, inside the target's root.
    std::optional<TargetRoot> opened;
    if (!root) {
        auto now = TargetRoot::open(pid);
        if (!now) return mapped.error();
        opened.emplace(std::move(*now));
        root = &*opened;
    }
    return root->open_regular(m.path, kMaxElfBytes, Symlinks::kResolveInRoot);
}

}  // namespace vtscope
