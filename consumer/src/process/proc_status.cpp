// SPDX-License-Identifier: Apache-2.0
#include "process/proc_status.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "process/target_files.h"

namespace vtscope {
namespace {

// The whitespace-separated decimal fields after a "Key:" prefix, at most max of them, each at most
// limit; false when a field is not a decimal number in range or there are more than max.
bool parse_fields(std::string_view rest, uint64_t limit, uint64_t* out, int max, int* count) {
    *count = 0;
    size_t i = 0;
    for (;;) {
        while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) i++;
        if (i == rest.size()) return *count > 0;
        if (*count == max) return false;
        uint64_t value = 0;
        size_t digits = 0;
        for (; i < rest.size() && rest[i] >= '0' && rest[i] <= '9'; i++, digits++) {
            value = value * 10 + static_cast<uint64_t>(rest[i] - '0');
            if (value > limit) return false;
        }
        if (digits == 0) return false;
        out[(*count)++] = value;
    }
}

void take_line(std::string_view line, ProcStatus& s) {
    constexpr uint64_t kMaxId = 0xfffffffeu;  // (uid_t)-1 is "no id" (include/linux/uidgid.h)
    constexpr uint64_t kMaxPid = 0x3fffffff;  // PID_MAX_LIMIT is 4M; anything past 2^30 is not a pid
    uint64_t f[kMaxNsPidFields];
    int n = 0;
    // "Uid:\treal\teffective\tsaved\tfs" and the same for Gid (task_state, fs/proc/array.c).
    if (line.starts_with("Uid:") && parse_fields(line.substr(4), kMaxId, f, 4, &n) && n == 4) {
        s.real_uid = static_cast<uid_t>(f[0]);
        s.effective_uid = static_cast<uid_t>(f[1]);
        s.has_uid = true;
    } else if (line.starts_with("Gid:") && parse_fields(line.substr(4), kMaxId, f, 4, &n) && n == 4) {
        s.real_gid = static_cast<gid_t>(f[0]);
        s.effective_gid = static_cast<gid_t>(f[1]);
        s.has_gid = true;
    } else if (line.starts_with("NSpid:") && parse_fields(line.substr(6), kMaxPid, f, kMaxNsPidFields, &n) &&
               f[n - 1] > 0) {
        // "NSpid:\t<id in the reader's namespace>\t...\t<id in the task's own>".
        s.ns_levels = n;
        s.ns_pid = static_cast<pid_t>(f[n - 1]);
    }
}

Expected<ProcStatus> read_status_file(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return make_error("cannot open " + path + ": " + std::strerror(errno));
    auto text = read_capped(fd.get(), kMaxProcStatusBytes, path);
    if (!text) return text.error();
    return parse_proc_status(*text);
}

}  // namespace

ProcStatus parse_proc_status(std::string_view text) {
    ProcStatus s;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        take_line(text.substr(pos, end - pos), s);
        pos = end + 1;
    }
    return s;
}

Expected<ProcStatus> read_proc_status(pid_t pid) {
    return read_status_file("/proc/" + std::to_string(pid) + "/status");
}

Expected<ProcStatus> read_thread_status(pid_t pid, pid_t tid) {
    return read_status_file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
}

}  // namespace vtscope
