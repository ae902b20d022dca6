// SPDX-License-Identifier: Apache-2.0
#include "process/target.h"

#include <signal.h>

#include <cerrno>

#include "channels/identity_channels.h"
#include "cli/privilege.h"
#include "process/proc_status.h"

namespace vtscope {

Error exited_during_attach(pid_t pid) { return make_error("target " + std::to_string(pid) + " exited during attach"); }

Expected<Target> open_target(pid_t pid, IdentityChannel channel, const std::string& command) {
    auto handle = ProcessHandle::open(pid);
    if (!handle) return handle.error();
    if (handle->exited() || !process_alive(pid)) return make_error("no process with pid " + std::to_string(pid));
    if (!have_bpf_privilege()) return make_error("no BPF privilege: vtscope " + command + " needs " + kPrivilegeText);
    Target target(std::move(*handle));
    // Read through the pidfd's process, which has not exited (checked above): a JVM in a container
    // has a pid of its own there (NSpid), which its record region and file names carry.
    auto status = read_proc_status(pid);
    if (!status) return target.alive() ? status.error() : make_error("no process with pid " + std::to_string(pid));
    if (status->ns_levels > 0) target.ns_pid = status->ns_pid;
    if (!channel_info(channel).reads_jvm) return target;
    auto jvm = inspect_jvm(pid, target.memory);
    if (!jvm) return target.alive() ? jvm.error() : exited_during_attach(pid);
    target.jvm = std::move(*jvm);
    // On JDK 21-23 the Java writer cannot share libvtscope's region (that takes FFM, a preview
    // there), so the records a library channel reads never hold the contexts the Java side
    // publishes: every event would be unattributed on the content plane.
    if (target.jvm.oop_identity && channel_info(channel).needs_library)
        return make_error("unsupported on JDK 21-23: --identity " + std::string(identity_name(channel)) +
                          " reads libvtscope's records, which the JDK 21 writer cannot share (it needs FFM, JDK 22+); "
                          "the default vmstructs channel works there");
    return target;
}

}  // namespace vtscope
