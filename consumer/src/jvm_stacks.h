// What the subcommands that take stacks of a JVM (profile, block) share on the user side: the
// symbolizer kept fresh (the target's mappings, and the perf map that HotSpot writes on
// Compiler.perfmap for its JIT code), the -XX:+PreserveFramePointer check, and the frames of one
// stack as the kernel gave it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stack_symbolizer.h"
#include "target.h"

namespace vtscope {

// A frame that marks where a virtual thread's stack begins (the continuation's entry) or where
// any thread's stack begins: a user stack that reaches one is complete.
bool is_entry_frame(const std::string& frame);

class JvmStacks {
public:
    explicit JvmStacks(const Target& target) : target_(target), symbolizer_(target.pid) {}
    // At attach: the mappings, the JVM's flags and its perf map. Each warning goes to stderr once
    // and stays in warnings().
    void prepare();
    // Every sync round (250 ms): the mappings every second, the perf map every 2 s.
    void sync_round();
    // At the end: the last mappings and perf map while the target lives; after its exit, the perf
    // map it may have written itself (-XX:+DumpPerfMapAtExit).
    void finish();
    // Has the JVM write its perf map now and reads it; false (and a warning, once) if it cannot.
    bool refresh_perf_map();
    // The symbolised frames of ips (leaf first, as bpf_get_stack gives them), in that order.
    std::vector<std::string> user_frames(std::span<const uint64_t> ips);
    std::vector<std::string> kernel_frames(std::span<const uint64_t> ips);
    StackSymbolizer& symbolizer() { return symbolizer_; }
    const std::vector<std::string>& warnings() const { return warnings_; }

private:
    void warn(const std::string& text);

    const Target& target_;
    StackSymbolizer symbolizer_;
    std::vector<std::string> warnings_;
    int round_ = 0;
    bool perf_map_warned_ = false;
};

}  // namespace vtscope
