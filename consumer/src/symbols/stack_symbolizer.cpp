// SPDX-License-Identifier: Apache-2.0
#include "symbols/stack_symbolizer.h"

#include "symbols/elf_symbols.h"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "jvm/jvm_target.h"
#include "process/proc_status.h"

namespace vtscope {
namespace {

// Names reach here at most kMaxSymbolNameBytes long (for_each_symbol skips longer ones): the
// demangler's work grows with its input, and crafted names make it grow fast.
std::string demangle(const char* name) {
    if (name[0] != '_' || name[1] != 'Z') return name;
    int status = 0;
    char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || !out) return name;
    std::string result(out, strnlen(out, kMaxFrameNameBytes));
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

void SymbolTable::keep_older(const SymbolTable& older, size_t max_entries) {
    std::vector<Entry> kept;  // apart until the end: overlaps() searches the sorted newer entries
    for (const Entry& e : older.entries_) {
        if (entries_.size() + kept.size() >= max_entries) break;  // bounded across refreshes too
        if (!overlaps(e.start, e.start + std::max<uint64_t>(e.size, 1))) kept.push_back(e);
    }
    if (kept.empty()) return;
    entries_.insert(entries_.end(), std::make_move_iterator(kept.begin()), std::make_move_iterator(kept.end()));
    seal();
}

void parse_perf_map(std::string_view text, SymbolTable& table, size_t max_entries) {
    size_t pos = 0;
    while (pos < text.size() && table.size() < max_entries) {
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
        if (name.size() > kMaxFrameNameBytes) name.resize(kMaxFrameNameBytes);
        table.add(start, size, std::move(name));
    }
    table.seal();
}

ElfSymbols load_elf_symbols(int fd, const std::string& what) {
    ElfSymbols out;
    auto elf = ElfHandle::read(fd, what);
    if (!elf) return out;
    for (const ElfSegment& s : load_segments(*elf)) out.segments.push_back({s.vaddr, s.offset, s.filesz});
    for_each_symbol(*elf, [&](const ElfSymbolEntry& sym) {
        if (sym.type == STT_FUNC && sym.value != 0) out.symbols.add(sym.value, sym.size, demangle(sym.name));
    });
    out.symbols.seal();
    out.loaded = true;
    return out;
}

namespace {

TargetIds target_ids(const ProcStatus& status, pid_t pid) {
    TargetIds ids;
    // A kernel before 4.1 has no NSpid line: no pid namespaces to tell apart.
    ids.ns_pid = status.ns_levels > 0 ? status.ns_pid : pid;
    ids.uid = status.effective_uid;
    ids.known = status.has_uid;
    return ids;
}

}  // namespace

TargetIds parse_target_ids(std::string_view status, pid_t pid) { return target_ids(parse_proc_status(status), pid); }

TargetIds read_target_ids(pid_t pid) {
    auto status = read_proc_status(pid);
    return status ? target_ids(*status, pid) : TargetIds{pid, 0, false};
}

StackSymbolizer::StackSymbolizer(pid_t pid) : pid_(pid), ids_(read_target_ids(pid)) {
    auto root = TargetRoot::open(pid);
    if (!root) return;
    if (auto tmp = root->open_directory("/tmp"))
        tmp_.emplace(TargetRoot::from_fd(std::move(*tmp), "the /tmp of process " + std::to_string(pid)));
    root_.emplace(std::move(*root));
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

std::string StackSymbolizer::perf_map_file() const { return "perf-" + std::to_string(ids_.ns_pid) + ".map"; }

std::string StackSymbolizer::perf_map_name() const { return "/tmp/" + perf_map_file(); }

Status StackSymbolizer::check_perf_map_before_write() const {
    std::string of = " of process " + std::to_string(pid_);
    if (!tmp_ || !ids_.known) return make_error("cannot open /tmp" + of + " without a symbolic link on the way");
    struct stat st;
    if (fstatat(tmp_->fd(), perf_map_file().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? ok_status()
                               : make_error("cannot stat " + perf_map_name() + of + ": " + std::strerror(errno));
    // A symlink or a hard link planted there would have the JVM write through it.
    if (!S_ISREG(st.st_mode) || st.st_uid != ids_.uid || st.st_nlink != 1)
        return make_error(perf_map_name() + of + " is not a regular file of the JVM's user (uid " +
                          std::to_string(ids_.uid) + ") with one link (refused)");
    return ok_status();
}

Status StackSymbolizer::load_perf_map() {
    if (!tmp_ || !ids_.known)
        return make_error("cannot open /tmp of process " + std::to_string(pid_) +
                          " without a symbolic link on the way");
    auto file = tmp_->open_regular(perf_map_file(), kMaxPerfMapBytes, Symlinks::kRefuse);
    if (!file) return file.error();
    std::string what = perf_map_name() + " of process " + std::to_string(pid_);
    if (file->st.st_uid != 0 && file->st.st_uid != ids_.uid)
        return make_error(what + " is owned by uid " + std::to_string(file->st.st_uid) +
                          ", neither the JVM's user nor root (ignored)");
    // Once the JVM has exited, a map older than this symbolizer is another process's, which had
    // the pid before (hosts keep them: nothing removes them).
    if (file->st.st_mtime < created_ && !process_alive(pid_)) return make_error(what + " predates this session");
    auto text = read_capped(file->fd.get(), kMaxPerfMapBytes, what);
    if (!text) return text.error();
    SymbolTable table;
    parse_perf_map(*text, table);
    if (table.size() == 0) return make_error(what + " names no code");
    table.keep_older(perf_map_);
    perf_map_ = std::move(table);
    return ok_status();
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
    if (!elf) {
        // Without the root opened at construction the pid was gone then: whatever has it now is
        // another process.
        auto file = root_ ? open_module(pid_, *m, &*root_) : Expected<TargetFile>(make_error("no target"));
        elf = std::make_unique<ElfSymbols>(file ? load_elf_symbols(file->fd.get(), m->path) : ElfSymbols{});
    }
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
        bool any_line = false;
        while (std::getline(file, line)) {
            unsigned long long addr = 0;
            char type = 0;
            char name[256];
            if (std::sscanf(line.c_str(), "%llx %c %255s", &addr, &type, name) != 3) continue;
            any_line = true;
            if (addr == 0) continue;
            if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
            kallsyms_->add(addr, 0, name);
        }
        kallsyms_->seal();
        // kptr_restrict shows every address as 0 to a reader without CAP_SYSLOG (lib/vsprintf.c,
        // restricted_pointer): the names are there, the addresses are not.
        kernel_symbols_hidden_ = any_line && kallsyms_->size() == 0;
    }
    const std::string* name = kallsyms_->find(ip);
    return (name ? *name : hex(ip)) + "_[k]";
}

}  // namespace vtscope
