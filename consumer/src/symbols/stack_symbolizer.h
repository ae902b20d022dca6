// SPDX-License-Identifier: Apache-2.0
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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "process/proc_maps.h"
#include "process/target_files.h"

namespace vtscope {

// At most this many perf map entries are kept (a large application's map: some 500,000 lines);
// the lines past it are ignored, so a hostile map's memory is bounded whatever its line count.
inline constexpr size_t kMaxPerfMapEntries = size_t{1} << 21;
// Frame names (a perf map's, a demangled symbol's) are cut to this many bytes.
inline constexpr size_t kMaxFrameNameBytes = 4096;

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
    // At most max_entries in all (a perf map's cap; tests pass a smaller one).
    void keep_older(const SymbolTable& older, size_t max_entries = kMaxPerfMapEntries);
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

// The lines "START SIZE NAME" (hex, as HotSpot's Compiler.perfmap and perf-map-agent write them),
// at most max_entries of them, in one pass: a pure function of the text (fuzzed).
void parse_perf_map(std::string_view text, SymbolTable& table, size_t max_entries = kMaxPerfMapEntries);
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
// From an opened file (any descriptor: the fuzzer passes a memfd); `what` names it in errors.
// Symbol names longer than kMaxSymbolNameBytes are skipped before the demangler sees them.
ElfSymbols load_elf_symbols(int fd, const std::string& what);

// What /proc/PID/status says of a process: its pid in its own pid namespace (the last field of
// NSpid, which is the pid HotSpot sees and names its perf map with) and its effective uid.
struct TargetIds {
    pid_t ns_pid = 0;
    uid_t uid = 0;
    bool known = false;  // both were read
};
TargetIds parse_target_ids(std::string_view status, pid_t pid);
TargetIds read_target_ids(pid_t pid);

class StackSymbolizer {
public:
    // Opens the target's root and its /tmp now: they stay reachable through these descriptors
    // after the target has exited (a -XX:+DumpPerfMapAtExit map is read then).
    explicit StackSymbolizer(pid_t pid);
    // While the target lives: its current mappings are added (the latest wins on overlap).
    void snapshot_maps();
    // Reads the target's perf map, keeping what earlier reads named and it does not
    // (SymbolTable::keep_older). It must be a regular file, no symlink, at most kMaxPerfMapBytes,
    // owned by the target's uid or root (perf's rule: dso__load in tools/perf/util/symbol.c
    // ignores a map "not owned by current user or root"); an error says why it was not read.
    Status load_perf_map();
    // Whether the JVM may be asked to write its map (Compiler.perfmap opens the name with
    // O_CREAT|O_TRUNC and follows a symlink: PerfMapWriter / os::fopen in HotSpot): there is no
    // such name yet, or it is a regular file of the target's uid with one link.
    Status check_perf_map_before_write() const;
    // "/tmp/perf-NSPID.map", as the target sees it: HotSpot writes it into the /tmp it sees
    // (Compiler.perfmap's default file, "/tmp/perf-%p.map", %p its own pid), which is not the
    // host's under systemd's PrivateTmp= or in another mount or pid namespace.
    std::string perf_map_name() const;
    JitAddress classify(uint64_t ip) const;
    // A user frame: "symbol" (ELF or perf map) or "[module+0xoff]" / "[unknown]".
    std::string user_frame(uint64_t ip);
    // A kernel frame: "symbol_[k]".
    std::string kernel_frame(uint64_t ip);
    // True once kernel_frame found /proc/kallsyms without addresses (no CAP_SYSLOG).
    bool kernel_symbols_hidden() const { return kernel_symbols_hidden_; }
    bool have_perf_map() const { return perf_map_.size() > 0; }

private:
    const Mapping* mapping_of(uint64_t ip) const;  // null when in none
    std::string perf_map_file() const;             // "perf-NSPID.map"

    pid_t pid_;
    TargetIds ids_;
    std::optional<TargetRoot> root_;  // the target's root, opened at construction
    std::optional<TargetRoot> tmp_;   // its /tmp (no symlink on the way), as a root of its own
    time_t created_ = time(nullptr);  // after the target's exit, a map older than this is not its
    std::vector<Mapping> maps_;       // sorted by start
    SymbolTable perf_map_;
    std::map<std::string, std::unique_ptr<ElfSymbols>> elves_;
    std::unique_ptr<SymbolTable> kallsyms_;
    bool kernel_symbols_hidden_ = false;
};

}  // namespace vtscope
