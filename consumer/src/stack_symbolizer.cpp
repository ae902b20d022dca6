#include "stack_symbolizer.h"

#include "elf_symbols.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace vtscope {
namespace {

std::string demangle(const char* name) {
    if (name[0] != '_' || name[1] != 'Z') return name;
    int status = 0;
    char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || !out) return name;
    std::string result(out);
    std::free(out);
    // Drop the argument list: frames read better as "JavaThread::run" than with the types.
    if (auto paren = result.find('('); paren != std::string::npos && paren > 0) result.resize(paren);
    return result;
}

std::string hex(uint64_t v) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "0x%llx", static_cast<unsigned long long>(v));
    return buffer;
}

std::string base_name(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void SymbolTable::add(uint64_t start, uint64_t size, std::string name) {
    entries_.push_back({start, size, std::move(name)});
}

void SymbolTable::seal() {
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.start < b.start; });
}

const std::string* SymbolTable::find(uint64_t addr) const {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), addr,
                               [](uint64_t a, const Entry& e) { return a < e.start; });
    // Among symbols starting at or below addr, the nearest that covers it (sizes may nest).
    for (int back = 0; it != entries_.begin() && back < 4; back++) {
        --it;
        if (it->size == 0 ? (std::next(it) == entries_.end() || addr < std::next(it)->start)
                          : addr < it->start + it->size)
            return &it->name;
    }
    return nullptr;
}

bool SymbolTable::overlaps(uint64_t start, uint64_t end) const {
    auto it =
        std::lower_bound(entries_.begin(), entries_.end(), end, [](const Entry& e, uint64_t a) { return e.start < a; });
    // Entries starting before end; a perf map's code blobs do not nest, but look a few back as find does.
    for (int back = 0; it != entries_.begin() && back < 4; back++) {
        --it;
        if (it->start + std::max<uint64_t>(it->size, 1) > start) return true;
    }
    return false;
}

void SymbolTable::keep_older(const SymbolTable& older) {
    std::vector<Entry> kept;  // apart until the end: overlaps() searches the sorted newer entries
    for (const Entry& e : older.entries_)
        if (!overlaps(e.start, e.start + std::max<uint64_t>(e.size, 1))) kept.push_back(e);
    if (kept.empty()) return;
    entries_.insert(entries_.end(), std::make_move_iterator(kept.begin()), std::make_move_iterator(kept.end()));
    seal();
}

void parse_perf_map(std::string_view text, SymbolTable& table) {
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string line(text.substr(pos, end - pos));
        pos = end + 1;
        unsigned long long start = 0, size = 0;
        int name_at = 0;
        if (std::sscanf(line.c_str(), "%llx %llx %n", &start, &size, &name_at) < 2 || name_at <= 0) continue;
        std::string name = line.substr(static_cast<size_t>(name_at));
        // HotSpot appends "(N bytes)" and the compilation tier; the frame is the method, without
        // its return type and parameters ("long a.B.spin(long, int)" -> "a.B.spin").
        if (auto paren = name.find(" ("); paren != std::string::npos) name.resize(paren);
        if (auto paren = name.find('('); paren != std::string::npos && paren > 0) {
            name.resize(paren);
            if (auto space = name.rfind(' '); space != std::string::npos) name.erase(0, space + 1);
        }
        table.add(start, size, std::move(name));
    }
    table.seal();
}

ElfSymbols load_elf_symbols(const std::string& path) {
    ElfSymbols out;
    if (elf_version(EV_CURRENT) == EV_NONE) return out;
    ElfHandle h;
    h.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (h.fd < 0) return out;
    h.elf = elf_begin(h.fd, ELF_C_READ, nullptr);
    if (!h.elf || elf_kind(h.elf) != ELF_K_ELF) return out;
    size_t phnum = 0;
    if (elf_getphdrnum(h.elf, &phnum) == 0)
        for (size_t i = 0; i < phnum; i++) {
            GElf_Phdr phdr;
            if (gelf_getphdr(h.elf, static_cast<int>(i), &phdr) && phdr.p_type == PT_LOAD)
                out.segments.push_back({phdr.p_vaddr, phdr.p_offset, phdr.p_filesz});
        }
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(h.elf, scn)) != nullptr) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr) || (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM)) continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data || shdr.sh_entsize == 0) continue;
        size_t count = shdr.sh_size / shdr.sh_entsize;
        for (size_t i = 0; i < count; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
                continue;
            if (GELF_ST_TYPE(sym.st_info) != STT_FUNC) continue;
            const char* name = elf_strptr(h.elf, shdr.sh_link, sym.st_name);
            if (!name || !*name) continue;
            out.symbols.add(sym.st_value, sym.st_size, demangle(name));
        }
    }
    out.symbols.seal();
    out.loaded = true;
    return out;
}

