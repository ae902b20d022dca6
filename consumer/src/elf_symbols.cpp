#include "elf_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_set>

namespace vtscope {

ElfHandle::~ElfHandle() {
    if (elf) elf_end(elf);
    if (fd >= 0) close(fd);
}

Expected<ElfFile> ElfFile::load(const std::string& path, const std::vector<std::string>& names) {
    if (elf_version(EV_CURRENT) == EV_NONE) return make_error("libelf initialisation failed");
    ElfHandle h;
    h.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (h.fd < 0) return make_error("cannot open " + path + ": " + std::strerror(errno));
    h.elf = elf_begin(h.fd, ELF_C_READ, nullptr);
    if (!h.elf || elf_kind(h.elf) != ELF_K_ELF) return make_error(path + " is not an ELF file");

    ElfFile file;
    size_t phnum = 0;
    if (elf_getphdrnum(h.elf, &phnum) != 0) return make_error(path + ": no program headers");
    bool have_first = false;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr phdr;
        if (!gelf_getphdr(h.elf, static_cast<int>(i), &phdr) || phdr.p_type != PT_LOAD) continue;
        file.segments_.push_back({phdr.p_vaddr, phdr.p_offset, phdr.p_filesz});
        if (!have_first) {
            file.first_load_vaddr_ = phdr.p_vaddr - phdr.p_offset;
            have_first = true;
        }
    }

    std::unordered_set<std::string> wanted(names.begin(), names.end());
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(h.elf, scn)) != nullptr) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr) || (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM)) continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data || shdr.sh_entsize == 0) continue;
        size_t count = shdr.sh_size / shdr.sh_entsize;
        for (size_t i = 0; i < count; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_shndx == SHN_UNDEF) continue;
            const char* name = elf_strptr(h.elf, shdr.sh_link, sym.st_name);
            if (!name || !wanted.count(name)) continue;
            file.symbols_.try_emplace(name, ElfSymbol{sym.st_value, sym.st_size, GELF_ST_TYPE(sym.st_info) == STT_TLS});
        }
    }

    // TLS descriptors of the wanted symbols: .rela.dyn entries of type R_X86_64_TLSDESC whose
    // symbol (an index into the section's linked .dynsym) is one of them.
    scn = nullptr;
    while ((scn = elf_nextscn(h.elf, scn)) != nullptr) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_RELA || shdr.sh_entsize == 0) continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        Elf_Scn* symtab = elf_getscn(h.elf, shdr.sh_link);
        GElf_Shdr symtab_header;
        Elf_Data* symdata = symtab ? elf_getdata(symtab, nullptr) : nullptr;
        if (!data || !symdata || !gelf_getshdr(symtab, &symtab_header)) continue;
        size_t count = shdr.sh_size / shdr.sh_entsize;
        for (size_t i = 0; i < count; i++) {
            GElf_Rela rela;
            if (!gelf_getrela(data, static_cast<int>(i), &rela) || GELF_R_TYPE(rela.r_info) != R_X86_64_TLSDESC)
                continue;
            GElf_Sym sym;
            if (!gelf_getsym(symdata, static_cast<int>(GELF_R_SYM(rela.r_info)), &sym)) continue;
            const char* name = elf_strptr(h.elf, symtab_header.sh_link, sym.st_name);
            if (name && wanted.count(name)) file.tlsdesc_slots_.try_emplace(name, rela.r_offset);
        }
    }
    return file;
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
        if (vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz) return vaddr - s.vaddr + s.offset;
    }
    return 0;
}

}  // namespace vtscope
