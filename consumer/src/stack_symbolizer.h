// Names for the addresses of a sampled stack: user frames through the target's mappings (ELF
// .symtab/.dynsym of the mapped file, the JVM's perf map /tmp/perf-PID.map for JIT code) and
// kernel frames through /proc/kallsyms. The mappings are snapshotted while the target lives,
// so a target that exited before the final drain still symbolises.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ctime>
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
    // Adds the entries of an older table that overlap none of this one's, then seals: this table
    // is the newer perf map, where code the JVM has freed since the older one is gone. The older
    // names still describe samples taken while that code lived; where new code took the place,
    // the newer name wins.
    void keep_older(const SymbolTable& older);
    size_t size() const { return entries_.size(); }

private:
    struct Entry {
        uint64_t start;
        uint64_t size;
        std::string name;
    };
    bool overlaps(uint64_t start, uint64_t end) const;  // any entry within [start, end)
    std::vector<Entry> entries_;
};

// What a user address is to the JVM's perf map.
enum class JitAddress {
    kNotJit,    // in a mapped file (its ELF symbols name it) or a special mapping ([vdso])
    kNamed,     // named by the perf map
    kUnnamed,   // in anonymous executable memory (the code cache) that the perf map does not name
    kUnmapped,  // in no executable mapping of the last snapshot
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
    // Reads perf_map_path() if present (else, for a JVM that has exited, /tmp/perf-PID.map if it was
    // written since this symbolizer was made), keeping what earlier reads named and it does not
    // (SymbolTable::keep_older): true if read.
    bool load_perf_map();
    // The target's /tmp/perf-PID.map, through its root: HotSpot writes it into the /tmp it sees
    // (Compiler.perfmap's default file, "/tmp/perf-%p.map"), which is not the host's under
    // systemd's PrivateTmp= or in another mount namespace.
    std::string perf_map_path() const;
    JitAddress classify(uint64_t ip) const;
    // A user frame: "symbol" (ELF or perf map) or "[module+0xoff]" / "[unknown]".
    std::string user_frame(uint64_t ip);
    // A kernel frame: "symbol_[k]".
    std::string kernel_frame(uint64_t ip);
    bool have_perf_map() const { return perf_map_.size() > 0; }

private:
    const Mapping* mapping_of(uint64_t ip) const;  // null when in none

    pid_t pid_;
    time_t created_ = time(nullptr);  // a /tmp/perf-PID.map older than this is not the target's
    std::vector<Mapping> maps_;       // sorted by start
    SymbolTable perf_map_;
    std::map<std::string, std::unique_ptr<ElfSymbols>> elves_;
    std::unique_ptr<SymbolTable> kallsyms_;
};

}  // namespace vtscope
