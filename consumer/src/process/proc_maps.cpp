// SPDX-License-Identifier: Apache-2.0
#include "process/proc_maps.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace vtscope {

std::vector<Mapping> parse_maps(std::string_view text) {
    std::vector<Mapping> result;
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        // start-end perms offset dev inode [path]
        Mapping m;
        char perms[8] = {};
        unsigned long long start = 0, end = 0, offset = 0, inode = 0;
        int path_pos = -1;
        if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %llu %n", &start, &end, perms, &offset, &inode,
                        &path_pos) < 5)
            continue;
        m.start = start;
        m.end = end;
        m.perms = perms;
        m.offset = offset;
        if (path_pos > 0 && static_cast<size_t>(path_pos) < line.size()) m.path = line.substr(path_pos);
        result.push_back(std::move(m));
    }
    return result;
}

Expected<std::vector<Mapping>> read_maps(pid_t pid) {
    std::string path = "/proc/" + std::to_string(pid) + "/maps";
    std::ifstream file(path);
    if (!file) return make_error("cannot read " + path + ": " + std::strerror(errno));
    std::stringstream buffer;
    buffer << file.rdbuf();
    return parse_maps(buffer.str());
}

const Mapping* find_libjvm(const std::vector<Mapping>& maps) {
    static constexpr std::string_view kSuffix = "/libjvm.so";
    for (const Mapping& m : maps) {
        if (m.offset == 0 && m.path.size() >= kSuffix.size() &&
            m.path.compare(m.path.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
            return &m;
    }
    return nullptr;
}

}  // namespace vtscope
