#include "bpf_stats.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

namespace vtscope::bench {

std::map<uint32_t, ProgramStats> bpf_program_stats() {
    std::map<uint32_t, ProgramStats> out;
    uint32_t id = 0;
    while (bpf_prog_get_next_id(id, &id) == 0) {
        int fd = bpf_prog_get_fd_by_id(id);
        if (fd < 0) continue;
        bpf_prog_info info{};
        uint32_t length = sizeof(info);
        if (bpf_obj_get_info_by_fd(fd, &info, &length) == 0) out[id] = {info.name, info.run_cnt, info.run_time_ns};
        close(fd);
    }
    return out;
}

ProgramStats busiest_program(const std::map<uint32_t, ProgramStats>& before,
                             const std::map<uint32_t, ProgramStats>& after, const std::string& name,
                             const std::vector<uint32_t>& ids) {
    ProgramStats best;
    for (const auto& [id, a] : after) {
        auto b = before.find(id);
        if (b == before.end() || a.runs <= b->second.runs || (!name.empty() && a.name != name)) continue;
        if (!ids.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) continue;
        uint64_t runs = a.runs - b->second.runs;
        if (runs > best.runs) best = {a.name, runs, a.run_time_ns - b->second.run_time_ns};
    }
    return best;
}

std::vector<uint32_t> programs_of_process(int pid) {
    std::vector<uint32_t> ids;
    std::string dir = "/proc/" + std::to_string(pid) + "/fdinfo";
    DIR* d = opendir(dir.c_str());
    if (!d) return ids;
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] == '.') continue;
        std::ifstream info(dir + "/" + e->d_name);
        std::string line;
        while (std::getline(info, line))
            if (line.rfind("prog_id:", 0) == 0) ids.push_back(static_cast<uint32_t>(std::stoul(line.substr(8))));
    }
    closedir(d);
    return ids;
}

}  // namespace vtscope::bench
