// Run count and run time of every loaded BPF program, as the kernel keeps them while
// bpf_enable_stats(BPF_STATS_RUN_TIME) is held: the program's own cost per run (the write storm,
// the block part).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vtscope::bench {

struct ProgramStats {
    std::string name;  // bpf_prog_info.name: the program's first 15 characters
    uint64_t runs = 0;
    uint64_t run_time_ns = 0;
};

// Every loaded program, by id.
std::map<uint32_t, ProgramStats> bpf_program_stats();

// The program that ran most often between two snapshots (runs and run time are the differences),
// among those of that name (empty: any) and, unless ids is empty, those ids; runs 0 when none ran.
ProgramStats busiest_program(const std::map<uint32_t, ProgramStats>& before,
                             const std::map<uint32_t, ProgramStats>& after, const std::string& name = "",
                             const std::vector<uint32_t>& ids = {});

// The ids of the BPF programs a process holds open (the prog_id lines of /proc/PID/fdinfo): on a
// shared machine, another user's program of the same name is not the one measured.
std::vector<uint32_t> programs_of_process(int pid);

}  // namespace vtscope::bench
