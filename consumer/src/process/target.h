// SPDX-License-Identifier: Apache-2.0
// The process being observed: its pid, what vtscope learnt of its JVM before attaching, and the
// one read-only view of its memory and maps that every part of a session goes through.
#pragma once

#include <sys/types.h>

#include <vector>

#include "core/expected.h"
#include "jvm/jvm_target.h"
#include "core/identity.h"
#include "process/proc_maps.h"
#include "process/process_handle.h"
#include "process/process_memory.h"

namespace vtscope {

struct Target {
    pid_t pid = 0;
    // Its pid in its own pid namespace (the last of NSpid, process/proc_status.h): what the JVM's
    // getpid() says, so what it writes in its record region and names its files with. pid when the
    // target shares vtscope's pid namespace (or the kernel has no NSpid).
    pid_t ns_pid = 0;
    ProcessHandle process;  // held for the session: a reused pid is never taken for the target
    JvmTarget jvm;          // empty for the hotspot-probes channel (it reads no JVM structure)
    ProcessMemory memory;   // reads only: the consumer never writes target memory

    explicit Target(ProcessHandle handle)
        : pid(handle.pid()), ns_pid(pid), process(std::move(handle)), memory(pid, process.pidfd()) {}
    Expected<std::vector<Mapping>> maps() const { return read_maps(pid); }
    bool alive() const { return !process.exited() && process_alive(pid); }
    // Whether the target runs in a pid namespace of its own (its ids differ from the host's).
    bool own_pid_namespace() const { return ns_pid != pid; }
};

// The checks every attaching subcommand makes, in the order a user needs their answers: the pid
// exists, vtscope may use BPF, and (unless the channel needs no JVM) the target is a supported
// HotSpot JVM. `command` names the subcommand in the errors.
Expected<Target> open_target(pid_t pid, IdentityChannel channel, const std::string& command);

// The one error for a target that went away while vtscope was attaching to it, whatever step
// noticed (reading its maps or symbols, attaching a probe, waiting for its library).
Error exited_during_attach(pid_t pid);

}  // namespace vtscope
