// Names for the addresses of a sampled stack: user frames through the target's mappings (ELF
// .symtab/.dynsym of the mapped file, the JVM's perf map /tmp/perf-PID.map for JIT code) and
// kernel frames through /proc/kallsyms. The mappings are snapshotted while the target lives,
// so a target that exited before the final drain still symbolises.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "proc_maps.h"

namespace vtscope {

// A sorted table of function symbols: address -> name.
class SymbolTable {
public:
    void add(uint64_t start, uint64_t size, std::string name);
    // Sorts after the last add.
    void seal();
    // The symbol covering addr (a zero size covers up to the next symbol); null when none.
    const std::string* find(uint64_t addr) const;
    size_t size() const { return entries_.size(); }

private:
    struct Entry {
        uint64_t start;
        uint64_t size;
        std::string name;
    };
    std::vector<Entry> entries_;
};

// The lines "START SIZE NAME" (hex, as HotSpot's Compiler.perfmap and perf-map-agent write them).
void parse_perf_map(std::string_view text, SymbolTable& table);
// Function symbols of an ELF file, at their link-time addresses, demangled; plus its PT_LOAD
// segments to turn a file offset into a link-time address.
struct ElfSymbols {
    SymbolTable symbols;
    struct Segment {
        uint64_t vaddr, offset, filesz;
    };
    std::vector<Segment> segments;
    bool loaded = false;
};
ElfSymbols load_elf_symbols(const std::string& path);

class StackSymbolizer {
public:
    explicit StackSymbolizer(pid_t pid) : pid_(pid) {}
    // While the target lives: its current mappings are added (the latest wins on overlap).
    void snapshot_maps();
    // Reads /tmp/perf-PID.map if present (replacing what an earlier read gave): true if read.
    bool load_perf_map();
    // A user frame: "symbol" (ELF or perf map) or "[module+0xoff]" / "[unknown]".
    std::string user_frame(uint64_t ip);
    // A kernel frame: "symbol_[k]".
    std::string kernel_frame(uint64_t ip);
    bool have_perf_map() const { return perf_map_.size() > 0; }

private:
    pid_t pid_;
    std::vector<Mapping> maps_;  // sorted by start
    SymbolTable perf_map_;
    std::map<std::string, std::unique_ptr<ElfSymbols>> elves_;
    std::unique_ptr<SymbolTable> kallsyms_;
};

}  // namespace vtscope
