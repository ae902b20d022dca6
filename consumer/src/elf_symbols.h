// Symbol look-up in an ELF file (both .symtab and .dynsym), and virtual address to file offset
// conversion for uprobes. libjvm.so keeps a full .symtab, so HotSpot's internal functions
// (JavaThread::run, Threads::remove) are found there.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "expected.h"

typedef struct Elf Elf;  // libelf

namespace vtscope {

// An open file and its libelf handle, both released together.
struct ElfHandle {
    int fd = -1;
    Elf* elf = nullptr;
    ElfHandle() = default;
    ElfHandle(const ElfHandle&) = delete;
    ElfHandle& operator=(const ElfHandle&) = delete;
    ~ElfHandle();
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

class ElfFile {
public:
    // Loads the named symbols (others are not kept) and the PT_LOAD segments.
    static Expected<ElfFile> load(const std::string& path, const std::vector<std::string>& names);

    const ElfSymbol* find(const std::string& name) const;
    // File offset of a link-time address, as uprobes want it; 0 when outside every segment.
    uint64_t file_offset(uint64_t vaddr) const;
    // Link-time address of the first PT_LOAD with file offset 0 (the load bias reference).
    uint64_t first_load_vaddr() const { return first_load_vaddr_; }
    // Link-time address of the TLS descriptor (GOT slot of an R_X86_64_TLSDESC relocation)
    // for a loaded symbol, or 0 when the file has none (OTEP 4947's recommended dialect).
    uint64_t tlsdesc_slot(const std::string& name) const;

private:
    std::unordered_map<std::string, ElfSymbol> symbols_;
    std::unordered_map<std::string, uint64_t> tlsdesc_slots_;
    std::vector<ElfSegment> segments_;
    uint64_t first_load_vaddr_ = 0;
};

}  // namespace vtscope
