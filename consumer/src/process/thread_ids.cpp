// SPDX-License-Identifier: Apache-2.0
#include "process/thread_ids.h"

#include <dirent.h>

#include <cstdlib>
#include <string>

#include "process/proc_status.h"

namespace vtscope {

std::optional<pid_t> ThreadIds::host_tid(pid_t ns_tid) {
    if (!own_namespace_) return ns_tid;
    auto found = ns_to_host_.find(ns_tid);
    if (found == ns_to_host_.end()) {
        refresh();
        found = ns_to_host_.find(ns_tid);
        if (found == ns_to_host_.end()) return std::nullopt;
    }
    return found->second;
}

std::optional<pid_t> ThreadIds::ns_tid(pid_t host_tid) {
    if (!own_namespace_) return host_tid;
    auto found = host_to_ns_.find(host_tid);
    if (found == host_to_ns_.end()) {
        // A tid found gone stays gone: a host tid is not handed out again until the pid space
        // wraps, so an exited thread's remaining events do not list /proc/PID/task each.
        if (gone_.count(host_tid)) return std::nullopt;
        refresh();
        found = host_to_ns_.find(host_tid);
        if (found == host_to_ns_.end()) {
            if (gone_.size() >= kMaxThreads) gone_.clear();
            gone_.insert(host_tid);
            return std::nullopt;
        }
    }
    return found->second;
}

void ThreadIds::refresh() {
    std::string dir_path = "/proc/" + std::to_string(pid_) + "/task";
    DIR* dir = opendir(dir_path.c_str());
    if (!dir) return;  // the target is gone: what is known stays for its last events
    std::unordered_map<pid_t, pid_t> live;
    while (dirent* entry = readdir(dir)) {
        char* end = nullptr;
        long tid = std::strtol(entry->d_name, &end, 10);
        if (tid <= 0 || *end != '\0' || live.size() >= kMaxThreads) continue;
        auto known = host_to_ns_.find(static_cast<pid_t>(tid));
        if (known != host_to_ns_.end()) {
            live.emplace(known->first, known->second);
            continue;
        }
        // NSpid of a thread lists its tid in each namespace, the host's first, its own last.
        auto status = read_thread_status(pid_, static_cast<pid_t>(tid));
        if (status && status->ns_levels > 1) live.emplace(static_cast<pid_t>(tid), status->ns_pid);
    }
    closedir(dir);
    host_to_ns_ = std::move(live);
    ns_to_host_.clear();
    for (const auto& [host, ns] : host_to_ns_) ns_to_host_.emplace(ns, host);
}

}  // namespace vtscope
