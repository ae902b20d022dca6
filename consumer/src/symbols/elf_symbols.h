// SPDX-License-Identifier: Apache-2.0
// Symbol look-up in an ELF file (both .symtab and .dynsym), and virtual address to file offset
// conversion for uprobes. libjvm.so keeps a full .symtab, so HotSpot's internal functions
// (JavaThread::run, Threads::remove) are found there.
//
// The files are the target's, and the target may be hostile: they are read from a descriptor
// the caller opened (open_module: the mapped inode itself, or a path inside the target's root),
// through libelf's ELF_C_READ (read(2) into memory, never mmap: a file the target truncates while
// it is mapped would raise SIGBUS here), with every section checked to lie inside the file and
// every count bounded before use. Any descriptor will do (the fuzzer passes a memfd).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/expected.h"
#include "process/proc_maps.h"
#include "process/target_files.h"

typedef struct Elf Elf;  // libelf

namespace vtscope {

// Bounds on the work a crafted ELF file can ask for (docs/security.md).
inline constexpr size_t kMaxElfSymbols = size_t{1} << 21;  // per table; libjvm.so's .symtab holds ~100k
inline constexpr size_t kMaxElfRelocations = size_t{1} << 21;
inline constexpr size_t kMaxElfSegments = 256;       // PT_LOAD entries kept; a shared object has 4 or 5
inline constexpr size_t kMaxSymbolNameBytes = 4096;  // longer names are skipped, never demangled

// A libelf handle on a descriptor that stays the caller's (elf_end only).
class ElfHandle {
public:
    // Begins reading fd (ELF_C_READ); an error unless it is an ELF file.
    static Expected<ElfHandle> read(int fd, const std::string& what);
    ElfHandle(ElfHandle&& other) noexcept : elf_(other.elf_), file_size_(other.file_size_) { other.elf_ = nullptr; }
    ElfHandle(const ElfHandle&) = delete;
    ElfHandle& operator=(const ElfHandle&) = delete;
    ElfHandle& operator=(ElfHandle&&) = delete;
    ~ElfHandle();
    Elf* get() const { return elf_; }
    uint64_t file_size() const { return file_size_; }

private:
    ElfHandle(Elf* elf, uint64_t file_size) : elf_(elf), file_size_(file_size) {}
    Elf* elf_ = nullptr;
    uint64_t file_size_ = 0;
};

struct ElfSymbol {
    uint64_t value = 0;  // link-time virtual address (for STT_TLS: offset in the TLS block)
    uint64_t size = 0;
    bool is_tls = false;
};

struct ElfSegment {
    uint64_t vaddr = 0;
    uint64_t offset = 0;
    uint64_t filesz = 0;
};

// A defined symbol of .symtab or .dynsym, as for_each_symbol gives it.
struct ElfSymbolEntry {
    const char* name;  // NUL-terminated, at most kMaxSymbolNameBytes
    uint64_t value;
    uint64_t size;
    unsigned type;  // STT_*
};

// The PT_LOAD segments (at most kMaxElfSegments), in file order.
std::vector<ElfSegment> load_segments(const ElfHandle& elf);
// Each defined, named symbol of the file's symbol tables (at most kMaxElfSymbols a table; names
// longer than kMaxSymbolNameBytes skipped); sections that lie outside the file are skipped.
void for_each_symbol(const ElfHandle& elf, const std::function<void(const ElfSymbolEntry&)>& visit);
// Whether a section's bytes lie inside the file (libelf would otherwise allocate sh_size bytes
// for a section a crafted header declares, whatever the file holds).
bool section_in_file(const ElfHandle& elf, uint64_t sh_type, uint64_t sh_offset, uint64_t sh_size);

class ElfFile {
public:
    // Loads the named symbols (others are not kept) and the PT_LOAD segments from an opened file;
    // `what` names it in errors.
    static Expected<ElfFile> load(int fd, const std::vector<std::string>& names, const std::string& what);

    const ElfSymbol* find(const std::string& name) const;
    // File offset of a link-time address, as uprobes want it; 0 when outside every segment.
    uint64_t file_offset(uint64_t vaddr) const;
    // Link-time address of the first PT_LOAD with file offset 0 (the load bias reference).
    uint64_t first_load_vaddr() const { return first_load_vaddr_; }
    // Link-time address of the TLS descriptor (GOT slot of an R_X86_64_TLSDESC relocation)
    // for a loaded symbol, or 0 when the file has none (OTEP 4947's recommended dialect).
    uint64_t tlsdesc_slot(const std::string& name) const;

private:
    void load_tlsdesc_slots(const ElfHandle& elf);
    std::unordered_map<std::string, ElfSymbol> symbols_;
    std::unordered_map<std::string, uint64_t> tlsdesc_slots_;
    std::vector<ElfSegment> segments_;
    uint64_t first_load_vaddr_ = 0;
};

// Opens the file a target maps at `m`: through /proc/PID/map_files (the mapped inode, whatever
// its path now names) while the mapping exists, else by its path inside the target's root
// (`root`, or /proc/PID/root opened now when null). Never the same path on the host; never a
// path that says " (deleted)" (another file may have that name now). Regular, at most kMaxElfBytes.
Expected<TargetFile> open_module(pid_t pid, const Mapping& m, const TargetRoot* root = nullptr);

}  // namespace vtscope