void StackSymbolizer::snapshot_maps() {
    auto maps = read_maps(pid_);
    if (!maps) return;
    for (const Mapping& m : *maps) {
        if (m.perms.size() < 3 || m.perms[2] != 'x') continue;
        // Drop what the new mapping overlaps: the latest layout wins.
        std::erase_if(maps_, [&](const Mapping& old) { return old.start < m.end && m.start < old.end; });
        maps_.push_back(m);
    }
    std::sort(maps_.begin(), maps_.end(), [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
}

std::string StackSymbolizer::perf_map_path() const {
    return "/proc/" + std::to_string(pid_) + "/root/tmp/perf-" + std::to_string(pid_) + ".map";
}

bool StackSymbolizer::load_perf_map() {
    std::ifstream file(perf_map_path());
    if (!file) {
        // Once the JVM has exited its root is gone; a map it left in a /tmp it shares with this
        // process (-XX:+DumpPerfMapAtExit) is still in ours. One older than this symbolizer is
        // another process's, which had the pid before (hosts keep them: nothing removes them).
        std::string shared = "/tmp/perf-" + std::to_string(pid_) + ".map";
        struct stat st;
        if (stat(shared.c_str(), &st) != 0 || st.st_mtime < created_) return false;
        file.open(shared);
    }
    if (!file) return false;
    std::stringstream buffer;
    buffer << file.rdbuf();
    SymbolTable table;
    parse_perf_map(buffer.str(), table);
    if (table.size() == 0) return false;
    table.keep_older(perf_map_);
    perf_map_ = std::move(table);
    return true;
}

const Mapping* StackSymbolizer::mapping_of(uint64_t ip) const {
    auto it =
        std::upper_bound(maps_.begin(), maps_.end(), ip, [](uint64_t a, const Mapping& m) { return a < m.start; });
    if (it != maps_.begin() && ip < std::prev(it)->end) return &*std::prev(it);
    return nullptr;
}

JitAddress StackSymbolizer::classify(uint64_t ip) const {
    const Mapping* m = mapping_of(ip);
    if (m && !m->path.empty() && m->path[0] == '/') return JitAddress::kNotJit;
    if (perf_map_.find(ip)) return JitAddress::kNamed;
    if (!m) return JitAddress::kUnmapped;
    // HotSpot reserves its code cache as anonymous memory (CodeCache::reserve_heap_memory,
    // src/hotspot/share/code/codeCache.cpp); a kernel-named mapping ([vdso], [vsyscall]) is not JIT code.
    return m->path.empty() || m->path.starts_with("[anon") ? JitAddress::kUnnamed : JitAddress::kNotJit;
}

std::string StackSymbolizer::user_frame(uint64_t ip) {
    const Mapping* m = mapping_of(ip);
    bool file_backed = m && !m->path.empty() && m->path[0] == '/';
    if (!file_backed) {
        if (const std::string* name = perf_map_.find(ip)) return *name;
        if (m && !m->path.empty()) return m->path[0] == '[' ? m->path : "[" + m->path + "]";
        return "[unknown]";
    }
    auto& elf = elves_[m->path];
    if (!elf) elf = std::make_unique<ElfSymbols>(load_elf_symbols("/proc/" + std::to_string(pid_) + "/root" + m->path));
    if (!elf->loaded) *elf = load_elf_symbols(m->path);
    uint64_t offset = ip - m->start + m->offset;
    for (const auto& seg : elf->segments) {
        if (offset < seg.offset || offset >= seg.offset + seg.filesz) continue;
        if (const std::string* name = elf->symbols.find(seg.vaddr + (offset - seg.offset))) return *name;
        break;
    }
    return "[" + base_name(m->path) + "+" + hex(offset) + "]";
}

std::string StackSymbolizer::kernel_frame(uint64_t ip) {
    if (!kallsyms_) {
        kallsyms_ = std::make_unique<SymbolTable>();
        std::ifstream file("/proc/kallsyms");
        std::string line;
        while (std::getline(file, line)) {
            unsigned long long addr = 0;
            char type = 0;
            char name[256];
            if (std::sscanf(line.c_str(), "%llx %c %255s", &addr, &type, name) != 3 || addr == 0) continue;
            if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
            kallsyms_->add(addr, 0, name);
        }
        kallsyms_->seal();
    }
    const std::string* name = kallsyms_->find(ip);
    return (name ? *name : hex(ip)) + "_[k]";
}

}  // namespace vtscope
