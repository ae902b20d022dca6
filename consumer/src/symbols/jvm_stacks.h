// SPDX-License-Identifier: Apache-2.0
// What the subcommands that take stacks of a JVM (profile, block) share on the user side: the
// symbolizer kept fresh (the target's mappings, and the perf map that HotSpot writes on
// Compiler.perfmap for its JIT code), the -XX:+PreserveFramePointer check, and the frames of one
// stack as the kernel gave it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "symbols/stack_symbolizer.h"
#include "process/target.h"

namespace vtscope {

// A frame that marks where a virtual thread's stack begins (the continuation's entry) or where
// any thread's stack begins: a user stack that reaches one is complete.
bool is_entry_frame(const std::string& frame);

// The CPU time of a process in ns, all its threads, exited ones included: its
// CLOCK_PROCESS_CPUTIME_ID (the threads' sum_exec_runtime, thread_group_cputime in
// kernel/sched/cputime.c); nullopt when it cannot be read (the process is gone).
std::optional<uint64_t> process_cpu_ns(pid_t pid);

// The CPU time in ns of the JVM's "Attach Listener" thread, which runs every diagnostic command
// sent through the attach socket (AttachListenerThread::thread_entry and the operation's
// function, src/hotspot/share/services/attachListener.cpp): what Compiler.perfmap costs the
// target. 0 while the JVM has no such thread; *tid caches the thread's id between calls.
uint64_t attach_listener_cpu_ns(pid_t pid, pid_t* tid);

// When the JVM is asked for its perf map again. A refresh is needed only when a stack holds an
// address in the code cache that the current map does not name; and the refreshes may take at
// most `budget` of the target's CPU: after one that cost the target c ns, the next waits until the
// target has used c / budget ns since. Plain logic, so it is tested without a JVM.
class PerfMapSchedule {
public:
    // Half of issue 12's 1% target at 99 Hz, beside the sampler's 0.05-0.8%. It sets how stale the
    // map may get while the JIT compiles: on the demo service at 999 Hz with --stacks, 0.25% gave
    // refreshes 3.6 s apart and 9.6% of the samples kept an unnamed JIT frame at exit (when no
    // final refresh can run), against 2.9% with main's refresh every 2 s; 0.5% gave refreshes
    // 1.8-3.3 s apart and 2.95% (main's build on the same JVM: 3.42%).
    static constexpr double kDefaultBudget = 0.005;

    explicit PerfMapSchedule(double budget = kDefaultBudget) : budget_(budget) {}
    // Addresses of JIT code seen in stacks that the current map does not name.
    void unnamed(size_t addresses) { pending_ += addresses; }
    size_t pending() const { return pending_; }
    // Whether a refresh may run now; target_cpu_ns: the target's CPU time in all.
    bool due(uint64_t target_cpu_ns) const;
    // A refresh ran and cost the target cost_ns; target_cpu_ns: its CPU time after it. The
    // addresses pending before it are now named, or their code was gone when it ran (or was never
    // code): no later refresh names them either.
    void refreshed(uint64_t cost_ns, uint64_t target_cpu_ns);
    unsigned refreshes() const { return refreshes_; }
    uint64_t cost_ns() const { return total_cost_ns_; }

private:
    double budget_;
    size_t pending_ = 0;
    unsigned refreshes_ = 0;
    uint64_t last_cost_ns_ = 0, cpu_after_last_ns_ = 0, total_cost_ns_ = 0;
};

class JvmStacks {
public:
    explicit JvmStacks(const Target& target) : target_(target), symbolizer_(target.pid) {}
    // At attach: the mappings, the JVM's flags and its perf map. Each warning goes to stderr once
    // and stays in warnings().
    void prepare();
    // Every sync round (250 ms): the mappings every second; the perf map when schedule() says so.
    void sync_round();
    // At the end: the last mappings, and the perf map while the target lives if a stack holds JIT
    // code the map does not name yet (whatever the budget: nothing names it later); after the
    // target's exit, the perf map it may have written itself (-XX:+DumpPerfMapAtExit).
    void finish();
    // Has the JVM write its perf map now and reads it, if a stack needs it and the budget allows
    // (PerfMapSchedule; after finish(), whatever the budget); false when it is not due, or (with
    // a warning, once) when it cannot.
    bool refresh_perf_map();
    // The user addresses of a stack whose frames are named at the end (profile): those in JIT
    // code that the current map does not name make a refresh needed.
    void note_user_stack(std::span<const uint64_t> ips);
    // The symbolised frames of ips (leaf first, as bpf_get_stack gives them), in that order; the
    // user stack is noted as by note_user_stack.
    std::vector<std::string> user_frames(std::span<const uint64_t> ips);
    std::vector<std::string> kernel_frames(std::span<const uint64_t> ips);
    // One kernel frame; warns once when the kernel hides its symbols' addresses.
    std::string kernel_frame(uint64_t ip);
    StackSymbolizer& symbolizer() { return symbolizer_; }
    const PerfMapSchedule& schedule() const { return schedule_; }
    const std::vector<std::string>& warnings() const { return warnings_; }

private:
    void warn(const std::string& text);
    bool write_perf_map();  // unconditionally, unless perf_map_request_refused()
    // True (with a warning, once) when the target's /tmp holds something at the map's name that
    // the JVM must not be made to write through.
    bool perf_map_request_refused();
    void snapshot_maps();  // and places the addresses that were in no mapping before
    void note_unnamed(uint64_t ip);

    const Target& target_;
    StackSymbolizer symbolizer_;
    PerfMapSchedule schedule_;
    std::vector<uint64_t> unmapped_;  // user addresses in no executable mapping when noted
    // Unnamed JIT addresses noted since the last refresh, and those a refresh after their noting
    // did not name either.
    std::unordered_set<uint64_t> noted_, unnamable_;
    std::vector<std::string> warnings_;
    int round_ = 0;
    pid_t attach_listener_ = 0;
    bool perf_map_warned_ = false;
    bool kernel_symbols_warned_ = false;
    bool finished_ = false;
};

}  // namespace vtscope
