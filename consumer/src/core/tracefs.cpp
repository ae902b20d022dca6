// SPDX-License-Identifier: Apache-2.0
#include "core/tracefs.h"

#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include "output/diagnostics.h"

namespace vtscope {

namespace {
bool is_dir(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
}  // namespace

Expected<std::string> find_tracefs() {
    for (const char* root : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
        if (is_dir(std::string(root) + "/events/syscalls")) return std::string(root);
    }
    // As perf does (tools/lib/api/fs/tracing_path.c): the mount stays, like any tracefs mount.
    if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) == 0 &&
        is_dir("/sys/kernel/tracing/events/syscalls")) {
        diagnostics::note("tracefs was not mounted; mounted it at /sys/kernel/tracing");
        return std::string("/sys/kernel/tracing");
    }
    return make_error(std::string("tracefs is not mounted and could not be mounted at /sys/kernel/tracing (") +
                      std::strerror(errno) + "); tracepoints need it");
}

bool syscall_tracepoint_exists(const std::string& tracefs, const std::string& syscall) {
    return is_dir(tracefs + "/events/syscalls/sys_enter_" + syscall);
}

}  // namespace vtscope

namespace vtscope {

std::optional<int> parse_syscall_argument_count(std::string_view format) {
    size_t nr = format.find("field:int __syscall_nr;");
    if (nr == std::string_view::npos) return std::nullopt;
    int count = 0;
    for (size_t at = format.find("field:", nr + 1); at != std::string_view::npos; at = format.find("field:", at + 1))
        count++;
    return count;
}

std::optional<int> syscall_argument_count(const std::string& tracefs, const std::string& syscall) {
    std::ifstream in(tracefs + "/events/syscalls/sys_enter_" + syscall + "/format");
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    return parse_syscall_argument_count(text.str());
}

}  // namespace vtscope
