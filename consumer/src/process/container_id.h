// SPDX-License-Identifier: Apache-2.0
// The id of the container a process runs in, from its cgroup path (/proc/PID/cgroup): the
// OpenTelemetry resource attribute container.id. The container runtimes name a container's
// cgroup after its 64-hex-digit id (docker, containerd, cri-o, podman), in one of these forms:
//   /docker/<id>                          docker, cgroupfs driver
//   /system.slice/docker-<id>.scope       docker, systemd driver
//   .../cri-containerd-<id>.scope         containerd (Kubernetes, systemd driver)
//   /kubepods/burstable/pod<uid>/<id>     Kubernetes, cgroupfs driver (containerd, cri-o)
//   .../crio-<id>.scope                   cri-o
//   /machine.slice/libpod-<id>.scope[/container]   podman
// The id is the last '-'-separated part of a path component, without ".scope", of exactly 64
// lowercase hex digits; the deepest such component wins. The runtimes' monitor processes
// (libpod-conmon-<id>, crio-conmon-<id>) are not the container and are skipped. The file is the
// kernel's text, but the path components are named by whoever made the cgroups (inside a
// container with cgroup delegation: the container), so the parser is bounded and validates.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace vtscope {

// At most this much of /proc/PID/cgroup is read (a line per v1 hierarchy: some 15 lines).
inline constexpr size_t kMaxCgroupFileBytes = 64 * 1024;

// The container id in /proc/PID/cgroup's text ("hierarchy-ID:controllers:path" lines,
// Documentation/admin-guide/cgroup-v2.rst and cgroups(7)); nullopt when there is none.
std::optional<std::string> parse_container_id(std::string_view cgroup_text);
// The same for process pid; nullopt also when the file cannot be read.
std::optional<std::string> read_container_id(pid_t pid);

}  // namespace vtscope
