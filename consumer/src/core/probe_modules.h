// SPDX-License-Identifier: Apache-2.0
// Where the USDT lifecycle probes live in a target.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "process/proc_maps.h"
#include "process/process_memory.h"

namespace vtscope {

// The mapped libvtscope.so (any file name: the Java loader extracts it under a hashed name),
// recognised by its exported vtscope_native_init. Its path as the target sees it.
Expected<std::string> find_vtscope_library(pid_t pid, const std::vector<Mapping>& maps);

// libvtscope.so enables the JVMTI events behind its probes only while a tracer holds a probe
// semaphore; it notices within 50 ms (native/include/vtscope_native.h). It exports the state:
// vtscope_probe_events_active (1 while every start, mount, unmount and end fires its probe) and
// vtscope_probe_events_epoch (incremented each time they go on). A tracer reads both, never writes.
struct ProbeEventsState {
    uint32_t active = 0;
    uint32_t epoch = 0;
};

struct ProbeEventsLocation {
    uint64_t active = 0;  // addresses in the target
    uint64_t epoch = 0;
};

// Where the loaded library keeps that state; nullopt when it predates it (its events are then
// always on) or the file cannot be read.
std::optional<ProbeEventsLocation> find_probe_events_state(pid_t pid, const std::vector<Mapping>& maps,
                                                           const std::string& library);
std::optional<ProbeEventsState> read_probe_events_state(const MemoryReader& memory, const ProbeEventsLocation& at);

// Waits up to timeout for the events to be on. True once they are, or at once if the library
// predates the state; false on timeout or when the target can no longer be read.
bool wait_for_probe_events(const MemoryReader& memory, const ProbeEventsLocation& at,
                           std::chrono::milliseconds timeout);
bool wait_for_probe_events(pid_t pid, const std::vector<Mapping>& maps, const std::string& library,
                           const MemoryReader& memory, std::chrono::milliseconds timeout);

// The module with the paper's hotspot:vthread__* probes: libjvm.so of a patched JDK, else the
// target's executable (the probe-ABI test program).
Expected<std::string> find_hotspot_probe_module(pid_t pid, const std::vector<Mapping>& maps);

// True if the opened ELF file has a .note.stapsdt entry for provider:name.
bool has_usdt_probe(int fd, const std::string& provider, const std::string& name);

// The offset-0 mapping of the module the target maps from `path` (as its maps say); null if none.
const Mapping* find_module_mapping(const std::vector<Mapping>& maps, const std::string& path);
// /proc/PID/map_files/START-END of a mapping: a path that the kernel resolves to the mapped inode
// itself (proc_map_files_get_link, fs/proc/base.c), which the target cannot redirect as it can a
// path inside its root. Probes are attached through it.
std::string mapped_file_path(pid_t pid, const Mapping& m);
// mapped_file_path of the module mapped from `path`: the kernel (and libbpf's ELF reader) get the
// inode the target maps, not a path in its root that it could point elsewhere before the attach.
Expected<std::string> mapped_module_path(pid_t pid, const std::vector<Mapping>& maps, const std::string& path);

}  // namespace vtscope
