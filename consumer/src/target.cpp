#include "target.h"

#include <signal.h>

#include <cerrno>

#include "identity_channels.h"
#include "privilege.h"

namespace vtscope {

Expected<Target> open_target(pid_t pid, IdentityChannel channel, const std::string& command) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return make_error("no process with pid " + std::to_string(pid));
    if (!have_bpf_privilege())
        return make_error("no BPF privilege: vtscope " + command + " " + kPrivilegeText);
    Target target(pid);
    if (!channel_info(channel).reads_jvm) return target;
    auto jvm = inspect_jvm(pid, target.memory);
    if (!jvm) return jvm.error();
    target.jvm = std::move(*jvm);
    return target;
}

}  // namespace vtscope
